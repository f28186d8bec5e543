"""Quantity text: Go's ParseQuantity and CanonicalizeBytes, on the exact parts of a `Quantity`.

Parsing rounds anything finer than 1n *away from zero* to the next nano, caps
BinarySI magnitudes at 2^63-1, and turns a BinarySI value strictly between 0
and 1 into DecimalSI; it also records whether Go would hold the result as an
int64 or as a decimal, and the input text when Go would print it back as is.
"""

from __future__ import annotations

import enum
import math
from decimal import Decimal
from typing import NamedTuple

from .exact import INT64_MAX, cmp_magnitude, div_away, fits_int64, int_from_digits, int_to_str, strip_zeros


class Format(enum.StrEnum):
    """How a quantity prints; the value is Go's `resource.Format` string."""

    DECIMAL_EXPONENT = "DecimalExponent"
    BINARY_SI = "BinarySI"
    DECIMAL_SI = "DecimalSI"


SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = "quantities must match the regular expression '" + SPLIT_RE + "'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"
ERR_NOT_INT64 = "cannot convert value to integer"


class QuantityError(ValueError):
    """A string is not a quantity, or an exact result cannot be produced."""


class Parts(NamedTuple):
    """What a `Quantity` holds: value coef * 10**exp, Go's scale and representation, the cached text."""

    coef: int
    exp: int
    scale: int
    big: bool
    fmt: Format
    text: str | None


_DIGITS = frozenset("0123456789")
_SUFFIX_LETTERS = frozenset("eEinumkKMGTP")

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_BY_EXPONENT = {e: s for s, e in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_BINARY_BY_POWER = {e // 10: s for s, e in _BINARY_SUFFIXES.items()}

# Go keeps a parsed exponent in an int32 scale that it later negates.
_MAX_EXPONENT = 2**31 - 1
# Decimals with at most this many digits take Go's int64 fast path when parsed.
_MAX_INT64_DIGITS = 18


# --- JSON numbers ------------------------------------------------------------------------


def go_json_number(x: float) -> str:
    """How encoding/json writes a float64, which is what ParseQuantity sees for `cpu: 0.5`."""
    if math.isnan(x) or math.isinf(x):
        shown = "NaN" if math.isnan(x) else ("+Inf" if x > 0 else "-Inf")
        raise QuantityError(f"json: unsupported value: {shown}")
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    shortest = Decimal(repr(x)).normalize()
    if 1e-6 <= abs(x) < 1e21:
        return format(shortest, "f")
    sign, digits, exponent = shortest.as_tuple()
    assert isinstance(exponent, int)
    text = "".join(str(d) for d in digits)
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    e10 = exponent + len(digits) - 1
    # Go prints at least two exponent digits, then json drops the padding of a negative one.
    exp_text = f"{'-' if e10 < 0 else '+'}{abs(e10):02d}"
    if e10 < 0 and len(exp_text) == 3 and exp_text[1] == "0":
        exp_text = "-" + exp_text[2]
    return ("-" if sign else "") + mantissa + "e" + exp_text


# --- parsing -----------------------------------------------------------------------------


def _scan(text: str) -> tuple[bool, str, str, str, str]:
    """Split text into (positive, numeric text, integer digits, fraction digits, suffix).

    The same permissive scan as Go's parseQuantityString: anything odd after the
    number is left to the suffix interpretation, except characters that can never
    start or continue a suffix.
    """
    positive = True
    pos = 0
    end = len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos]
    if pos >= end:
        return positive, text, num, "", ""
    if not num:
        num = "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(ERR_FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _parse_go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64) restricted to what a suffix can contain."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or any(c not in _DIGITS for c in body):
        return None
    significant = body.lstrip("0")
    if len(significant) > 12:
        # Far outside the int32 range the caller accepts; no need to convert.
        return None
    value = int(significant or "0")
    return -value if text[0] == "-" else value


def _interpret(suffix: str) -> tuple[int, int, Format] | None:
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], Format.DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], Format.BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent = _parse_go_int(suffix[1:])
        if exponent is None or abs(exponent) > _MAX_EXPONENT:
            return None
        return 10, exponent, Format.DECIMAL_EXPONENT
    return None


