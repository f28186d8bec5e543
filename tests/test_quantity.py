"""resource.Quantity semantics, checked against the cases apimachinery's own tests pin down:
numeric views, comparison, floats and value-type hygiene (parsing, printing and arithmetic have
their own test modules)."""

from __future__ import annotations

import copy
import math
import pickle

import pytest
from quantity_support import BIN, DEC, EXP, LEAST, MOST, P, amount, dec

from kubefit.model.quantity import INT64_MAX, INT64_MIN, Format, Quantity, QuantityError, go_pow10

# --- numeric and int64 views ----------------------------------------------------------------

# Whether Go holds the parsed value as an int64 it can return from AsInt64, and the canonical text.
INT64_CASES = [
    ("-999999999999999999", -999999999999999999, ""),
    ("999999999999999999", 999999999999999999, ""),
    ("-999999999999999999.0", None, "-999999999999999999"),
    ("999999999999999999.0", None, "999999999999999999"),
    ("-999999999999999999.1", None, "-999999999999999999100m"),
    ("999999999999999999.1", None, "999999999999999999100m"),
    ("-9999999999999999999", None, ""),
    ("9999999999999999999", None, ""),
    ("-1E", -(10**18), ""),
    ("1E", 10**18, ""),
    ("-1000000000000000000", None, "-1E"),
    ("1000000000000000000", None, "1E"),
    ("-9999999999999999999.0", None, "-9999999999999999999"),
    ("9999999999999999999.0", None, "9999999999999999999"),
    ("-1.0E", -(10**18), "-1E"),
    ("1.0E", 10**18, "1E"),
    ("-1000000000000000000.0", None, "-1E"),
    ("1000000000000000000.0", None, "1E"),
    ("-9999999999999999999000m", None, "-9999999999999999999"),
    ("9999999999999999999000m", None, "9999999999999999999"),
    ("-9999999999999999999.1", None, "-9999999999999999999100m"),
    ("9999999999999999999.1", None, "9999999999999999999100m"),
    ("-1.0000000000000000001E", None, "-1000000000000000000100m"),
    ("1.0000000000000000001E", None, "1000000000000000000100m"),
    ("-1000000000000000000.1", None, "-1000000000000000000100m"),
    ("1000000000000000000.1", None, "1000000000000000000100m"),
    ("-1.000000000000000001E", None, "-1000000000000000001"),
    ("1.000000000000000001E", None, "1000000000000000001"),
    ("-1000000000000000001", None, ""),
    ("1000000000000000001", None, ""),
    ("-10E", None, ""),
    ("10E", None, ""),
    ("-10000000000000000000", None, "-10E"),
    ("10000000000000000000", None, "10E"),
    ("-10.0E", None, "-10E"),
    ("10.0E", None, "10E"),
    ("-10000000000000000000000m", None, "-10E"),
    ("10000000000000000000000m", None, "10E"),
    ("-10.0000000000000000001E", None, "-10000000000000000000100m"),
    ("10.0000000000000000001E", None, "10000000000000000000100m"),
    ("-10.000000000000000001E", None, "-10000000000000000001"),
    ("10.000000000000000001E", None, "10000000000000000001"),
    ("-9223372036854775809", None, ""),
    ("9223372036854775806", None, ""),
    ("-9223372036854775808", None, ""),
    ("9223372036854775807", None, ""),
    ("-9223372036854775807.1", None, "-9223372036854775807100m"),
    ("9223372036854775808.1", None, "9223372036854775808100m"),
    # int64-backed but at a negative scale: Go still refuses
    ("1000m", None, "1"),
    ("1.5", None, "1500m"),
    ("50k", 50000, ""),
    ("1Gi", 2**30, ""),
    ("0.5Ki", None, "512"),
    ("12E", None, ""),
    ("0", 0, ""),
    ("0k", 0, "0"),
    ("0m", None, "0"),
]


@pytest.mark.parametrize(("text", "as_int", "canonical"), INT64_CASES)
def test_int64_view_and_canonical(text: str, as_int: int | None, canonical: str) -> None:
    q = P(text)
    assert q.try_as_int64() == as_int
    assert q.is_integer() is (as_int is not None)
    assert str(q) == (canonical or text)
    if as_int is None:
        with pytest.raises(QuantityError, match="cannot convert value to integer"):
            q.as_int64()
    else:
        assert q.as_int64() == as_int


