"""One device of a ResourceSlice: its name and attributes, and the checks of its other parts in turn.

Upstream: `validateDevice`, `validateDeviceAttribute` and their helpers in
kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kubernetes.client.models import V1Device, V1DeviceAttribute

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .capacity import validate_capacity
from .counters import validate_consumes_counters
from .device_binding import validate_binding_conditions
from .device_taint_rule import validate_device_taint
from .field_errors import Raw, compact_json, invalid
from .list_rules import validate_list
from .names import (
    DEVICE_MAX_DOMAIN_LENGTH,
    DEVICE_MAX_ID_LENGTH,
    truncate_key,
    validate_dns1123_label,
    validate_max_bytes,
    validate_resource_qualified_name,
)
from .node_allocatable import validate_node_allocatable_resources
from .node_selection import validate_per_device_node_selection

RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32
RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE = 48
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64
DEVICE_TAINTS_MAX_LENGTH = 16
# Attribute and capacity keys in error paths are cut to "<domain>/<id>" at most.
ATTRIBUTE_KEY_MAX_LENGTH = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH

_NUM = "(0|[1-9][0-9]*)"
_PRE = "(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = "[0-9a-zA-Z-]+"
_SEMVER_RE = re.compile(rf"{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?")


def has_list_attributes(devices: Sequence[V1Device]) -> bool:
    # Even an empty list counts: the field is set, so the device is of the bigger kind.
    return any(
        attr.bools is not None
        or attr.ints is not None
        or attr.strings is not None
        or attr.versions is not None
        for device in devices
        for attr in (device.attributes or {}).values()
    )


def _attribute_value_count(device: V1Device) -> int:
    count = 0
    for attr in (device.attributes or {}).values():
        lists = [v for v in (attr.bools, attr.ints, attr.strings, attr.versions) if v]
        # A scalar (or an attribute whose lists are all empty) is one value; lists count per item.
        count += sum(len(v) for v in lists) if lists else 1
    return count


def attribute_json(attr: V1DeviceAttribute) -> Raw:
    return Raw(compact_json(attr.model_dump(by_alias=True, exclude_none=True)))


def _validate_string_value(value: str, path: FieldPath) -> list[FieldError]:
    return validate_max_bytes(value, path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)


def _validate_version_value(value: str, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    if not _SEMVER_RE.fullmatch(value):
        errs.append(invalid(path, value, "must be a string compatible with semver.org spec 2.0.0"))
    errs.extend(_validate_string_value(value, path))
    return errs


def scalar_attribute_errors(kind: str, value: object, path: FieldPath) -> list[FieldError]:
    """The checks of one scalar attribute value (`kind` is its field: bool, int, string or version);
    the errors' paths start with `path`, the attribute's."""
    if kind == "string" and isinstance(value, str):
        return _validate_string_value(value, (*path, "string"))
    if kind == "version" and isinstance(value, str):
        return _validate_version_value(value, (*path, "version"))
    return []


def _validate_attribute(attr: V1DeviceAttribute, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    set_fields = 0
    for kind, value in (
        ("bool", attr.bool),
        ("int", attr.int),
        ("string", attr.string),
        ("version", attr.version),
    ):
        if value is not None:
            set_fields += 1
            errs.extend(scalar_attribute_errors(kind, value, path))
    for name, values, go_type in (
        ("bools", attr.bools, "[]bool"),
        ("ints", attr.ints, "[]int64"),
        ("strings", attr.strings, "[]string"),
        ("versions", attr.versions, "[]string"),
    ):
        if values is None:
            continue
        set_fields += 1
        if not values:
            errs.append(invalid((*path, name), Raw(go_type + "{}"), "must not be empty if specified"))
        if name == "strings":
            for i, s in enumerate(attr.strings or []):
                errs.extend(_validate_string_value(s, (*path, name, i)))
        elif name == "versions":
            for i, s in enumerate(attr.versions or []):
                errs.extend(_validate_version_value(s, (*path, name, i)))
    if set_fields == 0:
        errs.append(invalid(path, "", "exactly one value must be specified"))
    elif set_fields > 1:
        errs.append(invalid(path, attribute_json(attr), "exactly one value must be specified"))
    return errs


def attribute_key(key: str) -> str:
    """An attribute or capacity name as error paths show it."""
    return truncate_key(key, ATTRIBUTE_KEY_MAX_LENGTH)


def device_size_errors(path: FieldPath, entries: int, values: int) -> list[FieldError]:
    """The combined limits of a device (attributes and capacities; attribute values), reported once
    for the device, not per entry."""
    errs: list[FieldError] = []
    if entries > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
        errs.append(
            invalid(
                path,
                entries,
                "the total number of attributes and capacities must not exceed "
                f"{RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}",
            )
        )
    if values > RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE:
        errs.append(
            invalid(
                path,
                values,
                "the total number of attribute values must not exceed "
                f"{RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE}",
            )
        )
    return errs


def validate_device(
    device: V1Device, path: FieldPath, per_device_node_selection: bool, ctx: ValidationContext
) -> list[FieldError]:
    errs = validate_dns1123_label(device.name, (*path, "name"))
    attributes = device.attributes or {}
    capacities = device.capacity or {}
    errs.extend(device_size_errors(path, len(attributes) + len(capacities), _attribute_value_count(device)))
    attrs_path: FieldPath = (*path, "attributes")
    for key, attr in attributes.items():
        errs.extend(validate_resource_qualified_name(key, attrs_path))
        errs.extend(_validate_attribute(attr, (*attrs_path, attribute_key(key))))
    cap_path: FieldPath = (*path, "capacity")
    multi = bool(device.allow_multiple_allocations)
    for key, capacity in capacities.items():
        errs.extend(validate_resource_qualified_name(key, cap_path))
        errs.extend(validate_capacity(capacity, multi, (*cap_path, attribute_key(key)), ctx))
    errs.extend(
        validate_list(
            device.taints or [], (*path, "taints"), validate_device_taint, limit=DEVICE_TAINTS_MAX_LENGTH
        )
    )
    errs.extend(validate_consumes_counters(device.consumes_counters, (*path, "consumesCounters")))
    errs.extend(validate_per_device_node_selection(device, per_device_node_selection, path))
    errs.extend(
        validate_binding_conditions(device.binding_conditions, device.binding_failure_conditions, path)
    )
    errs.extend(
        validate_node_allocatable_resources(
            device.node_allocatable_resources, capacities, (*path, "nodeAllocatableResources")
        )
    )
    return errs
