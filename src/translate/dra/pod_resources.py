"""What pods ask of a node's allocatable resources, as the scheduler's NodeResourcesFit counts it.

A pod's request for a resource is the larger of what its containers need running
together (regular containers plus restartable init containers, the sidecars) and
what the heaviest init container needs while the sidecars started before it run;
plus the pod overhead. With pod-level resources the pod's own requests win. A
container's limit stands in for a request it does not write (API defaulting).
CPU is counted in millicores, everything else in whole units rounded up, as the
scheduler does.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ...model.pod_shape import Charges, ClaimCharge, ContainerShape, PodShape
from ...model.pod_shape import requests as shape_requests
from ...model.quantity import Quantity
from ..kube import KubeObject, ObjectSet

PODS = "pods"


def amount(resource: str, text: Any) -> int:
    return _amount(resource == "cpu", str(text))


# Clusters repeat a handful of quantities thousands of times (every node's allocatable, every replica's
# requests): parse each once.
@functools.lru_cache(maxsize=4096)
def _amount(milli: bool, text: str) -> int:
    try:
        q = Quantity.parse(text)
    except ValueError:
        return 0
    return q.milli_value() if milli else q.value()


def _container_requests(container: Any, non_missing: Mapping[str, int] | None = None) -> dict[str, int]:
    resources = container.resources
    limits = (resources.limits if resources is not None else None) or {}
    requests = dict((resources.requests if resources is not None else None) or {})
    for name, value in limits.items():
        requests.setdefault(name, value)
    out = {name: amount(name, value) for name, value in requests.items()}
    for name, value in (non_missing or {}).items():
        out.setdefault(name, value)
    return out


def _add(into: dict[str, int], more: dict[str, int]) -> None:
    for name, value in more.items():
        into[name] = into.get(name, 0) + value


def _max(into: dict[str, int], more: dict[str, int]) -> None:
    for name, value in more.items():
        into[name] = max(into.get(name, 0), value)


# Resources pod-level requests set for the whole pod (IsSupportedPodLevelResource).
def _pod_level_resource(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def pod_requests(
    pod: Any, pod_level: bool = True, non_missing: Mapping[str, int] | None = None
) -> dict[str, int]:
    """The pod's effective requests (without the `pods` slot it takes). With `non_missing`, a container
    that requests none of a resource counts as requesting that much (the scheduler's NonZeroRequested)."""
    spec = pod.spec
    total: dict[str, int] = {}
    for container in spec.containers or ():
        _add(total, _container_requests(container, non_missing))
    sidecars: dict[str, int] = {}
    peak: dict[str, int] = {}
    for container in spec.init_containers or ():
        own = _container_requests(container, non_missing)
        if container.restart_policy == "Always":
            _add(sidecars, own)
            _max(peak, sidecars)
        else:
            need = dict(sidecars)
            _add(need, own)
            _max(peak, need)
    _add(total, sidecars)
    _max(total, peak)
    if pod_level and spec.resources is not None and (spec.resources.requests or spec.resources.limits):
        for name, value in _container_requests(spec).items():
            if _pod_level_resource(name):
                total[name] = value
    for name, value in (spec.overhead or {}).items():
        total[name] = total.get(name, 0) + amount(name, value)
    return {name: value for name, value in total.items() if value}


def _limits(container: Any) -> dict[str, int]:
    resources = container.resources
    limits = (resources.limits if resources is not None else None) or {}
    return {name: amount(name, value) for name, value in limits.items()}


def _pairs(amounts: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(amounts.items()))


def pod_shape(pod: Any, pod_level: bool = True) -> PodShape:
    """The pod's containers and its own budget, for what devices charge to node resources (pod_shape)."""
    spec = pod.spec
    containers = [
        ContainerShape(
            c.name,
            "sidecar" if c.restart_policy == "Always" else "init",
            _pairs(_container_requests(c)),
            _pairs(_limits(c)),
        )
        for c in spec.init_containers or ()
    ]
    containers += [
        ContainerShape(c.name, "container", _pairs(_container_requests(c)), _pairs(_limits(c)))
        for c in spec.containers or ()
    ]
    own: tuple[tuple[str, int], ...] = ()
    limits: tuple[tuple[str, int], ...] = ()
    if pod_level and spec.resources is not None and (spec.resources.requests or spec.resources.limits):
        own = _pairs(_container_requests(spec))
        limits = _pairs(_limits(spec))
    overhead = _pairs({name: amount(name, value) for name, value in (spec.overhead or {}).items()})
    return PodShape(tuple(containers), own, limits, overhead)


def node_allocatable(node: KubeObject) -> dict[str, int] | None:
    """The node's allocatable resources, or None when its status does not publish them."""
    status = getattr(node.model, "status", None)
    allocatable = status.allocatable if status is not None else None
    if not allocatable:
        return None
    return {name: amount(name, value) for name, value in allocatable.items()}


def _status_charges(pod: Any) -> list[ClaimCharge]:
    """status.nodeAllocatableResourceClaimStatuses, which the scheduler wrote when it placed the pod."""
    status = getattr(pod, "status", None)
    out = []
    for entry in (
        getattr(status, "node_allocatable_resource_claim_statuses", None) if status else None
    ) or ():
        fixed: dict[str, Fraction] = {}
        per: dict[str, Fraction] = {}
        for m in entry.mapping or ():
            if m.quantity is not None:
                fixed[m.name] = fixed.get(m.name, Fraction(0)) + _scaled(m.name, m.quantity)
        for o in entry.overhead or ():
            if o.per_pod is not None:
                fixed[o.name] = fixed.get(o.name, Fraction(0)) + _scaled(o.name, o.per_pod)
            if o.per_container is not None:
                per[o.name] = per.get(o.name, Fraction(0)) + _scaled(o.name, o.per_container)
        out.append(ClaimCharge(entry.resource_claim_name or "", tuple(entry.containers or ()), fixed, per))
    return out


def _scaled(resource: str, text: Any) -> Fraction:
    try:
        value = Quantity.parse(str(text)).as_fraction()
    except ValueError:
        return Fraction(0)
    return value * 1000 if resource == "cpu" else value


def bound_requests(pod: Any, pod_level: bool = True, dra: bool = False) -> dict[str, int]:
    """pod_requests of a pod placed already, with what its claims charge (DRANodeAllocatableResources:
    `dra`), as the claim statuses on the pod say."""
    own = pod_requests(pod, pod_level)
    charges = _status_charges(pod) if dra else []
    if not charges:
        return own
    shape = pod_shape(pod, pod_level)
    without = shape_requests(shape)
    for name, value in shape_requests(shape, Charges.of(shape, charges)).items():
        extra = math.ceil(value - without.get(name, Fraction(0)))
        if extra > 0:
            own[name] = own.get(name, 0) + extra
    return own


def bound_usage(objects: ObjectSet, pod_level: bool = True, dra: bool = False) -> dict[str, dict[str, int]]:
    """Per node, what the pods already bound to it request (terminated pods free their share)."""
    usage: dict[str, dict[str, int]] = {}
    for obj in objects.of_kind("Pod"):
        model: Any = obj.model
        node = model.spec.node_name
        phase = model.status.phase if model.status is not None else None
        if not node or phase in ("Succeeded", "Failed"):
            continue
        used = usage.setdefault(node, {})
        _add(used, bound_requests(model, pod_level, dra))
        used[PODS] = used.get(PODS, 0) + 1
    return usage


def claim_references(pod: Any) -> dict[str, list[str]]:
    """Pod claim name -> the containers (init containers first) that use it."""
    spec = pod.spec
    out: dict[str, list[str]] = {}
    for container in [*(spec.init_containers or ()), *(spec.containers or ())]:
        resources = container.resources
        for ref in (resources.claims if resources is not None else None) or ():
            users = out.setdefault(ref.name, [])
            if container.name not in users:
                users.append(container.name)
    return out
