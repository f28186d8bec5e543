"""The cpsat engine, one constraint family at a time: what fits, what does not, and that under the
default objective the answer is exactly the allocator's first fit (each case also runs greedy)."""

from __future__ import annotations

from fractions import Fraction

from cpsat_support import first_fit, picks
from problem_strategies import (
    ALL_FEATURES,
    AttrValue,
    cap,
    claim,
    device,
    exact,
    first_available,
    integer,
    node_view,
    problem,
    slot,
    string,
    strings,
    uses,
)

from kubefit.model.problem import Constraint, DerivedAttribute, InUse, PoolView, Unit
from kubefit.model.solution import Status
from kubefit.model.terms import Taint, Toleration

MODEL = "driver-a/model"


def models(*values: AttrValue | None) -> list:
    return [device(i, attrs={"model": v} if v is not None else {}) for i, v in enumerate(values)]


# --- counts, All mode, prioritized lists, the result limit ----------------------------------------------


def test_exact_count_takes_the_first_devices_in_search_order() -> None:
    p = problem([device(i) for i in range(4)], [claim(0, exact(count=2))])
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-0", 1)]


def test_exact_count_with_too_few_candidates_does_not_fit() -> None:
    p = problem([device(i) for i in range(2)], [claim(0, exact(count=3))])
    assert first_fit(p).units[0].status == Status.UNSATISFIABLE


def test_all_mode_takes_every_selected_device() -> None:
    p = problem(
        [device(i) for i in range(3)], [claim(0, exact(mode="All"))], selectable={((0, 0, 0), 1): False}
    )
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-0", 2)]


def test_all_mode_with_one_device_in_use_does_not_fit() -> None:
    devices = [device(i) for i in range(3)]
    p = problem(devices, [claim(0, exact(mode="All"))], in_use=InUse(frozenset({devices[1].ref})))
    assert first_fit(p).units[0].status == Status.UNSATISFIABLE


def test_a_prioritized_list_takes_its_first_alternative_that_fits() -> None:
    c = claim(0, first_available("req-0", slot("big", count=3), slot("small", count=1)))
    answer = first_fit(problem([device(i) for i in range(2)], [c]))
    assert picks(answer) == [(0, "req-0/small", 0)]
    assert answer.units[0].allocations[0].chosen == {0: 1}


def test_a_later_claim_can_switch_an_earlier_claims_alternative() -> None:
    c0 = claim(0, first_available("req-0", slot("two", count=2), slot("one", count=1)))
    c1 = claim(1, exact(count=2))
    answer = first_fit(problem([device(i) for i in range(3)], [c0, c1]))
    assert picks(answer) == [(0, "req-0/one", 0), (1, "req-0", 1), (1, "req-0", 2)]


def test_an_alternative_over_the_result_limit_is_passed_over() -> None:
    c = claim(
        0, first_available("req-0", slot("huge", count=2**63 - 1), slot("one")), exact("req-1", count=31)
    )
    answer = first_fit(problem([device(i) for i in range(33)], [c]))
    assert answer.units[0].status == Status.ALLOCATED
    assert answer.units[0].allocations[0].chosen == {0: 1}


# --- in use, admin access, one device per request -----------------------------------------------------


def test_a_device_in_use_is_skipped_and_a_live_share_blocks_exclusive_use() -> None:
    devices = [device(i) for i in range(3)]
    held = InUse(frozenset({devices[0].ref}), {devices[1].ref: {}}, frozenset({devices[1].ref}))
    assert picks(first_fit(problem(devices, [claim(0)], in_use=held))) == [(0, "req-0", 2)]


def test_admin_access_may_take_a_device_in_use() -> None:
    devices = [device(i) for i in range(2)]
    p = problem(devices, [claim(0, exact(admin_access=True))], in_use=InUse(frozenset({devices[0].ref})))
    answer = first_fit(p)
    assert picks(answer) == [(0, "req-0", 0)]
    assert answer.units[0].allocations[0].results[0].admin_access


def test_an_admin_pick_blocks_later_normal_claims_but_not_earlier_ones() -> None:
    devices = [device(0)]
    before = problem(devices, [claim(0), claim(1, exact(admin_access=True))])
    assert first_fit(before).units[0].status == Status.ALLOCATED
    after = problem(devices, [claim(0, exact(admin_access=True)), claim(1)])
    assert first_fit(after).units[0].status == Status.UNSATISFIABLE


