"""DeviceClass validation, plus the selector and opaque-config rules claims share.

Upstream: `ValidateDeviceClass`, `validateSelector`, `validateCELExpression` and
`validateOpaqueConfiguration` in kubernetes/kubernetes
`pkg/apis/resource/validation/validation.go`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kubernetes.client.models import V1DeviceClass, V1DeviceSelector, V1OpaqueDeviceConfiguration

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .field_errors import compact_json, invalid, required
from .list_rules import validate_list
from .names import is_extended_resource_name, validate_driver_name, validate_max_bytes
from .object_meta import validate_object_meta

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
    errs = validate_max_bytes(expression, path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)
    if errs or compile_error is None:
        return errs
    problem = compile_error(expression)
    if problem is None:
        return []
    return [invalid(path, expression, problem)]


def validate_selectors(
    selectors: Sequence[V1DeviceSelector] | None, path: FieldPath, ctx: ValidationContext
) -> list[FieldError]:
    def check(selector: V1DeviceSelector, item_path: FieldPath) -> list[FieldError]:
        if selector.cel is None:
            return [required((*item_path, "cel"))]
        return validate_cel_expression(
            selector.cel.expression, (*item_path, "cel", "expression"), ctx.cel_compile_error
        )

    return validate_list(selectors or [], path, check, limit=DEVICE_SELECTORS_MAX_SIZE)


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
    # The limit applies to the raw JSON the server receives.
    return validate_max_bytes(compact_json(parameters), path, OPAQUE_PARAMETERS_MAX_LENGTH)


def validate_device_class(obj: V1DeviceClass, ctx: ValidationContext) -> list[FieldError]:
    """What the API server rejects when a DeviceClass is created."""
    errs = validate_object_meta(obj.metadata, namespaced=False)
    spec = obj.spec
    if spec is None:
        return errs
    errs.extend(validate_selectors(spec.selectors, ("spec", "selectors"), ctx))
    errs.extend(
        validate_list(
            spec.config or [],
            ("spec", "config"),
            lambda config, config_path: validate_opaque_configuration(config.opaque, config_path),
            limit=DEVICE_CONFIG_MAX_SIZE,
        )
    )
    name = spec.extended_resource_name
    if name is not None and not is_extended_resource_name(name):
        errs.append(invalid(("spec", "extendedResourceName"), name, "must be a valid extended resource name"))
    return errs
