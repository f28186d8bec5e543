"""DeviceTaintRule validation, and the device taint rules ResourceSlices share.

Upstream: `ValidateDeviceTaintRule` and `validateDeviceTaint` in
kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`.
"""

from __future__ import annotations

from kubernetes.client.models import V1DeviceTaint, V1DeviceTaintRule

from ...errors import FieldPath
from . import FieldError, ValidationContext
from .names import (
    not_supported,
    required,
    too_many,
    validate_dns1123_label,
    validate_driver_name,
    validate_label_name,
    validate_label_value,
    validate_object_meta,
    validate_pool_name,
)

# Unknown effects must be tolerated in stored objects, but new ones are rejected.
DEVICE_TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")
DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS = 8


def validate_device_taint(taint: V1DeviceTaint, path: FieldPath) -> list[FieldError]:
    errs = validate_label_name(taint.key or "", (*path, "key"))
    if taint.value:
        errs.extend(validate_label_value(taint.value, (*path, "value")))
    if not taint.effect:
        errs.append(required((*path, "effect")))
    elif taint.effect not in DEVICE_TAINT_EFFECTS:
        errs.append(not_supported((*path, "effect"), taint.effect, DEVICE_TAINT_EFFECTS))
    return errs


def validate_device_taint_rule(obj: V1DeviceTaintRule, ctx: ValidationContext) -> list[FieldError]:
    """What the API server rejects when a DeviceTaintRule is created."""
    errs = validate_object_meta(obj.metadata, namespaced=False)
    spec_path: FieldPath = ("spec",)
    selector = obj.spec.device_selector
    if selector is not None:
        sel_path: FieldPath = (*spec_path, "deviceSelector")
        if selector.driver is not None:
            errs.extend(validate_driver_name(selector.driver, (*sel_path, "driver")))
        if selector.pool is not None:
            errs.extend(validate_pool_name(selector.pool, (*sel_path, "pool")))
        if selector.device is not None:
            errs.extend(validate_dns1123_label(selector.device, (*sel_path, "device")))
    errs.extend(validate_device_taint(obj.spec.taint, (*spec_path, "taint")))
    conditions = obj.status.conditions if obj.status is not None else None
    if conditions and len(conditions) > DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS:
        errs.append(
            too_many(("status", "conditions"), len(conditions), DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS)
        )
    return errs
