"""rules/prioritized.lp: one alternative of a firstAvailable request is chosen."""

from __future__ import annotations

from rules_support import allocations, models

from kubefit.solver.asp import schema as s


def _alternatives(candidates: dict[int, int], counts: dict[int, int]) -> list[object]:
    facts: list[object] = [s.MaxResults(n=32), s.Alternatives(claim=0, request=0)]
    for sub, n in counts.items():
        facts += [s.SlotFact(slot=sub, claim=0, request=0, sub=sub), s.Count(slot=sub, n=n)]
        facts += [s.Cand(slot=sub, device=d) for d in range(candidates[sub])]
    return facts


def test_a_plain_request_is_always_chosen_and_alternatives_at_most_once() -> None:
    facts = [
        s.SlotFact(slot=0, claim=0, request=0, sub=0),
        s.Alternatives(claim=0, request=1),
        s.SlotFact(slot=1, claim=0, request=1, sub=0),
        s.SlotFact(slot=2, claim=0, request=1, sub=1),
    ]
    assert models(["prioritized.lp"], facts, ("chosen",)) == [
        {"chosen(0)"},
        {"chosen(0)", "chosen(1)"},
        {"chosen(0)", "chosen(2)"},
    ]


def test_an_alternative_that_cannot_be_satisfied_leaves_the_other() -> None:
    facts = _alternatives({0: 1, 1: 2}, {0: 2, 1: 1})
    assert allocations(facts) == [{"use(1,0)"}, {"use(1,1)"}]


def test_no_satisfiable_alternative_is_unsatisfiable() -> None:
    assert allocations(_alternatives({0: 1, 1: 1}, {0: 2, 1: 2})) == []
