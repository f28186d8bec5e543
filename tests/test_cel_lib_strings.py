"""cel-go strings extension (version 2): declarations, behaviour and errors."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from cel_library_support import Declaration, LibraryUnderTest

from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import strings as lib

UTC = dt.UTC


LIB = LibraryUnderTest(lib.library)
overload = LIB.overload
call = LIB.impl


# --- declarations ----------------------------------------------------------------------

DECLARATIONS: list[Declaration] = [
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


test_declaration = LIB.declaration_test(DECLARATIONS)


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
    LIB.check_error(overload_id, args, message)


# --- costs -----------------------------------------------------------------------------------


def test_costs() -> None:
    assert overload("string_lower_ascii").cost(["x" * 30]) == 3
    assert overload("string_lower_ascii").cost(["x" * 31]) == 4
    assert overload("string_char_at_int").cost(["abc", 1]) == 1
    assert overload("string_split_string").cost(["a" * 25, ","]) == 5
    assert overload("string_index_of_string").cost(["a" * 25, "a"]) == 2
    assert overload("list_join_string").cost([["ab", "cd"], "--"]) == 2
    assert overload("string_format").cost(["%s" * 10, []]) == 2
    assert overload("strings_quote").estimate([100]) == 10
