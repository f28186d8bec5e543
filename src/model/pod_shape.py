"""A pod's containers as kube-scheduler sums them, with what DRA devices charge to node resources.

component-helpers' PodRequests (and AggregateContainerLimits, the same sum of limits): regular
containers and restartable init containers (sidecars) run together; a non-restartable init container
runs beside the sidecars started before it; the pod needs the larger of the two. The amounts devices
map to node resources (DRANodeAllocatableResources, as the claim statuses the scheduler writes on the
pod carry them) join that sum: what a claim maps and its per-pod overhead for the pod's whole life, its
per-container overhead with each container that references the claim, so an init container's share
counts only while that init container runs. Pod-level requests (PodLevelResources) then stand for the
whole pod for cpu, memory and hugepages; the pod overhead comes on top.

Amounts are in the scheduler's units (cpu in millicores, the rest in whole units) as Fractions, so
that what devices add is exact until it is rounded once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

Amounts = tuple[tuple[str, int], ...]  # (resource, amount) pairs: hashable, so a shape can key a memo


@dataclass(frozen=True)
class ContainerShape:
    name: str
    kind: Literal["container", "sidecar", "init"]
    requests: Amounts = ()  # a limit stands in for a request the container does not write
    limits: Amounts = ()


@dataclass(frozen=True)
class PodShape:
    containers: tuple[ContainerShape, ...] = ()  # init containers in spec order, then the containers
    pod_requests: Amounts = ()  # spec.resources (PodLevelResources on), a limit standing in for a request
    pod_limits: Amounts = ()
    overhead: Amounts = ()


@dataclass(frozen=True)
class ClaimCharge:
    """What one claim's devices charge (NodeAllocatableResourceClaimStatus): `fixed` is the mapping and
    the per-pod overhead, `per_container` the overhead of each container in `containers`."""

    name: str
    containers: tuple[str, ...]
    fixed: Mapping[str, Fraction] = field(default_factory=dict)
    per_container: Mapping[str, Fraction] = field(default_factory=dict)


def pod_level_resource(name: str) -> bool:
    """IsSupportedPodLevelResource."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _add(into: dict[str, Fraction], more: Iterable[tuple[str, int | Fraction]], times: int = 1) -> None:
    for name, value in more:
        into[name] = into.get(name, Fraction(0)) + value * times


def _max(into: dict[str, Fraction], more: Mapping[str, Fraction]) -> None:
    for name, value in more.items():
        if name not in into or value > into[name]:
            into[name] = value


@dataclass
class Charges:
    """getDRANodeAllocatableResources: what the pod's claims charge for its whole life, and per container."""

    fixed: dict[str, Fraction] = field(default_factory=dict)
    per_container: dict[str, dict[str, Fraction]] = field(default_factory=dict)

    @classmethod
    def of(cls, shape: PodShape, claims: Sequence[ClaimCharge]) -> Charges:
        out = cls()
        names = [c.name for c in shape.containers]
        for claim in claims:
            _add(out.fixed, claim.fixed.items())
            if not claim.per_container:
                continue
            known = 0
            for name in names:
                if name in claim.containers:
                    known += 1
                    _add(out.per_container.setdefault(name, {}), claim.per_container.items())
            # A reference to a container the spec does not have is charged for the pod's whole life.
            _add(out.fixed, claim.per_container.items(), len(claim.containers) - known)
        return out

    def only_declared(self, shape: PodShape) -> Charges:
        """dropDRAValuesForUndeclaredLimits: for limits, cpu and memory amounts count only where some
        container declares a limit for that resource (the kubelet leaves the others unlimited)."""
        declared = {name for c in shape.containers for name, _ in c.limits}

        def keep(amounts: Mapping[str, Fraction]) -> dict[str, Fraction]:
            return {r: v for r, v in amounts.items() if r.startswith("hugepages-") or r in declared}

        return Charges(keep(self.fixed), {c: keep(v) for c, v in self.per_container.items()})


def aggregate(
    shape: PodShape, values: Callable[[ContainerShape], Amounts], charges: Charges | None = None
) -> dict[str, Fraction]:
    """aggregateContainerResourcesByFn: the containers' sum with the sidecars, the init containers' peak,
    and the claims' charges."""
    charges = charges or Charges()
    total: dict[str, Fraction] = {}
    sidecars: dict[str, Fraction] = {}
    peak: dict[str, Fraction] = {}
    for container in shape.containers:
        own: dict[str, Fraction] = {}
        _add(own, values(container))
        _add(own, charges.per_container.get(container.name, {}).items())
        if container.kind == "container":
            _add(total, own.items())
        elif container.kind == "sidecar":
            _add(total, own.items())
            _add(sidecars, own.items())
            _max(peak, sidecars)
        else:
            need = dict(sidecars)
            _add(need, own.items())
            _max(peak, need)
    _max(total, peak)
    _add(total, charges.fixed.items())
    return total


def requests(shape: PodShape, charges: Charges | None = None) -> dict[str, Fraction]:
    """PodRequests with the claims' charges: what the pod takes of its node."""
    total = aggregate(shape, lambda c: c.requests, charges)
    for name, value in shape.pod_requests:
        if pod_level_resource(name):
            total[name] = Fraction(value)
    _add(total, shape.overhead)
    return total


def container_charges(claims: Sequence[ClaimCharge], container: str) -> dict[str, Fraction]:
    """GetContainerDRAAllocations: everything the claims a container references charge, once."""
    out: dict[str, Fraction] = {}
    for claim in claims:
        if container in claim.containers:
            _add(out, claim.fixed.items())
            _add(out, claim.per_container.items())
    return out