def parse_text(text: str) -> Parts:
    """Go's ParseQuantity of a string: the parts of the `Quantity` it stands for."""
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return Parts(0, 0, 0, False, Format.DECIMAL_SI, "0")

    positive, value, num, denom, suffix = _scan(text)
    interpreted = _interpret(suffix)
    if interpreted is None:
        raise QuantityError(ERR_SUFFIX)
    base, exponent, fmt = interpreted

    precision = -1
    scale = 0
    multiplier = 1
    if fmt is Format.BINARY_SI:
        if not denom:
            multiplier = 1 << exponent
            precision = 15 - len(num) - exponent * 3 // 10 - 1
    else:
        scale = exponent
        precision = _MAX_INT64_DIGITS - (len(num) + len(denom))

    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            digits_value = int(shifted)
            result = digits_value * multiplier
            if fits_int64(result):
                if not positive:
                    result = -result
                # Go remembers the input when it already looks canonical and prints it back as is.
                cached: str | None = None
                if fmt is Format.BINARY_SI:
                    if exponent % 10 == 0 and digits_value & 0x07:
                        cached = text
                elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                    cached = text
                coef, zeros = strip_zeros(result)
                return Parts(coef, scale + zeros, scale, False, fmt, cached)

    return _parse_slow(value, base, exponent, fmt)


def _parse_slow(value: str, base: int, exponent: int, fmt: Format) -> Parts:
    """Go's inf.Dec path: exact decimal, rounded up to whole nanos, BinarySI capped."""
    negative = value.startswith("-")
    body = value[1:] if value[:1] in ("+", "-") else value
    whole, _, fraction = body.partition(".")
    if not whole and not fraction:
        raise QuantityError(ERR_NUMERIC)
    magnitude = int_from_digits(whole + fraction)
    scale = -len(fraction)
    if base == 10:
        scale += exponent
    else:
        magnitude <<= exponent

    if magnitude == 0:
        # Go skips rounding for zero, so the representation keeps the written scale.
        return Parts(0, 0, scale, True, fmt, None)

    coef, zeros = strip_zeros(magnitude)
    exp = scale + zeros
    if exp < -9:
        coef, _ = div_away(coef, -9 - exp)
        coef, zeros = strip_zeros(coef)
        exp = -9 + zeros
    go_scale = -9

    if fmt is Format.BINARY_SI:
        if cmp_magnitude(coef, exp, INT64_MAX, 0) > 0:
            coef, exp = strip_zeros(INT64_MAX)
            go_scale = 0
        if cmp_magnitude(coef, exp, 1, 0) < 0:
            fmt = Format.DECIMAL_SI

    return Parts(-coef if negative else coef, exp, go_scale, True, fmt, None)


# --- printing ----------------------------------------------------------------------------


def canonical_text(coef: int, exp: int, fmt: Format) -> str:
    """Go's CanonicalizeBytes of coef * 10**exp in a format: no fractional digits, and the
    largest suffix that loses nothing."""
    if coef == 0:
        return "0"
    if fmt is Format.BINARY_SI:
        if cmp_magnitude(abs(coef), exp, 1024, 0) < 0 or exp < 0:
            # Small or fractional values would need rounding in base 1024.
            fmt = Format.DECIMAL_SI
        else:
            twos = exp + ((abs(coef) & -abs(coef)).bit_length() - 1)
            power = twos // 10
            if power <= 6:
                whole = coef * 10**exp
                return int_to_str(whole >> (10 * power)) + _BINARY_BY_POWER.get(power, "")
            # Past Ei there is no binary suffix; Go falls back to exponent notation.
            fmt = Format.DECIMAL_EXPONENT
    shift = exp % 3
    mantissa = int_to_str(coef * 10**shift)
    exp -= shift
    if fmt is Format.DECIMAL_SI:
        suffix = _DECIMAL_BY_EXPONENT.get(exp)
        if suffix is not None:
            return mantissa + suffix
    return mantissa if exp == 0 else f"{mantissa}e{exp}"
