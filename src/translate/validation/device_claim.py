"""The device part of a claim's spec: requests, subrequests, constraints and configuration.

Upstream: `validateDeviceClaim`, `validateDeviceRequest` and their helpers in
kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`, plus the
declarative rules of `staging/src/k8s.io/api/resource/v1/types.go` without a
hand-written twin (derived attribute count, name and expression presence).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from operator import attrgetter

from kubernetes.client.models import (
    V1CapacityRequirements,
    V1DeviceClaim,
    V1DeviceClaimConfiguration,
    V1DeviceConstraint,
    V1DeviceDerivedAttribute,
    V1DeviceRequest,
    V1DeviceSelector,
    V1DeviceSubRequest,
    V1DeviceToleration,
    V1ExactDeviceRequest,
)

from ...model.errors import FieldPath
from . import FieldError
from .claim_scope import DEVICE_REQUESTS_MAX_SIZE, ClaimScope, validate_request_refs
from .device_class import (
    DEVICE_CONFIG_MAX_SIZE,
    validate_cel_expression,
    validate_opaque_configuration,
    validate_selectors,
)
from .device_taint_rule import validate_tolerations
from .field_errors import invalid, not_supported, required, too_many
from .list_rules import duplicates, validate_list, validate_set
from .names import validate_dns1123_label, validate_dns1123_subdomain, validate_fully_qualified_name
from .quantities import validate_quantity

DEVICE_CONSTRAINTS_MAX_SIZE = 32
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8
DEVICE_DERIVED_ATTRIBUTES_MAX_SIZE = 32
ALLOCATION_MODES = ("All", "ExactCount")


def _validate_allocation_mode(mode: str | None, count: int | None, path: FieldPath) -> list[FieldError]:
    mode = mode or "ExactCount"
    if mode == "All":
        if count:
            return [invalid((*path, "count"), count, "must not be specified when allocationMode is 'All'")]
        return []
    if mode == "ExactCount":
        # Defaulting turns an unset or zero count into 1.
        if count is not None and count < 0:
            return [invalid((*path, "count"), count, "must be greater than zero")]
        return []
    return [not_supported((*path, "allocationMode"), mode, ALLOCATION_MODES)]


def _validate_derived_attributes(
    attributes: Sequence[V1DeviceDerivedAttribute] | None, path: FieldPath, scope: ClaimScope, request: str
) -> list[FieldError]:
    items = list(attributes or [])
    errs: list[FieldError] = []
    if len(items) > DEVICE_DERIVED_ATTRIBUTES_MAX_SIZE:
        errs.append(too_many(path, len(items), DEVICE_DERIVED_ATTRIBUTES_MAX_SIZE))
    compiler = scope.derived_compiler()
    for i, attr in enumerate(items):
        name_path: FieldPath = (*path, i, "name")
        if not attr.name:
            errs.append(required(name_path))
        else:
            errs.extend(validate_fully_qualified_name(attr.name, name_path))
            # An attribute no constraint reads would be computed for nothing.
            if not scope.attribute_used(attr.name, request):
                errs.append(
                    invalid(
                        name_path,
                        attr.name,
                        "must be referenced by at least one matchAttribute or distinctAttribute constraint "
                        "targeting this request",
                    )
                )
        if not attr.expression:
            errs.append(required((*path, i, "expression")))
        else:
            errs.extend(validate_cel_expression(attr.expression, (*path, i, "expression"), compiler))
    errs.extend(duplicates(path, (attr.name for attr in items)))
    return errs


def _validate_capacity_requests(capacity: V1CapacityRequirements | None, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    if capacity is not None:
        for name, text in (capacity.requests or {}).items():
            errs.extend(validate_quantity(text, (*path, "requests", name))[1])
    return errs


def _validate_device_class_name(name: str, path: FieldPath) -> list[FieldError]:
    return [required(path)] if not name else validate_dns1123_subdomain(name, path)


@dataclass(frozen=True)
class _RequestBody:
    """The fields `exactly` and each `firstAvailable` entry have in common."""

    device_class_name: str
    selectors: Sequence[V1DeviceSelector] | None
    derived_attributes: Sequence[V1DeviceDerivedAttribute] | None
    allocation_mode: str | None
    count: int | None
    tolerations: Sequence[V1DeviceToleration] | None
    capacity: V1CapacityRequirements | None

    @classmethod
    def of(cls, request: V1ExactDeviceRequest | V1DeviceSubRequest) -> _RequestBody:
        return cls(
            request.device_class_name,
            request.selectors,
            request.derived_attributes,
            request.allocation_mode,
            request.count,
            request.tolerations,
            request.capacity,
        )


def _validate_request_body(
    body: _RequestBody, path: FieldPath, scope: ClaimScope, name: str
) -> list[FieldError]:
    errs = _validate_device_class_name(body.device_class_name, (*path, "deviceClassName"))
    errs.extend(validate_selectors(body.selectors, (*path, "selectors"), scope.ctx))
    errs.extend(
        _validate_derived_attributes(body.derived_attributes, (*path, "derivedAttributes"), scope, name)
    )
    errs.extend(_validate_allocation_mode(body.allocation_mode, body.count, path))
    errs.extend(validate_tolerations(body.tolerations, (*path, "tolerations")))
    errs.extend(_validate_capacity_requests(body.capacity, (*path, "capacity")))
    return errs


def _validate_subrequest(
    sub: V1DeviceSubRequest, path: FieldPath, scope: ClaimScope, request: str
) -> list[FieldError]:
    errs = validate_dns1123_label(sub.name, (*path, "name"))
    errs.extend(_validate_request_body(_RequestBody.of(sub), path, scope, f"{request}/{sub.name}"))
    return errs


def _validate_request(request: V1DeviceRequest, path: FieldPath, scope: ClaimScope) -> list[FieldError]:
    errs = validate_dns1123_label(request.name, (*path, "name"))
    subs = request.first_available or []
    exactly = request.exactly
    if not subs and exactly is None:
        errs.append(required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif subs and exactly is not None:
        errs.append(
            invalid(
                path,
                None,
                "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
            )
        )
    elif subs:
        check_sub = partial(_validate_subrequest, scope=scope, request=request.name)
        limit = FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE
        errs += validate_set(subs, (*path, "firstAvailable"), check_sub, attrgetter("name"), limit=limit)
    elif exactly is not None:
        errs.extend(_validate_request_body(_RequestBody.of(exactly), (*path, "exactly"), scope, request.name))
    return errs


def _validate_constraint(
    constraint: V1DeviceConstraint, path: FieldPath, scope: ClaimScope
) -> list[FieldError]:
    errs = validate_request_refs(constraint.requests, (*path, "requests"), scope)
    # Upstream only looks at matchAttribute when both are set; the pair is not rejected.
    if constraint.match_attribute is not None:
        errs.extend(validate_fully_qualified_name(constraint.match_attribute, (*path, "matchAttribute")))
    elif constraint.distinct_attribute is not None:
        errs.extend(
            validate_fully_qualified_name(constraint.distinct_attribute, (*path, "distinctAttribute"))
        )
    elif scope.ctx.feature_enabled("DRAConsumableCapacity"):
        errs.append(
            required(
                path,
                'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                "but multiple fields are set",
            )
        )
    else:
        errs.append(required((*path, "matchAttribute")))
    return errs


def _validate_claim_config(
    config: V1DeviceClaimConfiguration, path: FieldPath, scope: ClaimScope
) -> list[FieldError]:
    errs = validate_request_refs(config.requests, (*path, "requests"), scope)
    errs.extend(validate_opaque_configuration(config.opaque, path))
    return errs


def validate_device_claim(
    claim: V1DeviceClaim | None, path: FieldPath, scope: ClaimScope
) -> list[FieldError]:
    if claim is None:
        return []
    check_request = partial(_validate_request, scope=scope)
    check_constraint = partial(_validate_constraint, scope=scope)
    check_config = partial(_validate_claim_config, scope=scope)
    requests, constraints, configs = claim.requests or [], claim.constraints or [], claim.config or []
    errs = validate_set(
        requests, (*path, "requests"), check_request, attrgetter("name"), limit=DEVICE_REQUESTS_MAX_SIZE
    )
    errs += validate_list(
        constraints, (*path, "constraints"), check_constraint, limit=DEVICE_CONSTRAINTS_MAX_SIZE
    )
    errs += validate_list(configs, (*path, "config"), check_config, limit=DEVICE_CONFIG_MAX_SIZE)
    return errs
