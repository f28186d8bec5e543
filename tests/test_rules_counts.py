"""rules/counts.lp: ExactCount, All mode and the claim limit."""

from __future__ import annotations

from rules_support import allocations, derived, one_slot

from kubefit.solver.asp import schema as s


def test_too_few_candidates_for_the_count_is_unsatisfiable() -> None:
    assert allocations(one_slot(2, count=3)) == []


def test_all_mode_takes_every_listed_device() -> None:
    facts = [
        s.MaxResults(n=32),
        s.SlotFact(slot=0, claim=0, request=0, sub=0),
        s.AllMode(slot=0),
        *(s.Listed(slot=0, device=d) for d in range(3)),
        *(s.Cand(slot=0, device=d) for d in range(3)),
    ]
    assert allocations(facts) == [{"use(0,0)", "use(0,1)", "use(0,2)"}]


def test_all_mode_fails_when_a_listed_device_cannot_be_taken() -> None:
    facts = [
        s.MaxResults(n=32),
        s.SlotFact(slot=0, claim=0, request=0, sub=0),
        s.AllMode(slot=0),
        *(s.Listed(slot=0, device=d) for d in range(3)),
        *(s.Cand(slot=0, device=d) for d in range(2)),
    ]
    assert allocations(facts) == []


def test_all_mode_with_an_empty_list_fails() -> None:
    facts = [s.MaxResults(n=32), s.SlotFact(slot=0, claim=0, request=0, sub=0), s.AllMode(slot=0)]
    assert allocations(facts) == []


def test_need_is_violated_by_a_short_pick() -> None:
    facts = [
        s.MaxResults(n=2),
        s.SlotFact(slot=0, claim=0, request=0, sub=0),
        s.Count(slot=0, n=2),
        s.Use(slot=0, device=0),
    ]
    assert derived(["prioritized.lp", "counts.lp"], facts) == {"violated(need(0,0))"}
    assert derived(["prioritized.lp", "counts.lp"], [*facts, s.Use(slot=0, device=1)]) == set()


def test_the_limit_counts_what_the_chosen_slots_ask_for() -> None:
    facts = [
        s.MaxResults(n=3),
        s.SlotFact(slot=0, claim=0, request=0, sub=0),
        s.Count(slot=0, n=2),
        s.SlotFact(slot=1, claim=0, request=1, sub=0),
        s.AllMode(slot=1),
        s.Listed(slot=1, device=0),
    ]
    assert derived(["prioritized.lp", "counts.lp"], facts) == {"violated(need(0,0))", "violated(need(0,1))"}
    two = [*facts, s.Listed(slot=1, device=1)]
    assert "violated(limit(0))" in derived(["prioritized.lp", "counts.lp"], two)
