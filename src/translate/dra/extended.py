"""Extended resources backed by DRA (DRAExtendedResource).

A container asking for `example.com/gpu` (a DeviceClass's extendedResourceName) or
`deviceclass.resource.kubernetes.io/<class>` gets devices through a special claim
the scheduler creates for the pod: one ExactCount request per container and
resource, named `container-<i>-request-<j>` (i over init and regular containers, j
the resource's position among the container's sorted requests), sorted by name.
A node that advertises the resource itself (a device plugin) serves it the classic
way; a node that does neither cannot run the pod.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubernetes.client.models import V1ResourceClaimSpec

from ...model.quantity import Quantity
from ..kube import KubeObject, ObjectSet

IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"
EXTENDED_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"


@dataclass(frozen=True)
class Mapping:
    container: str
    resource: str
    request: str


def class_mapping(objects: ObjectSet) -> dict[str, str]:
    """Extended resource name -> DeviceClass name (explicit names first, then the implicit ones)."""
    out: dict[str, str] = {}
    for obj in objects.of_kind("DeviceClass"):
        out[IMPLICIT_PREFIX + obj.name] = obj.name
    for obj in objects.of_kind("DeviceClass"):
        name = obj.model.spec.extended_resource_name  # type: ignore[attr-defined]
        if name:
            out[name] = obj.name
    return out


def _container_requests(container: Any) -> dict[str, str]:
    resources = container.resources
    requests = dict((resources.requests if resources is not None else None) or {})
    # Extended resources given only as limits are requested as much (API defaulting).
    for name, value in ((resources.limits if resources is not None else None) or {}).items():
        requests.setdefault(name, value)
    return requests


def _whole(text: str) -> int:
    try:
        q = Quantity.parse(text)
        return q.as_int64() if q.is_integer() else 0
    except ValueError:
        return 0


def is_extended(name: str) -> bool:
    return (
        "/" in name
        and not name.startswith(("kubernetes.io/", "requests.", "hugepages-"))
        and not name.startswith("attachable-volumes-")
    )


def pod_extended(pod: KubeObject, mapping: dict[str, str]) -> tuple[Any, list[Mapping], list[str]]:
    """The special claim's spec (None when nothing is backed by DRA), its request mappings, and the
    extended resources no DeviceClass backs."""
    spec = pod.model.spec  # type: ignore[attr-defined]
    containers = [*(spec.init_containers or ()), *(spec.containers or ())]
    requests: list[dict[str, Any]] = []
    mappings: list[Mapping] = []
    unbacked: list[str] = []
    for i, container in enumerate(containers):
        wanted = _container_requests(container)
        keys = sorted(wanted)
        for name in keys:
            if not is_extended(name):
                continue
            count = _whole(wanted[name])
            if count <= 0:
                continue
            class_name = mapping.get(name)
            if class_name is None:
                unbacked.append(name)
                continue
            request = f"container-{i}-request-{keys.index(name)}"
            requests.append(
                {
                    "name": request,
                    "exactly": {
                        "deviceClassName": class_name,
                        "allocationMode": "ExactCount",
                        "count": count,
                    },
                }
            )
            mappings.append(Mapping(container.name, name, request))
    if not requests:
        return None, [], unbacked
    requests.sort(key=lambda r: r["name"])
    return V1ResourceClaimSpec.model_validate({"devices": {"requests": requests}}), mappings, unbacked
