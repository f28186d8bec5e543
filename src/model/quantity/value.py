"""Kubernetes `resource.Quantity`, exact, with the Go implementation's observable behaviour.

A quantity is a decimal number (never a float) plus the format it prints in
(`BinarySI` "Ki", `DecimalSI` "k", `DecimalExponent` "e3"). Parsing, printing,
comparison and arithmetic follow k8s.io/apimachinery/pkg/api/resource:

* parsing rounds anything finer than 1n *away from zero* to the next nano, caps
  BinarySI magnitudes at 2^63-1, and turns a BinarySI value strictly between 0
  and 1 into DecimalSI;
* `str()` is Go's `String()`: the canonical form, except that a parsed string
  Go already considers canonical is returned verbatim (Go caches it, so
  `"+1"` prints as `"+1"`); `canonical()` always recomputes;
* the result of `+`/`-` takes the left operand's format unless the left operand
  is zero, in which case it takes the right one's.

Go stores a quantity either as an int64 with a power-of-ten scale or as an
arbitrary-precision decimal, and a few results depend on which
(`as_int64()` refuses any decimal-backed value, and `"1000m"` is not an int64
because its scale is negative). That choice is tracked here too, so
`as_int64()`, `is_integer()` and `as_approximate_float()` give Go's answers.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

from ..go_strings import GO_SPACE
from .exact import (
    INT64_MAX,
    INT64_MIN,
    Amount,
    amount_add,
    amount_mul,
    amount_sub,
    cmp_values,
    digit_count,
    div_away,
    fits_int64,
    go_pow10,
    int_to_str,
    scale_up,
    strip_zeros,
)
from .text import ERR_NOT_INT64, Format, QuantityError, canonical_text, go_json_number, parse_text

# Go would grind through arbitrarily long big.Int alignments; refusing beyond this
# keeps a hostile exponent from hanging the process. No real quantity is close.
_MAX_MATERIALIZED_DIGITS = 200_000


def _pow10(k: int) -> int:
    if k > _MAX_MATERIALIZED_DIGITS:
        raise QuantityError(
            "too large for kubefit to compute with exactly (its value has more than "
            f"{_MAX_MATERIALIZED_DIGITS} digits)"
        )
    power: int = 10**k
    return power


@functools.total_ordering
class Quantity:
    """An immutable Kubernetes quantity; equal, hashed and ordered by numeric value."""

    __slots__ = ("_big", "_coef", "_exp", "_scale", "_text", "format")

    _coef: int  # value == _coef * 10**_exp, _coef has no trailing zeros
    _exp: int
    _scale: int  # the scale of Go's representation; Go's unscaled value is value / 10**_scale
    _big: bool  # Go holds it as an inf.Dec rather than an int64Amount
    _text: str | None  # Go's cached String(), set only by parsing
    format: Format

    def __init__(self) -> None:
        raise TypeError("use Quantity.parse() or one of the from_* constructors")

    @classmethod
    def _make(cls, coef: int, exp: int, scale: int, big: bool, fmt: Format, text: str | None) -> Quantity:
        q = object.__new__(cls)
        setter = object.__setattr__
        setter(q, "_coef", coef)
        setter(q, "_exp", exp if coef else 0)
        setter(q, "_scale", scale)
        setter(q, "_big", big)
        setter(q, "format", fmt)
        setter(q, "_text", text)
        return q

    @classmethod
    def _from_amount(
        cls, unscaled: int, scale: int, big: bool, fmt: Format, text: str | None = None
    ) -> Quantity:
        coef, zeros = strip_zeros(unscaled)
        return cls._make(coef, scale + zeros, scale, big, fmt, text)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Quantity is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Quantity is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _restore,
            (self._coef, self._exp, self._scale, self._big, self.format.value, self._text),
        )

    # -- construction --

    @classmethod
    def parse(cls, value: str | int | float) -> Quantity:
        """Go's ParseQuantity; an int or float is first written the way encoding/json writes it.

        YAML `cpu: 2` or `cpu: 0.5` reaches the API server as a JSON number, and
        that text is what gets parsed. Strings are taken exactly (no trimming).
        """
        if isinstance(value, bool):
            # JSON true/false: Go hands the literal text to ParseQuantity, which rejects it.
            return cls._make(*parse_text("true" if value else "false"))
        if isinstance(value, int):
            return cls._make(*parse_text(int_to_str(value)))
        if isinstance(value, float):
            return cls._make(*parse_text(go_json_number(value)))
        if isinstance(value, str):
            return cls._make(*parse_text(value))
        raise TypeError(f"cannot parse a quantity from {type(value).__name__}")

    @classmethod
    def unmarshal(cls, value: str | int | float | None) -> Quantity:
        """What the API server makes of a quantity field's JSON value (UnmarshalJSON).

        Unlike `parse`, surrounding whitespace in a string is ignored and null is zero.
        """
        if value is None:
            return cls._make(0, 0, 0, False, Format.DECIMAL_SI, None)
        if isinstance(value, str):
            return cls._make(*parse_text(value.strip(GO_SPACE)))
        return cls.parse(value)

    @classmethod
    def from_int(cls, value: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """Go's NewQuantity (a value outside int64 is held as a decimal)."""
        return cls._from_amount(value, 0, not fits_int64(value), fmt)

    @classmethod
    def from_scaled(cls, value: int, scale: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """value * 10**scale, like Go's NewScaledQuantity (NewMilliQuantity is scale -3)."""
        return cls._from_amount(value, scale, not fits_int64(value), fmt)

    @classmethod
    def from_milli(cls, value: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        return cls.from_scaled(value, -3, fmt)

    @classmethod
    def from_decimal(cls, unscaled: int, scale: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """unscaled * 10**scale held as Go's arbitrary-precision decimal (NewDecimalQuantity)."""
        return cls._from_amount(unscaled, scale, True, fmt)

    def with_format(self, fmt: Format) -> Quantity:
        """The same value printed in another format (the cached input text is dropped)."""
        return Quantity._make(self._coef, self._exp, self._scale, self._big, fmt, None)

    # -- printing --

    def __str__(self) -> str:
        return self._text if self._text is not None else self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r}, {self.format.value})"

    def canonical(self) -> str:
        """Go's CanonicalizeBytes: no fractional digits, the largest suffix that loses nothing."""
        return canonical_text(self._coef, self._exp, self.format)

    # -- comparison --

    def cmp(self, other: Quantity) -> int:
        """-1, 0 or 1 as self is below, equal to or above other."""
        return cmp_values(self._coef, self._exp, other._coef, other._exp)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._coef == other._coef and self._exp == other._exp

    def __hash__(self) -> int:
        return hash((self._coef, self._exp))

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) < 0

    def sign(self) -> int:
        return (self._coef > 0) - (self._coef < 0)

    def is_zero(self) -> bool:
        return self._coef == 0

    # -- arithmetic --

    def _amount(self) -> Amount:
        if self._coef == 0:
            # A zero keeps whatever scale it was written with; its exponent is not meaningful.
            return 0, self._scale
        unscaled: int = self._coef * 10 ** (self._exp - self._scale)
        return unscaled, self._scale

    def _exact_sum(self, other: Quantity, negate_other: bool) -> tuple[int, int]:
        c2 = -other._coef if negate_other else other._coef
        if self._coef == 0:
            return c2, other._exp
        if c2 == 0:
            return self._coef, self._exp
        low = min(self._exp, other._exp)
        total = self._coef * _pow10(self._exp - low) + c2 * _pow10(other._exp - low)
        coef, zeros = strip_zeros(total)
        return coef, low + zeros

    def _plus(self, other: Quantity, negate_other: bool) -> Quantity:
        """self + other, or self - other: the format of a nonzero receiver, else the operand's."""
        fmt = other.format if self.is_zero() else self.format
        if not self._big and not other._big:
            amount = (amount_sub if negate_other else amount_add)(self._amount(), other._amount())
            if amount is not None:
                return Quantity._from_amount(amount[0], amount[1], False, fmt)
            if negate_other and self.is_zero():
                # Go computes 0 - y as -y and keeps y's scale.
                return Quantity._make(-other._coef, other._exp, other._scale, True, fmt, None)
        coef, exp = self._exact_sum(other, negate_other)
        return Quantity._make(coef, exp, min(self._scale, other._scale), True, fmt, None)

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._plus(other, negate_other=False)

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._plus(other, negate_other=True)

    def __neg__(self) -> Quantity:
        big = self._big or self._amount()[0] == INT64_MIN
        return Quantity._make(-self._coef, self._exp, self._scale, big, self.format, None)

    def __mul__(self, factor: int) -> Quantity:
        if isinstance(factor, bool) or not isinstance(factor, int):
            return NotImplemented
        if not self._big and fits_int64(factor):
            amount = amount_mul(self._amount(), factor)
            if amount is not None:
                return Quantity._from_amount(amount[0], amount[1], False, self.format)
        coef, zeros = strip_zeros(self._coef * factor)
        return Quantity._make(coef, self._exp + zeros, self._scale, True, self.format, None)

    def __rmul__(self, factor: int) -> Quantity:
        return self.__mul__(factor)

    def round_up(self, scale: int) -> tuple[Quantity, bool]:
        """Go's RoundUp: away from zero to a multiple of 10**scale; False if that lost precision."""
        if not self._big and self._scale >= scale:
            return self, True
        coef, exp, exact = self._coef, self._exp, True
        if coef and exp < scale:
            magnitude, exact = div_away(abs(coef), scale - exp)
            magnitude, zeros = strip_zeros(magnitude)
            coef, exp = (magnitude if coef > 0 else -magnitude), scale + zeros
        return Quantity._make(coef, exp, scale, self._big, self.format, None), exact

    # -- conversions --

    def scaled_value(self, scale: int) -> int:
        """value / 10**scale rounded away from zero, saturated to the int64 range."""
        coef, exp = self._coef, self._exp
        if coef == 0:
            return 0
        shift = exp - scale
        result: int
        if shift >= 0:
            if digit_count(coef) + shift > 19:
                return INT64_MAX if coef > 0 else INT64_MIN
            result = coef * 10**shift
        else:
            magnitude, _ = div_away(abs(coef), -shift)
            result = magnitude if coef > 0 else -magnitude
        return max(INT64_MIN, min(INT64_MAX, result))

    def value(self) -> int:
        """Go's Value(): whole units rounded away from zero (saturates instead of overflowing)."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """Go's MilliValue(): thousandths rounded away from zero (saturates instead of overflowing)."""
        return self.scaled_value(-3)

    def as_fraction(self) -> Fraction:
        if self._exp >= 0:
            return Fraction(self._coef * _pow10(self._exp))
        return Fraction(self._coef, _pow10(-self._exp))

    def try_as_int64(self) -> int | None:
        """Go's AsInt64: only an int64-backed value at scale >= 0 that fits converts.

        So "1000m" and "1.5Ki" (held as decimals or with a negative scale) do not,
        exactly as in Go; `as_fraction()` answers the purely numeric question.
        """
        if self._big:
            return None
        unscaled, scale = self._amount()
        if scale == 0:
            return unscaled
        if scale < 0:
            return None
        return scale_up(unscaled, scale)

    def as_int64(self) -> int:
        value = self.try_as_int64()
        if value is None:
            raise QuantityError(ERR_NOT_INT64)
        return value

    def is_integer(self) -> bool:
        """Go's `AsInt64` succeeding (what CEL's `isInteger()` reports)."""
        return self.try_as_int64() is not None

    def as_approximate_float(self) -> float:
        """Go's AsApproximateFloat64: float(unscaled) * Pow10(scale), bit for bit."""
        coef = self._coef
        if coef == 0:
            return 0.0
        zeros = self._exp - self._scale
        if digit_count(coef) + zeros > 309:
            base = math.inf if coef > 0 else -math.inf
        else:
            try:
                base = float(coef * 10**zeros)
            except OverflowError:
                base = math.inf if coef > 0 else -math.inf
        if self._scale == 0:
            return base
        return base * go_pow10(self._scale)


def _restore(coef: int, exp: int, scale: int, big: bool, fmt: str, text: str | None) -> Quantity:
    return Quantity._make(coef, exp, scale, big, Format(fmt), text)


def parse_quantity(value: str | int | float) -> Quantity:
    """Shorthand for `Quantity.parse`."""
    return Quantity.parse(value)
