"""Parsing quantities as Go's ParseQuantity does, from strings and from JSON/YAML numbers."""

from __future__ import annotations

import math

import pytest
from quantity_support import BIN, DEC, EXP, P, frac

from kubefit.model.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    INT64_MAX,
    Format,
    Quantity,
    QuantityError,
)
from kubefit.model.quantity.text import _scan

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
