"""cel-go's `<string>.format(<list>)`: rendering, runtime errors and the compile-time check."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from cel_library_support import LibraryUnderTest

from kubefit.model.errors import CelRuntimeError
from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import string_format, strings
from kubefit.translate.cel.values import Optional, Uint

UTC = dt.UTC

call = LibraryUnderTest(strings.library).impl

TS = dt.datetime(2023, 2, 3, 23, 31, 20, tzinfo=UTC)

FORMAT_CASES: list[tuple[str, list[Any], str]] = [
    ("no substitution", [], "no substitution"),
    ("str is %s and some more", ["filler"], "str is filler and some more"),
    ("%% and also %%", [], "% and also %"),
    ("%%%s%%", ["text"], "%text%"),
    ("%s%%", ["percent on the right"], "percent on the right%"),
    ("%%%s", ["percent on the left"], "%percent on the left"),
    (
        "%d %d %d, %s %s %s, %d %d %d, %s %s %s",
        [1, 2, 3, "A", "B", "C", 4, 5, 6, "D", "E", "F"],
        "1 2 3, A B C, 4 5 6, D E F",
    ),
    ("\u0025\u0025escaped \u0025s\u0025\u0025", ["percent"], "%escaped percent%"),
    ("%.3f", [1.2345], "1.234"),
    ("this is 5 in binary: %b", [5], "this is 5 in binary: 101"),
    ("this is -5 in binary: %b", [-5], "this is -5 in binary: -101"),
    ("unsigned 64 in binary: %b", [Uint(64)], "unsigned 64 in binary: 1000000"),
    ("bit set from bool: %b", [True], "bit set from bool: 1"),
    ("bit unset: %b", [False], "bit unset: 0"),
    ("%o", [11], "13"),
    ("%o", [-11], "-13"),
    ("this is an unsigned octal: %o", [Uint(65535)], "this is an unsigned octal: 177777"),
    ("%x is 30 in hexadecimal", [30], "1e is 30 in hexadecimal"),
    ("%X is 20 in hexadecimal", [30], "1E is 20 in hexadecimal"),
    ("%x is -30 in hexadecimal", [-30], "-1e is -30 in hexadecimal"),
    ("%X is 6000 in hexadecimal", [Uint(6000)], "1770 is 6000 in hexadecimal"),
    ("%x", ["Hello world!"], "48656c6c6f20776f726c6421"),
    ("%X", ["Hello world!"], "48656C6C6F20776F726C6421"),
    ("%x", [b"byte string"], "6279746520737472696e67"),
    ("%x", [b"\x00\x00byte string\x00"], "00006279746520737472696e6700"),
    ("%X", [b"byte string"], "6279746520737472696E67"),
    ("%.6e", [1052.032911275], "1.052033\u202f\u00d7\u202f10\u2070\u00b3"),
    ("%f", [2.71828], "2.718280"),
    ("%e", [2.71828], "2.718280\u202f\u00d7\u202f10\u2070\u2070"),
    ("%e", [-0.00012], "-1.200000\u202f\u00d7\u202f10\u207b\u2070\u2074"),
    ("%s", [2.71], "2.71"),
    ("%s", [[2.71]], "[2.710000]"),
    ("%s", [0.000000002], "2e-09"),
    ("%s", [[0.000000002]], "[0.000000]"),
    (
        "unescaped unicode: %e, escaped unicode: %e",
        [2.71828, 2.71828],
        "unescaped unicode: 2.718280 × 10⁰⁰, escaped unicode: 2.718280\u202f\u00d7\u202f10\u2070\u2070",
    ),
    ("%f", ["NaN"], "NaN"),
    ("%f", ["Infinity"], "∞"),
    ("%f", ["-Infinity"], "-∞"),
    ("NaN: %f, infinity: %f", [float("nan"), float("inf")], "NaN: NaN, infinity: ∞"),
    ("%e", ["-Infinity"], "-∞"),
    # The en_US printer groups thousands; plain Go formatting inside lists does not.
    ("%.2f and %s", [1234567.891, [1234567.891]], "1,234,567.89 and [1234567.891000]"),
    ("%.0f", [2.5], "2"),
    ("%s", [float("nan")], "NaN"),
    ("%s", [float("inf")], "+Inf"),
    ("%s", [float("-inf")], "-Inf"),
    ("%s", [[float("nan"), float("inf"), float("-inf")]], '["NaN", "+Inf", "-Inf"]'),
    ("%d", [Uint(64)], "64"),
    ("null: %s", [None], "null: null"),
    ("%s", [999999999999], "999999999999"),
    ("some bytes: %s", [b"xyz"], "some bytes: xyz"),
    ("type is %s", [t.STRING], "type is string"),
    ("%s", [TS], "2023-02-03T23:31:20Z"),
    ("%s", [dt.timedelta(hours=1, minutes=45, seconds=47)], "6347s"),
    (
        "%s",
        [["abc", 3.14, None, [9, 8, 7, 6], TS]],
        '["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]',
    ),
    (
        "%s",
        [{"key1": b"xyz", "key5": None, "key2": dt.timedelta(hours=2), "key4": True, "key3": 2.71828}],
        '{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}',
    ),
    (
        "map with multiple key types: %s",
        [{1: "value1", Uint(2): "value2", False: float("nan")}],
        'map with multiple key types: {1:"value1", 2:"value2", false:"NaN"}',
    ),
    ("%s", [[t.INT, b"a\nb", 'q"uote']], '[int, b"a\\nb", "q\\"uote"]'),
    ("true bool: %s, false bool: %s", [True, False], "true bool: true, false bool: false"),
    ("dyntype list: %s", [[6, 4.2, "a string"]], 'dyntype list: [6, 4.200000, "a string"]'),
    (
        "dyntype map: %s",
        [{"strKey": "x", True: 42, 6: dt.timedelta(minutes=7, seconds=2)}],
        'dyntype map: {"strKey":"x", 6:duration("422s"), true:42}',
    ),
    ("message field %d, %.1f", [2, 1.0], "message field 2, 1.0"),
    ("%.20e", [1.0], "     1.000000\u202f×\u202f10⁰⁰"),
]


@pytest.mark.parametrize(("fmt", "args", "expected"), FORMAT_CASES)
def test_format(fmt: str, args: list[Any], expected: str) -> None:
    assert call("string_format", fmt, args) == expected


FORMAT_ERRORS: list[tuple[str, list[Any], str]] = [
    ("%a", [1], 'could not parse formatting clause: unrecognized formatting clause "a"'),
    ("%d %d %d", [0, 1], "index 2 out of range"),
    (
        "string is %b",
        ["abc"],
        "error during formatting: only integers and bools can be formatted as binary, was given string",
    ),
    (
        "%d",
        [dt.timedelta(minutes=30, seconds=2)],
        "error during formatting: decimal clause can only be used on integers, was given "
        "google.protobuf.Duration",
    ),
    (
        "octal: %o",
        ["a string"],
        "error during formatting: octal clause can only be used on integers, was given string",
    ),
    (
        "double is %x",
        [0.5],
        "error during formatting: only integers, byte buffers, and strings can be formatted as "
        "hex, was given double",
    ),
    ("double is %E", [0.5], 'could not parse formatting clause: unrecognized formatting clause "E"'),
    (
        "null: %d",
        [None],
        "error during formatting: decimal clause can only be used on integers, was given null_type",
    ),
    (
        "null: %e",
        [None],
        "error during formatting: scientific clause can only be used on doubles, was given null_type",
    ),
    (
        "null: %f",
        [None],
        "error during formatting: fixed-point clause can only be used on doubles, was given null_type",
    ),
    (
        "null: %x",
        [None],
        "error during formatting: only integers, byte buffers, and strings can be formatted as "
        "hex, was given null_type",
    ),
    (
        "null: %X",
        [None],
        "error during formatting: only integers, byte buffers, and strings can be formatted as "
        "hex, was given null_type",
    ),
    (
        "null: %b",
        [None],
        "error during formatting: only integers and bools can be formatted as binary, was given null_type",
    ),
    (
        "null: %o",
        [None],
        "error during formatting: octal clause can only be used on integers, was given null_type",
    ),
    (
        "%f",
        ["1.5"],
        "error during formatting: fixed-point clause can only be used on doubles, was given string",
    ),
    (
        "%s",
        [Optional.NONE],
        "error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, "
        "lists, types, durations, and timestamps, was given optional_type",
    ),
    ("%s", [[1, Optional.NONE]], "error during formatting: no formatting function for optional_type"),
    ("%s", [{1: Optional.NONE}], "error during formatting: no formatting function for optional_type"),
    ("%s %s", ["abc"], "index 1 out of range"),
    ("filler %", [], "index 0 out of range"),
    ("filler %", [1], "unexpected end of string"),
    (
        "double is %.34",
        [5.0],
        "could not parse formatting clause: error while parsing precision: could not find end of "
        "precision specifier",
    ),
    (
        "%.f",
        [5.0],
        "could not parse formatting clause: error while parsing precision: error while converting precision to "
        'integer: strconv.Atoi: parsing "": invalid syntax',
    ),
    ("%é", [1], 'could not parse formatting clause: unrecognized formatting clause "\u00c3"'),
]


@pytest.mark.parametrize(("fmt", "args", "message"), FORMAT_ERRORS)
def test_format_error(fmt: str, args: list[Any], message: str) -> None:
    with pytest.raises(CelRuntimeError) as info:
        call("string_format", fmt, args)
    assert str(info.value) == message


CHECK_CASES: list[tuple[str, list[t.CelType], str | None]] = [
    ("%s %d", [t.STRING, t.INT], None),
    ("%s", [t.DYN], None),
    ("%s %s", [t.STRING], "index 1 out of range"),
    (
        "%s %s",
        [t.STRING, t.STRING, t.STRING],
        "too many arguments supplied to string.format (expected 2, got 3)",
    ),
    ("filler %", [], "unexpected end of string"),
    ("%j", [t.INT], 'could not parse formatting clause: unrecognized formatting clause "j"'),
    (
        "int is %d",
        [t.DOUBLE],
        "error during formatting: decimal clause can only be used on integers, was given double",
    ),
    (
        "double is %f",
        [t.BOOL],
        "error during formatting: fixed-point clause can only be used on doubles, was given bool",
    ),
    (
        "double is %.34",
        [t.DOUBLE],
        "could not parse formatting clause: error while parsing precision: could not find end of "
        "precision specifier",
    ),
    (
        "double is %e",
        [t.BOOL],
        "error during formatting: scientific clause can only be used on doubles, was given bool",
    ),
    (
        "string is %b",
        [t.STRING],
        "error during formatting: only integers and bools can be formatted as binary, was given string",
    ),
    (
        "%X is a double",
        [t.DOUBLE],
        "error during formatting: only integers, byte buffers, and strings can be formatted as "
        "hex, was given double",
    ),
    (
        "an octal: %o",
        [t.DOUBLE],
        "error during formatting: octal clause can only be used on integers, was given double",
    ),
    (
        "object is %s",
        [t.IP],
        "error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, "
        "lists, types, durations, and timestamps, was given net.IP",
    ),
    ("%s", [t.list_of(t.INT)], None),
]


@pytest.mark.parametrize(("fmt", "arg_types", "expected"), CHECK_CASES)
def test_check_format_call(fmt: str, arg_types: list[t.CelType], expected: str | None) -> None:
    assert string_format.check_format_call(fmt, arg_types) == expected


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null_type"),
        (True, "bool"),
        (1, "int"),
        (Uint(1), "uint"),
        (1.0, "double"),
        ("", "string"),
        (b"", "bytes"),
        ([], "list"),
        ({}, "map"),
        (TS, "google.protobuf.Timestamp"),
        (dt.timedelta(0), "google.protobuf.Duration"),
        (Optional.NONE, "optional_type"),
        (t.INT, "type"),
    ],
)
def test_cel_type_name(value: Any, name: str) -> None:
    assert string_format.cel_type_name(value) == name
