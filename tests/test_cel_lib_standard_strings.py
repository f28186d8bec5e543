"""Standard string functions and the RE2-to-Python pattern translation."""

from __future__ import annotations

from typing import Any

import pytest
from cel_library_support import Declaration, LibraryUnderTest

from kubefit.model.errors import CelRuntimeError
from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import standard_strings as lib

LIB = LibraryUnderTest(lib.library)
overload = LIB.overload


DECLARATIONS: list[Declaration] = [
    ("size_string", "size", False, (t.STRING,), t.INT),
    ("string_size", "size", True, (t.STRING,), t.INT),
    ("contains_string", "contains", True, (t.STRING, t.STRING), t.BOOL),
    ("starts_with_string", "startsWith", True, (t.STRING, t.STRING), t.BOOL),
    ("ends_with_string", "endsWith", True, (t.STRING, t.STRING), t.BOOL),
    ("matches", "matches", False, (t.STRING, t.STRING), t.BOOL),
    ("matches_string", "matches", True, (t.STRING, t.STRING), t.BOOL),
]


test_declaration = LIB.declaration_test(DECLARATIONS, count=len(DECLARATIONS))


CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("size_string", ("",), 0),
    ("size_string", ("hello",), 5),
    ("string_size", ("ta©o©αT",), 7),  # code points, not UTF-8 bytes
    ("string_size", ("😀",), 1),
    ("contains_string", ("hello", "ell"), True),
    ("contains_string", ("hello", ""), True),
    ("contains_string", ("hello", "elo"), False),
    ("starts_with_string", ("hello", "he"), True),
    ("starts_with_string", ("hello", ""), True),
    ("starts_with_string", ("hello", "lo"), False),
    ("ends_with_string", ("hello", "lo"), True),
    ("ends_with_string", ("hello", "he"), False),
    ("matches", ("hubba", "ubb"), True),  # unanchored search
    ("matches_string", ("hubba", "^ubb"), False),
    ("matches_string", ("k8s.io/gpu", r"^[a-z0-9.]+/gpu$"), True),
    ("matches_string", ("a\n", "a$"), False),  # Go's $ is the end of text, never before a final newline
    ("matches_string", ("a\nb", "(?m)a$"), True),
    ("matches_string", ("\n", "."), False),
    ("matches_string", ("\n", "(?s)."), True),
    ("matches_string", ("ΣΑΣ", "(?i)σας"), True),
    ("matches_string", ("K", "(?i)k"), True),  # Kelvin sign folds to k
    ("matches_string", ("٣", r"\d"), False),  # \d is ASCII-only in RE2
    ("matches_string", ("é", r"\w"), False),
    ("matches_string", ("é", r"\pL"), True),
    ("matches_string", ("é", r"\p{Lu}"), False),
    ("matches_string", ("É", r"\p{Lu}"), True),
    ("matches_string", ("é", r"\PL"), False),
    ("matches_string", ("é", r"[\p{^L}]"), False),
    ("matches_string", ("naïve", r"\bna"), True),
    ("matches_string", ("xé", r"x\b"), True),  # ASCII word boundary: é is not a word character
    ("matches_string", ("{,3}", "^a?{,3}$"), True),  # an unparsable repeat is a literal brace
    ("matches_string", ("a.b", r"^\Qa.b\E$"), True),
    ("matches_string", ("axb", r"^\Qa.b\E$"), False),
    ("matches_string", ("\n", r"^\x{0A}$"), True),
    ("matches_string", ("\n", r"^\012$"), True),
    ("matches_string", ("A", r"^\101$"), True),
    ("matches_string", ("abc", "^(?P<first>a)(?<second>b)c$"), True),
    ("matches_string", ("abc", "^(?P<1a>a)bc$"), True),  # Go allows names Python would not
    ("matches_string", ("x", "^[[:alpha:]]$"), True),
    ("matches_string", ("1", "^[[:^alpha:]]$"), True),
    ("matches_string", ("[:", "^[:a]+$"), False),
    ("matches_string", ("-", "^[a-]$"), True),
    ("matches_string", ("]", "^[]a]$"), True),
    ("matches_string", ("aaa", "^a{2,}$"), True),
    ("matches_string", ("AbC", "^(?i:abc)$"), True),
    ("matches_string", ("AbC", "^(?i:a)bc$"), False),
    ("matches_string", ("ab", "^(?i)a(?-i)B$"), False),
    ("matches_string", ("aaa", "^(?U)a+$"), True),
    ("matches_string", ("", "^*$"), True),  # Go lets an anchor repeat
    ("matches_string", ("a", r"\Aa\z"), True),
    ("matches_string", ("b", "^(?:a|)b$"), True),
    ("matches_string", ("", ""), True),
]


