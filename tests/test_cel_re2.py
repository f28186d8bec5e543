"""Regular expressions in CEL are RE2's: Go's syntax and semantics, Go's error messages, linear time."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubefit.model.errors import CelCompileError, CelRuntimeError
from kubefit.translate.cel.library.re2 import RegexSyntaxError, compile_re2
from kubefit.translate.cel.selector import AttributeValue, DeviceInput, Selector

# (case, pattern, text, does it match)
SEMANTICS: list[tuple[str, str, str, bool]] = [
    ("\\z is the end of the text", r"a\z", "a", True),
    ("\\A is the start of the text", r"\Aa", "ba", False),
    ("$ is the end of the text, never before a final newline", "a$", "a\n", False),
    ("$ in multi-line mode is the end of a line", "(?m)a$", "a\nb", True),
    ("^ in multi-line mode starts every line", "(?m)^b", "a\nb", True),
    (". does not match a newline", "^.$", "\n", False),
    (". matches a newline with the s flag", "(?s)^.$", "\n", True),
    ("a negated class matches a newline", "^[^a]$", "\n", True),
    ("a Python-style named group is a group", "^(?P<first>a)b$", "ab", True),
    ("an angle-bracket named group is a group", "^(?<first>a)b$", "ab", True),
    ("\\pL is any letter", r"^\pL$", "é", True),
    ("\\PL is any non-letter", r"^\PL$", "é", False),
    ("\\p{Lu} is an upper-case letter", r"^\p{Lu}$", "É", True),
    ("\\p{Greek} is a script class", r"^\p{Greek}+$", "αβγ", True),
    ("\\p{^Greek} negates a script class", r"^\p{^Greek}$", "a", True),
    ("\\d is ASCII digits only", r"\d", "٣", False),
    ("\\pN takes every Unicode digit", r"\pN", "٣", True),
    ("\\w is ASCII word characters only", r"\w", "é", False),
    ("\\s does not include the vertical tab", r"\s", "\v", False),
    ("\\b is an ASCII word boundary", r"x\b", "xé", True),
    ("(?i) folds the Kelvin sign to k", "(?i)^k$", "\u212a", True),
    ("(?i) folds the long s to S", "(?i)^ſ$", "S", True),
    ("(?i) in a negated class excludes every case of the letter", "(?i)^[^k]$", "K", False),
    ("a flag group ends its flags", "^(?i:a)b$", "AB", False),
    ("(?U) makes repetition lazy", "^(?U)(a+)", "aaa", True),
    ("\\Q..\\E quotes metacharacters", r"^\Qa.b\E$", "axb", False),
    ("an octal escape is a character", r"^\101$", "A", True),
    ("a braced hex escape is a character", r"^\x{1F600}$", "😀", True),
    ("an unparsable repeat is a literal brace", "^a{,3}$", "a{,3}", True),
    ("an empty alternative matches the empty string", "^(?:a|)b$", "b", True),
    ("matches is a search, not an anchored match", "ubb", "hubba", True),
    ("a lone surrogate reads as U+FFFD, as Go's decoders give it", r"^\x{FFFD}$", "\ud800", True),
]


@pytest.mark.parametrize(
    ("pattern", "text", "expected"), [c[1:] for c in SEMANTICS], ids=[c[0] for c in SEMANTICS]
)
def test_go_semantics(pattern: str, text: str, expected: bool) -> None:
    assert compile_re2(pattern).search(text) is expected


# (case, pattern, Go's message after "error parsing regexp: ")
ERRORS: list[tuple[str, str, str]] = [
    ("an unclosed group", "(a", "missing closing ): `(a`"),
    ("an unclosed class", "x[^", "missing closing ]: `[^`"),
    ("a backreference", r"(a)\1", r"invalid escape sequence: `\1`"),
    ("\\Z, which only Python and Perl know", r"a\Z", r"invalid escape sequence: `\Z`"),
    ("a possessive repetition", "a++", "invalid nested repetition operator: `++`"),
    ("a lookahead", "a(?=b)", "invalid or unsupported Perl syntax: `(?=`"),
    ("a lookbehind, which Go reads as a capture name", "(?<=a)b", "invalid named capture: `(?<=a)b`"),
    ("a lookbehind with a closing angle bracket", "(?<!ab>c)", "invalid named capture: `(?<!ab>`"),
    ("\\C, which RE2 alone accepts", r"a\C", r"invalid escape sequence: `\C`"),
    ("a capture name outside ASCII, which RE2 alone accepts", "(?P<ñ>x)", "invalid named capture: `(?P<ñ>`"),
    ("a repeat count over 1000", "a{1001}", "invalid repeat count: `{1001}`"),
    ("nested repeat counts whose product passes 1000", "(a{500}){3}", "invalid repeat count: `{3}`"),
    ("a trailing backslash", "a\\", "trailing backslash at end of expression: ``"),
    ("an unknown class name", r"\p{Klingon}", r"invalid character class range: `\p{Klingon}`"),
    ("Go's first error wins over a later one only RE2 sees", r"\C(", r"invalid escape sequence: `\C`"),
    ("an earlier error wins over a later \\C", r"a)\C", r"unexpected ): `a)\C`"),
    ("\\C inside an unclosed group is still the first error", r"(\C", r"invalid escape sequence: `\C`"),
    ("an earlier bad escape wins over a later capture name", r"\q(?P<ñ>a)", r"invalid escape sequence: `\q`"),
]


@pytest.mark.parametrize(("pattern", "detail"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_go_error_messages(pattern: str, detail: str) -> None:
    with pytest.raises(RegexSyntaxError) as info:
        compile_re2(pattern)
    assert str(info.value) == f"error parsing regexp: {detail}"


def test_parse_trees_higher_than_go_allows_are_refused() -> None:
    deep = "(" * 1001 + ")" * 1001
    with pytest.raises(RegexSyntaxError) as info:
        compile_re2(deep)
    assert str(info.value) == f"error parsing regexp: expression nests too deeply: `{deep}`"
    # Non-capturing groups add no level to Go's tree, and 999 captures around nothing reach 1000.
    assert compile_re2("(?:" * 1001 + "a" + ")" * 1001).search("a")
    assert compile_re2("(" * 999 + ")" * 999).search("")


def test_programs_larger_than_go_allows_are_refused() -> None:
    # Go sizes a{1000} at 1000 instructions and refuses a program past 128 MiB (3355443 of them).
    with pytest.raises(RegexSyntaxError, match=r"^error parsing regexp: expression too large: `a"):
        compile_re2("a{1000}" * 3400)
    assert compile_re2("a{1000}" * 10).search("a" * 10_000)


def test_unicode_classes_repeated_a_thousand_times_compile_as_in_go() -> None:
    # Over a million RE2 instructions (one in Go): within the memory RE2 is given.
    assert compile_re2(r"^[\pL\pN]{1000}$").search("é" * 1000)


# (case, pattern, text, limit, Go's FindAllString)
FIND_ALL: list[tuple[str, str, str, int, list[str]]] = [
    ("an empty match next to a match is dropped", "a*", "baaac", -1, ["", "aaa", ""]),
    ("empty matches step over whole characters", "x*", "aé", -1, ["", "", ""]),
    ("an empty pattern matches between characters", "", "日本", -1, ["", "", ""]),
    ("the limit caps the matches", "[0-9]+", "1 22 333", 2, ["1", "22"]),
    ("a zero limit finds nothing", "[0-9]+", "1 22 333", 0, []),
    ("matches do not overlap", "aa", "aaaaa", -1, ["aa", "aa"]),
]


@pytest.mark.parametrize(
    ("pattern", "text", "limit", "expected"), [c[1:] for c in FIND_ALL], ids=[c[0] for c in FIND_ALL]
)
def test_find_all_follows_go(pattern: str, text: str, limit: int, expected: list[str]) -> None:
    assert compile_re2(pattern).find_all(text, limit) == expected


def test_find_is_leftmost_first() -> None:
    assert compile_re2("a|ab").find("xab") == "a"
    assert compile_re2("b+").find("abbbc") == "bbb"
    assert compile_re2("z").find("abc") == ""


# Patterns that take a backtracking engine exponential (or quadratic) time; RE2 answers in linear time.
PATHOLOGICAL: list[tuple[str, str, str, bool]] = [
    ("nested plus against a near miss", "^(a+)+$", "a" * 40 + "b", False),
    ("nested plus against a full match", "^(a+)+$", "a" * 40, True),
    ("two ways to split every run", "(x+x+)+y", "x" * 50_000, False),
    ("overlapping alternatives", "(a|aa)*c", "a" * 100_000, False),
    ("nested optional words", r"^(\w+\s?)*$", "word " * 10_000 + "!", False),
]


@pytest.mark.parametrize(
    ("pattern", "text", "expected"), [c[1:] for c in PATHOLOGICAL], ids=[c[0] for c in PATHOLOGICAL]
)
def test_pathological_patterns_answer(pattern: str, text: str, expected: bool) -> None:
    assert compile_re2(pattern).search(text) is expected


def test_the_issue_reproducer_selects_by_the_answer() -> None:
    selector = Selector('device.attributes["d"].s.matches("^(a+)+$")')
    near_miss = DeviceInput("d", {"s": AttributeValue(string="a" * 39 + "b")})
    full = DeviceInput("d", {"s": AttributeValue(string="a" * 40)})
    assert selector.evaluate(near_miss) is False
    assert selector.evaluate(full) is True


def test_compiled_patterns_are_cached() -> None:
    assert compile_re2("^gpu-[0-9]+$") is compile_re2("^gpu-[0-9]+$")


def test_a_constant_bad_pattern_fails_compilation_with_gos_message() -> None:
    selector = Selector('device.driver.matches("(a")')
    assert isinstance(selector.error, CelCompileError)
    assert "invalid matches argument: error parsing regexp: missing closing ): `(a`" in selector.error.detail


def test_a_computed_bad_pattern_fails_evaluation_with_gos_message() -> None:
    selector = Selector('device.driver.matches(device.attributes["d"].p)')
    dev = DeviceInput("d", {"p": AttributeValue(string=r"a\C")})
    with pytest.raises(CelRuntimeError) as info:
        selector.evaluate(dev)
    assert str(info.value) == r"error parsing regexp: invalid escape sequence: `\C`"


def test_find_reports_bad_patterns_as_the_kubernetes_library_does() -> None:
    selector = Selector('device.driver.find(device.attributes["d"].p) == ""')
    dev = DeviceInput("d", {"p": AttributeValue(string="(?P<ñ>x)")})
    with pytest.raises(CelRuntimeError) as info:
        selector.evaluate(dev)
    assert str(info.value) == "Illegal regex: error parsing regexp: invalid named capture: `(?P<ñ>`"


# Pieces of RE2 syntax, so that random patterns are often valid and often wrong in interesting ways.
_REGEX_PIECES = st.sampled_from(
    [*"ab()[]{}|*+?.^$\\-:,<>=!PQECzpLx0179iUms_ñé", "(?", "(?P<", "\\p{", "[:", ":]"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_REGEX_PIECES, max_size=24).map("".join), st.text(max_size=12))
def test_any_pattern_compiles_or_fails_with_a_go_message(pattern: str, text: str) -> None:
    try:
        compiled = compile_re2(pattern)
    except RegexSyntaxError as e:
        assert str(e).startswith("error parsing regexp: ")
        return
    assert compiled.find(text) in text
    assert all(part in text for part in compiled.find_all(text, -1))
