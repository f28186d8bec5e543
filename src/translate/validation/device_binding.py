"""Rules a device and the allocation result for it share: binding conditions and skipped node operations.

Upstream: `validateDeviceBindingParameters` in kubernetes/kubernetes
`pkg/apis/resource/validation/validation.go`, and the skipNodeOperations rules
(declarative `+k8s:` tags of `staging/src/k8s.io/api/resource/v1/types.go`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...model.errors import FieldPath
from . import FieldError
from .field_errors import duplicate, go_string_slice, invalid, not_supported
from .list_rules import duplicates, validate_list
from .names import validate_label_name

BINDING_CONDITIONS_MAX_SIZE = 4
BINDING_FAILURE_CONDITIONS_MAX_SIZE = 4
SKIP_NODE_OPERATIONS = ("*", "NodePrepareResources", "NodeUnprepareResources")


def validate_binding_conditions(
    conditions: Sequence[str] | None, failure_conditions: Sequence[str] | None, path: FieldPath
) -> list[FieldError]:
    """bindingConditions / bindingFailureConditions of a device or an allocation result."""
    errs: list[FieldError] = []
    conds = list(conditions or [])
    failures = list(failure_conditions or [])
    for field_name, items, limit in (
        ("bindingConditions", conds, BINDING_CONDITIONS_MAX_SIZE),
        ("bindingFailureConditions", failures, BINDING_FAILURE_CONDITIONS_MAX_SIZE),
    ):
        errs.extend(validate_list(items, (*path, field_name), validate_label_name, limit=limit))
    errs.extend(duplicates((*path, "bindingConditions"), conds))
    seen = set(conds)
    seen_failures: set[str] = set()
    for i, cond in enumerate(failures):
        if cond in seen_failures:
            errs.append(duplicate((*path, "bindingFailureConditions", i), cond))
        seen_failures.add(cond)
        if cond in seen:
            errs.append(
                invalid(
                    (*path, "bindingFailureConditions", i),
                    cond,
                    "bindingFailureConditions must not overlap with bindingConditions",
                )
            )
    # Either list alone is meaningless: a device would never become ready, or never fail.
    if not conds and failures:
        errs.append(
            invalid(
                (*path, "bindingConditions"),
                go_string_slice(conditions),
                "bindingConditions are required to use bindingFailureConditions",
            )
        )
    if not failures and conds:
        errs.append(
            invalid(
                (*path, "bindingFailureConditions"),
                go_string_slice(failure_conditions),
                "bindingFailureConditions are required to use bindingConditions",
            )
        )
    return errs


def _validate_skip_node_operation(op: str, path: FieldPath) -> list[FieldError]:
    return [] if op in SKIP_NODE_OPERATIONS else [not_supported(path, op, SKIP_NODE_OPERATIONS)]


def validate_skip_node_operations(ops: Sequence[str] | None, path: FieldPath) -> list[FieldError]:
    items = list(ops or [])
    errs = validate_list(items, path, _validate_skip_node_operation, key=lambda op: op)
    seen = set(items)
    # Skipping prepare but still calling unprepare would hand the driver an unknown claim.
    if "NodePrepareResources" in seen and "NodeUnprepareResources" not in seen and "*" not in seen:
        errs.append(
            invalid(
                path,
                go_string_slice(ops, "[]resource.SkipNodeOperation"),
                "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped",
            )
        )
    return errs
