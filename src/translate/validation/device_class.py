"""DeviceClass validation, plus the selector and opaque-config rules claims share.

Upstream: `ValidateDeviceClass`, `validateSelector`, `validateCELExpression` and
`validateOpaqueConfiguration` in kubernetes/kubernetes
`pkg/apis/resource/validation/validation.go`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from kubernetes.client.models import V1DeviceClass, V1DeviceSelector, V1OpaqueDeviceConfiguration

from ...errors import FieldPath
from . import FieldError, ValidationContext
from .names import (
    invalid,
    is_extended_resource_name,
    required,
    too_long,
    too_many,
    validate_driver_name,
    validate_object_meta,
)

DEVICE_SELECTORS_MAX_SIZE = 32
DEVICE_CONFIG_MAX_SIZE = 32
CEL_SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024
OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024


def validate_cel_expression(
    expression: str,
    path: FieldPath,
    compile_error: Callable[[str], str | None] | None,
) -> list[FieldError]:
    """Length first (too long is not even compiled), then whatever the compiler reports.

    `compile_error` is None when no compiler is available for this kind of
    expression; then only the length is checked.
    """
    if len(expression.encode()) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    if compile_error is None:
        return []
    problem = compile_error(expression)
    if problem is None:
        return []
    return [invalid(path, expression, problem)]


def validate_selectors(
    selectors: Sequence[V1DeviceSelector] | None, path: FieldPath, ctx: ValidationContext
) -> list[FieldError]:
    items = selectors or []
    if len(items) > DEVICE_SELECTORS_MAX_SIZE:
        # The API server stops at the count so a huge list is not echoed back item by item.
        return [too_many(path, len(items), DEVICE_SELECTORS_MAX_SIZE)]
    errs: list[FieldError] = []
    for i, selector in enumerate(items):
        if selector.cel is None:
            errs.append(required((*path, i, "cel")))
        else:
            errs.extend(
                validate_cel_expression(
                    selector.cel.expression, (*path, i, "cel", "expression"), ctx.cel_compile_error
                )
            )
    return errs


def validate_opaque_configuration(
    opaque: V1OpaqueDeviceConfiguration | None, path: FieldPath
) -> list[FieldError]:
    """`path` is the configuration entry; `opaque` is the only kind of configuration so far."""
    if opaque is None:
        return [required((*path, "opaque"))]
    opaque_path: FieldPath = (*path, "opaque")
    errs = validate_driver_name(opaque.driver, (*opaque_path, "driver"))
    errs.extend(_validate_parameters(opaque.parameters, (*opaque_path, "parameters")))
    return errs


def _validate_parameters(parameters: dict[str, Any] | None, path: FieldPath) -> list[FieldError]:
    if parameters is None:
        return [required(path)]
    # The limit applies to the raw JSON the server receives; compact JSON is the closest we can get.
    if len(json.dumps(parameters, separators=(",", ":")).encode()) > OPAQUE_PARAMETERS_MAX_LENGTH:
        return [too_long(path, OPAQUE_PARAMETERS_MAX_LENGTH)]
    return []


def validate_device_class(obj: V1DeviceClass, ctx: ValidationContext) -> list[FieldError]:
    """What the API server rejects when a DeviceClass is created."""
    errs = validate_object_meta(obj.metadata, namespaced=False)
    spec = obj.spec
    if spec is None:
        return errs
    errs.extend(validate_selectors(spec.selectors, ("spec", "selectors"), ctx))
    configs = spec.config or []
    if len(configs) > DEVICE_CONFIG_MAX_SIZE:
        errs.append(too_many(("spec", "config"), len(configs), DEVICE_CONFIG_MAX_SIZE))
    else:
        for i, config in enumerate(configs):
            errs.extend(validate_opaque_configuration(config.opaque, ("spec", "config", i)))
    name = spec.extended_resource_name
    if name is not None and not is_extended_resource_name(name):
        errs.append(invalid(("spec", "extendedResourceName"), name, "must be a valid extended resource name"))
    return errs
