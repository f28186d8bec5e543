"""Shorthands shared by the quantity tests."""

from __future__ import annotations

from fractions import Fraction

from kubefit.model.quantity import INT64_MAX, INT64_MIN, Format, Quantity

BIN = Format.BINARY_SI
DEC = Format.DECIMAL_SI
EXP = Format.DECIMAL_EXPONENT

P = Quantity.parse

MOST = INT64_MAX
LEAST = INT64_MIN


def dec(unscaled: int, exp: int, fmt: Format = DEC) -> Quantity:
    """A decimal-backed value unscaled * 10**exp (upstream's decQuantity)."""
    return Quantity.from_decimal(unscaled, exp, fmt)


def amount(unscaled: int, exp: int, fmt: Format = DEC) -> Quantity:
    """An int64-backed value (upstream's intQuantity)."""
    return Quantity.from_scaled(unscaled, exp, fmt)


def frac(unscaled: int, exp: int) -> Fraction:
    return Fraction(unscaled) * Fraction(10) ** exp
