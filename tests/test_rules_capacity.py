"""rules/capacity.lp: shares of multi-allocatable devices fit what existing shares left."""

from __future__ import annotations

from rules_support import Picked, derived

from kubefit.solver.asp import schema as s

FILES = ["capacity.lp"]


def _shares(left: int, *amounts: int) -> list[object]:
    facts: list[object] = [s.CapLeft(device=0, capacity=0, amount=left), Picked(device=0)]
    for slot, amount in enumerate(amounts):
        facts += [s.Use(slot=slot, device=0), s.CapUse(slot=slot, device=0, capacity=0, amount=amount)]
    return facts


def test_shares_within_the_capacity_left_fit() -> None:
    assert derived(FILES, _shares(4, 1, 3)) == set()


def test_shares_beyond_it_are_violated() -> None:
    assert derived(FILES, _shares(4, 2, 3)) == {"violated(capacity(0,0))"}


def test_capacity_used_up_by_existing_shares_blocks_even_a_zero_share() -> None:
    assert derived(FILES, _shares(-1, 0)) == {"violated(capacity(0,0))"}


def test_an_unpicked_device_is_never_violated() -> None:
    assert derived(FILES, [s.CapLeft(device=0, capacity=0, amount=-1)]) == set()


def test_amounts_too_large_for_clingo_come_as_sets_of_shares_that_overdraw() -> None:
    facts = [
        Picked(device=0),
        s.CapOverdraw(device=0, capacity=0, index=0),
        s.CapOverdrawMember(device=0, capacity=0, index=0, slot=0),
        s.CapOverdrawMember(device=0, capacity=0, index=0, slot=1),
        s.Use(slot=0, device=0),
    ]
    assert derived(FILES, facts) == set()
    assert derived(FILES, [*facts, s.Use(slot=1, device=0)]) == {"violated(capacity(0,0))"}
