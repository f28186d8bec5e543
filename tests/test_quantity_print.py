"""Printing quantities: Go's String() with its cache, and CanonicalizeBytes."""

from __future__ import annotations

import pytest
from quantity_support import BIN, DEC, EXP, P, amount, dec

from kubefit.model.quantity import Quantity

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