@pytest.mark.parametrize(
    ("text", "value", "milli"),
    [
        ("-.484785E-7466", -1, -1),
        (".484785E-7466", 1, 1),
        ("-.484785E-1", -1, -49),
        (".484785E-1", 1, 49),
        ("-0.0005", -1, -1),
        ("0.0005", 1, 1),
        ("-1500m", -2, -1500),
        ("1500m", 2, 1500),
        ("-9.5000000001Gi", -10200547329, -10200547328108),
        ("9.5000000001Gi", 10200547329, 10200547328108),
        ("-1", -1, -1000),
        ("1", 1, 1000),
        ("0", 0, 0),
        ("1Mi", 1048576, 1048576000),
        # beyond int64 the answer saturates
        ("100E", INT64_MAX, INT64_MAX),
        ("-100E", INT64_MIN, INT64_MIN),
        ("1e2147483647", INT64_MAX, INT64_MAX),
        ("1e-2147483647", 1, 1),
    ],
)
def test_value_rounds_away_from_zero(text: str, value: int, milli: int) -> None:
    q = P(text)
    assert q.value() == value
    assert q.milli_value() == milli


@pytest.mark.parametrize(
    ("from_scale", "to_scale", "expected"),
    [
        (-9, -9, 1),
        (-9, -6, 1),
        (-9, -3, 1),
        (-9, 0, 1),
        (-6, -9, 1000),
        (-6, -6, 1),
        (-6, -3, 1),
        (-6, 0, 1),
        (-3, -9, 1000 * 1000),
        (-3, -6, 1000),
        (-3, -3, 1),
        (-3, 0, 1),
        (0, -9, 1000 * 1000 * 1000),
        (0, -6, 1000 * 1000),
        (0, -3, 1000),
        (0, 0, 1),
        (2, -2, 100 * 100),
    ],
)
def test_scaled_value(from_scale: int, to_scale: int, expected: int) -> None:
    assert Quantity.from_scaled(1, from_scale).scaled_value(to_scale) == expected


@pytest.mark.parametrize(
    ("value", "scale", "text"),
    [
        (1, -9, "1n"),
        (1000, -9, "1u"),
        (1, -6, "1u"),
        (1000, -6, "1m"),
        (1, -3, "1m"),
        (1000, -3, "1"),
        (1, 0, "1"),
        (0, -9, "0"),
        (0, -6, "0"),
        (0, -3, "0"),
        (0, 0, "0"),
    ],
)
def test_new_scaled(value: int, scale: int, text: str) -> None:
    q = Quantity.from_scaled(value, scale)
    assert str(q) == text
    assert P(text).scaled_value(scale) == value


@pytest.mark.parametrize(
    ("value", "fmt", "text"),
    [
        (1, DEC, "1"),
        (1000, DEC, "1k"),
        (1234000, DEC, "1234k"),
        (1024, BIN, "1Ki"),
        (1024 * 1024, BIN, "1Mi"),
    ],
)
def test_new_quantity(value: int, fmt: Format, text: str) -> None:
    for q in (Quantity.from_int(value, fmt), Quantity.from_decimal(value, 0, fmt)):
        assert str(q) == text
        assert P(text).value() == value


@pytest.mark.parametrize(
    ("value", "fmt", "text"),
    [
        (1, DEC, "1m"),
        (1000, DEC, "1"),
        (1234000, DEC, "1234"),
        (1024, BIN, "1024m"),
        (1024 * 1024, BIN, "1048576m"),
    ],
)
def test_new_milli_quantity(value: int, fmt: Format, text: str) -> None:
    assert str(Quantity.from_milli(value, fmt)) == text


# --- comparison ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [
        ("0", "0", 0),
        ("100m", "50m", 1),
        ("50m", "100m", -1),
        ("10000T", "100Gi", 1),
        ("1Gi", "1073741824", 0),
    ],
)
def test_cmp_parsed(x: str, y: str, expected: int) -> None:
    assert P(x).cmp(P(y)) == expected
    assert P(y).cmp(P(x)) == -expected
    assert (P(x) == P(y)) is (expected == 0)


# (unscaled, scale) pairs and how the first compares with the second
CMP_CASES = [
    ((901, -2), (901, -2), 0),
    ((90, -1), (901, -2), -1),
    ((901, -2), (900, -2), 1),
    ((0, 0), (0, 0), 0),
    ((0, 1), (0, -1), 0),
    ((0, -1), (0, 1), 0),
    ((800, -3), (1, 0), -1),
    ((800, -3), (79, -2), 1),
    ((MOST, 0), (1, -1), 1),
    ((MOST, 1), (1, 0), 1),
    ((MOST, 1), (1, 1), 1),
    ((MOST, 1), (0, 1), 1),
    ((MOST, -16), (1, 3), -1),
    ((LEAST, 0), (0, 0), -1),
    ((LEAST, -18), (-1, 0), -1),
    ((LEAST, -19), (-1, 0), 1),
    ((10**18, -17), (1, 1), 0),
    ((10**18, -17), (-10, 0), 1),
    ((-(10**18), -17), (-10, 0), 0),
    ((10**18, -17), (1, 0), 1),
    ((10**18 + 1, -17), (1, 1), 1),
    ((10**18 - 1, -17), (1, 1), -1),
]


