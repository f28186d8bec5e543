"""A claim's status: the allocation result, the devices' own status and who has the claim reserved.

Upstream: the status and allocation helpers of kubernetes/kubernetes
`pkg/apis/resource/validation/validation.go`. The status is checked as a new
allocation would be.
"""

from __future__ import annotations

import ipaddress
from functools import partial
from operator import attrgetter

from kubernetes.client.models import (
    V1AllocatedDeviceStatus,
    V1AllocationResult,
    V1DeviceAllocationConfiguration,
    V1DeviceRequestAllocationResult,
    V1ResourceClaimConsumerReference,
    V1ResourceClaimStatus,
)

from ...model.errors import FieldPath
from . import FieldError
from .claim_scope import ALLOCATION_RESULTS_MAX_SIZE, ClaimScope, validate_request_ref, validate_request_refs
from .device_binding import validate_binding_conditions, validate_skip_node_operations
from .device_class import DEVICE_CONFIG_MAX_SIZE, validate_opaque_configuration
from .device_taint_rule import validate_tolerations
from .field_errors import Raw, compact_json, forbidden, invalid, not_supported, required, too_many
from .list_rules import validate_list, validate_set
from .names import (
    validate_dns1123_label,
    validate_driver_name,
    validate_max_bytes,
    validate_pool_name,
    validate_uid,
)
from .node_selection import validate_node_selector
from .quantities import validate_quantity

# Class and claim configuration both land in the allocation result.
ALLOCATION_CONFIG_MAX_SIZE = 2 * DEVICE_CONFIG_MAX_SIZE
RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE = 256
ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS = 8
ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH = 10 * 1024
NETWORK_DEVICE_DATA_MAX_IPS = 16
NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH = 256
NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH = 128
ALLOCATION_CONFIG_SOURCES = ("FromClaim", "FromClass")


def _device_id(device: V1DeviceRequestAllocationResult | V1AllocatedDeviceStatus) -> str:
    base = f"{device.driver}/{device.pool}/{device.device}"
    return f"{base}/{device.share_id}" if device.share_id is not None else base


def _validate_result(
    result: V1DeviceRequestAllocationResult, path: FieldPath, scope: ClaimScope
) -> list[FieldError]:
    errs = validate_request_ref(result.request, (*path, "request"), scope)
    errs.extend(validate_driver_name(result.driver, (*path, "driver")))
    errs.extend(validate_pool_name(result.pool, (*path, "pool")))
    errs.extend(validate_dns1123_label(result.device, (*path, "device")))
    errs.extend(
        validate_binding_conditions(result.binding_conditions, result.binding_failure_conditions, path)
    )
    errs.extend(validate_tolerations(result.tolerations, (*path, "tolerations")))
    if result.share_id is not None:
        errs.extend(validate_uid(result.share_id, (*path, "shareID")))
    errs.extend(validate_skip_node_operations(result.skip_node_operations, (*path, "skipNodeOperations")))
    for name, text in (result.consumed_capacity or {}).items():
        errs.extend(validate_quantity(text, (*path, "consumedCapacity", name))[1])
    return errs


def _validate_allocation_config(
    config: V1DeviceAllocationConfiguration, path: FieldPath, scope: ClaimScope
) -> list[FieldError]:
    errs: list[FieldError] = []
    src_path: FieldPath = (*path, "source")
    if not config.source:
        errs.append(required(src_path))
    elif config.source not in ALLOCATION_CONFIG_SOURCES:
        errs.append(not_supported(src_path, config.source, ALLOCATION_CONFIG_SOURCES))
    errs.extend(validate_request_refs(config.requests, (*path, "requests"), scope))
    errs.extend(validate_opaque_configuration(config.opaque, path))
    return errs


def _validate_allocation(
    allocation: V1AllocationResult, path: FieldPath, scope: ClaimScope
) -> list[FieldError]:
    errs: list[FieldError] = []
    devices = allocation.devices
    if devices is not None:
        d_path: FieldPath = (*path, "devices")
        check_result = partial(_validate_result, scope=scope)
        check_config = partial(_validate_allocation_config, scope=scope)
        results, configs = devices.results or [], devices.config or []
        errs += validate_list(results, (*d_path, "results"), check_result, limit=ALLOCATION_RESULTS_MAX_SIZE)
        errs += validate_list(configs, (*d_path, "config"), check_config, limit=ALLOCATION_CONFIG_MAX_SIZE)
    if allocation.node_selector is not None:
        errs.extend(validate_node_selector(allocation.node_selector, (*path, "nodeSelector")))
    return errs


def _validate_interface_address(value: str, path: FieldPath) -> list[FieldError]:
    try:
        iface = ipaddress.ip_interface(value)
    except ValueError:
        iface = None
    # A bare address parses too, but the field wants the prefix length.
    if iface is None or "/" not in value:
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
    device_id = _device_id(status)
    if device_id not in allocated:
        errs.append(invalid(path, Raw(device_id), "must be an allocated device in the claim"))
    conditions = status.conditions or []
    if len(conditions) > ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS:
        errs.append(too_many((*path, "conditions"), len(conditions), ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS))
    if status.data is not None:
        errs += validate_max_bytes(
            compact_json(status.data), (*path, "data"), ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH
        )
    network = status.network_data
    if network is not None:
        n_path: FieldPath = (*path, "networkData")
        for field_name, text, max_bytes in (
            ("interfaceName", network.interface_name, NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH),
            ("hardwareAddress", network.hardware_address, NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH),
        ):
            errs += validate_max_bytes(text or "", (*n_path, field_name), max_bytes)
        ips, limit = network.ips or [], NETWORK_DEVICE_DATA_MAX_IPS
        errs += validate_list(
            ips, (*n_path, "ips"), _validate_interface_address, limit=limit, key=lambda ip: ip
        )
    return errs


def _status_key(status: V1AllocatedDeviceStatus) -> Raw:
    return Raw(_device_id(status))


def _validate_consumer_reference(ref: V1ResourceClaimConsumerReference, path: FieldPath) -> list[FieldError]:
    return [
        required((*path, field_name))
        for field_name, value in (("resource", ref.resource), ("name", ref.name), ("uid", ref.uid))
        if not value
    ]


def validate_claim_status(status: V1ResourceClaimStatus, scope: ClaimScope) -> list[FieldError]:
    path: FieldPath = ("status",)
    reserved = status.reserved_for or []
    rf_path: FieldPath = (*path, "reservedFor")
    limit = RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE
    errs = validate_set(reserved, rf_path, _validate_consumer_reference, attrgetter("uid"), limit=limit)

    allocated: set[str] = set()
    if status.allocation is not None and status.allocation.devices is not None:
        allocated = {_device_id(result) for result in status.allocation.devices.results or []}
    check_device = partial(_validate_device_status, allocated=allocated)
    errs += validate_list(status.devices or [], (*path, "devices"), check_device, key=_status_key)

    # Only an allocated claim can be in use.
    if reserved and status.allocation is None:
        errs.append(forbidden(rf_path, "may not be specified when `allocated` is not set"))
    if status.allocation is not None:
        errs.extend(_validate_allocation(status.allocation, (*path, "allocation"), scope))
    return errs
