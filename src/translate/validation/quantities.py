"""Quantities in API objects, read as the API server decodes them."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ...model.errors import FieldPath
from . import FieldError
from .field_errors import invalid

if TYPE_CHECKING:
    from ...model.quantity import Quantity

# Quantities -------------------------------------------------------------------------------
#
# The client models keep quantities as strings; they are read the way the API
# server decodes them (kubefit's port of apimachinery's Quantity), so both the
# syntax errors and the spelling of values in messages ("1.1" prints as "1100m")
# match what `kubectl` shows.


@functools.lru_cache(maxsize=8192)  # quantities are immutable, and slices repeat a few values
def parse_quantity(text: str) -> Quantity | str:
    """The quantity as the API server decodes it, or the decoding error."""
    # Imported here so the validators load even where the quantity module is unavailable.
    from ...model.quantity import Quantity, QuantityError

    try:
        return Quantity.unmarshal(text)
    except QuantityError as err:
        return str(err)


def validate_quantity(text: str, path: FieldPath) -> tuple[Quantity | None, list[FieldError]]:
    parsed = parse_quantity(text)
    if isinstance(parsed, str):
        return None, [invalid(path, text, parsed)]
    return parsed, []


def is_fractional(q: Quantity) -> bool:
    return q.as_fraction().denominator != 1


def decimal_key(q: Quantity) -> str:
    """The value as a plain decimal, equal for equal values however they were spelled."""
    value = q.as_fraction()
    if value.denominator == 1:
        return str(value.numerator)
    # Kubernetes keeps at most nano precision, so nine places show every value exactly.
    scaled = abs(value) * 10**9
    digits = f"{scaled.numerator // scaled.denominator:010d}"
    text = (digits[:-9] or "0") + "." + digits[-9:]
    return ("-" if value < 0 else "") + text.rstrip("0")
