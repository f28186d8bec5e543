"""Exact arithmetic under `Quantity`: decimals as (coefficient, exponent) pairs, and Go's int64 fast path.

Values are `coef * 10**exp` with Python ints, compared and rounded without ever
building the huge numbers a hostile exponent would ask for. Go computes with an
int64 and a scale while the result fits (`int64Amount`) and switches to an
arbitrary-precision decimal when it does not; the `amount_*` functions give
the int64 result, or None where Go switches.
"""

from __future__ import annotations

import math
from decimal import Decimal

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# Python refuses int<->str conversions longer than this (sys.int_info); route around it.
_STR_DIGITS_LIMIT = 4000


def fits_int64(n: int) -> bool:
    return INT64_MIN <= n <= INT64_MAX


def digit_count(n: int) -> int:
    """Decimal digits of |n| (n != 0)."""
    n = abs(n)
    if n < 10**18:
        return len(str(n))
    return Decimal(n).adjusted() + 1


def int_to_str(n: int) -> str:
    if -(10**_STR_DIGITS_LIMIT) < n < 10**_STR_DIGITS_LIMIT:
        return str(n)
    return str(Decimal(n))


def int_from_digits(digits: str) -> int:
    if len(digits) <= _STR_DIGITS_LIMIT:
        return int(digits)
    return int(Decimal(digits))


def strip_zeros(u: int) -> tuple[int, int]:
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


def div_away(magnitude: int, shift: int) -> tuple[int, bool]:
    """ceil(magnitude / 10**shift) for magnitude > 0, shift > 0, and whether it was exact."""
    if shift >= digit_count(magnitude):
        # The quotient is below one; rounding away from zero gives one.
        return 1, False
    q, r = divmod(magnitude, 10**shift)
    return (q + 1, False) if r else (q, True)


def cmp_magnitude(a: int, ea: int, b: int, eb: int) -> int:
    """Compare a*10**ea with b*10**eb for a, b >= 0 without building huge numbers."""
    if a == 0 or b == 0:
        return (a > 0) - (b > 0)
    la, lb = digit_count(a) + ea, digit_count(b) + eb
    if la != lb:
        return 1 if la > lb else -1
    # Same leading exponent, so the alignment is bounded by the digit counts.
    if ea > eb:
        a *= 10 ** (ea - eb)
    elif eb > ea:
        b *= 10 ** (eb - ea)
    return (a > b) - (a < b)


def cmp_values(c1: int, e1: int, c2: int, e2: int) -> int:
    s1 = (c1 > 0) - (c1 < 0)
    s2 = (c2 > 0) - (c2 < 0)
    if s1 != s2:
        return 1 if s1 > s2 else -1
    if s1 == 0:
        return 0
    m = cmp_magnitude(abs(c1), e1, abs(c2), e2)
    return m if s1 > 0 else -m


def scale_up(base: int, k: int) -> int | None:
    """base * 10**k if it fits an int64 (Go's positiveScaleInt64 without the saturation)."""
    if base == 0:
        return 0
    if k > 19:
        return None
    r = base * 10**k
    return r if fits_int64(r) else None


# --- Go's int64 fast-path arithmetic -----------------------------------------------------

Amount = tuple[int, int]  # (unscaled int64, base-10 scale), Go's int64Amount


def amount_add(a: Amount, b: Amount) -> Amount | None:
    au, ascale = a
    bu, bscale = b
    if bu == 0:
        return a
    if au == 0:
        return b
    if ascale == bscale:
        c = au + bu
        return (c, ascale) if fits_int64(c) else None
    if ascale > bscale:
        shifted = scale_up(au, ascale - bscale)
        if shifted is None or not fits_int64(shifted + bu):
            return None
        return shifted + bu, bscale
    shifted = scale_up(bu, bscale - ascale)
    if shifted is None or not fits_int64(au + shifted):
        return None
    return au + shifted, ascale


def amount_sub(a: Amount, b: Amount) -> Amount | None:
    if b[0] == INT64_MIN:
        # Its negation is not an int64; Go moves to the decimal representation.
        return None
    return amount_add(a, (-b[0], b[1]))


def amount_mul(a: Amount, y: int) -> Amount | None:
    au, ascale = a
    if au == 0:
        return a
    if y == 0:
        return 0, 0
    c = au * y
    if not fits_int64(c):
        return None
    if ascale > 0 and scale_up(c, ascale) is None:
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
