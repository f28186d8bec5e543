"""rules/groups.lp: compatibility groups per counter set, seeded by allocated peers."""

from __future__ import annotations

from rules_support import Charged, derived

from kubefit.solver.asp import schema as s

FILES = ["groups.lp"]
VIOLATED = {"violated(groups(0))"}


def _members(*groups: tuple[str, ...]) -> list[object]:
    facts: list[object] = []
    for d, names in enumerate(groups):
        facts += [Charged(device=d), s.Draws(device=d, counter_set=0)]
        facts += [s.Declares(device=d, counter_set=0, group=g) for g in names]
    return facts


def test_devices_with_a_common_group_are_compatible() -> None:
    assert derived(FILES, _members(("a", "b"), ("b",))) == set()
    assert derived(FILES, _members((), ())) == set()


def test_disjoint_groups_or_mixing_grouped_and_plain_devices_is_violated() -> None:
    assert derived(FILES, _members(("a",), ("b",))) == VIOLATED
    assert derived(FILES, _members(("a",), ())) == VIOLATED


def test_allocated_peers_seed_the_groups() -> None:
    assert derived(FILES, [*_members(("a",)), s.Seed(counter_set=0, kind="plain")]) == VIOLATED
    assert derived(FILES, [*_members(()), s.Seed(counter_set=0, kind="grouped")]) == VIOLATED
    grouped = [s.Seed(counter_set=0, kind="grouped"), s.SeedGroup(counter_set=0, group="b")]
    assert derived(FILES, [*_members(("a", "b")), *grouped]) == set()
    assert derived(FILES, [*_members(("a",)), *grouped]) == VIOLATED
