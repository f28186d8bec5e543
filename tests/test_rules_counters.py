"""rules/counters.lp: shared counters of partitionable devices."""

from __future__ import annotations

from rules_support import Picked, derived

from kubefit.solver.asp import schema as s

FILES = ["counters.lp"]


def _pool(left: int, *consumption: int, other_left: int = 10) -> list[object]:
    facts: list[object] = [
        s.CounterSet(counter_set=0, pool=0),
        s.CounterLeft(counter_set=0, counter="mem", amount=left),
        s.CounterLeft(counter_set=0, counter="sm", amount=other_left),
    ]
    for d, amount in enumerate(consumption):
        facts += [
            s.InPool(device=d, pool=0),
            s.Draws(device=d, counter_set=0),
            s.Consumes(device=d, counter_set=0, counter="mem", amount=amount),
            *_picks(d),
        ]
    return facts


def _picks(d: int, *slots: int) -> list[object]:
    """Device d picked by the slots (one by default)."""
    return [Picked(device=d), *(s.Use(slot=slot, device=d) for slot in slots or (0,))]


def test_picks_within_what_is_left_are_fine() -> None:
    assert derived(FILES, _pool(4, 2, 2)) == set()


def test_overdrawing_a_counter_is_violated() -> None:
    assert derived(FILES, _pool(4, 2, 3)) == {'violated(counter(0,"mem"))'}


def test_an_exhausted_counter_the_device_does_not_use_still_blocks_the_pool() -> None:
    assert derived(FILES, _pool(4, 1, other_left=-1)) == {'violated(counter(0,"sm"))'}


def test_a_device_with_existing_shares_is_not_charged_again() -> None:
    assert derived(FILES, [*_pool(1, 2), s.Multi(device=0), s.ExistingShare(device=0)]) == set()


def test_each_pick_of_an_exclusive_device_draws_and_a_shared_one_draws_once() -> None:
    """An admin pick of a device another claim of the call took draws again, as the allocator checks
    each pick; the shares of a multi-allocatable device open it once."""
    twice = [*_pool(4, 3), *_picks(0, 0, 1)]
    assert derived(FILES, twice) == {'violated(counter(0,"mem"))'}
    assert derived(FILES, [*twice, s.Multi(device=0)]) == set()


def test_amounts_too_large_for_clingo_come_as_sets_of_picks_that_overdraw() -> None:
    overdraw = [
        s.CounterSet(counter_set=0, pool=0),
        s.Overdraw(counter_set=0, counter="mem", index=0),
        s.OverdrawMember(counter_set=0, counter="mem", index=0, slot=0, device=0),
        s.OverdrawMember(counter_set=0, counter="mem", index=0, slot=0, device=1),
    ]
    picked = [
        fact
        for d in (0, 1, 2)
        for fact in (s.InPool(device=d, pool=0), s.Draws(device=d, counter_set=0), *_picks(d))
    ]
    assert derived(FILES, [*overdraw, *picked]) == {'violated(counter(0,"mem"))'}
    assert derived(FILES, [*overdraw, *picked[4:]]) == set()  # device 0 not picked


def test_an_empty_overdraw_set_means_the_counter_is_exhausted_for_any_charge() -> None:
    facts = [
        s.CounterSet(counter_set=0, pool=0),
        s.Overdraw(counter_set=0, counter="mem", index=0),
        s.InPool(device=5, pool=0),
        s.Draws(device=5, counter_set=0),
    ]
    assert derived(FILES, facts) == set()
    assert derived(FILES, [*facts, *_picks(5)]) == {'violated(counter(0,"mem"))'}
