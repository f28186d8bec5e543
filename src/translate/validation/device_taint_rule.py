"""DeviceTaintRule validation, the device taint rules ResourceSlices share, and the tolerations of claims.

Upstream: `ValidateDeviceTaintRule`, `validateDeviceTaint` and
`validateDeviceToleration` in kubernetes/kubernetes
`pkg/apis/resource/validation/validation.go`.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubernetes.client.models import V1DeviceTaint, V1DeviceTaintRule, V1DeviceToleration

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .field_errors import invalid, not_supported, required, too_many
from .list_rules import validate_list
from .names import (
    validate_dns1123_label,
    validate_driver_name,
    validate_label_name,
    validate_label_value,
    validate_pool_name,
)
from .object_meta import validate_object_meta

# Unknown effects must be tolerated in stored objects, but new ones are rejected.
DEVICE_TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")
DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS = 8
TOLERATION_OPERATORS = ("Equal", "Exists")


def validate_device_taint(taint: V1DeviceTaint, path: FieldPath) -> list[FieldError]:
    errs = validate_label_name(taint.key or "", (*path, "key"))
    if taint.value:
        errs.extend(validate_label_value(taint.value, (*path, "value")))
    if not taint.effect:
        errs.append(required((*path, "effect")))
    elif taint.effect not in DEVICE_TAINT_EFFECTS:
        errs.append(not_supported((*path, "effect"), taint.effect, DEVICE_TAINT_EFFECTS))
    return errs


def validate_device_toleration(toleration: V1DeviceToleration, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    if toleration.key:
        errs.extend(validate_label_name(toleration.key, (*path, "key")))
    operator = toleration.operator or "Equal"
    value = toleration.value or ""
    if operator == "Exists":
        if value:
            errs.append(invalid((*path, "value"), value, "must be empty for operator `Exists`"))
    elif operator == "Equal":
        errs.extend(validate_label_value(value, (*path, "value")))
    else:
        errs.append(not_supported((*path, "operator"), operator, TOLERATION_OPERATORS))
    if toleration.effect and toleration.effect not in DEVICE_TAINT_EFFECTS:
        errs.append(not_supported((*path, "effect"), toleration.effect, DEVICE_TAINT_EFFECTS))
    return errs


def validate_tolerations(
    tolerations: Sequence[V1DeviceToleration] | None, path: FieldPath
) -> list[FieldError]:
    return validate_list(tolerations or [], path, validate_device_toleration)


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
