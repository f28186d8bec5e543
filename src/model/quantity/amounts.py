"""Exact amounts printed as Kubernetes prints quantities (reasons, pool summaries and rendered objects)."""

from __future__ import annotations

from fractions import Fraction

from . import Format, Quantity


def quantity_text(value: Fraction, like: str | None) -> str:
    """An exact amount printed as Kubernetes prints it, in the format of a related quantity."""
    fmt = Quantity.parse(like).format if like else Format.DECIMAL_SI
    k = 0
    while (value * 10**k).denominator != 1 and k < 9:
        k += 1
    scaled = value * 10**k
    unscaled = -((-scaled.numerator) // scaled.denominator)  # nano precision, rounded up
    return Quantity.from_scaled(unscaled, -k, fmt).canonical()


def binary_size(size: int) -> str:
    """A byte count as Kubernetes prints it in binary SI (1Gi, 512Mi)."""
    return str(Quantity.from_int(size, Format.BINARY_SI))
