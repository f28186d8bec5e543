"""rules/node_selector.lp: a device whose nodeSelector has several terms needs a node-local device
before it in its claim's results (slots in search order, a slot's devices by rank)."""

from __future__ import annotations

from rules_support import allocations, derived, one_slot

from kubefit.solver.asp import schema as s

FILES = ["node_selector.lp"]


def _slots(*claims: int) -> list[object]:
    return [s.SlotFact(slot=i, claim=c, request=i, sub=0) for i, c in enumerate(claims)]


def test_without_a_node_local_device_before_it_is_violated() -> None:
    facts = [*_slots(0), s.Use(slot=0, device=0), s.ManyTerms(device=0)]
    assert derived(FILES, facts) == {"violated(node_selector(0,0))"}


def test_a_node_local_device_before_it_in_the_same_slot_pins_the_allocation() -> None:
    facts = [*_slots(0), s.Use(slot=0, device=0), s.Use(slot=0, device=1), s.NodeLocal(device=0)]
    assert derived(FILES, [*facts, s.ManyTerms(device=1)]) == set()
    after = [*_slots(0), s.Use(slot=0, device=0), s.Use(slot=0, device=1), s.NodeLocal(device=1)]
    assert derived(FILES, [*after, s.ManyTerms(device=0)]) == {"violated(node_selector(0,0))"}


def test_an_earlier_slot_of_the_same_claim_counts_and_a_later_one_does_not() -> None:
    earlier = [*_slots(0, 0), s.Use(slot=0, device=5), s.NodeLocal(device=5), s.Use(slot=1, device=1)]
    assert derived(FILES, [*earlier, s.ManyTerms(device=1)]) == set()
    later = [*_slots(0, 0), s.Use(slot=0, device=1), s.Use(slot=1, device=0), s.NodeLocal(device=0)]
    assert derived(FILES, [*later, s.ManyTerms(device=1)]) == {"violated(node_selector(0,1))"}


def test_another_claims_node_local_device_does_not_count() -> None:
    facts = [*_slots(0, 1), s.Use(slot=0, device=0), s.NodeLocal(device=0), s.Use(slot=1, device=1)]
    assert derived(FILES, [*facts, s.ManyTerms(device=1)]) == {"violated(node_selector(1,1))"}


def test_the_whole_semantics_only_admits_allocations_it_can_build() -> None:
    facts = [*one_slot(3, count=2), s.ManyTerms(device=0), s.NodeLocal(device=1)]
    assert allocations(facts) == [{"use(0,1)", "use(0,2)"}]
