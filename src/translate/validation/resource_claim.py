"""ResourceClaim and ResourceClaimTemplate validation.

Upstream: `ValidateResourceClaim`, `ValidateResourceClaimTemplate`,
`validateDeviceClaim` and the status/allocation helpers in kubernetes/kubernetes
`pkg/apis/resource/validation/validation.go`, plus the declarative rules of
`staging/src/k8s.io/api/resource/v1/types.go` without a hand-written twin
(derived attribute count, name and expression presence).

The claim is validated as the API server would see it after defaulting: an
unset `allocationMode` is `ExactCount`, an unset (or zero) count of an
`ExactCount` request is 1, and an unset toleration operator is `Equal`.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kubernetes.client.models import (
    ResourceV1ResourceClaim,
    V1AllocatedDeviceStatus,
    V1AllocationResult,
    V1CapacityRequirements,
    V1DeviceClaim,
    V1DeviceConstraint,
    V1DeviceDerivedAttribute,
    V1DeviceRequest,
    V1DeviceRequestAllocationResult,
    V1DeviceSelector,
    V1DeviceToleration,
    V1ObjectMeta,
    V1ResourceClaimStatus,
    V1ResourceClaimTemplate,
)

from ...errors import FieldPath
from . import FieldError, ValidationContext
from .device_class import (
    DEVICE_CONFIG_MAX_SIZE,
    validate_cel_expression,
    validate_opaque_configuration,
    validate_selectors,
)
from .device_taint_rule import DEVICE_TAINT_EFFECTS
from .names import (
    Raw,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
    validate_annotations,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_driver_name,
    validate_fully_qualified_name,
    validate_label_name,
    validate_label_value,
    validate_labels,
    validate_object_meta,
    validate_pool_name,
    validate_quantity,
    validate_uid,
)
from .resource_slice import validate_binding_conditions, validate_node_selector, validate_skip_node_operations

ALLOCATION_RESULTS_MAX_SIZE = 32
DEVICE_REQUESTS_MAX_SIZE = ALLOCATION_RESULTS_MAX_SIZE
DEVICE_CONSTRAINTS_MAX_SIZE = 32
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8
DEVICE_DERIVED_ATTRIBUTES_MAX_SIZE = 32
# Class and claim configuration both land in the allocation result.
ALLOCATION_CONFIG_MAX_SIZE = 2 * DEVICE_CONFIG_MAX_SIZE
RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE = 256
ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS = 8
ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH = 10 * 1024
NETWORK_DEVICE_DATA_MAX_IPS = 16
NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH = 256
NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH = 128
ALLOCATION_MODES = ("All", "ExactCount")
TOLERATION_OPERATORS = ("Equal", "Exists")
ALLOCATION_CONFIG_SOURCES = ("FromClaim", "FromClass")

_REQUEST_REF_DETAIL = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)


@dataclass
class _ClaimScope:
    """What every part of one claim is checked against."""

    ctx: ValidationContext
    # request name -> subrequest names (None when the request uses `exactly`)
    requests: dict[str, set[str] | None] = field(default_factory=dict)
    # "" (all requests), "req" or "req/sub" -> attribute names constraints use there
    constraint_attributes: dict[str, set[str]] = field(default_factory=dict)

    def has_request(self, ref: str) -> bool:
        parts = ref.split("/")
        if len(parts) > 2 or parts[0] not in self.requests:
            return False
        if len(parts) == 1:
            return True
        subs = self.requests[parts[0]]
        return subs is not None and parts[1] in subs

    def attribute_used(self, attribute: str, request: str) -> bool:
        parent = request.split("/", 1)[0]
        # A constraint naming the parent request covers all of its subrequests.
        return any(attribute in self.constraint_attributes.get(key, set()) for key in ("", request, parent))

    def derived_compiler(self) -> Callable[[str], str | None] | None:
        # Derived attributes evaluate to values, not booleans, so the selector compiler
        # would reject valid ones; only a context that offers a dedicated check is used.
        compiler = getattr(self.ctx, "derived_attribute_compile_error", None)
        return compiler if callable(compiler) else None


def _scope(claim: V1DeviceClaim | None, ctx: ValidationContext) -> _ClaimScope:
    scope = _ClaimScope(ctx)
    if claim is None:
        return scope
    for request in claim.requests or []:
        subs = request.first_available
        scope.requests[request.name] = {sub.name for sub in subs} if subs else None
    for constraint in claim.constraints or []:
        attribute = constraint.match_attribute
        if attribute is None:
            attribute = constraint.distinct_attribute
        if attribute is None:
            continue
        for target in constraint.requests or [""]:
            scope.constraint_attributes.setdefault(target, set()).add(attribute)
    return scope


def _validate_request_ref(ref: str, path: FieldPath, scope: _ClaimScope) -> list[FieldError]:
    parts = ref.split("/")
    if len(parts) > 2:
        return [invalid(path, ref, _REQUEST_REF_DETAIL)]
    errs: list[FieldError] = []
    for part in parts:
        errs.extend(validate_dns1123_label(part, path))
    if not scope.has_request(ref):
        errs.append(invalid(path, ref, _REQUEST_REF_DETAIL))
    return errs


def _validate_request_refs(
    refs: Sequence[str] | None, path: FieldPath, scope: _ClaimScope
) -> list[FieldError]:
    items = list(refs or [])
    if len(items) > DEVICE_REQUESTS_MAX_SIZE:
        return [too_many(path, len(items), DEVICE_REQUESTS_MAX_SIZE)]
    errs: list[FieldError] = []
    for i, ref in enumerate(items):
        errs.extend(_validate_request_ref(ref, (*path, i), scope))
    seen: set[str] = set()
    for i, ref in enumerate(items):
        if ref in seen:
            errs.append(duplicate((*path, i), ref))
        seen.add(ref)
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


def _validate_tolerations(
    tolerations: Sequence[V1DeviceToleration] | None, path: FieldPath
) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, toleration in enumerate(tolerations or []):
        errs.extend(validate_device_toleration(toleration, (*path, i)))
    return errs


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
    attributes: Sequence[V1DeviceDerivedAttribute] | None, path: FieldPath, scope: _ClaimScope, request: str
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
    seen: set[str] = set()
    for i, attr in enumerate(items):
        if attr.name in seen:
            errs.append(duplicate((*path, i), attr.name))
        seen.add(attr.name)
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


def _validate_request_body(
    body: _RequestBody, path: FieldPath, scope: _ClaimScope, name: str
) -> list[FieldError]:
    errs = _validate_device_class_name(body.device_class_name, (*path, "deviceClassName"))
    errs.extend(validate_selectors(body.selectors, (*path, "selectors"), scope.ctx))
    errs.extend(
        _validate_derived_attributes(body.derived_attributes, (*path, "derivedAttributes"), scope, name)
    )
    errs.extend(_validate_allocation_mode(body.allocation_mode, body.count, path))
    errs.extend(_validate_tolerations(body.tolerations, (*path, "tolerations")))
    errs.extend(_validate_capacity_requests(body.capacity, (*path, "capacity")))
    return errs


def _validate_request(request: V1DeviceRequest, path: FieldPath, scope: _ClaimScope) -> list[FieldError]:
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
        fa_path: FieldPath = (*path, "firstAvailable")
        if len(subs) > FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE:
            errs.append(too_many(fa_path, len(subs), FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE))
            return errs
        for i, sub in enumerate(subs):
            errs.extend(validate_dns1123_label(sub.name, (*fa_path, i, "name")))
            body = _RequestBody(
                sub.device_class_name,
                sub.selectors,
                sub.derived_attributes,
                sub.allocation_mode,
                sub.count,
                sub.tolerations,
                sub.capacity,
            )
            errs.extend(_validate_request_body(body, (*fa_path, i), scope, f"{request.name}/{sub.name}"))
        seen: set[str] = set()
        for i, sub in enumerate(subs):
            if sub.name in seen:
                errs.append(duplicate((*fa_path, i), sub.name))
            seen.add(sub.name)
    elif exactly is not None:
        body = _RequestBody(
            exactly.device_class_name,
            exactly.selectors,
            exactly.derived_attributes,
            exactly.allocation_mode,
            exactly.count,
            exactly.tolerations,
            exactly.capacity,
        )
        errs.extend(_validate_request_body(body, (*path, "exactly"), scope, request.name))
    return errs


def _validate_constraint(
    constraint: V1DeviceConstraint, path: FieldPath, scope: _ClaimScope
) -> list[FieldError]:
    errs = _validate_request_refs(constraint.requests, (*path, "requests"), scope)
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


def _validate_device_claim(
    claim: V1DeviceClaim | None, path: FieldPath, scope: _ClaimScope
) -> list[FieldError]:
    if claim is None:
        return []
    errs: list[FieldError] = []
    requests = claim.requests or []
    r_path: FieldPath = (*path, "requests")
    if len(requests) > DEVICE_REQUESTS_MAX_SIZE:
        errs.append(too_many(r_path, len(requests), DEVICE_REQUESTS_MAX_SIZE))
    else:
        for i, request in enumerate(requests):
            errs.extend(_validate_request(request, (*r_path, i), scope))
        seen: set[str] = set()
        for i, request in enumerate(requests):
            if request.name in seen:
                errs.append(duplicate((*r_path, i), request.name))
            seen.add(request.name)
    constraints = claim.constraints or []
    c_path: FieldPath = (*path, "constraints")
    if len(constraints) > DEVICE_CONSTRAINTS_MAX_SIZE:
        errs.append(too_many(c_path, len(constraints), DEVICE_CONSTRAINTS_MAX_SIZE))
    else:
        for i, constraint in enumerate(constraints):
            errs.extend(_validate_constraint(constraint, (*c_path, i), scope))
    configs = claim.config or []
    cfg_path: FieldPath = (*path, "config")
    if len(configs) > DEVICE_CONFIG_MAX_SIZE:
        errs.append(too_many(cfg_path, len(configs), DEVICE_CONFIG_MAX_SIZE))
    else:
        for i, config in enumerate(configs):
            errs.extend(_validate_request_refs(config.requests, (*cfg_path, i, "requests"), scope))
            errs.extend(validate_opaque_configuration(config.opaque, (*cfg_path, i)))
    return errs


# Status ---------------------------------------------------------------------------------------


def _device_id(driver: str, pool: str, device: str, share_id: str | None) -> str:
    base = f"{driver}/{pool}/{device}"
    return f"{base}/{share_id}" if share_id is not None else base


def _validate_result(
    result: V1DeviceRequestAllocationResult, path: FieldPath, scope: _ClaimScope
) -> list[FieldError]:
    errs = _validate_request_ref(result.request, (*path, "request"), scope)
    errs.extend(validate_driver_name(result.driver, (*path, "driver")))
    errs.extend(validate_pool_name(result.pool, (*path, "pool")))
    errs.extend(validate_dns1123_label(result.device, (*path, "device")))
    errs.extend(
        validate_binding_conditions(result.binding_conditions, result.binding_failure_conditions, path)
    )
    errs.extend(_validate_tolerations(result.tolerations, (*path, "tolerations")))
    if result.share_id is not None:
        errs.extend(validate_uid(result.share_id, (*path, "shareID")))
    errs.extend(validate_skip_node_operations(result.skip_node_operations, (*path, "skipNodeOperations")))
    for name, text in (result.consumed_capacity or {}).items():
        errs.extend(validate_quantity(text, (*path, "consumedCapacity", name))[1])
    return errs


def _validate_allocation(
    allocation: V1AllocationResult, path: FieldPath, scope: _ClaimScope
) -> list[FieldError]:
    errs: list[FieldError] = []
    devices = allocation.devices
    if devices is not None:
        results = devices.results or []
        res_path: FieldPath = (*path, "devices", "results")
        if len(results) > ALLOCATION_RESULTS_MAX_SIZE:
            errs.append(too_many(res_path, len(results), ALLOCATION_RESULTS_MAX_SIZE))
        else:
            for i, result in enumerate(results):
                errs.extend(_validate_result(result, (*res_path, i), scope))
        configs = devices.config or []
        cfg_path: FieldPath = (*path, "devices", "config")
        if len(configs) > ALLOCATION_CONFIG_MAX_SIZE:
            errs.append(too_many(cfg_path, len(configs), ALLOCATION_CONFIG_MAX_SIZE))
        else:
            for i, config in enumerate(configs):
                src_path: FieldPath = (*cfg_path, i, "source")
                if not config.source:
                    errs.append(required(src_path))
                elif config.source not in ALLOCATION_CONFIG_SOURCES:
                    errs.append(not_supported(src_path, config.source, ALLOCATION_CONFIG_SOURCES))
                errs.extend(_validate_request_refs(config.requests, (*cfg_path, i, "requests"), scope))
                errs.extend(validate_opaque_configuration(config.opaque, (*cfg_path, i)))
    if allocation.node_selector is not None:
        errs.extend(validate_node_selector(allocation.node_selector, (*path, "nodeSelector")))
    return errs


def _validate_interface_address(value: str, path: FieldPath) -> list[FieldError]:
    try:
        iface = ipaddress.ip_interface(value)
    except ValueError:
        return [
            invalid(path, value, "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)")
        ]
    if "/" not in value:
        return [
            invalid(path, value, "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)")
        ]
    canonical = str(iface)
    if canonical != value:
        return [invalid(path, value, f'must be in canonical form ("{canonical}")')]
    return []


def _validate_device_status(
    status: V1AllocatedDeviceStatus, path: FieldPath, allocated: set[str]
) -> list[FieldError]:
    errs = validate_driver_name(status.driver, (*path, "driver"))
    errs.extend(validate_pool_name(status.pool, (*path, "pool")))
    errs.extend(validate_dns1123_label(status.device, (*path, "device")))
    if status.share_id is not None:
        errs.extend(validate_uid(status.share_id, (*path, "shareID")))
    device_id = _device_id(status.driver, status.pool, status.device, status.share_id)
    if device_id not in allocated:
        errs.append(invalid(path, Raw(device_id), "must be an allocated device in the claim"))
    conditions = status.conditions or []
    if len(conditions) > ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS:
        errs.append(too_many((*path, "conditions"), len(conditions), ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS))
    if status.data is not None and (
        len(json.dumps(status.data, separators=(",", ":")).encode()) > ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH
    ):
        errs.append(too_long((*path, "data"), ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH))
    network = status.network_data
    if network is not None:
        n_path: FieldPath = (*path, "networkData")
        if len((network.interface_name or "").encode()) > NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH:
            errs.append(too_long((*n_path, "interfaceName"), NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH))
        if len((network.hardware_address or "").encode()) > NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH:
            errs.append(
                too_long((*n_path, "hardwareAddress"), NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH)
            )
        ips = network.ips or []
        if len(ips) > NETWORK_DEVICE_DATA_MAX_IPS:
            errs.append(too_many((*n_path, "ips"), len(ips), NETWORK_DEVICE_DATA_MAX_IPS))
        else:
            seen: set[str] = set()
            for i, ip in enumerate(ips):
                errs.extend(_validate_interface_address(ip, (*n_path, "ips", i)))
                if ip in seen:
                    errs.append(duplicate((*n_path, "ips", i), ip))
                seen.add(ip)
    return errs


def _validate_status(status: V1ResourceClaimStatus, scope: _ClaimScope) -> list[FieldError]:
    path: FieldPath = ("status",)
    errs: list[FieldError] = []
    reserved = status.reserved_for or []
    rf_path: FieldPath = (*path, "reservedFor")
    if len(reserved) > RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE:
        errs.append(too_many(rf_path, len(reserved), RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE))
    else:
        for i, ref in enumerate(reserved):
            for field_name, value in (("resource", ref.resource), ("name", ref.name), ("uid", ref.uid)):
                if not value:
                    errs.append(required((*rf_path, i, field_name)))
        seen_uids: set[str] = set()
        for i, ref in enumerate(reserved):
            if ref.uid in seen_uids:
                errs.append(duplicate((*rf_path, i), ref.uid))
            seen_uids.add(ref.uid)

    allocated: set[str] = set()
    if status.allocation is not None and status.allocation.devices is not None:
        allocated = {
            _device_id(r.driver, r.pool, r.device, r.share_id)
            for r in status.allocation.devices.results or []
        }
    seen_devices: set[str] = set()
    for i, device in enumerate(status.devices or []):
        errs.extend(_validate_device_status(device, (*path, "devices", i), allocated))
        device_id = _device_id(device.driver, device.pool, device.device, device.share_id)
        if device_id in seen_devices:
            errs.append(duplicate((*path, "devices", i), Raw(device_id)))
        seen_devices.add(device_id)

    # Only an allocated claim can be in use.
    if reserved and status.allocation is None:
        errs.append(forbidden(rf_path, "may not be specified when `allocated` is not set"))
    if status.allocation is not None:
        errs.extend(_validate_allocation(status.allocation, (*path, "allocation"), scope))
    return errs


# Entry points ---------------------------------------------------------------------------------


def validate_resource_claim(obj: ResourceV1ResourceClaim, ctx: ValidationContext) -> list[FieldError]:
    """What the API server rejects for this claim: the spec on create, the status as a new allocation."""
    errs = validate_object_meta(obj.metadata, namespaced=True)
    claim = obj.spec.devices if obj.spec is not None else None
    scope = _scope(claim, ctx)
    errs.extend(_validate_device_claim(claim, ("spec", "devices"), scope))
    if obj.status is not None:
        errs.extend(_validate_status(obj.status, scope))
    return errs


# Go field names of ObjectMeta, in declaration order, as the "cannot be set" errors name them.
_TEMPLATE_META_FORBIDDEN = (
    ("name", "Name"),
    ("generate_name", "GenerateName"),
    ("namespace", "Namespace"),
    ("self_link", "SelfLink"),
    ("uid", "UID"),
    ("resource_version", "ResourceVersion"),
    ("generation", "Generation"),
    ("creation_timestamp", "CreationTimestamp"),
    ("deletion_timestamp", "DeletionTimestamp"),
    ("deletion_grace_period_seconds", "DeletionGracePeriodSeconds"),
    ("owner_references", "OwnerReferences"),
    ("finalizers", "Finalizers"),
    ("managed_fields", "ManagedFields"),
)


def _validate_template_meta(meta: V1ObjectMeta | None, path: FieldPath) -> list[FieldError]:
    if meta is None:
        return []
    errs = validate_annotations(meta.annotations, (*path, "annotations"))
    errs.extend(validate_labels(meta.labels, (*path, "labels")))
    # Only labels and annotations are copied into the generated claim; anything else would be ignored.
    for attr, go_name in _TEMPLATE_META_FORBIDDEN:
        value: object = getattr(meta, attr, None)
        if value not in (None, "", 0, [], {}):
            errs.append(forbidden(path, f"{go_name} cannot be set"))
    return errs


def validate_resource_claim_template(
    obj: V1ResourceClaimTemplate, ctx: ValidationContext
) -> list[FieldError]:
    """What the API server rejects when a ResourceClaimTemplate is created."""
    errs = validate_object_meta(obj.metadata, namespaced=True)
    if obj.spec is None:
        return errs
    errs.extend(_validate_template_meta(obj.spec.metadata, ("spec", "metadata")))
    claim = obj.spec.spec.devices if obj.spec.spec is not None else None
    errs.extend(_validate_device_claim(claim, ("spec", "spec", "devices"), _scope(claim, ctx)))
    return errs
