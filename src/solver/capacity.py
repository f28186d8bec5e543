"""Consumable capacity (DRAConsumableCapacity): how much of a device's capacity a request consumes.

Shared by every engine and the validator. Capacity names are resolved the way the
allocator does: a request's bare name means the device's driver as domain; a
device may publish `x` or `<driver>/x` (the qualified entry wins); a foreign
domain only matches itself. Rounding follows the request policy: up into a valid
range (min, step) or to the next valid value; with DRAFractionalCapacityRange off
every quantity in range arithmetic is read as a whole number rounded up.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from ..model.problem import Capacity, CapacityPolicy, Device

INT64_MAX = 2**63 - 1


class CapacityError(Exception):
    """A capacity request the allocator refuses outright (it aborts the allocation)."""


@dataclass(frozen=True)
class Resolved:
    published: str  # the name as the device publishes it (results echo this spelling)
    capacity: Capacity


def qualified_consumed(device: Device, consumed: Mapping[str, Fraction] | None) -> dict[str, Fraction]:
    """A share's consumed capacity, published names (as results carry them) made fully qualified (as
    in-use states count them)."""
    names = {res.published: name for name, res in device_capacity(device).items()}
    return {names.get(k, k): v for k, v in (consumed or {}).items()}


def device_capacity(device: Device) -> dict[str, Resolved]:
    """Fully-qualified name -> capacity; `<driver>/x` wins over a bare `x` for the same name."""
    out: dict[str, Resolved] = {}
    prefix = device.driver + "/"
    for name, cap in device.capacity.items():
        if name.startswith(prefix):
            out[name] = Resolved(name, cap)
    for name, cap in device.capacity.items():
        if name.startswith(prefix):
            continue
        key = name if "/" in name else prefix + name
        out.setdefault(key, Resolved(name, cap))
    return out


def resolve_requests(requests: Mapping[str, Fraction] | None, device: Device) -> dict[str, Fraction] | None:
    """Fully-qualified name -> requested amount; None when the device lacks a requested capacity.

    Raises CapacityError when one capacity is requested under both spellings.
    """
    if requests is None:
        return {}
    out: dict[str, Fraction] = {}
    published = device.capacity
    for name, value in requests.items():
        if name in published:
            key = name if "/" in name else f"{device.driver}/{name}"
        else:
            domain, sep, ident = name.partition("/")
            if sep:
                if domain != device.driver or ident not in published:
                    return None
                key = name
            elif f"{device.driver}/{name}" in published:
                key = f"{device.driver}/{name}"
            else:
                return None
        if key in out:
            ident = key.split("/", 1)[1]
            other = ident if name == key else key
            raise CapacityError(f'capacity "{ident}" requested both as "{name}" and as "{other}"')
        out[key] = value
    return out


def _whole(q: Fraction) -> int:
    """resource.Quantity.Value(): rounded up (away from zero)."""
    return math.ceil(q) if q >= 0 else -math.ceil(-q)


def _milli(q: Fraction) -> int | None:
    m = q * 1000
    return int(m) if m.denominator == 1 and abs(m) <= INT64_MAX else None


def _use_milli(policy: CapacityPolicy, fractional: bool) -> bool:
    if not fractional:
        return False
    for i, q in enumerate((policy.min, policy.max, policy.step)):
        if q is None:
            continue
        milli = _milli(q)
        if milli is None or (i == 2 and milli < 1):
            return False
    return True


def round_up(requested: Fraction, policy: CapacityPolicy, fractional: bool) -> Fraction:
    """The amount a request consumes under a validRange policy."""
    assert policy.min is not None
    if requested < policy.min:
        return policy.min
    if policy.step is None:
        return requested
    if policy.step <= 0:
        # API validation refuses such a policy; answering for stored objects anyway, no request can be
        # rounded up to it (Go's division would panic).
        raise CapacityError(
            f"capacity request cannot be represented in the device's range arithmetic: step {policy.step} "
            "is not positive"
        )
    if _use_milli(policy, fractional):
        req = _milli(requested)
        if req is None:
            raise CapacityError(
                f"capacity request cannot be represented in the device's range arithmetic: "
                f"request {requested} is not a representable milli value"
            )
        step, low = _milli(policy.step), _milli(policy.min)
        assert step is not None and low is not None
        n = -((low - req) // step)
        value = low + step * n
        if value > INT64_MAX:
            raise CapacityError("capacity request cannot be represented in the device's range arithmetic")
        return Fraction(value, 1000)
    if requested > INT64_MAX:
        raise CapacityError(
            f"capacity request cannot be represented in the device's range arithmetic: "
            f"request {requested} exceeds MaxInt64"
        )
    req, step, low = _whole(requested), _whole(policy.step), _whole(policy.min)
    n = -((low - req) // step)
    value = low + step * n
    if low >= 0 and value > INT64_MAX:
        raise CapacityError(
            "capacity request cannot be represented in the device's range arithmetic: "
            "rounding up to the next step passes MaxInt64"
        )
    return Fraction(value)


def consumed_amount(requested: Fraction | None, cap: Capacity, fractional: bool) -> Fraction:
    """What one allocation takes of a capacity: the rounded request, the policy default, or all of it."""
    policy = cap.policy
    if requested is None:
        return policy.default if policy is not None and policy.default is not None else cap.value
    if policy is None:
        return requested
    if policy.has_range:
        return round_up(requested, policy, fractional)
    if policy.valid_values is not None:
        return next((v for v in policy.valid_values if requested <= v), requested)
    return requested


def violates(value: Fraction, policy: CapacityPolicy | None, fractional: bool) -> bool:
    if policy is None:
        return False
    if policy.default is not None and value == policy.default:
        return False
    if policy.has_range:
        if policy.max is not None and value > policy.max:
            return True
        if policy.step is not None:
            if _use_milli(policy, fractional):
                milli = _milli(value)
                if milli is None:
                    return True
                step, low = _milli(policy.step), _milli(policy.min)  # type: ignore[arg-type]
                assert step is not None and low is not None
                return (milli - low) % step != 0
            return (_whole(value) - _whole(policy.min)) % _whole(policy.step) != 0  # type: ignore[arg-type]
        return False
    if policy.valid_values:
        return value not in policy.valid_values
    return False


def fit(
    device: Device,
    requests: Mapping[str, Fraction] | None,
    existing: Mapping[str, Fraction],
    allocating: Mapping[str, Fraction],
    fractional: bool,
) -> dict[str, Fraction] | None:
    """The capacity one more allocation would consume (by fully-qualified name), or None when the
    device cannot take it. Raises CapacityError for requests the allocator refuses outright."""
    resolved = resolve_requests(requests, device)
    if resolved is None:
        return None
    capacity = device_capacity(device)
    consumed: dict[str, Fraction] = {}
    for name, entry in capacity.items():
        amount = consumed_amount(resolved.get(name), entry.capacity, fractional)
        if amount < 0:
            raise CapacityError(f'capacity "{name}": capacity value is negative')
        consumed[name] = amount
    for name, entry in capacity.items():
        amount = consumed[name]
        if violates(amount, entry.capacity.policy, fractional):
            return None
        total = amount + existing.get(name, Fraction(0)) + allocating.get(name, Fraction(0))
        if total > entry.capacity.value:
            return None
    return consumed


def as_published(device: Device, consumed: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """Consumed capacity keyed by the names the device publishes (what results report)."""
    capacity = device_capacity(device)
    return {capacity[name].published: value for name, value in consumed.items() if name in capacity}