@pytest.mark.parametrize(("a", "b", "expected"), CMP_CASES)
@pytest.mark.parametrize("backing", ["int/int", "dec/int", "int/dec", "dec/dec"])
def test_cmp_across_representations(
    a: tuple[int, int], b: tuple[int, int], expected: int, backing: str
) -> None:
    make_a = dec if backing.startswith("dec") else amount
    make_b = dec if backing.endswith("dec") else amount
    qa, qb = make_a(*a), make_b(*b)
    assert qa.cmp(qb) == expected
    assert qb.cmp(qa) == -expected
    assert (qa < qb) is (expected < 0)
    assert (qa >= qb) is (expected >= 0)
    if expected == 0:
        assert hash(qa) == hash(qb)


def test_huge_exponents_compare_without_expanding() -> None:
    big = P("1e2147483647")
    assert big > P("9Ei")
    assert P("-1e2147483647") < P("-9Ei")
    assert P("1e-2147483647") == P("1n")
    assert P("2e2147483646") < big


def test_sign_and_zero() -> None:
    assert P("-1m").sign() == -1
    assert P("0Ki").sign() == 0
    assert P("3Gi").sign() == 1
    assert P("0.0000000000").is_zero()
    assert not P("1n").is_zero()


# --- floats ----------------------------------------------------------------------------

M7 = 7 * 1024 * 1024

FLOAT_CASES = [
    (dec(0, 0), 0.0),
    (dec(0, 0, EXP), 0.0),
    (dec(0, 0, BIN), 0.0),
    (dec(0, 500), 0.0),
    (amount(0, 500), 0.0),
    (dec(0, -500), 0.0),
    (amount(0, -500), 0.0),
    (dec(1, 0), 1.0),
    (dec(1024, 0, BIN), 1024.0),
    (dec(8 * 1024, 0, BIN), 8192.0),
    (dec(M7, 0), float(M7)),
    (dec(M7, 1), float(M7 * 10)),
    (dec(M7, 4), float(M7 * 10000)),
    (dec(M7, 8), float(M7 * 100000000)),
    # Go multiplies by Pow10(-1), which is not the same as dividing by ten.
    (dec(M7, -1), M7 * 0.1),
    (dec(M7, -8), M7 / 100000000.0),
    (dec(M7, -1, EXP), M7 * 0.1),
    (dec(M7, -8, BIN), M7 / 100000000.0),
    (dec(MOST, 0), float(MOST)),
    (dec(MOST, 0, BIN), float(MOST)),
    (dec(12, 18), 1.2e19),
    (dec(12, 500), math.inf),
    (dec(-12, 500), -math.inf),
]


@pytest.mark.parametrize(("q", "expected"), FLOAT_CASES)
def test_as_approximate_float(q: Quantity, expected: float) -> None:
    assert q.as_approximate_float() == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2Ki", 2048.0), ("1.1Ki", 1126.4), ("1Mi", 1.048576e06), ("2Gi", 2.147483648e09), ("50.703k", 50703.0)],
)
def test_parsed_as_approximate_float(text: str, expected: float) -> None:
    assert P(text).as_approximate_float() == expected


def test_go_pow10_table() -> None:
    assert go_pow10(0) == 1.0
    assert go_pow10(-1) == 0.1
    assert go_pow10(308) == 1e308
    assert go_pow10(309) == math.inf
    assert go_pow10(-324) == 0.0
    assert go_pow10(-323) > 0.0


# --- value-type hygiene --------------------------------------------------------------------


def test_immutable_hashable_and_picklable() -> None:
    q = P("1.5Gi")
    with pytest.raises(AttributeError):
        setattr(q, "format", DEC)  # noqa: B010
    with pytest.raises(TypeError):
        Quantity()
    assert {P("1Gi"), P("1024Mi"), P("1073741824")} == {P("1Gi")}
    for clone in (pickle.loads(pickle.dumps(q)), copy.deepcopy(q)):
        assert clone == q and str(clone) == str(q) and clone.format is q.format
    assert repr(P("1Gi")) == "Quantity('1Gi', BinarySI)"
    assert (P("1") == 1) is False
