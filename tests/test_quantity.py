"""resource.Quantity semantics, checked against the cases apimachinery's own tests pin down."""

from __future__ import annotations

import copy
import math
import pickle
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kubefit.translate.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    INT64_MAX,
    INT64_MIN,
    Format,
    Quantity,
    QuantityError,
    _scan,
    go_pow10,
)

BIN = Format.BINARY_SI
DEC = Format.DECIMAL_SI
EXP = Format.DECIMAL_EXPONENT

P = Quantity.parse


def dec(unscaled: int, exp: int, fmt: Format = DEC) -> Quantity:
    """A decimal-backed value unscaled * 10**exp (upstream's decQuantity)."""
    return Quantity.from_decimal(unscaled, exp, fmt)


def amount(unscaled: int, exp: int, fmt: Format = DEC) -> Quantity:
    """An int64-backed value (upstream's intQuantity)."""
    return Quantity.from_scaled(unscaled, exp, fmt)


def frac(unscaled: int, exp: int) -> Fraction:
    return Fraction(unscaled) * Fraction(10) ** exp


# --- parsing ---------------------------------------------------------------------------

# input, unscaled, exponent, format after parsing
PARSE_CASES = [
    ("0", 0, 0, DEC),
    ("0n", 0, 0, DEC),
    ("0u", 0, 0, DEC),
    ("0m", 0, 0, DEC),
    ("0Ki", 0, 0, BIN),
    ("0k", 0, 0, DEC),
    ("0Mi", 0, 0, BIN),
    ("0M", 0, 0, DEC),
    ("0Gi", 0, 0, BIN),
    ("0G", 0, 0, DEC),
    ("0Ti", 0, 0, BIN),
    ("0T", 0, 0, DEC),
    # no suffix at all
    ("1", 1, 0, DEC),
    # binary suffixes
    ("1Ki", 1024, 0, BIN),
    ("8Ki", 8 * 1024, 0, BIN),
    ("7Mi", 7 * 2**20, 0, BIN),
    ("6Gi", 6 * 2**30, 0, BIN),
    ("5Ti", 5 * 2**40, 0, BIN),
    ("4Pi", 4 * 2**50, 0, BIN),
    ("3Ei", 3 * 2**60, 0, BIN),
    ("10Ti", 10 * 2**40, 0, BIN),
    ("100Ti", 100 * 2**40, 0, BIN),
    # decimal suffixes
    ("5n", 5, -9, DEC),
    ("4u", 4, -6, DEC),
    ("3m", 3, -3, DEC),
    ("9", 9, 0, DEC),
    ("8k", 8, 3, DEC),
    ("50k", 5, 4, DEC),
    ("7M", 7, 6, DEC),
    ("6G", 6, 9, DEC),
    ("5T", 5, 12, DEC),
    ("40T", 4, 13, DEC),
    ("300T", 3, 14, DEC),
    ("2P", 2, 15, DEC),
    ("1E", 1, 18, DEC),
    # exponents
    ("1E-3", 1, -3, EXP),
    ("1e3", 1, 3, EXP),
    ("1E6", 1, 6, EXP),
    ("1e9", 1, 9, EXP),
    ("1E12", 1, 12, EXP),
    ("1e15", 1, 15, EXP),
    ("1E18", 1, 18, EXP),
    ("1e14", 1, 14, EXP),
    ("1e13", 1, 13, EXP),
    ("100.035k", 100035, 0, DEC),
    # decimal points
    ("0.001", 1, -3, DEC),
    ("0.0005k", 5, -1, DEC),
    ("0.005", 5, -3, DEC),
    ("0.05", 5, -2, DEC),
    ("0.5", 5, -1, DEC),
    ("0.00050k", 5, -1, DEC),
    ("0.00500", 5, -3, DEC),
    ("0.05000", 5, -2, DEC),
    ("0.50000", 5, -1, DEC),
    ("0.5e0", 5, -1, EXP),
    ("0.5e-1", 5, -2, EXP),
    ("0.5e-2", 5, -3, EXP),
    ("10.035M", 10035, 3, DEC),
    ("1.2e3", 12, 2, EXP),
    ("1.3E+6", 13, 5, EXP),
    ("1.40e9", 14, 8, EXP),
    ("1.53E12", 153, 10, EXP),
    ("1.6e15", 16, 14, EXP),
    ("1.7E18", 17, 17, EXP),
    ("9.01", 901, -2, DEC),
    ("8.1k", 81, 2, DEC),
    ("7.123456M", 7123456, 0, DEC),
    ("6.987654321G", 6987654321, 0, DEC),
    ("5.444T", 5444, 9, DEC),
    ("40.1T", 401, 11, DEC),
    ("300.2T", 3002, 11, DEC),
    ("2.5P", 25, 14, DEC),
    ("1.01E", 101, 16, DEC),
    # finer than a nano rounds up; BinarySI saturates at 2^63-1
    ("3.001n", 4, -9, DEC),
    ("1.1E-9", 2, -9, EXP),
    ("0.0000000001", 1, -9, DEC),
    ("0.0000000005", 1, -9, DEC),
    ("0.00000000050", 1, -9, DEC),
    ("0.5e-9", 1, -9, EXP),
    ("0.9n", 1, -9, DEC),
    ("0.00000012345", 124, -9, DEC),
    ("0.00000012354", 124, -9, DEC),
    ("9Ei", INT64_MAX, 0, BIN),
    ("9223372036854775807Ki", INT64_MAX, 0, BIN),
    ("12E", 12, 18, DEC),
    # fractional binary values
    ("100.035Ki", 10243584, -2, BIN),
    ("0.5Mi", 2**19, 0, BIN),
    ("0.05Gi", 536870912, -1, BIN),
    ("0.025Ti", 274877906944, -1, BIN),
    # odd spellings that Go accepts
    ("0.000000000001Ki", 2, -9, DEC),
    (".001", 1, -3, DEC),
    (".0001k", 100, -3, DEC),
    ("1.", 1, 0, DEC),
    ("1.G", 1, 9, DEC),
    # no digits at all still scans as zero
    (".", 0, 0, DEC),
    ("Mi", 0, 0, BIN),
    ("e3", 0, 0, EXP),
    ("+", 0, 0, DEC),
]


