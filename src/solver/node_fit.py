"""The scheduler's NodeResourcesFit filter, and what DRA allocations charge to node resources.

Node resources are counted as the scheduler counts them: cpu in millicores, the
rest in whole units, the pod count under `pods`. A node that does not publish its
allocatable resources is not checked. Devices with node-allocatable mappings
(DRANodeAllocatableResources) add their amounts to the pod's requests once the
devices are chosen, so the same node can fit a pod with one allocation and not
another.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from .problem import Node, Problem, Unit
from .solution import ClaimAllocation

PODS = "pods"
# The order the scheduler reports shortfalls in; scalar resources follow by name.
_FIRST = ("cpu", "memory", "ephemeral-storage")


def claim_amounts(
    problem: Problem, allocation: ClaimAllocation, containers: int
) -> dict[str, dict[str, Fraction]]:
    """Node resource -> {"mapping": amount, "perPod": ..., "perContainer": ...} in the resource's units."""
    out: dict[str, dict[str, Fraction]] = {}
    for result in allocation.results:
        if result.admin_access:
            continue
        device = problem.devices[result.device]
        for entry in device.node_allocatable:
            amounts = out.setdefault(entry.resource, {})
            mapped = Fraction(0)
            if entry.capacity_key:
                consumed = (result.consumed_capacity or {}).get(entry.capacity_key)
                if consumed is None:
                    capacity = device.capacity.get(entry.capacity_key)
                    consumed = capacity.value if capacity is not None else Fraction(0)
                mapped = consumed * entry.capacity_multiplier
            elif entry.device_multiplier:
                mapped = entry.device_multiplier
            amounts["mapping"] = amounts.get("mapping", Fraction(0)) + mapped
            if entry.per_pod or entry.per_container:
                amounts["perPod"] = max(amounts.get("perPod", Fraction(0)), entry.per_pod)
                amounts["perContainer"] = max(amounts.get("perContainer", Fraction(0)), entry.per_container)
    for amounts in out.values():
        amounts["total"] = (
            amounts.get("mapping", Fraction(0))
            + amounts.get("perPod", Fraction(0))
            + amounts.get("perContainer", Fraction(0)) * containers
        )
    return out


def scheduler_units(resource: str, value: Fraction) -> int:
    scaled = value * 1000 if resource == "cpu" else value
    return math.ceil(scaled)


def unit_demand(
    problem: Problem, unit: Unit, allocations: tuple[ClaimAllocation, ...] | list[ClaimAllocation]
) -> dict[str, int]:
    """What the unit takes of its node: its own requests plus what its new allocations map."""
    demand = dict(unit.requests)
    for allocation in allocations:
        containers = len(unit.claim_containers.get(allocation.claim, ()))
        for resource, amounts in claim_amounts(problem, allocation, containers).items():
            demand[resource] = demand.get(resource, 0) + scheduler_units(resource, amounts["total"])
    return demand


def shortfalls(node: Node, used: Mapping[str, int], demand: Mapping[str, int]) -> tuple[str, ...]:
    """The scheduler's reasons the node cannot take `demand` on top of `used` (empty when it can)."""
    allocatable = node.allocatable
    if allocatable is None or not demand:
        return ()
    out = []
    if PODS in demand and PODS in allocatable and used.get(PODS, 0) + demand[PODS] > allocatable[PODS]:
        out.append("Too many pods")
    names = [r for r in _FIRST if r in demand] + sorted(r for r in demand if r not in _FIRST and r != PODS)
    for resource in names:
        want = demand[resource]
        if want and used.get(resource, 0) + want > allocatable.get(resource, 0):
            out.append(f"Insufficient {resource}")
    return tuple(out)