def test_a_device_serves_one_request_of_a_claim_even_with_admin_access() -> None:
    p = problem([device(0)], [claim(0, exact("req-0", admin_access=True), exact("req-1", admin_access=True))])
    assert first_fit(p).units[0].status == Status.UNSATISFIABLE


# --- attributes -------------------------------------------------------------------------------------------


def test_match_attribute_passes_over_devices_until_one_value_is_shared() -> None:
    c = claim(0, exact(count=2), constraints=[Constraint("match", MODEL)])
    p = problem(models(string("a"), string("b"), string("c"), string("b")), [c])
    assert picks(first_fit(p)) == [(0, "req-0", 1), (0, "req-0", 3)]


def test_distinct_attribute_with_too_few_values_does_not_fit() -> None:
    c = claim(0, exact(count=3), constraints=[Constraint("distinct", MODEL)])
    p = problem(models(string("a"), string("b"), string("a"), string("b")), [c])
    assert first_fit(p).units[0].status == Status.UNSATISFIABLE


def test_list_match_needs_one_element_common_to_every_device() -> None:
    c = claim(0, exact(count=3), constraints=[Constraint("match", MODEL)])
    p = problem(models(strings("a", "b"), strings("b", "c"), strings("c", "a"), strings("b")), [c])
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-0", 1), (0, "req-0", 3)]


def test_list_distinct_needs_pairwise_disjoint_sets() -> None:
    c = claim(0, exact(count=2), constraints=[Constraint("distinct", MODEL)])
    p = problem(models(strings("a", "b"), strings("b", "c"), strings("c", "d")), [c])
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-0", 2)]


def test_without_list_support_a_list_value_only_passes_alone_or_first() -> None:
    scalar = ALL_FEATURES - {"ListTypeAttributes"}
    matched = claim(0, exact(count=2), constraints=[Constraint("match", MODEL)])
    p = problem(models(strings("a"), string("a"), string("a")), [matched], features=scalar)
    assert picks(first_fit(p)) == [(0, "req-0", 1), (0, "req-0", 2)]
    distinct = claim(0, exact(count=2), constraints=[Constraint("distinct", MODEL)])
    p = problem(models(string("a"), strings("b"), strings("c")), [distinct], features=scalar)
    assert first_fit(p).units[0].status == Status.UNSATISFIABLE
    p = problem(models(strings("b"), string("a"), strings("c")), [distinct], features=scalar)
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-0", 1)]


def test_a_device_without_the_attribute_is_never_under_the_constraint() -> None:
    c = claim(0, exact(count=2), constraints=[Constraint("match", MODEL)])
    assert picks(first_fit(problem(models(None, integer(1), integer(1)), [c]))) == [
        (0, "req-0", 1),
        (0, "req-0", 2),
    ]


def test_a_constraint_covers_only_the_requests_it_names() -> None:
    c = claim(
        0,
        exact("req-0"),
        exact("req-1"),
        exact("req-2"),
        constraints=[Constraint("match", MODEL, ("req-0", "req-2"))],
    )
    p = problem(models(string("a"), string("b"), string("b"), string("a")), [c])
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-1", 1), (0, "req-2", 3)]


def test_a_derived_attribute_replaces_the_physical_one_for_its_request_only() -> None:
    derived = (DerivedAttribute(MODEL, "'same'"),)
    c = claim(0, exact("req-0", derived=derived), exact("req-1"), constraints=[Constraint("match", MODEL)])
    devices = models(string("a"), string("b"), string("same"))
    values = {((0, 0, 0), d.id, MODEL): string("same") for d in devices}
    p = problem(devices, [c], derived=values)
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-1", 2)]


# --- partitionable devices --------------------------------------------------------------------------------


def partitions(*draws: int, multi: bool = False, groups: tuple[tuple[str, ...], ...] = ()) -> list:
    return [
        device(i, consumes=[uses("gpu-0", groups[i] if groups else (), mem=m)], multi=multi)
        for i, m in enumerate(draws)
    ]


def counter_problem(devices: list, claims: list, counters: int = 8, **kw: object) -> object:
    view = node_view(devices, counter_sets={"gpu-0": {"mem": Fraction(counters)}})
    return problem(devices, claims, views=[view], **kw)


def test_partitions_together_stay_within_the_shared_counters() -> None:
    p = counter_problem(partitions(5, 4, 3), [claim(0, exact(count=2))])
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-0", 2)]


def test_allocated_partitions_reduce_what_is_left() -> None:
    devices = partitions(4, 4, 2, 2)
    p = counter_problem(devices, [claim(0, exact(count=2))], in_use=InUse(frozenset({devices[0].ref})))
    assert picks(first_fit(p)) == [(0, "req-0", 2), (0, "req-0", 3)]


