"""Quantity arithmetic: Go's int64 fast path, its decimal fallback, and rounding."""

from __future__ import annotations

from fractions import Fraction

import pytest
from quantity_support import BIN, DEC, LEAST, MOST, P, amount, dec, frac

from kubefit.model.quantity import Format, Quantity, QuantityError

# --- arithmetic ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "total", "fmt"),
    [
        (dec(10, 0), dec(1, 1), frac(20, 0), DEC),
        (dec(10, 0), dec(1, 0, BIN), frac(11, 0), DEC),
        (dec(10, 0, BIN), dec(1, 0), frac(11, 0), BIN),
        (amount(0, 0), dec(50, 0), frac(50, 0), DEC),
        (dec(50, 0), amount(0, 0), frac(50, 0), DEC),
        (amount(0, 0), amount(0, 0), frac(0, 0), DEC),
        (P("50k"), P("20"), frac(5002, 1), DEC),
        (P("1Gi"), P("512Mi"), frac(3 * 2**29, 0), BIN),
        (amount(MOST, 0), amount(1, 0), frac(MOST + 1, 0), DEC),
        (amount(1, 1), amount(MOST, 0), frac(MOST + 10, 0), DEC),
    ],
)
def test_add(a: Quantity, b: Quantity, total: Fraction, fmt: Format) -> None:
    result = a + b
    assert result.as_fraction() == total
    assert result.format is fmt


@pytest.mark.parametrize(
    ("a", "b", "diff", "fmt"),
    [
        (dec(10, 0), dec(1, 1), frac(0, 0), DEC),
        (dec(10, 0), dec(1, 0, BIN), frac(9, 0), DEC),
        (dec(10, 0, BIN), dec(1, 0), frac(9, 0), BIN),
        (amount(0, 0), dec(50, 0), frac(-50, 0), DEC),
        (dec(50, 0), amount(0, 0), frac(50, 0), DEC),
        (amount(0, 0), amount(0, 0), frac(0, 0), DEC),
        (P("50k"), P("20"), frac(4998, 1), DEC),
        (P("0"), P("1Gi"), frac(-(2**30), 0), BIN),
    ],
)
def test_sub(a: Quantity, b: Quantity, diff: Fraction, fmt: Format) -> None:
    result = a - b
    assert result.as_fraction() == diff
    assert result.format is fmt


def test_zero_keeps_the_other_operands_suffix() -> None:
    zero = P("0")
    for text in ("100m", "1Gi"):
        value = P(text)
        assert str(value + zero) == text
        assert str(zero + value) == text
        assert str(value - zero) == text
        assert str(zero - value) == str(-value)


def test_subtracting_the_most_negative_int64() -> None:
    two63 = P("9223372036854775808")
    neg = -amount(LEAST, 0)
    assert neg == two63 and neg.try_as_int64() is None and str(neg) == "9223372036854775808"
    sub = amount(0, 0) - amount(LEAST, 0)
    assert sub == two63 and sub.try_as_int64() is None
    one_sub = amount(1, 0) - amount(LEAST, 0)
    assert str(one_sub) == "9223372036854775809" and one_sub.try_as_int64() is None
    assert (-amount(LEAST + 1, 0)).try_as_int64() == MOST
    assert (amount(0, 0) - amount(LEAST + 1, 0)).try_as_int64() == MOST
    assert str(-amount(LEAST, -3)) == "9223372036854775808m"
    assert str(amount(1, -3) - amount(LEAST, -3)) == "9223372036854775809m"
    assert str(amount(0, 0) - Quantity.from_scaled(LEAST, -3)) == "9223372036854775808m"
    assert str(amount(10, 0) - amount(LEAST, 0)) == "9223372036854775818"
    binary = amount(0, 0) - amount(LEAST, 0, BIN)
    assert binary.format is BIN and str(binary) == "8Ei" and binary.try_as_int64() is None


@pytest.mark.parametrize(
    ("a", "factor", "product"),
    [
        (dec(10, 0), 10, frac(100, 0)),
        (dec(10, 0), 1, frac(10, 0)),
        (dec(10, 0, BIN), 1, frac(10, 0)),
        (amount(0, 0), 50, frac(0, 0)),
        (dec(50, 0), 0, frac(0, 0)),
        (dec(10, 0), -10, frac(-100, 0)),
        (dec(-50, 0), -50, frac(2500, 0)),
        (dec(MOST, 0), 0, frac(0, 1)),
        (dec(MOST, 0), -1, frac(-MOST, 0)),
        (dec(MOST, 0), 2, frac(2 * MOST, 0)),
        (dec(MOST, 0), 10, frac(MOST, 1)),
        (dec(LEAST, 0), -1, frac(MOST + 1, 0)),
        (dec(LEAST // 2, 0), 2, frac(LEAST, 0)),
        (dec(LEAST, 0), -10, frac(MOST + 1, 1)),
        (amount(MOST, 0), 2, frac(2 * MOST, 0)),
        (amount(LEAST, 0), -1, frac(MOST + 1, 0)),
        (amount(15, -1), 3, frac(45, -1)),
    ],
)
def test_mul(a: Quantity, factor: int, product: Fraction) -> None:
    assert (a * factor).as_fraction() == product
    assert (factor * a).as_fraction() == product
    assert (a * factor).format is a.format


def test_mul_keeps_int64_only_for_whole_products() -> None:
    # 1.5 * 2 stays an int64 amount at scale -1; 1.5 * 3 moves to a decimal. Neither is AsInt64-able.
    assert (P("1.5") * 2).try_as_int64() is None
    assert (P("50k") * 2).try_as_int64() == 100000
    assert (P("9Ei") * 2).try_as_int64() is None


def test_add_sub_round_trip() -> None:
    for scale in range(-10, 11):
        total = amount(0, 0)
        values = [(7**k * 104729) % MOST for k in range(1, 60)]
        for v in values:
            total = total + Quantity.from_scaled(v, scale)
        for v in values:
            total = total - Quantity.from_scaled(v, scale)
        assert total.is_zero()


def test_double_negation() -> None:
    for backing in (amount, dec):
        for scale in range(-10, 11):
            q = backing(123456789 * scale + 7, scale)
            negated = -q
            assert -negated == q


@pytest.mark.parametrize(
    ("text", "scale", "expected", "exact"),
    [
        ("9.01", -3, frac(901, -2), True),
        ("9.01", -2, frac(901, -2), True),
        ("9.01", -1, frac(91, -1), False),
        ("9.01", 0, frac(10, 0), False),
        ("9.01", 1, frac(10, 0), False),
        ("9.01", 2, frac(100, 0), False),
        ("-9.01", -3, frac(-901, -2), True),
        ("-9.01", -2, frac(-901, -2), True),
        ("-9.01", -1, frac(-91, -1), False),
        ("-9.01", 0, frac(-10, 0), False),
        ("-9.01", 1, frac(-10, 0), False),
        ("-9.01", 2, frac(-100, 0), False),
    ],
)
def test_round_up(text: str, scale: int, expected: Fraction, exact: bool) -> None:
    for q in (P(text), P(text).with_format(DEC) + dec(0, 0)):
        rounded, was_exact = q.round_up(scale)
        assert rounded.as_fraction() == expected
        assert was_exact is exact


def test_arithmetic_refuses_unbounded_alignment() -> None:
    with pytest.raises(QuantityError, match="digits"):
        P("1e2147483647") + P("1")
