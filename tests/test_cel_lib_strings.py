"""cel-go strings extension (version 2): declarations, behaviour and errors."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from kubefit.errors import CelRuntimeError
from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import strings as lib
from kubefit.translate.cel.registry import Overload
from kubefit.translate.cel.values import Optional, Uint

UTC = dt.UTC


def overload(overload_id: str) -> Overload:
    found = [o for o in lib.library.overloads if o.id.removesuffix("_member") == overload_id]
    assert len(found) == 1, overload_id
    return found[0]


def call(overload_id: str, *args: Any) -> Any:
    return overload(overload_id).impl(*args)


# --- declarations ----------------------------------------------------------------------

DECLARATIONS = [
    ("string_char_at_int", "charAt", True, (t.STRING, t.INT), t.STRING),
    ("string_index_of_string", "indexOf", True, (t.STRING, t.STRING), t.INT),
    ("string_index_of_string_int", "indexOf", True, (t.STRING, t.STRING, t.INT), t.INT),
    ("string_last_index_of_string", "lastIndexOf", True, (t.STRING, t.STRING), t.INT),
    ("string_last_index_of_string_int", "lastIndexOf", True, (t.STRING, t.STRING, t.INT), t.INT),
    ("string_lower_ascii", "lowerAscii", True, (t.STRING,), t.STRING),
    ("string_upper_ascii", "upperAscii", True, (t.STRING,), t.STRING),
    ("string_replace_string_string", "replace", True, (t.STRING, t.STRING, t.STRING), t.STRING),
    ("string_replace_string_string_int", "replace", True, (t.STRING, t.STRING, t.STRING, t.INT), t.STRING),
    ("string_split_string", "split", True, (t.STRING, t.STRING), t.list_of(t.STRING)),
    ("string_split_string_int", "split", True, (t.STRING, t.STRING, t.INT), t.list_of(t.STRING)),
    ("string_substring_int", "substring", True, (t.STRING, t.INT), t.STRING),
    ("string_substring_int_int", "substring", True, (t.STRING, t.INT, t.INT), t.STRING),
    ("string_trim", "trim", True, (t.STRING,), t.STRING),
    ("list_join", "join", True, (t.list_of(t.STRING),), t.STRING),
    ("list_join_string", "join", True, (t.list_of(t.STRING), t.STRING), t.STRING),
    ("string_format", "format", True, (t.STRING, t.list_of(t.DYN)), t.STRING),
    ("strings_quote", "strings.quote", False, (t.STRING,), t.STRING),
]


@pytest.mark.parametrize(("overload_id", "name", "member", "params", "result"), DECLARATIONS)
def test_declaration(
    overload_id: str, name: str, member: bool, params: tuple[t.CelType, ...], result: t.CelType
) -> None:
    ov = overload(overload_id)
    assert (ov.function, ov.member, ov.params, ov.result) == (name, member, params, result)
    assert ov.cost is not None and ov.estimate is not None


def test_only_version_two_functions() -> None:
    names = {o.function for o in lib.library.overloads}
    assert "reverse" not in names
    assert len(lib.library.overloads) == len(DECLARATIONS)


# --- behaviour (upstream's table, plus the documented examples) ---------------------------

CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("string_char_at_int", ("tacocat", 3), "o"),
    ("string_char_at_int", ("tacocat", 7), ""),
    ("string_char_at_int", ("©αT", 0), "©"),
    ("string_char_at_int", ("©αT", 1), "α"),
    ("string_char_at_int", ("©αT", 2), "T"),
    ("string_char_at_int", ("hello", 4), "o"),
    ("string_index_of_string", ("tacocat", ""), 0),
    ("string_index_of_string", ("tacocat", "ac"), 1),
    ("string_index_of_string", ("tacocat", "none"), -1),
    ("string_index_of_string_int", ("tacocat", "", 3), 3),
    ("string_index_of_string_int", ("tacocat", "a", 3), 5),
    ("string_index_of_string_int", ("tacocat", "at", 3), 5),
    ("string_index_of_string", ("ta©o©αT", "©"), 2),
    ("string_index_of_string_int", ("ta©o©αT", "©", 3), 4),
    ("string_index_of_string_int", ("ta©o©αT", "©αT", 3), 4),
    ("string_index_of_string_int", ("ta©o©αT", "©α", 5), -1),
    ("string_index_of_string", ("ijk", "k"), 2),
    ("string_index_of_string", ("hello wello", "hello wello"), 0),
    ("string_index_of_string_int", ("hello wello", "ello", 6), 7),
    ("string_index_of_string", ("hello wello", "elbo room!!"), -1),
    ("string_index_of_string", ("hello wello", "elbo room!!!"), -1),
    # An empty search string returns the offset unchecked.
    ("string_index_of_string_int", ("tacocat", "", 30), 30),
    ("string_last_index_of_string", ("tacocat", ""), 7),
    ("string_last_index_of_string", ("tacocat", "at"), 5),
    ("string_last_index_of_string", ("tacocat", "none"), -1),
    ("string_last_index_of_string_int", ("tacocat", "", 3), 3),
    ("string_last_index_of_string_int", ("tacocat", "a", 3), 1),
    ("string_last_index_of_string", ("ta©o©αT", "©"), 4),
    ("string_last_index_of_string_int", ("ta©o©αT", "©", 3), 2),
    ("string_last_index_of_string_int", ("ta©o©αT", "©α", 4), 4),
    ("string_last_index_of_string_int", ("hello wello", "ello", 6), 1),
    ("string_last_index_of_string", ("hello wello", "low"), -1),
    ("string_last_index_of_string", ("hello wello", "elbo room!!"), -1),
    ("string_last_index_of_string", ("hello wello", "elbo room!!!"), -1),
    ("string_last_index_of_string", ("hello wello", "hello wello"), 0),
    ("string_last_index_of_string_int", ("bananananana", "nana", 8), 8),
    ("string_last_index_of_string", ("hello mellow", ""), 12),
    ("string_lower_ascii", ("TacoCat",), "tacocat"),
    ("string_lower_ascii", ("TacoCÆt Xii",), "tacocÆt xii"),
    ("string_upper_ascii", ("TacoCat",), "TACOCAT"),
    ("string_upper_ascii", ("TacoCÆt Xii",), "TACOCÆT XII"),
    ("string_replace_string_string", ("12 days 12 hours", "{0}", "2"), "12 days 12 hours"),
    ("string_replace_string_string", ("{0} days {0} hours", "{0}", "2"), "2 days 2 hours"),
    ("string_replace_string_string", ("1 ©αT taco", "αT", "o©α"), "1 ©o©α taco"),
    ("string_replace_string_string", ("hello hello", "he", "we"), "wello wello"),
    ("string_replace_string_string_int", ("hello hello", "he", "we", -1), "wello wello"),
    ("string_replace_string_string_int", ("hello hello", "he", "we", 1), "wello hello"),
    ("string_replace_string_string_int", ("hello hello", "he", "we", 0), "hello hello"),
    ("string_replace_string_string", ("hello hello", "", "_"), "_h_e_l_l_o_ _h_e_l_l_o_"),
    ("string_replace_string_string", ("hello hello", "h", ""), "ello ello"),
    ("string_replace_string_string_int", ("abc", "", "-", 2), "-a-bc"),
    ("string_split_string", ("hello world", " "), ["hello", "world"]),
    ("string_split_string_int", ("hello world events!", " ", 0), []),
    ("string_split_string_int", ("hello world events!", " ", 1), ["hello world events!"]),
    ("string_split_string_int", ("hello hello hello", " ", 2), ["hello", "hello hello"]),
    ("string_split_string_int", ("o©o©o©o", "©", -1), ["o", "o", "o", "o"]),
    ("string_split_string", ("", ","), [""]),
    ("string_split_string", ("a©b", ""), ["a", "©", "b"]),
    ("string_split_string", ("", ""), []),
    ("string_split_string_int", ("abcd", "", 2), ["a", "bcd"]),
    ("string_split_string_int", ("ab", "", 5), ["a", "b"]),
    ("string_substring_int", ("tacocat", 4), "cat"),
    ("string_substring_int", ("tacocat", 7), ""),
    ("string_substring_int_int", ("tacocat", 0, 4), "taco"),
    ("string_substring_int_int", ("tacocat", 4, 4), ""),
    ("string_substring_int_int", ("ta©o©αT", 2, 6), "©o©α"),
    ("string_substring_int_int", ("ta©o©αT", 7, 7), ""),
    ("string_trim", (" \f\n\r\t\vtext  ",), "text"),
    ("string_trim", ("\u0085\u00a0\u1680text",), "text"),
    ("string_trim", ("text\u2000\u2001\u2002\u2003\u2004\u2004\u2006\u2007\u2008\u2009",), "text"),
    ("string_trim", ("\u200atext\u2028\u2029\u202f\u205f\u3000",), "text"),
    # Zero-width and retired spaces are not Unicode white space.
    (
        "string_trim",
        ("\u180etext\u200b\u200c\u200d\u2060\ufeff",),
        "\u180etext\u200b\u200c\u200d\u2060\ufeff",
    ),
    # Python's str.strip would also remove the ASCII separators; Go does not.
    ("string_trim", ("\x1ctext\x1f",), "\x1ctext\x1f"),
    ("list_join", (["hello", "mellow"],), "hellomellow"),
    ("list_join_string", (["hello", "mellow"], " "), "hello mellow"),
    ("list_join", ([],), ""),
    ("list_join_string", ([], "/"), ""),
    ("strings_quote", ('single-quote with "double quote"',), '"single-quote with \\"double quote\\""'),
    ("strings_quote", ("two escape sequences \a\n",), '"two escape sequences \\a\\n"'),
    ("strings_quote", ("\b\f\r\t\v\\",), '"\\b\\f\\r\\t\\v\\\\"'),
    ("strings_quote", ("ünïcødé ✓",), '"ünïcødé ✓"'),
    ("strings_quote", ("bad \ud800 half",), '"bad \ufffd half"'),
]


@pytest.mark.parametrize(("overload_id", "args", "expected"), CASES)
def test_function(overload_id: str, args: tuple[Any, ...], expected: Any) -> None:
    assert call(overload_id, *args) == expected


ERRORS: list[tuple[str, tuple[Any, ...], str]] = [
    ("string_char_at_int", ("tacocat", 30), "index out of range: 30"),
    ("string_char_at_int", ("hello", -1), "index out of range: -1"),
    ("string_index_of_string_int", ("tacocat", "a", 30), "index out of range: 30"),
    ("string_index_of_string_int", ("hello mellow", "ello", 20), "index out of range: 20"),
    ("string_index_of_string_int", ("tacocat", "a", -1), "index out of range: -1"),
    # cel-go checks the offset against the length, so searching an empty string fails.
    ("string_index_of_string", ("", "a"), "index out of range: 0"),
    ("string_last_index_of_string", ("", "a"), "index out of range: -1"),
    ("string_last_index_of_string_int", ("tacocat", "a", -1), "index out of range: -1"),
    ("string_last_index_of_string_int", ("tacocat", "a", 30), "index out of range: 30"),
    ("string_substring_int", ("tacocat", 40), "index out of range: 40"),
    ("string_substring_int", ("tacocat", -1), "index out of range: -1"),
    ("string_substring_int_int", ("tacocat", 1, 50), "index out of range: 50"),
    ("string_substring_int_int", ("tacocat", 49, 50), "index out of range: 49"),
    ("string_substring_int_int", ("tacocat", 4, 3), "invalid substring range. start: 4, end: 3"),
    ("string_substring_int_int", ("tacocat", -1, 3), "index out of range: -1"),
    ("list_join", (["a", 1],), "join: invalid input: 1"),
    ("list_join_string", (["a", True], ","), "join: invalid input: true"),
]


@pytest.mark.parametrize(("overload_id", "args", "message"), ERRORS)
def test_function_error(overload_id: str, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(CelRuntimeError) as info:
        call(overload_id, *args)
    assert str(info.value) == message


# --- format ------------------------------------------------------------------------------

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
    assert lib.check_format_call(fmt, arg_types) == expected


# --- helpers and costs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("plain", '"plain"'),
        ('a"b\\c', '"a\\"b\\\\c"'),
        ("\x00\x7f\n", '"\\x00\\x7f\\n"'),
        ("é\u200b😀", '"é\\u200b😀"'),
        ("\U000e0001", '"\\U000e0001"'),
    ],
)
def test_go_quote(text: str, quoted: str) -> None:
    assert lib.go_quote(text) == quoted


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
    assert lib.cel_type_name(value) == name


def test_costs() -> None:
    assert overload("string_lower_ascii").cost(["x" * 30]) == 3
    assert overload("string_lower_ascii").cost(["x" * 31]) == 4
    assert overload("string_char_at_int").cost(["abc", 1]) == 1
    assert overload("string_split_string").cost(["a" * 25, ","]) == 5
    assert overload("string_index_of_string").cost(["a" * 25, "a"]) == 2
    assert overload("list_join_string").cost([["ab", "cd"], "--"]) == 2
    assert overload("string_format").cost(["%s" * 10, []]) == 2
    assert overload("strings_quote").estimate([100]) == 10
