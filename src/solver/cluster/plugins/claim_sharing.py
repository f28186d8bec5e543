"""DynamicResources' check of claims whose devices map to node-allocatable resources
(DRANodeAllocatableResources, `validateNodeAllocatableDRAClaimSharing`): such a claim is charged to
the node of the one pod that uses it, so it cannot be shared across pods. An allocated claim with a
mapped device that is reserved for another pod (or another member of the pod's group) turns the node
away; claims whose devices only carry overhead may be shared."""

from __future__ import annotations

from collections.abc import Callable

from ...claim_holds import ClaimHold
from ...problem import Problem, Unit
from ..facts import Pod

SHARED = "node allocatable resource claim {} has a mapped device and cannot be shared across pods"


def _maps(problem: Problem, hold: ClaimHold) -> bool:
    return any(
        entry.capacity_key or entry.device_multiplier
        for held in hold.devices
        for d in held.ids
        for entry in problem.devices[d].node_allocatable
    )


def shared_mapped_claim(
    problem: Problem, unit: Unit, pod: Pod, hold_of: Callable[[str], ClaimHold | None]
) -> str:
    """The rejection for the first allocated claim of the unit that maps node resources and is reserved
    for someone else ("" when there is none)."""
    if not problem.on("NodeAllocatableResources"):
        return ""
    for c in dict.fromkeys(unit.claims):
        claim = problem.claims[c]
        hold = hold_of(claim.key)
        if hold is None or not _maps(problem, hold):
            continue
        if hold.pods - {pod.key} or (hold.others and not pod.pod_group):
            return SHARED.format(claim.name)
    return ""
