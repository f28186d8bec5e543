"""Kubernetes regex library: find and findAll."""

from __future__ import annotations

from typing import Any

import pytest
from cel_library_support import Declaration, LibraryUnderTest

from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import regex as lib

LIB = LibraryUnderTest(lib.library)
overload = LIB.overload


DECLARATIONS: list[Declaration] = [
    ("string_find_string", "find", True, (t.STRING, t.STRING), t.STRING),
    ("string_find_all_string", "findAll", True, (t.STRING, t.STRING), t.list_of(t.STRING)),
    ("string_find_all_string_int", "findAll", True, (t.STRING, t.STRING, t.INT), t.list_of(t.STRING)),
]

test_declaration = LIB.declaration_test(DECLARATIONS, count=3)


CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("string_find_string", ("abc 123", "[0-9]+"), "123"),
    ("string_find_string", ("abc 123", "xyz"), ""),
    # The leftmost match wins, even when it is empty.
    ("string_find_string", ("abc 123", "[0-9]*"), ""),
    ("string_find_string", ("123 abc", "[0-9]*"), "123"),
    ("string_find_string", ("hello world", "^world"), ""),
    ("string_find_string", ("gpu-a100-80gb", r"a\d+"), "a100"),
    ("string_find_all_string", ("123 abc 456", "[0-9]+"), ["123", "456"]),
    ("string_find_all_string_int", ("123 abc 456", "[0-9]+", 1), ["123"]),
    ("string_find_all_string_int", ("123 abc 456", "[0-9]+", 0), []),
    ("string_find_all_string_int", ("123 abc 456", "[0-9]+", -1), ["123", "456"]),
    ("string_find_all_string_int", ("123 abc 456", "[0-9]+", 5), ["123", "456"]),
    ("string_find_all_string", ("123 abc 456", "xyz"), []),
    # Go drops an empty match that touches the previous match; Python's findall keeps it.
    ("string_find_all_string", ("123 abc 456", "[0-9]*"), ["123", "", "", "", "", "456"]),
    ("string_find_all_string", ("", "a*"), [""]),
    ("string_find_all_string", ("abab", "(ab)*"), ["abab"]),
    ("string_find_all_string", ("ab cd", r"\b"), ["", "", "", ""]),
    ("string_find_all_string", ("a\nb\n", "(?m)^."), ["a", "b"]),
    ("string_find_all_string", ("©α©", "©"), ["©", "©"]),
    # After an empty match Go moves on by a whole character, not a byte.
    ("string_find_all_string", ("aé", "x*"), ["", "", ""]),
    # RE2 semantics, not Python's: leftmost-first alternation, \z, Unicode classes.
    ("string_find_string", ("xab", "a|ab"), "a"),
    ("string_find_string", ("ab\n", r"b\z"), ""),
    ("string_find_string", ("1 αβγ 2", r"\p{Greek}+"), "αβγ"),
]


@pytest.mark.parametrize(("overload_id", "args", "expected"), CASES)
def test_function(overload_id: str, args: tuple[Any, ...], expected: Any) -> None:
    assert overload(overload_id).impl(*args) == expected


@pytest.mark.parametrize(
    ("overload_id", "args", "message"),
    [
        ("string_find_string", ("abc", "(a"), "Illegal regex: error parsing regexp: missing closing ): `(a`"),
        (
            "string_find_all_string",
            ("abc", "a(?=b)"),
            "Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
        ),
        (
            "string_find_all_string_int",
            ("abc", "[", 1),
            "Illegal regex: error parsing regexp: missing closing ]: `[`",
        ),
        # RE2 accepts \C (any byte); Go, and so Kubernetes, does not.
        (
            "string_find_string",
            ("abc", r"a\C"),
            r"Illegal regex: error parsing regexp: invalid escape sequence: `\C`",
        ),
    ],
)
def test_function_error(overload_id: str, args: tuple[Any, ...], message: str) -> None:
    LIB.check_error(overload_id, args, message)


def test_costs() -> None:
    # ceil((1 + 9) * 0.1) * ceil(6 * 0.25)
    assert overload("string_find_string").cost(["abcdefghi", "[0-9]+"]) == 1 * 2
    assert overload("string_find_all_string_int").cost(["a" * 29, "a" * 40, 3]) == 3 * 10
    assert overload("string_find_all_string").estimate([29, 40]) == 30
