"""ResourceSlice validation, plus node-selector and binding rules that claims share.

Upstream: `ValidateResourceSlice` and the `validateDevice*` helpers in
kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`, with the
declarative rules (`+k8s:` tags) of `staging/src/k8s.io/api/resource/v1/types.go`
that have no hand-written counterpart (skipNodeOperations values, compatibility
groups, the partitionTypeAttribute name format).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from kubernetes.client.models import (
    V1CapacityRequestPolicy,
    V1CounterSet,
    V1Device,
    V1DeviceAttribute,
    V1DeviceCapacity,
    V1DeviceCounterConsumption,
    V1NodeAllocatableResource,
    V1NodeSelector,
    V1NodeSelectorRequirement,
    V1ResourceSlice,
    V1ResourceSliceSpec,
)

from ...errors import FieldPath
from . import FieldError, ValidationContext
from .device_taint_rule import validate_device_taint
from .names import (
    DEVICE_MAX_DOMAIN_LENGTH,
    DEVICE_MAX_ID_LENGTH,
    DNS1123_LABEL_MAX_LENGTH,
    Raw,
    decimal_key,
    duplicate,
    forbidden,
    go_string_slice,
    invalid,
    is_fractional,
    is_node_allocatable_resource_name,
    not_found,
    not_supported,
    required,
    too_long,
    too_many,
    truncate_key,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_driver_name,
    validate_fully_qualified_name,
    validate_label_name,
    validate_label_value,
    validate_object_meta,
    validate_pool_name,
    validate_quantity,
    validate_resource_qualified_name,
)

if TYPE_CHECKING:
    from ..quantity import Quantity

RESOURCE_SLICE_MAX_DEVICES = 128
# With taints, counter consumption or list attributes a device is bigger, so fewer fit.
RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES = 64
RESOURCE_SLICE_MAX_COUNTER_SETS = 8
RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET = 32
RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE = 2
RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION = 32
DEVICE_COMPATIBILITY_GROUPS_MAX_SIZE = 2
RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32
RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE = 48
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64
DEVICE_TAINTS_MAX_LENGTH = 16
BINDING_CONDITIONS_MAX_SIZE = 4
BINDING_FAILURE_CONDITIONS_MAX_SIZE = 4
# Attribute and capacity keys in error paths are cut to "<domain>/<id>" at most.
ATTRIBUTE_KEY_MAX_LENGTH = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH
SKIP_NODE_OPERATIONS = ("*", "NodePrepareResources", "NodeUnprepareResources")

_NUM = "(0|[1-9][0-9]*)"
_PRE = "(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = "[0-9a-zA-Z-]+"
_SEMVER_RE = re.compile(rf"{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?")


# Shared with claims ---------------------------------------------------------------------------


def validate_node_name(name: str, path: FieldPath) -> list[FieldError]:
    return validate_dns1123_subdomain(name, path)


def _validate_node_selector_requirement(req: V1NodeSelectorRequirement, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    values = req.values or []
    if req.operator in ("In", "NotIn"):
        if not values:
            errs.append(required((*path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif req.operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(
                forbidden(
                    (*path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                )
            )
    elif req.operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(
                required((*path, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")
            )
    else:
        errs.append(invalid((*path, "operator"), req.operator, "not a valid selector operator"))
    errs.extend(validate_label_name(req.key, (*path, "key")))
    for i, value in enumerate(values):
        errs.extend(validate_label_value(value, (*path, "values", i)))
    return errs


def _validate_node_field_requirement(req: V1NodeSelectorRequirement, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    values = req.values or []
    if req.operator in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(
                required(
                    (*path, "values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
            )
    else:
        errs.append(invalid((*path, "operator"), req.operator, "not a valid selector operator"))
    if req.key != "metadata.name":
        errs.append(invalid((*path, "key"), req.key, "not a valid field selector key"))
    else:
        for i, value in enumerate(values):
            errs.extend(validate_node_name(value, (*path, "values", i)))
    return errs


def validate_node_selector(selector: V1NodeSelector, path: FieldPath) -> list[FieldError]:
    """Core/v1 node selector rules; label values must be valid (no legacy leniency)."""
    terms_path: FieldPath = (*path, "nodeSelectorTerms")
    terms = selector.node_selector_terms or []
    if not terms:
        return [required(terms_path, "must have at least one node selector term")]
    errs: list[FieldError] = []
    for i, term in enumerate(terms):
        for j, req in enumerate(term.match_expressions or []):
            errs.extend(_validate_node_selector_requirement(req, (*terms_path, i, "matchExpressions", j)))
        for j, req in enumerate(term.match_fields or []):
            errs.extend(_validate_node_field_requirement(req, (*terms_path, i, "matchFields", j)))
    return errs


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
        if len(items) > limit:
            errs.append(too_many((*path, field_name), len(items), limit))
        else:
            for i, cond in enumerate(items):
                errs.extend(validate_label_name(cond, (*path, field_name, i)))
    seen: set[str] = set()
    for i, cond in enumerate(conds):
        if cond in seen:
            errs.append(duplicate((*path, "bindingConditions", i), cond))
        seen.add(cond)
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


def validate_skip_node_operations(ops: Sequence[str] | None, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, op in enumerate(ops or []):
        if op not in SKIP_NODE_OPERATIONS:
            errs.append(not_supported((*path, i), op, SKIP_NODE_OPERATIONS))
        if op in seen:
            errs.append(duplicate((*path, i), op))
        seen.add(op)
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


# Consumable capacity request policies ---------------------------------------------------------

CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS = 10
MAX_INT64 = 2**63 - 1


def _parse_policy_quantities(
    policy: V1CapacityRequestPolicy, path: FieldPath
) -> tuple[dict[str, Quantity], list[Quantity], list[FieldError]]:
    """Every quantity of the policy, keyed "default", "min", "max", "step"; plus validValues."""
    errs: list[FieldError] = []
    found: dict[str, Quantity] = {}

    def take(key: str, text: str | None, q_path: FieldPath) -> None:
        if text is None:
            return
        amount, q_errs = validate_quantity(text, q_path)
        errs.extend(q_errs)
        if amount is not None:
            found[key] = amount

    take("default", policy.default, (*path, "default"))
    if policy.valid_range is not None:
        r_path: FieldPath = (*path, "validRange")
        take("min", policy.valid_range.min, (*r_path, "min"))
        take("max", policy.valid_range.max, (*r_path, "max"))
        take("step", policy.valid_range.step, (*r_path, "step"))
    options: list[Quantity] = []
    for i, text in enumerate(policy.valid_values or []):
        amount, q_errs = validate_quantity(text, (*path, "validValues", i))
        errs.extend(q_errs)
        if amount is not None:
            options.append(amount)
    return found, options, errs


def _validate_valid_values(
    default: Quantity, capacity: Quantity, options: list[Quantity], path: FieldPath, fractional: bool
) -> list[FieldError]:
    errs: list[FieldError] = []
    for i in range(len(options) - 1):
        if options[i] > options[i + 1]:
            errs.append(
                invalid((*path, i + 1), str(options[i + 1]), "values must be sorted in ascending order")
            )
    found_default = False
    if len(options) > CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS:
        errs.append(too_many(path, len(options), CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS))
    else:
        for i, option in enumerate(options):
            if option > capacity:
                errs.append(
                    invalid((*path, i), str(option), f"option is larger than capacity value: {capacity}")
                )
            if option == default:
                found_default = True
        # Without fractional ranges the scheduler rounds every option up to an integer,
        # so options that round to the same integer collide.
        seen: set[str] = set()
        for i, option in enumerate(options):
            key = decimal_key(option) if fractional else str(option.value())
            if key in seen:
                errs.append(duplicate((*path, i), key))
            seen.add(key)
    if not found_default:
        errs.append(invalid(path, str(default), "default value is not valid according to the requestPolicy"))
    return errs


def _validate_valid_range(
    default: Quantity, capacity: Quantity, q: dict[str, Quantity], path: FieldPath, fractional: bool
) -> list[FieldError]:
    errs: list[FieldError] = []
    rmin = q.get("min")
    if rmin is None:
        return [required((*path, "min"), "required when validRange is defined")]
    rmax, step = q.get("max"), q.get("step")
    if rmin > capacity:
        errs.append(invalid((*path, "min"), str(rmin), f"min is larger than capacity value: {capacity}"))
    if default < rmin:
        errs.append(invalid((*path, "default"), str(default), f"default is less than min: {rmin}"))
    if rmax is not None:
        if rmin > rmax:
            errs.append(invalid((*path, "max"), str(rmin), f"min is larger than max: {rmax}"))
        if rmax > capacity:
            errs.append(invalid((*path, "max"), str(rmax), f"max is larger than capacity value: {capacity}"))
        if default > rmax:
            errs.append(invalid((*path, "default"), str(default), f"default is more than max: {rmax}"))
    checked = [("default", default), ("min", rmin), ("max", rmax), ("step", step)]
    use_milli = fractional and any(a is not None and is_fractional(a) for _, a in checked)
    if use_milli:
        unsafe = [
            invalid((*path, name), str(a), "value cannot be represented as a milli value")
            for name, a in checked
            if a is not None
            and ((a.as_fraction() * 1000).denominator != 1 or abs(a.as_fraction() * 1000) > MAX_INT64)
        ]
        if unsafe:
            return errs + unsafe
    if step is None:
        return errs
    if step.sign() <= 0:
        errs.append(invalid((*path, "step"), str(step), "must be greater than zero"))
        return errs
    one_step = rmin + step
    if one_step > capacity:
        errs.append(
            invalid(
                (*path, "step"), str(step), f"one step {one_step} is larger than capacity value: {capacity}"
            )
        )
    if not use_milli:
        # Integer arithmetic is only sound for values that fit a non-negative int64.
        unsafe = []
        for name, a in checked:
            if a is None:
                continue
            if a.sign() < 0:
                unsafe.append(invalid((*path, name), str(a), "must be greater than or equal to 0"))
            elif a.as_fraction() > MAX_INT64:
                unsafe.append(invalid((*path, name), str(a), f"must not be larger than {MAX_INT64}"))
        if unsafe:
            return errs + unsafe

    def scaled(a: Quantity) -> int:
        return a.milli_value() if use_milli else a.value()

    for value in (default, rmax):
        if value is not None and (scaled(value) - scaled(rmin)) % scaled(step) != 0:
            errs.append(
                invalid(
                    (*path, "step"),
                    str(value),
                    f"value is not a multiple of a given step ({step}) from ({rmin})",
                )
            )
    return errs


def validate_request_policy(
    capacity: Quantity, policy: V1CapacityRequestPolicy, path: FieldPath, fractional: bool
) -> list[FieldError]:
    """At most one of validValues / validRange; either needs a default that it admits."""
    q, options, errs = _parse_policy_quantities(policy, path)
    if errs:
        # The API server could not even decode these; the value checks below need numbers.
        return errs
    if policy.valid_values and policy.valid_range is not None:
        return [
            forbidden(
                path,
                "exactly one policy can be specified, "
                'cannot specify "validValues" and "validRange" at the same time',
            )
        ]
    default = q.get("default")
    if policy.valid_values:
        if default is None:
            return [required((*path, "default"), "required when validValues is defined")]
        return _validate_valid_values(default, capacity, options, (*path, "validValues"), fractional)
    if policy.valid_range is not None:
        if default is None:
            return [required((*path, "default"), "required when validRange is defined")]
        return _validate_valid_range(default, capacity, q, (*path, "validRange"), fractional)
    return []


# Devices --------------------------------------------------------------------------------------


def _has_list_attributes(devices: Sequence[V1Device]) -> bool:
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


def _attribute_json(attr: V1DeviceAttribute) -> Raw:
    return Raw(json.dumps(attr.model_dump(by_alias=True, exclude_none=True), separators=(",", ":")))


def _validate_string_value(value: str, path: FieldPath) -> list[FieldError]:
    if len(value.encode()) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
        return [too_long(path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)]
    return []


def _validate_version_value(value: str, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    if not _SEMVER_RE.fullmatch(value):
        errs.append(invalid(path, value, "must be a string compatible with semver.org spec 2.0.0"))
    errs.extend(_validate_string_value(value, path))
    return errs


def _validate_attribute(attr: V1DeviceAttribute, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    set_fields = 0
    if attr.bool is not None:
        set_fields += 1
    if attr.int is not None:
        set_fields += 1
    if attr.string is not None:
        set_fields += 1
        errs.extend(_validate_string_value(attr.string, (*path, "string")))
    if attr.version is not None:
        set_fields += 1
        errs.extend(_validate_version_value(attr.version, (*path, "version")))
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
        errs.append(invalid(path, _attribute_json(attr), "exactly one value must be specified"))
    return errs


def _validate_capacity(
    capacity: V1DeviceCapacity, multi_allocatable: bool, path: FieldPath, ctx: ValidationContext
) -> list[FieldError]:
    value, errs = validate_quantity(capacity.value, (*path, "value"))
    policy: V1CapacityRequestPolicy | None = capacity.request_policy
    if policy is None:
        return errs
    if not multi_allocatable:
        errs.append(forbidden((*path, "requestPolicy"), "allowMultipleAllocations must be true"))
    elif value is not None:
        errs.extend(
            validate_request_policy(
                value, policy, (*path, "requestPolicy"), ctx.feature_enabled("DRAFractionalCapacityRange")
            )
        )
    return errs


def _validate_counters(
    counters: Mapping[str, object] | None, limit: int, path: FieldPath
) -> list[FieldError]:
    if not counters:
        return [required(path)]
    if len(counters) > limit:
        return [too_many(path, len(counters), limit)]
    errs: list[FieldError] = []
    for name, counter in counters.items():
        errs.extend(validate_dns1123_label(name, path))
        value = getattr(counter, "value", None)
        if isinstance(value, str):
            errs.extend(
                validate_quantity(value, (*path, truncate_key(name, DNS1123_LABEL_MAX_LENGTH), "value"))[1]
            )
    return errs


def _validate_counter_consumption(
    consumption: V1DeviceCounterConsumption, path: FieldPath
) -> list[FieldError]:
    errs: list[FieldError] = []
    if not consumption.counter_set:
        errs.append(required((*path, "counterSet")))
    else:
        errs.extend(validate_dns1123_label(consumption.counter_set, (*path, "counterSet")))
    errs.extend(
        _validate_counters(
            consumption.counters,
            RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION,
            (*path, "counters"),
        )
    )
    groups = consumption.compatibility_groups or []
    groups_path: FieldPath = (*path, "compatibilityGroups")
    if len(groups) > DEVICE_COMPATIBILITY_GROUPS_MAX_SIZE:
        errs.append(too_many(groups_path, len(groups), DEVICE_COMPATIBILITY_GROUPS_MAX_SIZE))
    else:
        seen: set[str] = set()
        for i, group in enumerate(groups):
            errs.extend(validate_dns1123_label(group, (*groups_path, i)))
            if group in seen:
                errs.append(duplicate((*groups_path, i), group))
            seen.add(group)
    return errs


def _validate_per_device_node_selection(device: V1Device, enabled: bool, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    if not enabled:
        if device.node_name is not None or device.node_selector is not None or device.all_nodes is not None:
            errs.append(
                invalid(
                    path,
                    None,
                    "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` "
                    "is set to true in the ResourceSlice spec",
                )
            )
        return errs
    set_fields: list[str] = []
    if device.node_name is not None:
        if device.node_name:
            set_fields.append("`nodeName`")
            errs.extend(validate_node_name(device.node_name, (*path, "nodeName")))
        else:
            errs.append(invalid((*path, "nodeName"), "", "must not be empty"))
    if device.node_selector is not None:
        set_fields.append("`nodeSelector`")
        errs.extend(validate_node_selector(device.node_selector, (*path, "nodeSelector")))
    if device.all_nodes is not None:
        if device.all_nodes:
            set_fields.append("`allNodes`")
        else:
            errs.append(invalid((*path, "allNodes"), False, "must be either unset or set to true"))
    detail = (
        "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
    )
    if not set_fields:
        errs.append(required(path, detail))
    elif len(set_fields) > 1:
        errs.append(invalid(path, "{" + ", ".join(set_fields) + "}", detail))
    return errs


def _validate_positive(text: str, path: FieldPath, allow_zero: bool) -> list[FieldError]:
    amount, errs = validate_quantity(text, path)
    if amount is not None and (amount.sign() < 0 or (amount.sign() == 0 and not allow_zero)):
        errs.append(invalid(path, str(amount), "must be non-negative" if allow_zero else "must be positive"))
    return errs


def _validate_node_allocatable_resources(
    resources: Mapping[str, V1NodeAllocatableResource] | None,
    capacities: Mapping[str, V1DeviceCapacity],
    path: FieldPath,
) -> list[FieldError]:
    errs: list[FieldError] = []
    for name, resource in (resources or {}).items():
        key_path: FieldPath = (*path, name)
        if not is_node_allocatable_resource_name(name):
            errs.append(invalid(key_path, name, "must be a node allocatable resource name"))
        if resource.mapping is None and resource.overhead is None:
            errs.append(required(key_path, "at least one of mapping or overhead must be set"))
        mapping = resource.mapping
        if mapping is not None:
            m_path: FieldPath = (*key_path, "mapping")
            if mapping.capacity_key is not None:
                if not mapping.capacity_key:
                    errs.append(
                        invalid((*m_path, "capacityKey"), "", "capacityKey must not be an empty string")
                    )
                elif mapping.capacity_key not in capacities:
                    errs.append(not_found((*m_path, "capacityKey"), mapping.capacity_key))
                if mapping.capacity_multiplier is None:
                    errs.append(
                        required(
                            (*m_path, "capacityMultiplier"),
                            "capacityMultiplier is required when capacityKey is set",
                        )
                    )
                else:
                    errs.extend(
                        _validate_positive(
                            mapping.capacity_multiplier, (*m_path, "capacityMultiplier"), False
                        )
                    )
            if mapping.device_multiplier is not None:
                errs.extend(
                    _validate_positive(mapping.device_multiplier, (*m_path, "deviceMultiplier"), False)
                )
            if mapping.capacity_multiplier is not None and mapping.capacity_key is None:
                errs.extend(
                    validate_quantity(mapping.capacity_multiplier, (*m_path, "capacityMultiplier"))[1]
                )
                errs.append(
                    required(
                        (*m_path, "capacityKey"), "capacityKey is required when capacityMultiplier is set"
                    )
                )
        overhead = resource.overhead
        if overhead is not None:
            o_path: FieldPath = (*key_path, "overhead")
            if overhead.per_pod is None and overhead.per_container is None:
                errs.append(invalid(o_path, "", "at least one of perPod or perContainer must be set"))
                continue
            if overhead.per_pod is not None:
                errs.extend(_validate_positive(overhead.per_pod, (*o_path, "perPod"), True))
            if overhead.per_container is not None:
                errs.extend(_validate_positive(overhead.per_container, (*o_path, "perContainer"), True))
    return errs


def _validate_device(
    device: V1Device, path: FieldPath, per_device_node_selection: bool, ctx: ValidationContext
) -> list[FieldError]:
    errs = validate_dns1123_label(device.name, (*path, "name"))
    attributes = device.attributes or {}
    capacities = device.capacity or {}
    # The combined limits are reported once for the device, not per entry.
    combined = len(attributes) + len(capacities)
    if combined > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
        errs.append(
            invalid(
                path,
                combined,
                "the total number of attributes and capacities must not exceed "
                f"{RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}",
            )
        )
    values = _attribute_value_count(device)
    if values > RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE:
        errs.append(
            invalid(
                path,
                values,
                "the total number of attribute values must not exceed "
                f"{RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE}",
            )
        )
    attrs_path: FieldPath = (*path, "attributes")
    for key, attr in attributes.items():
        errs.extend(validate_resource_qualified_name(key, attrs_path))
        errs.extend(_validate_attribute(attr, (*attrs_path, truncate_key(key, ATTRIBUTE_KEY_MAX_LENGTH))))
    cap_path: FieldPath = (*path, "capacity")
    multi = bool(device.allow_multiple_allocations)
    for key, capacity in capacities.items():
        errs.extend(validate_resource_qualified_name(key, cap_path))
        errs.extend(
            _validate_capacity(capacity, multi, (*cap_path, truncate_key(key, ATTRIBUTE_KEY_MAX_LENGTH)), ctx)
        )
    taints = device.taints or []
    if len(taints) > DEVICE_TAINTS_MAX_LENGTH:
        errs.append(too_many((*path, "taints"), len(taints), DEVICE_TAINTS_MAX_LENGTH))
    else:
        for i, taint in enumerate(taints):
            errs.extend(validate_device_taint(taint, (*path, "taints", i)))
    consumptions = device.consumes_counters or []
    cc_path: FieldPath = (*path, "consumesCounters")
    if len(consumptions) > RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE:
        errs.append(
            too_many(cc_path, len(consumptions), RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE)
        )
    else:
        seen: set[str] = set()
        for i, consumption in enumerate(consumptions):
            errs.extend(_validate_counter_consumption(consumption, (*cc_path, i)))
            if consumption.counter_set in seen:
                errs.append(duplicate((*cc_path, i), consumption.counter_set))
            seen.add(consumption.counter_set)
    errs.extend(_validate_per_device_node_selection(device, per_device_node_selection, path))
    errs.extend(
        validate_binding_conditions(device.binding_conditions, device.binding_failure_conditions, path)
    )
    errs.extend(
        _validate_node_allocatable_resources(
            device.node_allocatable_resources, capacities, (*path, "nodeAllocatableResources")
        )
    )
    return errs


# The slice ------------------------------------------------------------------------------------


def _validate_node_selection(spec: V1ResourceSliceSpec, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    set_fields: list[str] = []
    if spec.node_name is not None:
        if spec.node_name:
            set_fields.append("`nodeName`")
            errs.extend(validate_node_name(spec.node_name, (*path, "nodeName")))
        else:
            errs.append(invalid((*path, "nodeName"), "", "must be either unset or set to a non-empty string"))
    if spec.node_selector is not None:
        set_fields.append("`nodeSelector`")
        errs.extend(validate_node_selector(spec.node_selector, (*path, "nodeSelector")))
        terms = spec.node_selector.node_selector_terms or []
        if len(terms) != 1:
            # One term per slice keeps merging selectors of devices from several slices simple.
            errs.append(
                invalid(
                    (*path, "nodeSelector", "nodeSelectorTerms"),
                    Raw("[]core.NodeSelectorTerm(nil)")
                    if not terms
                    else Raw(json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in terms])),
                    "must have exactly one node selector term",
                )
            )
    for field_name, flag in (
        ("allNodes", spec.all_nodes),
        ("perDeviceNodeSelection", spec.per_device_node_selection),
    ):
        if flag is None:
            continue
        if flag:
            set_fields.append(f"`{field_name}`")
        else:
            errs.append(invalid((*path, field_name), False, "must be either unset or set to true"))
    detail = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
    if not set_fields:
        errs.append(required(path, detail))
    elif len(set_fields) > 1:
        errs.append(
            invalid(path, "{" + ", ".join(set_fields) + "}", detail + ", but multiple fields are set")
        )
    return errs


def _validate_counter_set(counter_set: V1CounterSet, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    if not counter_set.name:
        errs.append(required((*path, "name")))
    else:
        errs.extend(validate_dns1123_label(counter_set.name, (*path, "name")))
    errs.extend(
        _validate_counters(
            counter_set.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET, (*path, "counters")
        )
    )
    return errs


def _validate_partition_type_attribute(spec: V1ResourceSliceSpec, path: FieldPath) -> list[FieldError]:
    name = spec.partition_type_attribute or ""
    attr_field: FieldPath = (*path, "partitionTypeAttribute")
    errs = validate_fully_qualified_name(name, attr_field)
    devices = spec.devices or []
    if not any(device.consumes_counters for device in devices):
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
    for i, device in enumerate(devices):
        if not device.consumes_counters:
            continue
        attrs = device.attributes or {}
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
        elif attr.string is None:
            errs.append(
                invalid(
                    attr_path,
                    _attribute_json(attr),
                    "must be a string value because `partitionTypeAttribute` names this attribute",
                )
            )
    return errs


def validate_resource_slice(obj: V1ResourceSlice, ctx: ValidationContext) -> list[FieldError]:
    """What the API server rejects when a ResourceSlice is created."""
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
    errs.extend(_validate_node_selection(spec, path))
    if spec.shared_counters is not None and spec.devices is not None:
        errs.append(invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))

    devices = spec.devices or []
    advanced = _has_list_attributes(devices) or any(d.taints or d.consumes_counters for d in devices)
    max_devices = (
        RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES if advanced else RESOURCE_SLICE_MAX_DEVICES
    )
    devices_path: FieldPath = (*path, "devices")
    if len(devices) > max_devices:
        errs.append(too_many(devices_path, len(devices), max_devices))
    else:
        per_device = bool(spec.per_device_node_selection)
        seen: set[str] = set()
        for i, device in enumerate(devices):
            errs.extend(_validate_device(device, (*devices_path, i), per_device, ctx))
            if device.name in seen:
                errs.append(duplicate((*devices_path, i), device.name))
            seen.add(device.name)

    counter_sets = spec.shared_counters or []
    sc_path: FieldPath = (*path, "sharedCounters")
    if len(counter_sets) > RESOURCE_SLICE_MAX_COUNTER_SETS:
        errs.append(too_many(sc_path, len(counter_sets), RESOURCE_SLICE_MAX_COUNTER_SETS))
    else:
        seen_sets: set[str] = set()
        for i, counter_set in enumerate(counter_sets):
            errs.extend(_validate_counter_set(counter_set, (*sc_path, i)))
            if counter_set.name in seen_sets:
                errs.append(duplicate((*sc_path, i), counter_set.name))
            seen_sets.add(counter_set.name)

    if spec.partition_type_attribute is not None:
        errs.extend(_validate_partition_type_attribute(spec, path))
    errs.extend(validate_skip_node_operations(spec.skip_node_operations, (*path, "skipNodeOperations")))
    return errs
