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

import enum
import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


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
# Go would grind through arbitrarily long big.Int alignments; refusing beyond this
# keeps a hostile exponent from hanging the process. No real quantity is close.
_MAX_MATERIALIZED_DIGITS = 200_000
# Python refuses int<->str conversions longer than this (sys.int_info); route around it.
_STR_DIGITS_LIMIT = 4000

# Go's strings.TrimSpace (unicode.IsSpace), which is not Python's str.isspace.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)


# --- exact integer helpers ---------------------------------------------------------------


def _fits_int64(n: int) -> bool:
    return INT64_MIN <= n <= INT64_MAX


def _pow10(k: int) -> int:
    if k > _MAX_MATERIALIZED_DIGITS:
        raise QuantityError(f"quantity arithmetic would need more than {_MAX_MATERIALIZED_DIGITS} digits")
    power: int = 10**k
    return power


def _digit_count(n: int) -> int:
    """Decimal digits of |n| (n != 0)."""
    n = abs(n)
    if n < 10**18:
        return len(str(n))
    return Decimal(n).adjusted() + 1


def _int_to_str(n: int) -> str:
    if -(10**_STR_DIGITS_LIMIT) < n < 10**_STR_DIGITS_LIMIT:
        return str(n)
    return str(Decimal(n))


def _int_from_digits(digits: str) -> int:
    if len(digits) <= _STR_DIGITS_LIMIT:
        return int(digits)
    return int(Decimal(digits))


def _strip_zeros(u: int) -> tuple[int, int]:
    """(m, t) with u == m * 10**t and m not divisible by 10 (or (0, 0))."""
    if u == 0:
        return 0, 0
    t = 0
    big = 10**16
    while u % big == 0:
        u //= big
        t += 16
    while u % 10 == 0:
        u //= 10
        t += 1
    return u, t


def _div_away(magnitude: int, shift: int) -> tuple[int, bool]:
    """ceil(magnitude / 10**shift) for magnitude > 0, shift > 0, and whether it was exact."""
    if shift >= _digit_count(magnitude):
        # The quotient is below one; rounding away from zero gives one.
        return 1, False
    q, r = divmod(magnitude, 10**shift)
    return (q + 1, False) if r else (q, True)


def _cmp_magnitude(a: int, ea: int, b: int, eb: int) -> int:
    """Compare a*10**ea with b*10**eb for a, b >= 0 without building huge numbers."""
    if a == 0 or b == 0:
        return (a > 0) - (b > 0)
    la, lb = _digit_count(a) + ea, _digit_count(b) + eb
    if la != lb:
        return 1 if la > lb else -1
    # Same leading exponent, so the alignment is bounded by the digit counts.
    if ea > eb:
        a *= 10 ** (ea - eb)
    elif eb > ea:
        b *= 10 ** (eb - ea)
    return (a > b) - (a < b)


def _cmp_values(c1: int, e1: int, c2: int, e2: int) -> int:
    s1 = (c1 > 0) - (c1 < 0)
    s2 = (c2 > 0) - (c2 < 0)
    if s1 != s2:
        return 1 if s1 > s2 else -1
    if s1 == 0:
        return 0
    m = _cmp_magnitude(abs(c1), e1, abs(c2), e2)
    return m if s1 > 0 else -m


def _scale_up(base: int, k: int) -> int | None:
    """base * 10**k if it fits an int64 (Go's positiveScaleInt64 without the saturation)."""
    if base == 0:
        return 0
    if k > 19:
        return None
    r = base * 10**k
    return r if _fits_int64(r) else None


# --- Go's int64 fast-path arithmetic -----------------------------------------------------

_Amount = tuple[int, int]  # (unscaled int64, base-10 scale), Go's int64Amount


def _amount_add(a: _Amount, b: _Amount) -> _Amount | None:
    au, ascale = a
    bu, bscale = b
    if bu == 0:
        return a
    if au == 0:
        return b
    if ascale == bscale:
        c = au + bu
        return (c, ascale) if _fits_int64(c) else None
    if ascale > bscale:
        shifted = _scale_up(au, ascale - bscale)
        if shifted is None or not _fits_int64(shifted + bu):
            return None
        return shifted + bu, bscale
    shifted = _scale_up(bu, bscale - ascale)
    if shifted is None or not _fits_int64(au + shifted):
        return None
    return au + shifted, ascale


def _amount_sub(a: _Amount, b: _Amount) -> _Amount | None:
    if b[0] == INT64_MIN:
        # Its negation is not an int64; Go moves to the decimal representation.
        return None
    return _amount_add(a, (-b[0], b[1]))