@pytest.mark.parametrize(("overload_id", "args", "expected"), CASES)
def test_function(overload_id: str, args: tuple[Any, ...], expected: Any) -> None:
    assert overload(overload_id).impl(*args) == expected


# Go's regexp/syntax errors, word for word.
REGEX_ERRORS = [
    ("(abc", "missing closing ): `(abc`"),
    ("a)", "unexpected ): `a)`"),
    ("a**", "invalid nested repetition operator: `**`"),
    ("a*??", "invalid nested repetition operator: `*??`"),
    ("x{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
    ("*a", "missing argument to repetition operator: `*`"),
    ("a|*", "missing argument to repetition operator: `*`"),
    ("(+?)", "missing argument to repetition operator: `+?`"),
    ("a{1001}", "invalid repeat count: `{1001}`"),
    ("a{3,2}", "invalid repeat count: `{3,2}`"),
    ("(a{500}){3}", "invalid repeat count: `{3}`"),
    ("{2000}", "invalid repeat count: `{2000}`"),
    (r"(a)\1", r"invalid escape sequence: `\1`"),
    (r"\8", r"invalid escape sequence: `\8`"),
    (r"\Z", r"invalid escape sequence: `\Z`"),
    (r"\C", r"invalid escape sequence: `\C`"),
    (r"\q", r"invalid escape sequence: `\q`"),
    (r"[\b]", r"invalid escape sequence: `\b`"),
    (r"\xZ", r"invalid escape sequence: `\xZ`"),
    (r"\x", r"invalid escape sequence: `\x`"),
    (r"\x{}", r"invalid escape sequence: `\x{}`"),
    (r"\x{110000}", r"invalid escape sequence: `\x{110000`"),
    ("\\", "trailing backslash at end of expression: ``"),
    ("a(?=b)", "invalid or unsupported Perl syntax: `(?=`"),
    ("a(?!b)", "invalid or unsupported Perl syntax: `(?!`"),
    ("(?P=n)", "invalid or unsupported Perl syntax: `(?P`"),
    ("(?i", "invalid or unsupported Perl syntax: `(?i`"),
    ("(?-)", "invalid or unsupported Perl syntax: `(?-)`"),
    ("(?<=a)b", "invalid named capture: `(?<=a)b`"),
    ("(?P<a-b>x)", "invalid named capture: `(?P<a-b>`"),
    ("(?P<>x)", "invalid named capture: `(?P<>`"),
    ("[a", "missing closing ]: `[a`"),
    ("x[^", "missing closing ]: `[^`"),
    ("[z-a]", "invalid character class range: `z-a`"),
    ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
    (r"\p{Foo}", r"invalid character class range: `\p{Foo}`"),
    (r"\p{L", r"invalid character class range: `\p{L`"),
    (r"\p", r"invalid character class range: `\p`"),
]


@pytest.mark.parametrize(("pattern", "detail"), REGEX_ERRORS)
def test_regex_syntax_error(pattern: str, detail: str) -> None:
    with pytest.raises(CelRuntimeError) as info:
        overload("matches_string").impl("text", pattern)
    assert str(info.value) == f"error parsing regexp: {detail}"
    assert isinstance(info.value, lib.RegexSyntaxError)


def test_nesting_limit() -> None:
    with pytest.raises(lib.RegexSyntaxError, match="expression nests too deeply: `"):
        lib.compile_re2("(" * 1001 + ")" * 1001)
    # Deep nesting Go accepts compiles here too (RE2 itself, no translation to Python's parser).
    assert lib.compile_re2("(" * 900 + "a" + ")" * 900).search("a")
    assert lib.compile_re2("(" * 50 + "a" + ")" * 50).search("a")


def test_case_folded_negated_class() -> None:
    # Go folds before negating: (?i)[^k] excludes k, K and the Kelvin sign.
    regex = lib.compile_re2("^(?i)[^k]$")
    assert [bool(regex.search(c)) for c in "kK\u212ax"] == [False, False, False, True]


def test_costs() -> None:
    assert overload("contains_string").cost(["a" * 20, "b" * 10]) == 2 * 1
    assert overload("starts_with_string").cost(["a" * 25, "a"]) == 3
    # (1 + len) * 0.1 for the text times len * 0.25 for the regex.
    assert overload("matches_string").cost(["a" * 19, "a" * 8]) == 2 * 2
    assert overload("matches").estimate([19, 8]) == 4
    assert overload("size_string").cost(["abc"]) == 1
