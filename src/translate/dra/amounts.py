"""Where a quantity of a DRA object cannot become an exact amount, said about the field that holds it.

The API server accepts any quantity that parses ("1e999999999" is a valid capacity), but the Problem
holds exact fractions, and a value with hundreds of thousands of digits cannot be one in reasonable
time. Conversion fails far from the object it came from; this finds the field again.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ...model.errors import InputError
from ...model.go_strings import go_quote
from ...model.quantity import Quantity, QuantityError
from ..kube import KubeObject, quantity_values


@lru_cache(maxsize=4096)
def _quantity(text: str) -> Fraction:
    return Quantity.parse(text).as_fraction()


def quantity(text: Any) -> Fraction:
    """A quantity field's value as an exact amount (QuantityError when it cannot be one)."""
    # Slices repeat the same few capacity and counter values thousands of times.
    return _quantity(str(text))


def located(objects: Iterable[KubeObject], error: QuantityError) -> InputError:
    """The first quantity field among `objects` that does not convert, as an input error."""
    for obj in objects:
        for path, value in quantity_values(obj.written_info.model, obj.raw):
            try:
                quantity(value)
            except QuantityError as e:
                shown = go_quote(value) if isinstance(value, str) else str(value)
                return InputError(obj.problem(path, f"Invalid value: {shown}: {e}"))
    return InputError(str(error))
