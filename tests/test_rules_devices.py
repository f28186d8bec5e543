"""rules/devices.lp (with prioritized.lp for `chosen`): picks among candidates, sharing, held devices."""

from __future__ import annotations

from rules_support import allocations, derived, one_slot

from kubefit.solver.asp import schema as s


def test_a_slot_picks_exactly_its_count_among_its_candidates() -> None:
    assert allocations(one_slot(3, count=2)) == [
        {"use(0,0)", "use(0,1)"},
        {"use(0,0)", "use(0,2)"},
        {"use(0,1)", "use(0,2)"},
    ]


def test_two_slots_cannot_share_a_device_that_is_not_multi_allocatable() -> None:
    facts = [*one_slot(1), *one_slot(1, slot=1, request=1)[1:]]
    assert allocations(facts) == []


def test_a_multi_allocatable_device_serves_two_slots() -> None:
    facts = [*one_slot(1), *one_slot(1, slot=1, request=1)[1:], s.Multi(device=0)]
    assert allocations(facts) == [{"use(0,0)", "use(1,0)"}]


def test_an_admin_pick_of_another_claim_may_follow_a_normal_pick_but_not_precede_it() -> None:
    normal_then_admin = [*one_slot(1), *one_slot(1, slot=1, claim=1)[1:], s.Admin(slot=1)]
    admin_then_normal = [*one_slot(1), *one_slot(1, slot=1, claim=1)[1:], s.Admin(slot=0)]
    assert allocations(normal_then_admin) == [{"use(0,0)", "use(1,0)"}]
    assert allocations(admin_then_normal) == []


def test_admin_picks_within_one_claim_are_exclusive() -> None:
    facts = [*one_slot(1), *one_slot(1, slot=1, request=1)[1:], s.Admin(slot=0), s.Admin(slot=1)]
    assert allocations(facts) == []


def test_a_held_device_is_a_named_violation_unless_admin_access() -> None:
    held = [
        s.SlotFact(slot=0, claim=0, request=0, sub=0),
        s.Cand(slot=0, device=0),
        s.Held(device=0, holder=3),
    ]
    use = s.Use(slot=0, device=0)
    assert derived(["prioritized.lp", "devices.lp"], [*held, use]) == {"violated(held(3))"}
    assert derived(["prioritized.lp", "devices.lp"], [*held, use, s.Admin(slot=0)]) == set()


def test_a_live_share_blocks_exclusive_use_but_not_another_share() -> None:
    facts = [
        s.SlotFact(slot=0, claim=0, request=0, sub=0),
        s.Shared(device=0, holder=1),
        s.Use(slot=0, device=0),
    ]
    assert derived(["prioritized.lp", "devices.lp"], facts) == {"violated(held(1))"}
    assert derived(["prioritized.lp", "devices.lp"], [*facts, s.Multi(device=0)]) == set()
