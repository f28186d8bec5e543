"""DynamicResources' `validatePodLevelResourcesCoverDRA` (PodLevelResources with
DRANodeAllocatableResources): API validation checks a pod's own budget against its containers only;
once devices are chosen the scheduler checks that the budget also covers what they charge.

- the pod-level request of cpu, memory or hugepages must cover the containers' sum with the claims'
  charges;
- a pod-level hugepages limit must cover the containers' summed limits with the charges;
- any other pod-level limit must cover each container's own limit plus everything the claims that
  container references charge.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..model.pod_shape import Charges, ClaimCharge, PodShape, aggregate, container_charges, pod_level_resource

REQUEST = (
    "pod level request for {} is insufficient to cover the aggregated container and node-allocatable DRA "
    "requests"
)
HUGEPAGES = (
    "pod level limit for {} is insufficient to cover the aggregated container and node-allocatable DRA limits"
)
CONTAINER = "pod level limit for {} is insufficient to cover the limit and DRA overhead for container {}"


def _order(names: Sequence[str]) -> list[str]:
    # Upstream walks Go maps (no order); cpu and memory first, then by name, for one answer every time.
    return sorted(names, key=lambda n: ({"cpu": 0, "memory": 1}.get(n, 2), n))


def uncovered(shape: PodShape, claims: Sequence[ClaimCharge]) -> tuple[str, str]:
    """The scheduler's rejection when the pod-level budget does not cover what the devices charge, and the
    resource it is about (("", "") when it covers them, or when the pod has no pod-level resources or no
    claim charges anything)."""
    if not (shape.pod_requests or shape.pod_limits) or not claims:
        return "", ""
    charges = Charges.of(shape, claims)
    if shape.pod_requests:
        summed = aggregate(shape, lambda c: c.requests, charges)
        wanted = dict(shape.pod_requests)
        for name in _order(list(wanted)):
            if pod_level_resource(name) and name in summed and summed[name] > wanted[name]:
                return REQUEST.format(name), name
    if shape.pod_limits:
        limits = dict(shape.pod_limits)
        summed = aggregate(shape, lambda c: c.limits, charges.only_declared(shape))
        for name in _order(list(summed)):
            if name.startswith("hugepages-") and name in limits and summed[name] > limits[name]:
                return HUGEPAGES.format(name), name
        for container in shape.containers:
            if container.kind != "container":
                continue
            extra = container_charges(claims, container.name)
            own = dict(container.limits)
            for name in _order(list(own)):
                if name.startswith("hugepages-") or name not in limits:
                    continue
                if Fraction(own[name]) + extra.get(name, Fraction(0)) > limits[name]:
                    return CONTAINER.format(name, container.name), name
    return "", ""
