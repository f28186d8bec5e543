"""Device capacities and their consumable-capacity request policies (validValues, validRange).

Upstream: `validateDeviceCapacity` and `validateRequestPolicy` in
kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubernetes.client.models import V1CapacityRequestPolicy, V1DeviceCapacity

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .field_errors import forbidden, invalid, required, too_many
from .list_rules import duplicates
from .quantities import decimal_key, is_fractional, validate_quantity

if TYPE_CHECKING:
    from ...model.quantity import Quantity

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
        errs.extend(duplicates(path, (decimal_key(o) if fractional else str(o.value()) for o in options)))
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


def validate_capacity(
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