def _amount_mul(a: _Amount, y: int) -> _Amount | None:
    au, ascale = a
    if au == 0:
        return a
    if y == 0:
        return 0, 0
    c = au * y
    if not _fits_int64(c):
        return None
    if ascale > 0 and _scale_up(c, ascale) is None:
        return None
    if ascale < 0 and (-ascale > 19 or c % 10 ** (-ascale) != 0):
        # Go keeps the int64 form only while the product stays a whole number.
        return None
    return c, ascale


# --- Go float helpers --------------------------------------------------------------------

_POW10_SMALL = [float(f"1e{i}") for i in range(32)]
_POW10_POS32 = [float(f"1e{32 * i}") for i in range(10)]
_POW10_NEG32 = [float(f"1e-{32 * i}") for i in range(11)]


def go_pow10(n: int) -> float:
    """Go's math.Pow10, whose table-based rounding differs from 10.0**n in the last bit."""
    if 0 <= n <= 308:
        return _POW10_POS32[n // 32] * _POW10_SMALL[n % 32]
    if -323 <= n < 0:
        return _POW10_NEG32[(-n) // 32] / _POW10_SMALL[(-n) % 32]
    return math.inf if n > 0 else 0.0


def _go_json_number(x: float) -> str:
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


def _parse_string(text: str) -> Quantity:
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity._make(0, 0, 0, False, Format.DECIMAL_SI, "0")

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
            if _fits_int64(result):
                if not positive:
                    result = -result
                # Go remembers the input when it already looks canonical and prints it back as is.
                cached: str | None = None
                if fmt is Format.BINARY_SI:
                    if exponent % 10 == 0 and digits_value & 0x07:
                        cached = text
                elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                    cached = text
                return Quantity._from_amount(result, scale, False, fmt, cached)

    return _parse_slow(value, base, exponent, fmt)


def _parse_slow(value: str, base: int, exponent: int, fmt: Format) -> Quantity:
    """Go's inf.Dec path: exact decimal, rounded up to whole nanos, BinarySI capped."""
    negative = value.startswith("-")
    body = value[1:] if value[:1] in ("+", "-") else value
    whole, _, fraction = body.partition(".")
    if not whole and not fraction:
        raise QuantityError(ERR_NUMERIC)
    magnitude = _int_from_digits(whole + fraction)
    scale = -len(fraction)
    if base == 10:
        scale += exponent
    else:
        magnitude <<= exponent

    if magnitude == 0:
        # Go skips rounding for zero, so the representation keeps the written scale.
        return Quantity._make(0, 0, scale, True, fmt, None)

    coef, zeros = _strip_zeros(magnitude)
    exp = scale + zeros
    if exp < -9:
        coef, _ = _div_away(coef, -9 - exp)
        coef, zeros = _strip_zeros(coef)
        exp = -9 + zeros
    go_scale = -9

    if fmt is Format.BINARY_SI:
        if _cmp_magnitude(coef, exp, INT64_MAX, 0) > 0:
            coef, exp = _strip_zeros(INT64_MAX)
            go_scale = 0
        if _cmp_magnitude(coef, exp, 1, 0) < 0:
            fmt = Format.DECIMAL_SI

    return Quantity._make(-coef if negative else coef, exp, go_scale, True, fmt, None)


# --- the value type ----------------------------------------------------------------------


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
        coef, zeros = _strip_zeros(unscaled)
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
            return _parse_string("true" if value else "false")
        if isinstance(value, int):
            return _parse_string(_int_to_str(value))
        if isinstance(value, float):
            return _parse_string(_go_json_number(value))
        if isinstance(value, str):
            return _parse_string(value)
        raise TypeError(f"cannot parse a quantity from {type(value).__name__}")

    @classmethod
    def unmarshal(cls, value: str | int | float | None) -> Quantity:
        """What the API server makes of a quantity field's JSON value (UnmarshalJSON).

        Unlike `parse`, surrounding whitespace in a string is ignored and null is zero.
        """
        if value is None:
            return cls._make(0, 0, 0, False, Format.DECIMAL_SI, None)
        if isinstance(value, str):
            return _parse_string(value.strip(_GO_SPACE))
        return cls.parse(value)

    @classmethod
    def from_int(cls, value: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """Go's NewQuantity (a value outside int64 is held as a decimal)."""
        return cls._from_amount(value, 0, not _fits_int64(value), fmt)

    @classmethod
    def from_scaled(cls, value: int, scale: int, fmt: Format = Format.DECIMAL_SI) -> Quantity:
        """value * 10**scale, like Go's NewScaledQuantity (NewMilliQuantity is scale -3)."""
        return cls._from_amount(value, scale, not _fits_int64(value), fmt)

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
        coef, exp = self._coef, self._exp
        if coef == 0:
            return "0"
        fmt = self.format
        if fmt is Format.BINARY_SI:
            if _cmp_magnitude(abs(coef), exp, 1024, 0) < 0 or exp < 0:
                # Small or fractional values would need rounding in base 1024.
                fmt = Format.DECIMAL_SI
            else:
                twos = exp + ((abs(coef) & -abs(coef)).bit_length() - 1)
                power = twos // 10
                if power <= 6:
                    whole = coef * 10**exp
                    return _int_to_str(whole >> (10 * power)) + _BINARY_BY_POWER.get(power, "")
                # Past Ei there is no binary suffix; Go falls back to exponent notation.
                fmt = Format.DECIMAL_EXPONENT
        shift = exp % 3
        mantissa = _int_to_str(coef * 10**shift)
        exp -= shift
        if fmt is Format.DECIMAL_SI:
            suffix = _DECIMAL_BY_EXPONENT.get(exp)
            if suffix is not None:
                return mantissa + suffix
        return mantissa if exp == 0 else f"{mantissa}e{exp}"

    # -- comparison --

    def cmp(self, other: Quantity) -> int:
        """-1, 0 or 1 as self is below, equal to or above other."""
        return _cmp_values(self._coef, self._exp, other._coef, other._exp)

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

    def __le__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) <= 0

    def __gt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) > 0

    def __ge__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.cmp(other) >= 0

    def sign(self) -> int:
        return (self._coef > 0) - (self._coef < 0)

    def is_zero(self) -> bool:
        return self._coef == 0

    # -- arithmetic --

    def _amount(self) -> _Amount:
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
        coef, zeros = _strip_zeros(total)
        return coef, low + zeros

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        fmt = other.format if self.is_zero() else self.format
        if not self._big and not other._big:
            amount = _amount_add(self._amount(), other._amount())
            if amount is not None:
                return Quantity._from_amount(amount[0], amount[1], False, fmt)
        coef, exp = self._exact_sum(other, negate_other=False)
        return Quantity._make(coef, exp, min(self._scale, other._scale), True, fmt, None)

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        fmt = other.format if self.is_zero() else self.format
        if not self._big and not other._big:
            amount = _amount_sub(self._amount(), other._amount())
            if amount is not None:
                return Quantity._from_amount(amount[0], amount[1], False, fmt)
            if self.is_zero():
                # Go computes 0 - y as -y and keeps y's scale.
                return Quantity._make(-other._coef, other._exp, other._scale, True, fmt, None)
        coef, exp = self._exact_sum(other, negate_other=True)
        return Quantity._make(coef, exp, min(self._scale, other._scale), True, fmt, None)

    def __neg__(self) -> Quantity:
        big = self._big or self._amount()[0] == INT64_MIN
        return Quantity._make(-self._coef, self._exp, self._scale, big, self.format, None)

    def __mul__(self, factor: int) -> Quantity:
        if isinstance(factor, bool) or not isinstance(factor, int):
            return NotImplemented
        if not self._big and _fits_int64(factor):
            amount = _amount_mul(self._amount(), factor)
            if amount is not None:
                return Quantity._from_amount(amount[0], amount[1], False, self.format)
        coef, zeros = _strip_zeros(self._coef * factor)
        return Quantity._make(coef, self._exp + zeros, self._scale, True, self.format, None)

    def __rmul__(self, factor: int) -> Quantity:
        return self.__mul__(factor)

    def round_up(self, scale: int) -> tuple[Quantity, bool]:
        """Go's RoundUp: away from zero to a multiple of 10**scale; False if that lost precision."""
        if not self._big and self._scale >= scale:
            return self, True
        coef, exp, exact = self._coef, self._exp, True
        if coef and exp < scale:
            magnitude, exact = _div_away(abs(coef), scale - exp)
            magnitude, zeros = _strip_zeros(magnitude)
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
            if _digit_count(coef) + shift > 19:
                return INT64_MAX if coef > 0 else INT64_MIN
            result = coef * 10**shift
        else:
            magnitude, _ = _div_away(abs(coef), -shift)
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
        return _scale_up(unscaled, scale)

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
        if _digit_count(coef) + zeros > 309:
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