def test_the_backtracking_case_of_upstream_finds_seven_of_eight_partitions() -> None:
    """8 devices share 70 units, one of them draws 20 and the others 10: only the seven small ones fit."""
    p = counter_problem(partitions(20, *[10] * 7), [claim(0, exact(count=7))], counters=70)
    assert [d for _, _, d in picks(first_fit(p))] == list(range(1, 8))


def test_a_shared_partition_draws_on_the_counters_once() -> None:
    devices = partitions(6, multi=True)
    c = claim(0, exact("req-0"), exact("req-1"))
    assert picks(first_fit(counter_problem(devices, [c]))) == [(0, "req-0", 0), (0, "req-1", 0)]


def test_partitions_on_one_counter_set_share_a_compatibility_group() -> None:
    devices = partitions(1, 1, 1, groups=(("a",), ("b",), ("a", "b")))
    p = counter_problem(devices, [claim(0, exact(count=2))])
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-0", 2)]


def test_grouped_and_groupless_partitions_do_not_mix() -> None:
    devices = partitions(1, 1, 1, groups=(("a",), (), ("a",)))
    p = counter_problem(devices, [claim(0, exact(count=2))])
    assert picks(first_fit(p)) == [(0, "req-0", 0), (0, "req-0", 2)]


def test_allocated_peers_bring_their_compatibility_groups() -> None:
    devices = partitions(1, 1, 1, groups=(("a",), ("b",), ("b", "c")))
    held = InUse(frozenset({devices[1].ref}))
    assert picks(first_fit(counter_problem(devices, [claim(0)], in_use=held))) == [(0, "req-0", 2)]


def _all_then_one() -> object:
    """An All alternative, refused (its list holds devices that cannot be taken), then one device: the
    All list's devices stay in the model (as picks of a slot that is never chosen)."""
    return claim(0, first_available("req-0", slot("all", mode="All"), slot("one")))


def test_allocated_peers_with_no_common_group_shut_out_grouped_partitions_only() -> None:
    """Allocated peers that share no group leave no group for any grouped partition; a device that draws
    on no counter still fits (the model once demanded a surviving group for the partitions of the All
    list even with none of them picked, and answered that nothing fits)."""
    devices = [*partitions(1, 1, 1, groups=(("a",), ("b",), ("a",))), device(3)]
    held = InUse(frozenset({devices[0].ref, devices[1].ref}))
    answer = first_fit(counter_problem(devices, [_all_then_one()], in_use=held))
    assert picks(answer) == [(0, "req-0/one", 3)]


def test_counters_overdrawn_by_what_is_allocated_refuse_every_partition_of_the_pool() -> None:
    """Allocated partitions draw more than the counters hold (published so, or shrunk since): the
    allocator then adds no device that draws on the pool's counters, and only the others fit (the model
    once required the All list's partitions to fit the negative amount left, even unpicked)."""
    devices = [*partitions(5, 5, 1, 1), device(4)]
    held = InUse(frozenset({devices[0].ref, devices[1].ref}))
    answer = first_fit(counter_problem(devices, [_all_then_one()], in_use=held))
    assert picks(answer) == [(0, "req-0/one", 4)]
    two = counter_problem(devices, [claim(0, exact(count=2))], in_use=held)
    assert first_fit(two).units[0].status == Status.UNSATISFIABLE


# --- consumable capacity ----------------------------------------------------------------------------------


def test_shares_of_a_device_fit_its_capacity_with_the_existing_ones() -> None:
    devices = [device(i, multi=True, capacity={"mem": cap(4)}) for i in range(2)]
    held = InUse(frozenset(), {devices[0].ref: {"driver-a/mem": Fraction(1)}}, frozenset({devices[0].ref}))
    c = claim(0, *(exact(f"req-{i}", capacity_requests={"mem": Fraction(2)}) for i in range(3)))
    answer = first_fit(problem(devices, [c], in_use=held))
    assert picks(answer) == [(0, "req-0", 0), (0, "req-1", 1), (0, "req-2", 1)]
    result = answer.units[0].allocations[0].results[0]
    assert result.shared and result.consumed_capacity == {"mem": Fraction(2)}


# --- taints, reachability, pools ---------------------------------------------------------------------------


