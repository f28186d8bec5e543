"""Properties of quantities checked against exact fractions, on generated quantity texts."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from quantity_support import BIN, DEC, EXP, P

from kubefit.model.quantity import INT64_MAX, INT64_MIN, Format

# --- properties --------------------------------------------------------------------------

_SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
_EXPONENT_SUFFIXES = st.builds(
    lambda letter, sign, n: f"{letter}{sign}{n}",
    st.sampled_from(["e", "E"]),
    st.sampled_from(["", "+", "-"]),
    st.integers(0, 40),
)

quantity_texts = st.builds(
    lambda sign, whole, fraction, suffix: sign + whole + fraction + suffix,
    st.sampled_from(["", "+", "-"]),
    st.text("0123456789", min_size=1, max_size=22),
    st.one_of(st.just(""), st.text("0123456789", max_size=14).map(lambda d: "." + d)),
    st.one_of(st.sampled_from(_SUFFIXES), _EXPONENT_SUFFIXES),
)


def _oracle(text: str) -> tuple[Fraction, Format]:
    """Independent statement of what ParseQuantity means, on exact fractions."""
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    i = 0
    while i < len(body) and (body[i].isdigit() or body[i] == "."):
        i += 1
    number, suffix = body[:i], body[i:]
    whole, _, fraction = number.partition(".")
    value = Fraction(int(whole or "0")) + (Fraction(int(fraction), 10 ** len(fraction)) if fraction else 0)
    if suffix in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        value *= 2 ** (10 * (["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].index(suffix) + 1))
        fmt = BIN
    elif suffix[:1] in ("e", "E") and len(suffix) > 1:
        value *= Fraction(10) ** int(suffix[1:])
        fmt = EXP
    else:
        value *= (
            Fraction(10)
            ** {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}[suffix]
        )
        fmt = DEC
    nanos = value * 10**9
    if nanos.denominator != 1:
        value = Fraction(math.ceil(nanos), 10**9)
    if fmt is BIN:
        value = min(value, Fraction(INT64_MAX))
        if 0 < value < 1:
            fmt = DEC
    return sign * value, fmt


@settings(max_examples=400, deadline=None)
@given(quantity_texts)
def test_parse_matches_exact_oracle(text: str) -> None:
    q = P(text)
    expected, fmt = _oracle(text)
    assert q.as_fraction() == expected
    if expected != 0:
        assert q.format is fmt


@settings(max_examples=400, deadline=None)
@given(quantity_texts)
def test_printing_round_trips(text: str) -> None:
    q = P(text)
    assert P(str(q)) == q
    assert P(q.canonical()) == q
    assert P(q.canonical()).canonical() == q.canonical()


@settings(max_examples=300, deadline=None)
@given(quantity_texts, quantity_texts)
def test_order_and_arithmetic_agree_with_fractions(a_text: str, b_text: str) -> None:
    a, b = P(a_text), P(b_text)
    fa, fb = a.as_fraction(), b.as_fraction()
    assert a.cmp(b) == (fa > fb) - (fa < fb)
    assert (a == b) is (fa == fb)
    if a == b:
        assert hash(a) == hash(b)
    assert (a + b).as_fraction() == fa + fb
    assert (a - b).as_fraction() == fa - fb
    assert (-a).as_fraction() == -fa
    assert (a * 3).as_fraction() == 3 * fa


@settings(max_examples=300, deadline=None)
@given(quantity_texts)
def test_value_is_ceiling_away_from_zero(text: str) -> None:
    q = P(text)
    f = q.as_fraction()
    rounded = math.ceil(f) if f >= 0 else math.floor(f)
    assert q.value() == max(INT64_MIN, min(INT64_MAX, rounded))
    assume(q.try_as_int64() is not None)
    assert q.try_as_int64() == f
