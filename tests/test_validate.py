"""The validator: a consistent Solution gets no violations, each corruption gets its own kind, and
the greedy engine's answers on every upstream scenario pass it."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from problem_strategies import (
    ALL_FEATURES,
    cap,
    claim,
    exact,
    first_available,
    node_view,
    pool_of,
    problem,
    slot,
    string,
    strings,
    uses,
)

from kubefit.model.features import ALL_ON
from kubefit.model.problem import (
    AttrValue,
    Capacity,
    Claim,
    Constraint,
    CounterUse,
    DerivedAttribute,
    Device,
    InUse,
    NodeView,
    Placement,
    PoolView,
    Problem,
    Request,
    Slot,
    SlotKey,
    Unit,
)
from kubefit.model.solution import ClaimAllocation, DeviceResult, Solution, Status, UnitOutcome
from kubefit.model.terms import NodeRequirement, NodeSelectorTerm, Taint, Toleration
from kubefit.solver.greedy import GreedyEngine
from kubefit.solver.validate import Violation, validate
from kubefit.translate.dra.build import build
from kubefit.translate.loader import load

SCENARIOS = Path(__file__).resolve().parents[2] / "shared" / "scenarios" / "dra"

# --- builders ----------------------------------------------------------------------------------------------


def device(
    i: int,
    *,
    name: str | None = None,
    pool: str = "pool-1",
    driver: str = "driver-a",
    attrs: Mapping[str, AttrValue] | None = None,
    capacity: Mapping[str, Capacity] | None = None,
    consumes: Sequence[CounterUse] = (),
    taints: Sequence[Taint] = (),
    multi: bool = False,
    binding: Sequence[str] = (),
    node: str = "node-1",
) -> Device:
    return Device(
        id=i,
        driver=driver,
        pool=pool,
        name=name or f"device-{i}",
        slice=f"{pool}-slice",
        generation=1,
        attributes=dict(attrs or {}),
        capacity=dict(capacity or {}),
        consumes=tuple(consumes),
        taints=tuple(taints),
        binding_conditions=tuple(binding),
        allow_multiple_allocations=multi,
        placement=Placement(node_name=node),
    )


def res(
    device: int,
    key: SlotKey = (0, 0, 0),
    request: str = "req-0",
    *,
    admin: bool = False,
    shared: bool = False,
    consumed: Mapping[str, int | Fraction] | None = None,
) -> DeviceResult:
    amounts = {k: Fraction(v) for k, v in consumed.items()} if consumed is not None else None
    return DeviceResult(key, request, device, admin, shared, amounts)


def alloc(
    c: int, *results: DeviceResult, chosen: Mapping[int, int] | None = None, node: str = "node-1"
) -> ClaimAllocation:
    return ClaimAllocation(c, node, tuple(results), dict(chosen or {}))


def solution(*allocations: ClaimAllocation, node: str = "node-1", unit: int = 0) -> Solution:
    return Solution("test", (UnitOutcome(unit, Status.ALLOCATED, node, tuple(allocations)),))


def units(*outcomes: UnitOutcome) -> Solution:
    return Solution("test", tuple(outcomes))


def kinds(violations: Sequence[Violation]) -> list[str]:
    return [v.kind for v in violations]


def only(violations: Sequence[Violation], kind: str, *words: str) -> Violation:
    """The single violation, of `kind`, whose message has every one of `words`."""
    assert kinds(violations) == [kind], violations
    for word in words:
        assert word in violations[0].message, violations[0].message
    return violations[0]


# --- a consistent solution ------------------------------------------------------------------------------


def test_a_consistent_allocation_has_no_violations() -> None:
    devices = [device(0), device(1)]
    p = problem(devices, [claim(0, exact(count=2))])
    assert validate(p, solution(alloc(0, res(0), res(1)))) == []


def test_units_that_are_not_allocated_are_not_checked_beyond_their_shape() -> None:
    p = problem([device(0)], [claim(0)])
    assert validate(p, units(UnitOutcome(0, Status.UNSATISFIABLE, message="no"))) == []


# --- structure ------------------------------------------------------------------------------------------


def test_an_allocated_unit_must_allocate_every_pending_claim() -> None:
    p = problem([device(0), device(1)], [claim(0), claim(1)])
    v = only(validate(p, solution(alloc(0, res(0)))), "structure", "claim default/claim-1", "no allocation")
    assert v.claim == 1 and v.unit == 0


def test_a_unit_that_is_not_allocated_carries_no_allocations() -> None:
    p = problem([device(0)], [claim(0)])
    outcome = UnitOutcome(0, Status.UNSATISFIABLE, "node-1", (alloc(0, res(0)),))
    only(validate(p, units(outcome)), "structure", "unsatisfiable", "carries allocations")


def test_every_unit_needs_an_outcome() -> None:
    p = problem([device(0)], [claim(0)])
    only(validate(p, units()), "structure", "pod-0", "no outcome")


def test_a_result_must_name_a_slot_of_its_own_claim() -> None:
    p = problem([device(0), device(1)], [claim(0), claim(1)])
    sol = solution(alloc(0, res(0), res(1, (1, 0, 0))), alloc(1, res(1, (1, 0, 0))))
    only(validate(p, sol), "structure", "claim default/claim-0", "(1, 0, 0)")


def test_a_claim_allocated_already_is_not_allocated_again() -> None:
    p = problem([device(0)], [claim(0, allocated=True)])
    assert validate(p, solution()) == []
    only(validate(p, solution(alloc(0, res(0)))), "structure", "not a pending claim")


# --- node -----------------------------------------------------------------------------------------------


def test_the_unit_must_go_to_one_of_its_nodes() -> None:
    devices = [device(0)]
    p = problem(devices, [claim(0)], views=[node_view(devices), node_view(devices, "node-2")])
    assert validate(p, solution(alloc(0, res(0)))) == []
    only(validate(p, solution(alloc(0, res(0), node="node-2"), node="node-2")), "node", "node-2", "may use")


def test_a_device_must_be_in_a_pool_the_node_sees() -> None:
    here, there = device(0), device(1, pool="pool-2", node="node-2")
    p = problem([here, there], [claim(0)], views=[node_view([here]), node_view([there], "node-2")])
    only(
        validate(p, solution(alloc(0, res(1)))),
        "node",
        "claim default/claim-0, request req-0",
        "driver-a/pool-2/device-1",
    )


def test_a_device_of_an_incomplete_pool_is_not_usable() -> None:
    devices = [device(0)]
    p = problem(devices, [claim(0)], views=[node_view(devices, state="incomplete")])
    only(validate(p, solution(alloc(0, res(0)))), "node", "driver-a/pool-1/device-0", "incomplete")


def test_a_device_the_node_cannot_reach_is_not_usable() -> None:
    devices = [device(0)]
    p = problem(devices, [claim(0)], views=[node_view(devices, unreachable=[0])])
    only(
        validate(p, solution(alloc(0, res(0)))),
        "node",
        "driver-a/pool-1/device-0",
        "not usable from node node-1",
    )


def test_a_shared_claim_allocated_for_another_node_pins_the_unit() -> None:
    devices = [device(0), device(1, node="node-2", pool="pool-2")]
    elsewhere = (NodeSelectorTerm(match_fields=(NodeRequirement("metadata.name", "In", ("node-2",)),)),)
    claims = [claim(0, allocated=True, allocated_selector=elsewhere), claim(1)]
    views = [node_view(devices[:1]), node_view(devices[1:], "node-2")]
    p = problem(devices, claims, views=views, units=[Unit(0, "pod-0", (0, 1), ("node-1", "node-2"))])
    assert validate(p, solution(alloc(1, res(1, (1, 0, 0)), node="node-2"), node="node-2")) == []
    only(validate(p, solution(alloc(1, res(0, (1, 0, 0))))), "node", "claim default/claim-0", "another node")


def test_a_claim_allocated_by_an_earlier_unit_pins_the_later_units_that_share_it() -> None:
    devices = [device(0), device(1, node="node-2", pool="pool-2")]
    views = [node_view(devices[:1]), node_view(devices[1:], "node-2")]
    both = ("node-1", "node-2")
    p = problem(
        devices, [claim(0)], views=views, units=[Unit(0, "pod-0", (0,), both), Unit(1, "pod-1", (0,), both)]
    )
    first = UnitOutcome(0, Status.ALLOCATED, "node-1", (alloc(0, res(0)),))
    assert validate(p, units(first, UnitOutcome(1, Status.ALLOCATED, "node-1"))) == []
    v = only(validate(p, units(first, UnitOutcome(1, Status.ALLOCATED, "node-2"))), "node", "another node")
    assert v.unit == 1


# --- count ----------------------------------------------------------------------------------------------


def test_exact_count_needs_exactly_count_devices() -> None:
    p = problem([device(0), device(1), device(2)], [claim(0, exact(count=2))])
    only(
        validate(p, solution(alloc(0, res(0)))), "count", "claim default/claim-0, request req-0", "exactly 2"
    )
    only(validate(p, solution(alloc(0, res(0), res(1), res(2)))), "count", "3 device(s)")


def test_all_mode_takes_every_selectable_device() -> None:
    devices = [device(0), device(1), device(2)]
    p = problem(devices, [claim(0, exact(mode="All"))], selectable={((0, 0, 0), 2): False})
    assert validate(p, solution(alloc(0, res(0), res(1)))) == []
    only(validate(p, solution(alloc(0, res(0)))), "count", "misses", "driver-a/pool-1/device-1")
    extra = validate(p, solution(alloc(0, res(0), res(1), res(2))))
    assert sorted(kinds(extra)) == ["count", "selectable"]
    assert "adds device(s) driver-a/pool-1/device-2" in next(v.message for v in extra if v.kind == "count")


def test_all_mode_needs_at_least_one_device() -> None:
    p = problem([device(0)], [claim(0, exact(mode="All"))], selectable={((0, 0, 0), 0): False})
    only(validate(p, solution(alloc(0))), "count", "all devices", "offers none")


def test_all_mode_keeps_devices_used_up_by_existing_shares() -> None:
    """0c8a1b07: All leaves out only devices that could never take the request; a device whose room
    existing shares used up stays in the list, so no allocation can satisfy the request."""
    devices = [
        device(0, capacity={"mem": cap(4)}, multi=True),
        device(1, capacity={"mem": cap(8)}, multi=True),
        device(2, capacity={"mem": cap(2)}, multi=True),
    ]
    held = InUse(
        shared_capacity={"driver-a/pool-1/device-0": {"driver-a/mem": Fraction(2)}},
        shared=frozenset({"driver-a/pool-1/device-0"}),
    )
    p = problem(devices, [claim(0, exact(mode="All", capacity_requests={"mem": Fraction(3)}))], in_use=held)
    shrunk = validate(p, solution(alloc(0, res(1, shared=True, consumed={"mem": 3}))))
    assert kinds(shrunk) == ["count"]
    full = validate(
        p,
        solution(
            alloc(0, res(0, shared=True, consumed={"mem": 3}), res(1, shared=True, consumed={"mem": 3}))
        ),
    )
    assert kinds(full) == ["capacity"]  # device-2 (too small for 3) is rightly left out


def test_all_mode_with_an_incomplete_pool_is_an_error() -> None:
    devices = [device(0), device(1, pool="pool-2")]
    view = NodeView("node-1", (pool_of(devices[:1]), PoolView("driver-a", "pool-2", "incomplete")))
    p = problem(devices, [claim(0, exact(mode="All"))], views=[view])
    only(validate(p, solution(alloc(0, res(0)))), "count", "pool driver-a/pool-2 is currently being updated")


# --- result limit ---------------------------------------------------------------------------------------


def test_a_claim_has_at_most_max_results_results() -> None:
    p = problem([device(i) for i in range(3)], [claim(0, exact(count=3))], max_results=2)
    only(
        validate(p, solution(alloc(0, res(0), res(1), res(2)))),
        "result-limit",
        "claim default/claim-0",
        "limit of 2",
    )


# --- subrequests ----------------------------------------------------------------------------------------


def prioritized() -> Problem:
    request = first_available("req-0", slot("sub-0", count=2), slot("sub-1"))
    return problem([device(0), device(1)], [claim(0, request)])


def test_a_firstavailable_result_is_named_after_its_chosen_subrequest() -> None:
    p = prioritized()
    assert validate(p, solution(alloc(0, res(0, (0, 0, 1), "req-0/sub-1"), chosen={0: 1}))) == []
    only(
        validate(p, solution(alloc(0, res(0, (0, 0, 1), "req-0"), chosen={0: 1}))),
        "subrequest",
        "request req-0/sub-1",
        "named 'req-0'",
    )


def test_a_firstavailable_request_needs_a_chosen_subrequest() -> None:
    p = prioritized()
    only(
        validate(p, solution(alloc(0, res(0, (0, 0, 1), "req-0/sub-1")))),
        "subrequest",
        "request req-0",
        "no subrequest",
    )


def test_results_only_come_from_the_chosen_subrequest() -> None:
    p = prioritized()
    sol = solution(
        alloc(0, res(0, (0, 0, 0), "req-0/sub-0"), res(1, (0, 0, 1), "req-0/sub-1"), chosen={0: 0})
    )
    violations = validate(p, sol)
    assert sorted(kinds(violations)) == ["count", "subrequest"]
    assert any(
        "driver-a/pool-1/device-1" in v.message and "req-0/sub-0 was chosen" in v.message for v in violations
    )


def test_firstavailable_needs_the_prioritized_list_feature() -> None:
    p = replace(prioritized(), features=ALL_FEATURES - {"PrioritizedList"})
    only(
        validate(p, solution(alloc(0, res(0, (0, 0, 1), "req-0/sub-1"), chosen={0: 1}))),
        "subrequest",
        "DRAPrioritizedList",
    )


# --- selectable -----------------------------------------------------------------------------------------


def test_a_device_must_be_selected_by_its_slot() -> None:
    p = problem([device(0), device(1)], [claim(0)], selectable={((0, 0, 0), 0): False})
    assert validate(p, solution(alloc(0, res(1)))) == []
    only(
        validate(p, solution(alloc(0, res(0)))),
        "selectable",
        "claim default/claim-0, request req-0",
        "driver-a/pool-1/device-0",
    )


def test_a_device_whose_selector_fails_to_evaluate_is_an_error() -> None:
    error = "class class-a: selector #0 on device driver-a/pool-1/device-0: CEL runtime error: no such key"
    p = problem([device(0)], [claim(0)], selectable={((0, 0, 0), 0): error})
    only(validate(p, solution(alloc(0, res(0)))), "selectable", "CEL runtime error")


def test_binding_condition_devices_need_the_binding_feature() -> None:
    devices = [device(0, binding=["attached"])]
    p = problem(devices, [claim(0)])
    assert validate(p, solution(alloc(0, res(0)))) == []
    off = replace(p, features=ALL_FEATURES - {"DeviceBindingAndStatus"})
    only(
        validate(off, solution(alloc(0, res(0)))),
        "selectable",
        "driver-a/pool-1/device-0",
        "binding conditions",
    )


def test_a_missing_device_class_makes_the_claim_unallocatable() -> None:
    p = problem([device(0)], [claim(0, exact(class_exists=False))])
    only(validate(p, solution(alloc(0, res(0)))), "selectable", "request req-0", "class-a")


# --- admin access ---------------------------------------------------------------------------------------


def test_admin_access_may_reuse_devices_of_other_claims_and_in_use_ones() -> None:
    devices = [device(0), device(1)]
    held = InUse(exclusive=frozenset({"driver-a/pool-1/device-1"}))
    p = problem(devices, [claim(0), claim(1, exact(admin_access=True, count=2))], in_use=held)
    sol = solution(alloc(0, res(0)), alloc(1, res(0, (1, 0, 0), admin=True), res(1, (1, 0, 0), admin=True)))
    assert validate(p, sol) == []


def test_admin_access_does_not_reuse_a_device_within_its_own_claim() -> None:
    p = problem([device(0)], [claim(0, exact("req-0", admin_access=True), exact("req-1", admin_access=True))])
    sol = solution(alloc(0, res(0, admin=True), res(0, (0, 1, 0), "req-1", admin=True)))
    only(
        validate(p, sol),
        "admin-access",
        "claim default/claim-0, request req-1",
        "driver-a/pool-1/device-0",
        "twice",
    )


def test_the_result_reports_admin_access_as_requested() -> None:
    p = problem([device(0)], [claim(0, exact(admin_access=True))])
    only(validate(p, solution(alloc(0, res(0)))), "admin-access", "request req-0", "adminAccess False")


def test_admin_access_needs_its_feature() -> None:
    p = problem([device(0)], [claim(0, exact(admin_access=False))], features=ALL_FEATURES - {"AdminAccess"})
    only(validate(p, solution(alloc(0, res(0)))), "admin-access", "feature is disabled")


# --- exclusive ------------------------------------------------------------------------------------------


def test_a_device_is_given_to_one_claim_only() -> None:
    p = problem([device(0), device(1)], [claim(0), claim(1)])
    assert validate(p, solution(alloc(0, res(0)), alloc(1, res(1, (1, 0, 0))))) == []
    v = only(
        validate(p, solution(alloc(0, res(0)), alloc(1, res(0, (1, 0, 0))))),
        "exclusive",
        "claim default/claim-1, request req-0",
        "driver-a/pool-1/device-0",
        "claim default/claim-0",
    )
    assert v.claim == 1


def test_a_device_in_use_is_not_given_again() -> None:
    p = problem([device(0)], [claim(0)], in_use=InUse(exclusive=frozenset({"driver-a/pool-1/device-0"})))
    only(
        validate(p, solution(alloc(0, res(0)))), "exclusive", "driver-a/pool-1/device-0", "already allocated"
    )


def test_a_device_with_a_live_share_is_never_given_exclusively() -> None:
    ref = "driver-a/pool-1/device-0"
    p = problem([device(0)], [claim(0)], in_use=InUse(shared=frozenset({ref}), shared_capacity={ref: {}}))
    only(validate(p, solution(alloc(0, res(0)))), "exclusive", ref, "live share")


def test_an_admin_pick_blocks_later_normal_claims_of_the_same_batch() -> None:
    p = problem([device(0)], [claim(0, exact(admin_access=True)), claim(1)])
    sol = solution(alloc(0, res(0, admin=True)), alloc(1, res(0, (1, 0, 0))))
    only(validate(p, sol), "exclusive", "claim default/claim-1", "claim default/claim-0")


def test_what_an_earlier_unit_allocated_is_in_use_for_later_units() -> None:
    p = problem(
        [device(0), device(1)],
        [claim(0), claim(1)],
        units=[Unit(0, "pod-0", (0,), ("node-1",)), Unit(1, "pod-1", (1,), ("node-1",))],
    )
    first = UnitOutcome(0, Status.ALLOCATED, "node-1", (alloc(0, res(0)),))
    assert (
        validate(p, units(first, UnitOutcome(1, Status.ALLOCATED, "node-1", (alloc(1, res(1, (1, 0, 0))),))))
        == []
    )
    v = only(
        validate(p, units(first, UnitOutcome(1, Status.ALLOCATED, "node-1", (alloc(1, res(0, (1, 0, 0))),)))),
        "exclusive",
        "already allocated",
    )
    assert v.unit == 1


def test_admin_results_of_an_earlier_unit_block_nobody() -> None:
    claims = [claim(0, exact(admin_access=True)), claim(1)]
    p = problem(
        [device(0)], claims, units=[Unit(0, "pod-0", (0,), ("node-1",)), Unit(1, "pod-1", (1,), ("node-1",))]
    )
    first = UnitOutcome(0, Status.ALLOCATED, "node-1", (alloc(0, res(0, admin=True)),))
    assert (
        validate(p, units(first, UnitOutcome(1, Status.ALLOCATED, "node-1", (alloc(1, res(0, (1, 0, 0))),))))
        == []
    )


# --- taints ---------------------------------------------------------------------------------------------


def test_blocking_taints_must_be_tolerated() -> None:
    devices = [
        device(0, taints=[Taint("broken", "yes", "NoSchedule")]),
        device(1, taints=[Taint("info", "", "None")]),
    ]
    tolerant = claim(1, exact(tolerations=(Toleration("broken", "Exists"),)))
    p = problem(devices, [claim(0), tolerant])
    assert validate(p, solution(alloc(0, res(1)), alloc(1, res(0, (1, 0, 0))))) == []
    only(
        validate(p, solution(alloc(0, res(0)), alloc(1, res(1, (1, 0, 0))))),
        "taint",
        "claim default/claim-0, request req-0",
        "driver-a/pool-1/device-0",
        "broken=yes:NoSchedule",
    )
    off = replace(p, features=ALL_FEATURES - {"DeviceTaints"})
    assert validate(off, solution(alloc(0, res(0)), alloc(1, res(1, (1, 0, 0))))) == []


# --- counters -------------------------------------------------------------------------------------------


def partitions(*consumes: int, multi: bool = False, groups: Sequence[Sequence[str]] = ()) -> list[Device]:
    return [
        device(i, consumes=[uses("gpu-0", groups[i] if groups else (), memory=m)], multi=multi)
        for i, m in enumerate(consumes)
    ]


def counter_problem(
    devices: Sequence[Device], claims: Sequence[Claim], memory: int = 8, **kw: Any
) -> Problem:
    view = node_view(devices, counter_sets={"gpu-0": {"memory": Fraction(memory)}})
    return problem(devices, claims, views=[view], **kw)


def test_new_partitions_must_fit_the_shared_counters() -> None:
    p = counter_problem(partitions(4, 6, 2), [claim(0, exact(count=2))])
    assert validate(p, solution(alloc(0, res(0), res(2)))) == []
    only(
        validate(p, solution(alloc(0, res(0), res(1)))),
        "counters",
        "claim default/claim-0, request req-0",
        "driver-a/pool-1/device-1",
        "counter memory of counter set gpu-0",
        "need 10, 8 is left",
    )


def test_allocated_partitions_reduce_what_is_left() -> None:
    held = InUse(exclusive=frozenset({"driver-a/pool-1/device-0"}))
    p = counter_problem(partitions(4, 4, 2), [claim(0)], in_use=held)
    assert validate(p, solution(alloc(0, res(1)))) == []
    tight = counter_problem(partitions(6, 4, 2), [claim(0)], in_use=held)
    only(
        validate(tight, solution(alloc(0, res(1)))),
        "counters",
        "driver-a/pool-1/device-1",
        "need 4, 2 is left",
    )


def test_a_shared_partition_draws_on_the_counters_once() -> None:
    p = counter_problem(partitions(6, 4, multi=True), [claim(0), claim(1)])
    sol = solution(alloc(0, res(0, shared=True)), alloc(1, res(0, (1, 0, 0), shared=True)))
    assert validate(p, sol) == []
    sol = solution(alloc(0, res(0, shared=True)), alloc(1, res(1, (1, 0, 0), shared=True)))
    only(validate(p, sol), "counters", "claim default/claim-1", "driver-a/pool-1/device-1")


def test_a_partition_with_live_shares_draws_nothing_more() -> None:
    ref = "driver-a/pool-1/device-0"
    held = InUse(shared=frozenset({ref}), shared_capacity={ref: {}})
    p = counter_problem(partitions(6, 2, multi=True), [claim(0, exact(count=2))], in_use=held)
    assert validate(p, solution(alloc(0, res(0, shared=True), res(1, shared=True)))) == []


def test_an_exhausted_counter_blocks_every_partition_of_the_pool() -> None:
    devices = [device(0, consumes=[uses("gpu-0", memory=4)]), device(1, consumes=[uses("gpu-0", cores=1)])]
    view = node_view(devices, counter_sets={"gpu-0": {"memory": Fraction(2), "cores": Fraction(4)}})
    held = InUse(exclusive=frozenset({"driver-a/pool-1/device-0"}))
    p = problem(devices, [claim(0)], views=[view], in_use=held)
    only(
        validate(p, solution(alloc(0, res(1)))),
        "counters",
        "driver-a/pool-1/device-1",
        "counter memory",
        "already exhausted (-2 left)",
    )


def test_partitions_need_the_partitionable_devices_feature() -> None:
    p = counter_problem(partitions(4), [claim(0)], features=ALL_FEATURES - {"PartitionableDevices"})
    only(
        validate(p, solution(alloc(0, res(0)))),
        "counters",
        "driver-a/pool-1/device-0",
        "PartitionableDevices is off",
    )


# --- compatibility groups -------------------------------------------------------------------------------


def test_partitions_on_one_counter_set_share_a_compatibility_group() -> None:
    devices = partitions(1, 1, 1, groups=[["a", "b"], ["b"], ["c"]])
    p = counter_problem(devices, [claim(0, exact(count=2))])
    assert validate(p, solution(alloc(0, res(0), res(1)))) == []
    only(
        validate(p, solution(alloc(0, res(0), res(2)))),
        "compatibility-groups",
        "claim default/claim-0, request req-0",
        "driver-a/pool-1/device-2",
        "counter set gpu-0",
    )


def test_grouped_and_groupless_partitions_do_not_mix() -> None:
    p = counter_problem(partitions(1, 1, groups=[["a"], []]), [claim(0, exact(count=2))])
    only(validate(p, solution(alloc(0, res(0), res(1)))), "compatibility-groups", "driver-a/pool-1/device-1")


def test_allocated_peers_bring_their_groups() -> None:
    held = InUse(exclusive=frozenset({"driver-a/pool-1/device-0"}))
    p = counter_problem(partitions(1, 1, 1, groups=[["a"], ["a"], ["b"]]), [claim(0)], in_use=held)
    assert validate(p, solution(alloc(0, res(1)))) == []
    only(validate(p, solution(alloc(0, res(2)))), "compatibility-groups", "driver-a/pool-1/device-2")
    off = replace(p, features=ALL_FEATURES - {"CompatibilityGroups"})
    assert validate(off, solution(alloc(0, res(2)))) == []


def test_allocated_peers_seed_the_groups_as_the_allocator_folds_them() -> None:
    """Allocated peers already mixing a grouped and a group-less device (slices changed since): the
    allocator's running state keeps the grouped peer's groups, so a device sharing one is admitted."""
    held = InUse(exclusive=frozenset({"driver-a/pool-1/device-0", "driver-a/pool-1/device-1"}))
    devices = partitions(1, 1, 1, 1, groups=[["a"], [], ["a"], []])
    p = counter_problem(devices, [claim(0)], in_use=held)
    assert validate(p, solution(alloc(0, res(2)))) == []
    only(validate(p, solution(alloc(0, res(3)))), "compatibility-groups", "driver-a/pool-1/device-3")
    greedy_answer = GreedyEngine().solve(p)
    assert validate(p, greedy_answer) == []


# --- consumable capacity --------------------------------------------------------------------------------


def shared_problem(request: int | None, **kw: Any) -> Problem:
    policy = {"default": Fraction(1), "min": Fraction(1), "step": Fraction(2)}
    devices = [device(0, multi=True, capacity={"mem": cap(8, **policy)})]
    requests = {"mem": Fraction(request)} if request is not None else None
    return problem(
        devices,
        [claim(0, exact(capacity_requests=requests)), claim(1, exact(capacity_requests=requests))],
        **kw,
    )


def test_shares_consume_the_rounded_request_and_fit_the_capacity() -> None:
    p = shared_problem(2)
    sol = solution(
        alloc(0, res(0, shared=True, consumed={"mem": 3})),
        alloc(1, res(0, (1, 0, 0), shared=True, consumed={"mem": 3})),
    )
    assert validate(p, sol) == []
    only(
        validate(
            p,
            solution(
                alloc(0, res(0, shared=True, consumed={"mem": 2})),
                alloc(1, res(0, (1, 0, 0), shared=True, consumed={"mem": 3})),
            ),
        ),
        "capacity",
        "claim default/claim-0, request req-0",
        "driver-a/pool-1/device-0",
        "consumes {mem: 3}",
    )


def test_shares_may_not_exceed_the_capacity() -> None:
    p = shared_problem(4)
    sol = solution(
        alloc(0, res(0, shared=True, consumed={"mem": 5})),
        alloc(1, res(0, (1, 0, 0), shared=True, consumed={"mem": 5})),
    )
    only(
        validate(p, sol),
        "capacity",
        "claim default/claim-1",
        "driver-a/pool-1/device-0",
        "capacity mem is exceeded",
    )


def test_existing_shares_count_toward_the_capacity() -> None:
    ref = "driver-a/pool-1/device-0"
    held = InUse(shared=frozenset({ref}), shared_capacity={ref: {"driver-a/mem": Fraction(5)}})
    p = shared_problem(2, in_use=held)
    only(
        validate(
            p,
            solution(
                alloc(0, res(0, shared=True, consumed={"mem": 3})),
                alloc(1, res(0, (1, 0, 0), shared=True, consumed={"mem": 3})),
            ),
        ),
        "capacity",
        "5 in use + 6",
    )


def test_a_shared_device_is_given_as_a_share_and_an_exclusive_one_is_not() -> None:
    p = shared_problem(None)
    only(
        validate(
            p,
            solution(
                alloc(0, res(0, consumed={"mem": 1})),
                alloc(1, res(0, (1, 0, 0), shared=True, consumed={"mem": 1})),
            ),
        ),
        "capacity",
        "without a share",
    )
    plain = problem([device(0)], [claim(0)])
    only(
        validate(plain, solution(alloc(0, res(0, consumed={"mem": 1})))),
        "capacity",
        "exclusive",
        "driver-a/pool-1/device-0",
    )


def test_a_request_breaking_the_policy_is_refused() -> None:
    devices = [device(0, multi=True, capacity={"mem": cap(8, valid_values=(Fraction(2), Fraction(4)))})]
    p = problem(devices, [claim(0, exact(capacity_requests={"mem": Fraction(6)}))])
    violations = validate(p, solution(alloc(0, res(0, shared=True, consumed={"mem": 6}))))
    assert kinds(violations) == ["capacity"] and "request policy" in violations[0].message


def test_a_request_for_a_capacity_the_device_lacks_is_refused() -> None:
    p = problem([device(0)], [claim(0, exact(capacity_requests={"bw": Fraction(1)}))])
    only(
        validate(p, solution(alloc(0, res(0)))),
        "capacity",
        "driver-a/pool-1/device-0",
        "does not publish capacity bw",
    )


def test_capacity_requests_need_the_consumable_capacity_feature() -> None:
    p = replace(shared_problem(2), features=ALL_FEATURES - {"ConsumableCapacity"})
    violations = validate(p, solution(alloc(0, res(0)), alloc(1, res(0, (1, 0, 0)))))
    assert "capacity" in kinds(violations)
    assert any("DRAConsumableCapacity feature is disabled" in v.message for v in violations)
    # without the feature the device is exclusive, so the second claim may not have it
    assert "exclusive" in kinds(violations)


# --- constraints ----------------------------------------------------------------------------------------


def model_devices(*models: AttrValue | None) -> list[Device]:
    return [device(i, attrs={"model": m} if m is not None else {}) for i, m in enumerate(models)]


def test_match_attribute_needs_one_value() -> None:
    c = claim(0, exact(count=2), constraints=[Constraint("match", "driver-a/model")])
    p = problem(model_devices(string("a"), string("a"), string("b")), [c])
    assert validate(p, solution(alloc(0, res(0), res(1)))) == []
    only(
        validate(p, solution(alloc(0, res(0), res(2)))),
        "constraint",
        "claim default/claim-0, request req-0",
        "driver-a/pool-1/device-2",
        "matchAttribute driver-a/model",
    )


def test_a_device_without_the_attribute_fails_the_constraint() -> None:
    c = claim(0, exact(count=2), constraints=[Constraint("match", "driver-a/model")])
    p = problem(model_devices(string("a"), None), [c])
    only(validate(p, solution(alloc(0, res(0), res(1)))), "constraint", "driver-a/pool-1/device-1", "missing")


def test_distinct_attribute_needs_different_values() -> None:
    c = claim(0, exact(count=2), constraints=[Constraint("distinct", "driver-a/model")])
    p = problem(model_devices(string("a"), string("a"), string("b")), [c])
    assert validate(p, solution(alloc(0, res(0), res(2)))) == []
    only(
        validate(p, solution(alloc(0, res(0), res(1)))),
        "constraint",
        "driver-a/pool-1/device-1",
        "distinctAttribute",
    )


def test_list_attributes_match_on_a_common_element_of_all_devices() -> None:
    c = claim(0, exact(count=3), constraints=[Constraint("match", "driver-a/model")])
    devices = model_devices(strings("a", "b"), strings("b", "c"), strings("c", "a"), strings("b"))
    p = problem(devices, [c])
    assert validate(p, solution(alloc(0, res(0), res(1), res(3)))) == []
    only(validate(p, solution(alloc(0, res(0), res(1), res(2)))), "constraint", "driver-a/pool-1/device-2")
    scalar = replace(p, features=ALL_FEATURES - {"ListTypeAttributes"})
    only(
        validate(scalar, solution(alloc(0, res(0), res(1), res(3)))), "constraint", "driver-a/pool-1/device-1"
    )


def test_list_attributes_are_distinct_when_disjoint() -> None:
    c = claim(0, exact(count=2), constraints=[Constraint("distinct", "driver-a/model")])
    p = problem(model_devices(strings("a", "b"), strings("c"), strings("b", "d")), [c])
    assert validate(p, solution(alloc(0, res(0), res(1)))) == []
    only(validate(p, solution(alloc(0, res(0), res(2)))), "constraint", "driver-a/pool-1/device-2")


def test_constraints_only_cover_the_requests_they_name() -> None:
    c = claim(
        0,
        exact("req-0"),
        first_available("req-1", slot("sub-0")),
        exact("req-2"),
        constraints=[Constraint("match", "driver-a/model", ("req-0", "req-1/sub-0"))],
    )
    p = problem(model_devices(string("a"), string("a"), string("b")), [c])
    sol = solution(
        alloc(0, res(0), res(1, (0, 1, 0), "req-1/sub-0"), res(2, (0, 2, 0), "req-2"), chosen={1: 0})
    )
    assert validate(p, sol) == []
    sol = solution(
        alloc(0, res(0), res(2, (0, 1, 0), "req-1/sub-0"), res(1, (0, 2, 0), "req-2"), chosen={1: 0})
    )
    only(validate(p, sol), "constraint", "request req-1/sub-0", "driver-a/pool-1/device-2")


def test_a_derived_attribute_replaces_the_physical_one_for_its_request_only() -> None:
    derived = (DerivedAttribute("driver-a/model", "'same'"),)
    c = claim(
        0,
        exact("req-0", derived=derived),
        exact("req-1"),
        constraints=[Constraint("match", "driver-a/model")],
    )
    devices = model_devices(string("a"), string("b"), string("same"))
    values: dict[tuple[SlotKey, int, str], AttrValue | str] = {
        ((0, 0, 0), d.id, "driver-a/model"): string("same") for d in devices
    }
    p = problem(devices, [c], derived=values)
    assert validate(p, solution(alloc(0, res(0), res(2, (0, 1, 0), "req-1")))) == []
    only(
        validate(p, solution(alloc(0, res(0), res(1, (0, 1, 0), "req-1")))),
        "constraint",
        "request req-1",
        "driver-a/pool-1/device-1",
    )


def test_a_derived_attribute_that_fails_to_evaluate_is_an_error() -> None:
    derived = (DerivedAttribute("derived/x", "device.attributes['nope']"),)
    c = claim(0, exact(derived=derived), constraints=[Constraint("match", "derived/x")])
    p = problem(
        model_devices(string("a")),
        [c],
        derived={((0, 0, 0), 0, "derived/x"): "CEL runtime error: no such key: nope"},
    )
    only(validate(p, solution(alloc(0, res(0)))), "constraint", "driver-a/pool-1/device-0", "no such key")


# --- the greedy engine on the upstream scenarios --------------------------------------------------------


def scenario_cases() -> list[Any]:
    return [pytest.param(d, id=d.name) for d in sorted(SCENARIOS.glob("*")) if (d / "case.yaml").is_file()]


@pytest.mark.skipif(not SCENARIOS.is_dir(), reason="the shared scenarios are not available")
@pytest.mark.parametrize("case", scenario_cases())
def test_greedy_answers_pass_the_validator(case: Path) -> None:
    spec = yaml.safe_load((case / "case.yaml").read_text())
    gates = ALL_ON.with_values(spec.get("featureGates") or {})
    built = build(load([str(case / "objects.yaml")]), gates, spec.get("node"), spec.get("claims"))
    answer = GreedyEngine().solve(built.problem)
    assert validate(built.problem, answer) == []


def test_greedy_answers_on_generated_problems_pass_the_validator() -> None:
    """A seeded differential check: whatever greedy allocates, the validator accepts."""
    failures = []
    for seed in range(150):
        p = generated_problem(random.Random(seed))
        violations = validate(p, GreedyEngine().solve(p))
        if violations:
            failures.append((seed, violations))
    assert failures == []


def generated_problem(rng: random.Random) -> Problem:
    """Small random problems over most features."""
    features = {f for f in ALL_FEATURES if rng.random() > 0.15}
    devices: list[Device] = []
    pools = []
    for pi in range(rng.randint(1, 2)):
        start = len(devices)
        for i in range(start, start + rng.randint(1, 4)):
            model = rng.choice([string("a"), string("b"), strings(*rng.sample("abc", 2)), None])
            groups = rng.choice([(), ("g1",), ("g2",), ("g1", "g2")])
            consumes = [uses("cs", groups, mem=rng.randint(1, 4))] if rng.random() < 0.4 else []
            multi = rng.random() < 0.3
            policy = rng.choice([{}, {"default": Fraction(1), "min": Fraction(1), "step": Fraction(2)}])
            capacity = (
                {"mem": cap(rng.randint(2, 8), **policy)} if rng.random() < (0.8 if multi else 0.3) else {}
            )
            taints = [Taint("t", "", rng.choice(["NoSchedule", "None"]))] if rng.random() < 0.2 else []
            devices.append(
                device(
                    i,
                    pool=f"pool-{pi}",
                    attrs={"model": model} if model else {},
                    consumes=consumes,
                    multi=multi,
                    capacity=capacity,
                    taints=taints,
                )
            )
        ids = tuple(range(start, len(devices)))
        counters = {"cs": {"mem": Fraction(rng.randint(2, 8))}}
        pools.append(
            PoolView(
                "driver-a",
                f"pool-{pi}",
                "complete",
                1,
                devices=ids,
                counter_sets=counters,
                counter_devices=ids,
            )
        )

    def random_slot(name: str) -> Slot:
        kw: dict[str, Any] = {"mode": "All"} if rng.random() < 0.15 else {"count": rng.randint(1, 2)}
        if "AdminAccess" in features and rng.random() < 0.15:
            kw["admin_access"] = True
        if "ConsumableCapacity" in features and rng.random() < 0.3:
            kw["capacity_requests"] = {"mem": Fraction(rng.randint(1, 3))}
        if rng.random() < 0.3:
            kw["tolerations"] = (Toleration("t", "Exists"),)
        return slot(name, **kw)

    claims: list[Claim] = []
    unit_list: list[Unit] = []
    for u in range(rng.randint(1, 3)):
        ids_in_unit = []
        for _ in range(rng.randint(1, 2)):
            requests = []
            for r in range(rng.randint(1, 2)):
                if "PrioritizedList" in features and rng.random() < 0.3:
                    requests.append(first_available(f"req-{r}", random_slot("sub-0"), random_slot("sub-1")))
                else:
                    requests.append(Request(f"req-{r}", (random_slot(f"req-{r}"),)))
            kind = rng.choice(["match", "distinct", None, None])
            constraints = [Constraint(kind, "driver-a/model")] if kind else []
            claims.append(claim(len(claims), *requests, constraints=constraints))
            ids_in_unit.append(len(claims) - 1)
        if u and rng.random() < 0.2:
            ids_in_unit.append(rng.randrange(min(ids_in_unit)))  # share a claim of an earlier unit
        unit_list.append(Unit(u, f"pod-{u}", tuple(ids_in_unit), ("node-1",)))
    refs = [d.ref for d in devices]
    shared = {d.ref for d in devices if d.allow_multiple_allocations and rng.random() < 0.2}
    held = InUse(
        frozenset(r for r in refs if r not in shared and rng.random() < 0.1),
        {r: {"driver-a/mem": Fraction(1)} for r in shared},
        frozenset(shared),
    )
    selectable = {
        ((c.id, ri, si), d.id): rng.random() < 0.8
        for c in claims
        for ri, r in enumerate(c.requests)
        for si in range(len(r.slots))
        for d in devices
    }
    view = NodeView("node-1", tuple(pools))
    return problem(
        devices, claims, views=[view], units=unit_list, in_use=held, selectable=selectable, features=features
    )


def test_greedy_backtracks_over_two_shares_of_a_device_without_capacity() -> None:
    """Two requests share one multi-allocatable device without capacities, a third request cannot be
    satisfied: the allocator must backtrack through both shares and answer "unsatisfiable"."""
    c = claim(0, exact("req-0"), exact("req-1"), exact("req-2"))
    p = problem([device(0, multi=True)], [c], selectable={((0, 2, 0), 0): False})
    answer = GreedyEngine().solve(p)
    assert answer.units[0].status == Status.UNSATISFIABLE
    assert validate(p, answer) == []
