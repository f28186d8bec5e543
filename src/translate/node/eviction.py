"""Hard eviction thresholds as the kubelet reads them (eviction.ParseThresholdConfig), and the memory
they hold back from node allocatable (hardEvictionReservation)."""

from __future__ import annotations

import math
import re
import struct

from ...model.quantity import Quantity

SIGNALS = frozenset(
    {
        "memory.available",
        "allocatableMemory.available",
        "nodefs.available",
        "nodefs.inodesFree",
        "imagefs.available",
        "imagefs.inodesFree",
        "containerfs.available",
        "containerfs.inodesFree",
        "pid.available",
    }
)

# What strconv.ParseFloat accepts as a decimal (hex floats, underscores and inf/nan left aside: no one
# writes them in an eviction threshold, and refusing them is the safe side).
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class ThresholdError(ValueError):
    """A threshold the kubelet refuses at start-up (the message is the kubelet's)."""


def _float32(value: float) -> float:
    packed: float = struct.unpack("f", struct.pack("f", value))[0]
    return packed


def parse_threshold(signal: str, text: str) -> Quantity | float | None:
    """A quantity, a fraction of capacity (the kubelet's float32 percentage / 100), or None where the
    kubelet ignores the threshold ("0%" and "100%")."""
    if signal not in SIGNALS:
        raise ThresholdError(f"unsupported eviction signal {signal}")
    if text.endswith("%"):
        if text in ("0%", "100%"):
            return None
        number = text.rstrip("%")
        if not _DECIMAL.fullmatch(number):
            raise ThresholdError(f'strconv.ParseFloat: parsing "{number}": invalid syntax')
        try:
            parsed = _float32(float(number))
        except OverflowError:
            parsed = math.inf
        if math.isinf(parsed):
            raise ThresholdError(f'strconv.ParseFloat: parsing "{number}": value out of range')
        fraction = _float32(parsed / 100)
        if fraction < 0:
            raise ThresholdError(f"eviction percentage threshold {signal} must be >= 0%: {text}")
        if fraction > 1:
            raise ThresholdError(f"eviction percentage threshold {signal} must be <= 100%: {text}")
        return fraction
    try:
        quantity = Quantity.parse(text)
    except ValueError as e:
        raise ThresholdError(str(e)) from e
    if quantity.sign() <= 0:
        raise ThresholdError(f"eviction threshold {signal} must be positive: {quantity}")
    return quantity


def reserved_bytes(threshold: Quantity | float | None, capacity: int) -> int:
    """The bytes a memory threshold holds back: the quantity, or int64(capacity * fraction)."""
    if threshold is None:
        return 0
    if isinstance(threshold, Quantity):
        return threshold.value()
    return int(float(capacity) * threshold)
