"""How devices charge node-allocatable resources (DRANodeAllocatableResources).

`nodeAllocatableResources` maps a node resource (cpu, memory, hugepages-…) to a
mapping (the consumed amount of one capacity times a multiplier, or a fixed amount
per device) and an overhead (per pod, per container using the claim). Kubernetes
1.36 published the mapping alone as `nodeAllocatableResourceMappings` (a capacity key and an
`allocationMultiplier`: of the consumed capacity with a key, of the device without one); that form is
read too.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ...model.problem import NodeAllocatable
from ...model.quantity import Quantity
from ..kube import KubeObject


def _fraction(text: Any, default: Fraction = Fraction(0)) -> Fraction:
    if text is None or text == "":
        return default
    try:
        return Quantity.parse(str(text)).as_fraction()
    except ValueError:
        return default


def _entry(resource: str, mapping: Any, overhead: Any) -> NodeAllocatable:
    def get(obj: Any, name: str, key: str) -> Any:
        if obj is None:
            return None
        return obj.get(key) if isinstance(obj, dict) else getattr(obj, name, None)

    capacity_key = get(mapping, "capacity_key", "capacityKey") or ""
    return NodeAllocatable(
        resource,
        capacity_key,
        _fraction(get(mapping, "capacity_multiplier", "capacityMultiplier"), Fraction(1)),
        _fraction(get(mapping, "device_multiplier", "deviceMultiplier")) if not capacity_key else Fraction(0),
        _fraction(get(overhead, "per_pod", "perPod")),
        _fraction(get(overhead, "per_container", "perContainer")),
    )


def device_node_allocatable(obj: KubeObject, index: int, device: Any) -> tuple[NodeAllocatable, ...]:
    out = [
        _entry(resource, entry.mapping, entry.overhead)
        for resource, entry in sorted((device.node_allocatable_resources or {}).items())
    ]
    legacy = obj.extra(("spec", "devices", index, "nodeAllocatableResourceMappings"))
    if isinstance(legacy, dict) and not out:
        out = [_entry(str(r), _legacy(m), None) for r, m in sorted(legacy.items()) if isinstance(m, dict)]
    return tuple(out)


def _legacy(mapping: dict[str, Any]) -> dict[str, Any]:
    """A 1.36 mapping in the newer shape."""
    multiplier = mapping.get("allocationMultiplier")
    if multiplier is None:
        return mapping
    key = "capacityMultiplier" if mapping.get("capacityKey") else "deviceMultiplier"
    return {**mapping, key: multiplier}
