"""DynamicResources' node-allocatable footprint (DRANodeAllocatableResources,
`calculateAndCheckNodeAllocatableResources`): when any claim of the pod, allocated now or before, has
a device that charges node resources, the pod's whole demand with those charges must fit the node's
cpu, memory, ephemeral-storage and hugepages, and a pod-level budget must cover the charges first
(`pod_level_cover`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ....model.problem import Problem, Unit
from ....model.solution import ClaimAllocation
from ...node_fit import claim_charges, dra_shortfalls, unit_demand
from ...pod_level_cover import uncovered
from ..framework import NodeInfo, Status, unresolvable, unschedulable


def footprint(
    problem: Problem, unit: Unit, allocations: Sequence[ClaimAllocation], node: NodeInfo
) -> tuple[Status | None, Mapping[str, int] | None]:
    """The rejection (None: the node takes the pod), and what the claims add to the pod's own requests
    (None when no claim charges anything)."""
    charges = claim_charges(problem, unit, allocations)
    if not charges:
        return None, None
    if unit.shape is not None:
        cover, _ = uncovered(unit.shape, charges)
        if cover:
            return unresolvable(cover), None
    demand = unit_demand(problem, unit, allocations)
    mapped = {r: v - unit.requests.get(r, 0) for r, v in demand.items()}
    mapped = {r: v for r, v in mapped.items() if v > 0}
    fact = problem.nodes.get(node.name)
    if fact is not None:
        short, hard = dra_shortfalls(fact, node.requested, demand)
        if short:
            return (unresolvable if hard else unschedulable)(*short), None
    return None, mapped
