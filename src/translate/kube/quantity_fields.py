"""Where the Kubernetes API holds a resource.Quantity.

The generated client types every Quantity as a plain string, but Kubernetes also
accepts a JSON/YAML number there (`cpu: 2`). Before validation we turn numbers at
these places into their text, and nowhere else: a number where the API wants a
name is still an error, as it is for the API server.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel

from .model_fields import any_below, models_in, unversioned, wire_name, wire_names

# (model name without version prefix, wire field name) -> "scalar" | "map" | "list"
QUANTITY_FIELDS: dict[tuple[str, str], str] = {
    ("Counter", "value"): "scalar",
    ("DeviceCapacity", "value"): "scalar",
    ("CapacityRequestPolicy", "default"): "scalar",
    ("CapacityRequestPolicy", "validValues"): "list",
    ("CapacityRequestPolicyRange", "min"): "scalar",
    ("CapacityRequestPolicyRange", "max"): "scalar",
    ("CapacityRequestPolicyRange", "step"): "scalar",
    ("CapacityRequirements", "requests"): "map",
    ("DeviceRequestAllocationResult", "consumedCapacity"): "map",
    ("NodeAllocatableOverhead", "perPod"): "scalar",
    ("NodeAllocatableOverhead", "perContainer"): "scalar",
    ("NodeAllocatableMapping", "capacityMultiplier"): "scalar",
    ("NodeAllocatableMapping", "deviceMultiplier"): "scalar",
    ("ResourceRequirements", "limits"): "map",
    ("ResourceRequirements", "requests"): "map",
    ("PodSpec", "overhead"): "map",
    ("NodeStatus", "capacity"): "map",
    ("NodeStatus", "allocatable"): "map",
    ("ContainerStatus", "allocatedResources"): "map",
    ("EmptyDirVolumeSource", "sizeLimit"): "scalar",
    ("ResourceQuotaSpec", "hard"): "map",
    ("ResourceQuotaStatus", "hard"): "map",
    ("ResourceQuotaStatus", "used"): "map",
    ("LimitRangeItem", "max"): "map",
    ("LimitRangeItem", "min"): "map",
    ("LimitRangeItem", "default"): "map",
    ("LimitRangeItem", "defaultRequest"): "map",
    ("LimitRangeItem", "maxLimitRequestRatio"): "map",
    ("PersistentVolumeSpec", "capacity"): "map",
    ("VolumeResourceRequirements", "limits"): "map",
    ("VolumeResourceRequirements", "requests"): "map",
    ("PersistentVolumeClaimStatus", "capacity"): "map",
}


@cache
def _holds_quantities(model: type[BaseModel]) -> bool:
    """Whether a Quantity can be anywhere below `model`."""
    return any_below(
        model, lambda m: any((unversioned(m), wire) in QUANTITY_FIELDS for wire in wire_names(m))
    )


@cache
def _field_table(model: type[BaseModel]) -> dict[str, tuple[str | None, list[tuple[str, type[BaseModel]]]]]:
    """wire name -> (quantity shape or None, nested models with their container). Fields under which
    no Quantity can be are left out: walking them (metadata, managedFields, device attributes) was a
    third of the cost of coercing a large object, and never changed anything."""
    name = unversioned(model)
    table: dict[str, tuple[str | None, list[tuple[str, type[BaseModel]]]]] = {}
    for attr, info in model.model_fields.items():
        wire = wire_name(attr, info)
        shape = QUANTITY_FIELDS.get((name, wire))
        nested = [(container, sub) for container, sub in models_in(info.annotation) if _holds_quantities(sub)]
        if shape or nested:
            table[wire] = (shape, nested)
    return table


def _as_text(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if not value.is_integer() or abs(value) >= 1e16 else str(int(value))
    return value


def coerce_quantities(model: type[BaseModel], data: Any) -> None:
    """Turn numbers into quantity text wherever `model` declares a Quantity (in place)."""
    if not isinstance(data, dict):
        return
    for wire, (shape, nested) in _field_table(model).items():
        if wire not in data:
            continue
        value = data[wire]
        if shape == "scalar":
            data[wire] = _as_text(value)
        elif shape == "map" and isinstance(value, dict):
            for key in list(value):
                value[key] = _as_text(value[key])
        elif shape == "list" and isinstance(value, list):
            for i, item in enumerate(value):
                value[i] = _as_text(item)
        for container, sub in nested:
            if container == "direct":
                coerce_quantities(sub, value)
            elif container == "list" and isinstance(value, list):
                for item in value:
                    coerce_quantities(sub, item)
            elif container == "map" and isinstance(value, dict):
                for item in value.values():
                    coerce_quantities(sub, item)


def quantity_values(
    model: type[BaseModel], data: Any, path: tuple[str | int, ...] = ()
) -> list[tuple[tuple[str | int, ...], Any]]:
    """Every (field path, value) in `data` where `model` declares a Quantity."""
    out: list[tuple[tuple[str | int, ...], Any]] = []
    if not isinstance(data, dict):
        return out
    for wire, (shape, nested) in _field_table(model).items():
        if wire not in data:
            continue
        value = data[wire]
        here = (*path, wire)
        if shape == "scalar":
            out.append((here, value))
        elif shape == "map" and isinstance(value, dict):
            out.extend(((*here, key), item) for key, item in value.items())
        elif shape == "list" and isinstance(value, list):
            out.extend(((*here, i), item) for i, item in enumerate(value))
        for container, sub in nested:
            if container == "direct":
                out.extend(quantity_values(sub, value, here))
            elif container == "list" and isinstance(value, list):
                for i, item in enumerate(value):
                    out.extend(quantity_values(sub, item, (*here, i)))
            elif container == "map" and isinstance(value, dict):
                for key, item in value.items():
                    out.extend(quantity_values(sub, item, (*here, key)))
    return out