@pytest.mark.parametrize(("text", "unscaled", "exp", "fmt"), PARSE_CASES)
def test_parse_value_and_format(text: str, unscaled: int, exp: int, fmt: Format) -> None:
    q = P(text)
    assert q.as_fraction() == frac(unscaled, exp)
    assert q.format is fmt


@pytest.mark.parametrize(("text", "unscaled", "exp", "fmt"), PARSE_CASES)
def test_parse_with_explicit_signs(text: str, unscaled: int, exp: int, fmt: Format) -> None:
    if text == "+":
        assert P("-").is_zero()
        return
    negative = P("-" + text)
    assert negative.as_fraction() == -frac(unscaled, exp)
    assert negative.format is fmt
    positive = P("+" + text)
    assert positive.as_fraction() == frac(unscaled, exp)
    assert positive.format is fmt


@pytest.mark.parametrize(
    ("text", "positive", "value", "num", "denom", "suffix"),
    [
        ("0.025Ti", True, "0.025", "0", "025", "Ti"),
        ("1.025Ti", True, "1.025", "1", "025", "Ti"),
        ("-1.025Ti", False, "-1.025", "1", "025", "Ti"),
        (".", True, ".", "0", "", ""),
        ("-.", False, "-.", "0", "", ""),
        ("1E-3", True, "1", "1", "", "E-3"),
    ],
)
def test_scanner_splits_like_go(
    text: str, positive: bool, value: str, num: str, denom: str, suffix: str
) -> None:
    assert _scan(text) == (positive, value, num, denom, suffix)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", ERR_FORMAT_WRONG),
        ("1.1.M", ERR_FORMAT_WRONG),
        ("1+1.0M", ERR_FORMAT_WRONG),
        ("0.1mi", ERR_SUFFIX),
        ("0.1am", ERR_FORMAT_WRONG),
        ("aoeu", ERR_FORMAT_WRONG),
        (".5i", ERR_SUFFIX),
        ("1i", ERR_SUFFIX),
        ("-3.01i", ERR_SUFFIX),
        ("-3.01e-", ERR_SUFFIX),
        ("1e4294967297", ERR_SUFFIX),
        ("1e2147483648", ERR_SUFFIX),
        ("1E-2147483648", ERR_SUFFIX),
        (" 1", ERR_FORMAT_WRONG),
        ("1 ", ERR_FORMAT_WRONG),
        ("10Mo", ERR_FORMAT_WRONG),
        ("10Mm", ERR_SUFFIX),
        ("200K", ERR_SUFFIX),
        ("1,3G", ERR_FORMAT_WRONG),
        ("Three", ERR_FORMAT_WRONG),
        ("1e3e", ERR_FORMAT_WRONG),
        ("1Ki5", ERR_SUFFIX),
        ("1e", ERR_SUFFIX),
        ("１", ERR_FORMAT_WRONG),
        (".e-10", ERR_NUMERIC),
        ("-.E-12", ERR_NUMERIC),
    ],
)
def test_invalid_quantities(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as info:
        P(text)
    assert str(info.value) == message


def test_error_messages_are_gos() -> None:
    assert ERR_FORMAT_WRONG == (
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    assert ERR_SUFFIX == "unable to parse quantity's suffix"
    assert ERR_NUMERIC == "unable to parse numeric part of quantity"
    assert issubclass(QuantityError, ValueError)


@pytest.mark.parametrize(
    ("suffix_text", "ok"),
    [
        ("1e14", True),
        ("1E2147483647", True),
        ("1E-2147483647", True),
        ("1e+0003", True),
        ("1E2147483648", False),
        ("1E8589934592", False),
        ("1E9223372036854775807", False),
        ("1E6024865272343", False),
    ],
)
def test_exponent_must_fit_int32(suffix_text: str, ok: bool) -> None:
    if ok:
        assert P(suffix_text).format is EXP
    else:
        with pytest.raises(QuantityError, match="suffix"):
            P(suffix_text)


# --- printing --------------------------------------------------------------------------

# value, canonical text, a non-canonical spelling of the same value ("" for none)
STRING_CASES = [
    (dec(1024 * 1024 * 1024, 0, BIN), "1Gi", "1024Mi"),
    (dec(300 * 1024 * 1024, 0, BIN), "300Mi", "307200Ki"),
    (dec(6 * 1024, 0, BIN), "6Ki", ""),
    (dec(1001 * 1024 * 1024 * 1024, 0, BIN), "1001Gi", "1025024Mi"),
    (dec(1024 * 1024 * 1024 * 1024, 0, BIN), "1Ti", "1024Gi"),
    (dec(5, 0, BIN), "5", "5000m"),
    (dec(500, -3, BIN), "500m", "0.5"),
    (dec(1, 9, DEC), "1G", "1000M"),
    (dec(1000, 6, DEC), "1G", "0.001T"),
    (dec(1000000, 3, DEC), "1G", ""),
    (dec(1000000000, 0, DEC), "1G", ""),
    (dec(1, -3, DEC), "1m", "1000u"),
    (dec(80, -3, DEC), "80m", ""),
    (dec(1080, -3, DEC), "1080m", "1.08"),
    (dec(108, -2, DEC), "1080m", "1080000000n"),
    (dec(10800, -4, DEC), "1080m", ""),
    (dec(300, 6, DEC), "300M", ""),
    (dec(1, 12, DEC), "1T", ""),
    (dec(1, 18, DEC), "1E", ""),
    # past "E" DecimalSI falls back to exponent notation instead of dropping the magnitude
    (dec(1, 21, DEC), "1e21", "1000E"),
    (dec(5, 21, DEC), "5e21", "5000E"),
    (dec(1, 24, DEC), "1e24", "1000000E"),
    # past "Ei" BinarySI does the same, in base ten
    (dec(1, 70, BIN), "10e69", ""),
    (dec(2, 70, BIN), "20e69", ""),
    (dec(1, 72, BIN), "1e72", ""),
    (dec(1234567, 6, DEC), "1234567M", ""),
    (dec(1234567, -3, BIN), "1234567m", ""),
    (dec(3, 3, DEC), "3k", ""),
    (dec(1025, 0, BIN), "1025", ""),
    (dec(0, 0, DEC), "0", ""),
    (dec(0, 0, BIN), "0", ""),
    (dec(1, 9, EXP), "1e9", ".001e12"),
    (dec(1, -3, EXP), "1e-3", "0.001e0"),
    (dec(1, -9, EXP), "1e-9", "1000e-12"),
    (dec(80, -3, EXP), "80e-3", ""),
    (dec(300, 6, EXP), "300e6", ""),
    (dec(1, 12, EXP), "1e12", ""),
    (dec(1, 3, EXP), "1e3", ""),
    (dec(3, 3, EXP), "3e3", ""),
    (dec(3, 3, DEC), "3k", ""),
    (dec(0, 0, EXP), "0", "00"),
    (dec(1, -9, DEC), "1n", ""),
    (dec(80, -9, DEC), "80n", ""),
    (dec(1080, -9, DEC), "1080n", ""),
    (dec(108, -8, DEC), "1080n", ""),
    (dec(10800, -10, DEC), "1080n", ""),
    (dec(1, -6, DEC), "1u", ""),
    (dec(80, -6, DEC), "80u", ""),
    (dec(1080, -6, DEC), "1080u", ""),
]


@pytest.mark.parametrize(("q", "canonical", "alternate"), STRING_CASES)
def test_canonical_string(q: Quantity, canonical: str, alternate: str) -> None:
    assert str(q) == canonical
    assert q.canonical() == canonical
    reparsed = P(canonical)
    assert reparsed == q
    # Go keeps an already-canonical input and prints it back verbatim.
    assert reparsed._text == canonical
    if alternate:
        other = P(alternate)
        assert other._text is None
        assert str(other) == canonical
    if not q.is_zero():
        assert str(-q) == "-" + canonical


@pytest.mark.parametrize(
    ("q", "text"),
    [
        (amount(2000, 0, BIN), "2000"),
        (amount(-2000, 0, BIN), "-2000"),
        (dec(2000, 0, BIN), "2000"),
        (dec(-2000, 0, BIN), "-2000"),
        # below "n" there is no suffix either; only reachable without parsing
        (dec(1, -12, DEC), "1e-12"),
        (dec(1, -10, DEC), "100e-12"),
        (amount(2**60, 0, BIN) * 1024, "1180591620717411303424"),
        (P("1Ei") * 1024, "1180591620717411303424"),
    ],
)
def test_string_edge_cases(q: Quantity, text: str) -> None:
    assert str(q) == text


@pytest.mark.parametrize(
    ("text", "emitted"),
    [
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
    ],
)
def test_parse_then_emit(text: str, emitted: str) -> None:
    assert str(P(text)) == emitted
    assert str(P("-" + text)) == "-" + emitted


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # Go prints the input back when its heuristic says it is canonical, even when it is not.
        ("+1", "+1"),
        ("01", "01"),
        ("1.", "1."),
        ("1.500", "1.500"),
        ("1E3", "1E3"),
        ("1e+3", "1e+3"),
        ("+12Ki", "+12Ki"),
        ("012Ki", "012Ki"),
        # the heuristic declines these, so they are canonicalised
        ("1000", "1k"),
        ("1.0", "1"),
        ("0.5", "500m"),
        ("1.5e3", "1500"),
        ("2048Ki", "2Mi"),
        ("-0", "0"),
    ],
)
def test_go_string_cache(text: str, shown: str) -> None:
    assert str(P(text)) == shown


