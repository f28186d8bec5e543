"""rules/constraints.lp: matchAttribute / distinctAttribute, scalar and list semantics."""

from __future__ import annotations

from rules_support import derived

from kubefit.solver.asp import schema as s

FILES = ["constraints.lp"]


def _picks(
    kind: str, values: dict[int, list[str]], odd: tuple[int, ...] = (), novalue: tuple[int, ...] = ()
) -> list[object]:
    """Slot 0 picks devices 0..n; device d has the string elements values[d]."""
    facts: list[object] = [s.ConstraintFact(constraint=0, claim=0, kind=kind), s.Covers(constraint=0, slot=0)]
    for d in sorted({*values, *odd, *novalue}):
        facts.append(s.Use(slot=0, device=d))
        facts += [s.Value(constraint=0, slot=0, device=d, kind="string", text=v) for v in values.get(d, [])]
    facts += [s.Odd(constraint=0, slot=0, device=d) for d in odd]
    facts += [s.NoValue(constraint=0, slot=0, device=d) for d in novalue]
    return facts


VIOLATED = {"violated(constraint(0))"}


def test_match_needs_one_element_common_to_all_devices() -> None:
    assert derived(FILES, _picks("match", {0: ["a"], 1: ["a"]})) == set()
    assert derived(FILES, _picks("match", {0: ["a"], 1: ["b"]})) == VIOLATED
    assert derived(FILES, _picks("match", {0: ["a", "b"], 1: ["b", "c"], 2: ["c", "a"]})) == VIOLATED
    assert derived(FILES, _picks("match", {0: ["a", "b"], 1: ["b", "c"], 2: ["b"]})) == set()


def test_different_kinds_never_match() -> None:
    facts = _picks("match", {0: ["1"]})
    facts += [s.Use(slot=0, device=1), s.Value(constraint=0, slot=0, device=1, kind="int", text="1")]
    assert derived(FILES, facts) == VIOLATED


def test_a_lone_odd_value_matches_but_not_with_another_device() -> None:
    assert derived(FILES, _picks("match", {}, odd=(0,))) == set()
    assert derived(FILES, _picks("match", {1: ["a"]}, odd=(0,))) == VIOLATED


def test_a_missing_attribute_always_fails() -> None:
    assert derived(FILES, _picks("match", {}, novalue=(0,))) == VIOLATED
    assert derived(FILES, _picks("distinct", {}, novalue=(0,))) == VIOLATED


def test_distinct_needs_pairwise_disjoint_values() -> None:
    assert derived(FILES, _picks("distinct", {0: ["a", "b"], 1: ["c"]})) == set()
    assert derived(FILES, _picks("distinct", {0: ["a", "b"], 1: ["b"]})) == VIOLATED


def test_distinct_without_lists_only_takes_an_odd_value_first() -> None:
    assert derived(FILES, _picks("distinct", {1: ["a"]}, odd=(0,))) == set()
    assert derived(FILES, _picks("distinct", {0: ["a"]}, odd=(1,))) == VIOLATED


def test_devices_outside_the_constraints_scope_are_not_under_it() -> None:
    facts = _picks("match", {0: ["a"]})
    facts += [s.Use(slot=1, device=1), s.Value(constraint=0, slot=1, device=1, kind="string", text="b")]
    assert derived(FILES, facts) == set()
