"""DynamicResources' checks of who reserves an allocated claim (`status.reservedFor`, matched to the
pod by uid, as `resourceclaim.IsReservedForPod` does; see ClaimHold.pods).

- PreFilter: a claim reserved for ResourceClaimReservedForMaxSize consumers, none of them this pod,
  cannot take the pod ("resourceclaim in use").
- Filter (DRANodeAllocatableResources, `validateNodeAllocatableDRAClaimSharing`): a claim whose
  devices map node-allocatable resources is charged to the node of the one pod that uses it, so it
  cannot be shared across pods. An allocated claim with a mapped device that is reserved for another
  pod (or another member of the pod's group) turns the node away; claims whose devices only carry
  overhead may be shared.
- PostFilter: a claim no node could use is deallocated when nothing but this pod reserves it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ....model.claim_holds import ClaimHold
from ....model.cluster.facts import Pod
from ....model.problem import Problem, Unit

SHARED = "node allocatable resource claim {} has a mapped device and cannot be shared across pods"
IN_USE = "resourceclaim in use"
RESERVED_FOR_MAX = 256  # resourceapi.ResourceClaimReservedForMaxSize


def _reserved_for(hold: ClaimHold, pod: Pod) -> bool:
    """IsReservedForPod (a PodGroup's reservation counts for its members)."""
    return pod.key in hold.pods or (hold.others and bool(pod.pod_group))


def in_use(problem: Problem, unit: Unit, pod: Pod, hold_of: Callable[[str], ClaimHold | None]) -> bool:
    """Some allocated claim of the unit is reserved as often as it can be, and not for this pod
    (CanBeReserved)."""
    for c in dict.fromkeys(unit.claims):
        hold = hold_of(problem.claims[c].key)
        if hold is not None and hold.count >= RESERVED_FOR_MAX and not _reserved_for(hold, pod):
            return True
    return False


def deallocatable(
    problem: Problem, claims: Iterable[int], pod: Pod, hold_of: Callable[[str], ClaimHold | None]
) -> bool:
    """Some of `claims` is reserved for nobody, or for this pod alone: PostFilter would deallocate it."""
    for c in claims:
        hold = hold_of(problem.claims[c].key)
        if hold is None:
            continue
        if hold.count == 0 or (hold.count == 1 and hold.pods == frozenset({pod.key})):
            return True
    return False


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