def test_canonical_ignores_the_cache() -> None:
    assert P("+1").canonical() == "1"
    assert P("1.500").canonical() == "1500m"
    assert P("1E3").canonical() == "1e3"


def test_arithmetic_results_drop_the_cache() -> None:
    assert str(P("+1") + P("0")) == "1"
    assert str(-P("1E3")) == "-1e3"


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


MOST = INT64_MAX
LEAST = INT64_MIN

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


# --- JSON/YAML numbers and whitespace ------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2, "2"),
        (-2, "-2"),
        (0.5, "500m"),
        (1.0, "1"),
        (100.0, "100"),
        (1e-7, "100e-9"),
        (1.5e-7, "150e-9"),
        (1e21, "1e+21"),  # encoding/json's text, which Go then keeps as the String()
        (1e20, "100E"),
        (-0.0, "0"),
        (2**70, "1180591620717411303424"),
    ],
)
def test_numbers_parse_like_json_numbers(value: int | float, text: str) -> None:
    assert str(P(value)) == text


@pytest.mark.parametrize("value", [True, math.nan, math.inf, -math.inf])
def test_non_numeric_json_values_fail(value: float) -> None:
    with pytest.raises(QuantityError):
        P(value)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (" 1", "1"),
        ("1 ", "1"),
        ("\t1Gi\n", "1Gi"),
        (1, "1"),
        (10, "10"),
        (-1, "-1"),
        (" -1", "-1"),
        (None, "0"),
    ],
)
def test_unmarshal_trims_space(value: str | int | None, text: str) -> None:
    assert str(Quantity.unmarshal(value)) == text


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
