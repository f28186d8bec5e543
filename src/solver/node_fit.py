"""The scheduler's NodeResourcesFit filter, and what DRA allocations charge to node resources.

Node resources are counted as the scheduler counts them: cpu in millicores, the
rest in whole units, the pod count under `pods`. A node that does not publish its
allocatable resources is not checked. Devices with node-allocatable mappings
(DRANodeAllocatableResources) add their amounts to the pod's requests once the
devices are chosen, so the same node can fit a pod with one allocation and not
another: the amounts join the pod's container sum as `pod_shape` describes, and
DynamicResources checks cpu, memory, ephemeral-storage and hugepages against the
node (`dra_shortfalls`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

from ..model.pod_shape import Charges, ClaimCharge
from ..model.pod_shape import requests as pod_requests
from ..model.problem import Node, Problem, Unit
from ..model.solution import ClaimAllocation

PODS = "pods"
# The order the scheduler reports shortfalls in; scalar resources follow by name.
_FIRST = ("cpu", "memory", "ephemeral-storage")


def claim_amounts(
    problem: Problem, allocation: ClaimAllocation, containers: int
) -> dict[str, dict[str, Fraction]]:
    """Node resource -> {"mapping": amount, "perPod": ..., "perContainer": ...} in the resource's units:
    the claim's devices summed, as buildNodeAllocatableDRAInfo sums them (admin access included)."""
    return _amounts(problem, [(r.device, r.consumed_capacity) for r in allocation.results], containers)


def _amounts(
    problem: Problem, results: Sequence[tuple[int, Mapping[str, Fraction] | None]], containers: int
) -> dict[str, dict[str, Fraction]]:
    out: dict[str, dict[str, Fraction]] = {}
    for device_id, consumed_capacity in results:
        device = problem.devices[device_id]
        for entry in device.node_allocatable:
            amounts = out.setdefault(entry.resource, {})
            mapped = Fraction(0)
            if entry.capacity_key:
                consumed = (consumed_capacity or {}).get(entry.capacity_key)
                if consumed is None:
                    capacity = device.capacity.get(entry.capacity_key)
                    consumed = capacity.value if capacity is not None else Fraction(0)
                mapped = consumed * entry.capacity_multiplier
            elif entry.device_multiplier:
                mapped = entry.device_multiplier
            amounts["mapping"] = amounts.get("mapping", Fraction(0)) + mapped
            if entry.per_pod:
                amounts["perPod"] = amounts.get("perPod", Fraction(0)) + entry.per_pod
            if entry.per_container:
                amounts["perContainer"] = amounts.get("perContainer", Fraction(0)) + entry.per_container
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


def _scaled(resource: str, value: Fraction) -> Fraction:
    return value * 1000 if resource == "cpu" else value


def claim_charges(
    problem: Problem, unit: Unit, allocations: Sequence[ClaimAllocation] = ()
) -> list[ClaimCharge]:
    """What each claim of the unit charges to node resources, in scheduler units: the new `allocations`,
    the claims the input has allocated already, and those this run allocated (`allocations` first)."""
    new = {a.claim: a for a in allocations}
    out = []
    for c in dict.fromkeys(unit.claims):
        containers = unit.claim_containers.get(c, ())
        claim = problem.claims[c]
        if c in new:
            results = [(r.device, r.consumed_capacity) for r in new[c].results]
        elif claim.status is not None:
            results = list(claim.status.devices)
        else:
            continue
        amounts = _amounts(problem, results, len(containers))
        if not amounts:
            continue
        fixed = {
            r: _scaled(r, a.get("mapping", Fraction(0)) + a.get("perPod", Fraction(0)))
            for r, a in amounts.items()
        }
        per = {r: _scaled(r, a["perContainer"]) for r, a in amounts.items() if a.get("perContainer")}
        out.append(ClaimCharge(claim.name, tuple(containers), fixed, per))
    return out


def unit_demand(problem: Problem, unit: Unit, allocations: Sequence[ClaimAllocation]) -> dict[str, int]:
    """What the unit takes of its node: its own requests plus what its claims' devices charge."""
    demand = dict(unit.requests)
    if unit.shape is None:
        # No containers to attribute to (claims given by name): the claims' totals on top.
        for allocation in allocations:
            containers = len(unit.claim_containers.get(allocation.claim, ()))
            for resource, amounts in claim_amounts(problem, allocation, containers).items():
                demand[resource] = demand.get(resource, 0) + scheduler_units(resource, amounts["total"])
        return demand
    charges = claim_charges(problem, unit, allocations)
    if not charges:
        return demand
    with_devices = pod_requests(unit.shape, Charges.of(unit.shape, charges))
    without = pod_requests(unit.shape)
    for resource, value in with_devices.items():
        extra = math.ceil(value - without.get(resource, Fraction(0)))
        if extra > 0:
            demand[resource] = demand.get(resource, 0) + extra
    return demand


# What DynamicResources' nodeFitsResources checks once devices charge node resources.
def _dra_checked(resource: str) -> bool:
    return resource in _FIRST or resource.startswith("hugepages-")


def dra_shortfalls(
    node: Node, used: Mapping[str, int], demand: Mapping[str, int]
) -> tuple[tuple[str, ...], bool]:
    """nodeFitsResources: the reasons the node cannot take the pod's whole demand (cpu, memory,
    ephemeral-storage, hugepages), and whether no eviction could make room (a demand beyond what the node
    has at all)."""
    allocatable = node.allocatable
    if allocatable is None:
        return (), False
    names = [r for r in _FIRST if r in demand] + sorted(
        r for r in demand if r not in _FIRST and _dra_checked(r)
    )
    out = []
    hard = False
    for resource in names:
        want = demand[resource]
        if want > 0 and want > allocatable.get(resource, 0) - used.get(resource, 0):
            out.append(f"Insufficient {resource}")
            hard = hard or want > allocatable.get(resource, 0)
    return tuple(out), hard


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
