"""ResourceSlice validation: the slice's own fields, with its devices, counters and node selection.

Upstream: `ValidateResourceSlice` in kubernetes/kubernetes
`pkg/apis/resource/validation/validation.go`, with the declarative rules (`+k8s:`
tags) of `staging/src/k8s.io/api/resource/v1/types.go` that have no
hand-written counterpart (the partitionTypeAttribute name format). The parts
live next door: `slice_device` (one device), `capacity` (request policies),
`counters`, `node_selection`, `node_allocatable` and `device_binding`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubernetes.client.models import V1DeviceAttribute, V1ResourceSlice, V1ResourceSliceSpec

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .counters import validate_shared_counters
from .device_binding import validate_skip_node_operations
from .field_errors import Raw, invalid, required
from .list_rules import validate_list
from .names import validate_driver_name, validate_fully_qualified_name, validate_pool_name
from .node_selection import validate_slice_node_selection
from .object_meta import validate_object_meta
from .slice_device import attribute_json, has_list_attributes, validate_device

RESOURCE_SLICE_MAX_DEVICES = 128
# With taints, counter consumption or list attributes a device is bigger, so fewer fit.
RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES = 64


# The attributes of each device that consumes counters, by its index (models or maps as read).
Consumers = Sequence[tuple[int, Mapping[str, Any]]]
# How a non-string attribute is shown in the error (None for a string attribute: no error).
ShowNonString = Callable[[Any], Raw | None]


def max_devices(advanced: bool) -> int:
    """How many devices a slice may hold, `advanced` when one uses taints, counters or list attributes."""
    return RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES if advanced else RESOURCE_SLICE_MAX_DEVICES


def _validate_partition_type_attribute(
    spec: V1ResourceSliceSpec, path: FieldPath, consumers: Consumers, show: ShowNonString
) -> list[FieldError]:
    name = spec.partition_type_attribute or ""
    attr_field: FieldPath = (*path, "partitionTypeAttribute")
    errs = validate_fully_qualified_name(name, attr_field)
    if not consumers:
        errs.append(
            invalid(
                attr_field, name, "may only be set on a slice which declares devices that consume counters"
            )
        )
        return errs
    if errs:
        # A malformed name cannot be carried by any device; one error is enough.
        return errs
    # An attribute in the driver's own domain may also be written without the domain.
    bare = name.removeprefix(spec.driver + "/")
    for i, attrs in consumers:
        attr = attrs.get(name) or attrs.get(bare)
        attr_path: FieldPath = (*path, "devices", i, "attributes", name)
        if attr is None:
            errs.append(
                required(
                    attr_path,
                    "device consumes counters and `partitionTypeAttribute` names this attribute, "
                    "so it must be set",
                )
            )
            continue
        shown = show(attr)
        if shown is not None:
            errs.append(
                invalid(
                    attr_path,
                    shown,
                    "must be a string value because `partitionTypeAttribute` names this attribute",
                )
            )
    return errs


def _show_model_attribute(attr: V1DeviceAttribute) -> Raw | None:
    return attribute_json(attr) if attr.string is None else None


def validate_resource_slice(obj: V1ResourceSlice, ctx: ValidationContext) -> list[FieldError]:
    """What the API server rejects when a ResourceSlice is created."""
    spec = obj.spec
    devices = spec.devices or []
    advanced = has_list_attributes(devices) or any(d.taints or d.consumes_counters for d in devices)
    per_device = bool(spec.per_device_node_selection)
    device_errors = validate_list(
        devices,
        ("spec", "devices"),
        lambda device, device_path: validate_device(device, device_path, per_device, ctx),
        limit=max_devices(advanced),
        key=lambda device: device.name,
    )

    def consumers() -> Consumers:
        return [(i, d.attributes or {}) for i, d in enumerate(devices) if d.consumes_counters]

    return slice_errors(obj, device_errors, consumers, _show_model_attribute)


def slice_errors(
    obj: V1ResourceSlice,
    device_errors: list[FieldError],
    consumers: Callable[[], Consumers],
    show: ShowNonString,
) -> list[FieldError]:
    """The slice's errors in the API server's order, with those of its `devices` list (found from
    models or from maps as read) in their place; `consumers` is asked only when needed."""
    errs = validate_object_meta(obj.metadata, namespaced=False)
    spec = obj.spec
    path: FieldPath = ("spec",)
    errs.extend(validate_driver_name(spec.driver, (*path, "driver")))
    pool_path: FieldPath = (*path, "pool")
    errs.extend(validate_pool_name(spec.pool.name, (*pool_path, "name")))
    if spec.pool.resource_slice_count <= 0:
        errs.append(
            invalid(
                (*pool_path, "resourceSliceCount"),
                spec.pool.resource_slice_count,
                "must be greater than zero",
            )
        )
    if spec.pool.generation < 0:
        errs.append(
            invalid((*pool_path, "generation"), spec.pool.generation, "must be greater than or equal to zero")
        )
    errs.extend(validate_slice_node_selection(spec, path))
    if spec.shared_counters is not None and spec.devices is not None:
        errs.append(invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))
    errs.extend(device_errors)
    errs.extend(validate_shared_counters(spec.shared_counters, (*path, "sharedCounters")))
    if spec.partition_type_attribute is not None:
        errs.extend(_validate_partition_type_attribute(spec, path, consumers(), show))
    errs.extend(validate_skip_node_operations(spec.skip_node_operations, (*path, "skipNodeOperations")))
    return errs
