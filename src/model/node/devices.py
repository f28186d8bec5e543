"""The devices a container uses through its pod's claims, as the kubelet's topology manager hints them:
one DeviceGroup per claim the container references, holding the NUMA nodes of the devices allocated for
it (those of one request when the reference names a request).

`kubefit admit` reads the allocations from the input's ResourceClaims, the planner from its placements;
both resolve them here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from .problem import DeviceGroup, PodFacts

# (request as the allocation result names it, "req" or "req/sub"; the NUMA nodes of its device)
Result = tuple[str, frozenset[int]]


@dataclass(frozen=True)
class ClaimUse:
    """One entry of a container's `resources.claims`."""

    group: str  # the DeviceGroup's name: "claim/<namespace>/<pod claim>"
    pod_claim: str  # the name in the pod's spec.resourceClaims
    request: str = ""  # only the devices of this request ("" every request of the claim)


def claim_group(namespace: str, pod_claim: str) -> str:
    return f"claim/{namespace}/{pod_claim}"


def device_groups(
    uses: Iterable[ClaimUse], results_of: Callable[[str], Sequence[Result]]
) -> tuple[DeviceGroup, ...]:
    """`results_of(pod claim)`: the allocation results of the claims the pod's claim names, in order; a
    claim that is not allocated (or not found) has none, and the container no group for it."""
    groups = []
    for use in uses:
        # The devices grouped by request (requests in the order they first appear), the wanted ones kept.
        by_request: dict[str, list[frozenset[int]]] = {}
        for request, numa in results_of(use.pod_claim):
            by_request.setdefault(request, []).append(numa)
        wanted = [
            devices
            for request, devices in by_request.items()
            if not use.request or request.split("/")[0] == use.request
        ]
        if wanted:
            groups.append(DeviceGroup(use.group, tuple(n for devices in wanted for n in devices)))
    return tuple(groups)


def with_devices(
    pod: PodFacts, uses: Sequence[Sequence[ClaimUse]], results_of: Callable[[str], Sequence[Result]]
) -> PodFacts:
    """The pod with each container's devices (`uses`: each container's claims, in container order)."""
    containers = tuple(
        replace(c, devices=device_groups(u, results_of)) for c, u in zip(pod.containers, uses, strict=True)
    )
    return replace(pod, containers=containers)