def test_an_untolerated_taint_rules_a_device_out_and_a_toleration_lets_it_in() -> None:
    devices = [device(0, taints=[Taint("t", "", "NoSchedule")]), device(1)]
    assert picks(first_fit(problem(devices, [claim(0)]))) == [(0, "req-0", 1)]
    tolerant = claim(0, exact(tolerations=(Toleration("t", "Exists"),)))
    assert picks(first_fit(problem(devices, [tolerant]))) == [(0, "req-0", 0)]


def test_devices_the_node_cannot_reach_or_of_incomplete_pools_are_not_used() -> None:
    devices = [device(0), device(1, pool="pool-2"), device(2)]
    view = node_view(devices, unreachable={0})
    pools = tuple(
        PoolView(p.driver, p.pool, "incomplete" if p.pool == "pool-2" else p.state, 1, devices=p.devices)
        for p in view.pools
    )
    p = problem(devices, [claim(0)], views=[type(view)(view.node, pools, view.unreachable)])
    assert picks(first_fit(p)) == [(0, "req-0", 2)]


# --- errors are the allocator's -----------------------------------------------------------------------------


def test_a_cel_error_the_first_fit_search_meets_is_the_answer() -> None:
    p = problem(
        [device(i) for i in range(3)], [claim(0, exact(count=2))], selectable={((0, 0, 0), 1): "boom"}
    )
    answer = first_fit(p)
    assert (answer.units[0].status, answer.units[0].message) == (Status.ERROR, "boom")


def test_a_cel_error_the_search_never_reaches_changes_nothing() -> None:
    p = problem([device(i) for i in range(3)], [claim(0)], selectable={((0, 0, 0), 2): "boom"})
    assert picks(first_fit(p)) == [(0, "req-0", 0)]


def test_an_invalid_pool_is_an_error_only_when_nothing_else_fits() -> None:
    devices = [device(0), device(1, pool="pool-2")]
    view = node_view(devices)
    pools = tuple(
        PoolView(p.driver, p.pool, "invalid" if p.pool == "pool-2" else p.state, 1, devices=p.devices)
        for p in view.pools
    )
    views = [type(view)(view.node, pools)]
    assert picks(first_fit(problem(devices, [claim(0)], views=views))) == [(0, "req-0", 0)]
    answer = first_fit(problem(devices, [claim(0, exact(count=2))], views=views))
    assert answer.units[0].status == Status.UNSATISFIABLE
    assert "invalid resource pools were encountered" in answer.units[0].message


def test_the_checks_before_the_search_give_the_allocators_errors() -> None:
    p = problem([device(0)], [claim(0, exact(count=40))])
    answer = first_fit(p)
    assert answer.units[0].status == Status.ERROR
    assert "exceeds the claim limit of 32" in answer.units[0].message


def test_all_mode_violating_a_constraint_is_an_error() -> None:
    c = claim(0, exact(mode="All"), constraints=[Constraint("match", MODEL)])
    answer = first_fit(problem(models(string("a"), string("b")), [c]))
    assert answer.units[0].status == Status.ERROR
    assert "cannot add device driver-a/pool-1/device-1 because a claim constraint would not be satisfied" in (
        answer.units[0].message
    )


# --- several units -------------------------------------------------------------------------------------------


def test_what_an_earlier_unit_allocated_is_in_use_for_the_later_ones() -> None:
    p = problem(
        [device(i) for i in range(2)],
        [claim(0), claim(1)],
        units=[Unit(0, "pod-0", (0,), ("node-1",)), Unit(1, "pod-1", (1,), ("node-1",))],
    )
    answer = first_fit(p)
    assert picks(answer, 0) == [(0, "req-0", 0)]
    assert picks(answer, 1) == [(1, "req-0", 1)]


# --- symmetry breaking --------------------------------------------------------------------------------------


def test_interchangeable_devices_are_ordered_without_losing_the_first_fit() -> None:
    """Four identical devices over three claims (one with admin access, which may reuse a device):
    their uses are ordered lexicographically, and first-fit's answer survives the ordering."""
    from kubefit.solver.cpsat.build import build
    from kubefit.solver.cpsat.facts import gather

    claims = [claim(0, exact(count=2)), claim(1, exact(count=2, admin_access=True)), claim(2, exact(count=2))]
    p = problem([device(i) for i in range(4)], claims)
    nm = build(gather(p, p.views["node-1"], list(p.claims), p.in_use))
    assert any(v.name.startswith("same_") for v in nm.model.proto.variables)
    assert picks(first_fit(p)) == [
        (0, "req-0", 0),
        (0, "req-0", 1),
        (1, "req-0", 0),
        (1, "req-0", 1),
        (2, "req-0", 2),
        (2, "req-0", 3),
    ]
