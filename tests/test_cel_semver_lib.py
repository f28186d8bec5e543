"""The Kubernetes CEL semver library and the blang/semver parsing it relies on."""

from __future__ import annotations

from typing import Any, cast

import pytest
from cel_library_support import LibraryUnderTest

from kubefit.model.errors import CelRuntimeError
from kubefit.translate.cel import types as t
from kubefit.translate.cel.library.semver import (
    Semver,
    SemverError,
    go_quote,
    library,
    parse_semver,
)

LIB = LibraryUnderTest(library)
call = LIB.call
m = LIB.method


def v(text: str, normalize: bool | None = None) -> Semver:
    if normalize is None:
        return cast(Semver, call("semver", text))
    return cast(Semver, call("semver", text, normalize))


# --- declarations ----------------------------------------------------------------------

DECLARATIONS = {
    "string_to_semver": ("semver", False, (t.STRING,), t.SEMVER),
    "string_bool_to_semver": ("semver", False, (t.STRING, t.BOOL), t.SEMVER),
    "is_semver_string": ("isSemver", False, (t.STRING,), t.BOOL),
    "is_semver_string_bool": ("isSemver", False, (t.STRING, t.BOOL), t.BOOL),
    "semver_is_greater_than": ("isGreaterThan", True, (t.SEMVER, t.SEMVER), t.BOOL),
    "semver_is_less_than": ("isLessThan", True, (t.SEMVER, t.SEMVER), t.BOOL),
    "semver_compare_to": ("compareTo", True, (t.SEMVER, t.SEMVER), t.INT),
    "semver_major": ("major", True, (t.SEMVER,), t.INT),
    "semver_minor": ("minor", True, (t.SEMVER,), t.INT),
    "semver_patch": ("patch", True, (t.SEMVER,), t.INT),
}


def test_every_upstream_overload_is_declared_once() -> None:
    by_id = LIB.check_declarations("semver", DECLARATIONS)
    for ov in by_id.values():
        # Upstream's cost estimator has no entry for these, so the default applies.
        assert ov.cost is None and ov.estimate is None


def test_value_type() -> None:
    parsed = v("1.2.3")
    assert isinstance(parsed, Semver)
    assert parsed.cel_type == t.SEMVER
    assert parsed.go_type == "cel.Semver"
    assert parsed == parse_semver("1.2.3")
    assert str(parsed) == "1.2.3"
    assert repr(parsed) == "Semver('1.2.3')"


# --- upstream's library test table ------------------------------------------------------


def test_parse_error_message() -> None:
    with pytest.raises(CelRuntimeError) as info:
        v("v1.0")
    assert str(info.value) == "No Major.Minor.Patch elements found"


@pytest.mark.parametrize(
    ("text", "normalize", "valid"),
    [
        ("1.2.3-beta.1+build.1", None, True),
        ("", None, False),
        ("v1.0.0", None, False),
        (" 1.0.0", None, False),
        ("1. 0.0", None, False),
        ("1.0.0 ", None, False),
        ("01.01.01", None, False),
        ("1", None, False),
        ("1.1", None, False),
        ("", True, False),
        (" 1.0.0", True, False),
        ("1. 0.0", True, False),
        ("1.0.0 ", True, False),
        ("v1.0.0", True, True),
        ("01.01.01", True, True),
        ("1", True, True),
        ("1.1", True, True),
        ("v1.0", False, False),
        ("hello", True, False),
    ],
)
def test_is_semver(text: str, normalize: bool | None, valid: bool) -> None:
    args = (text,) if normalize is None else (text, normalize)
    assert call("isSemver", *args) is valid


def test_no_overload_for_a_list() -> None:
    with pytest.raises(LookupError):
        call("isSemver", [1, 2, 3])


def test_equality() -> None:
    assert v("v01.01", True).cel_equals(v("1.1.0"))
    assert v("1.2.3").cel_equals(v("1.2.3"))
    assert not v("1.2.3").cel_equals(v("1.0.0"))
    # Build metadata has no precedence.
    assert v("1.0.0+a").cel_equals(v("1.0.0+b"))
    # Upstream's Semver.Equal answers a non-semver with an error rather than false.
    with pytest.raises(CelRuntimeError, match="no such overload"):
        v("1.0.0").cel_equals("1.0.0")


@pytest.mark.parametrize(
    ("a", "b", "cmp"),
    [
        ("1.0.0", "1.2.3", -1),
        ("1.0.0", "1.0.0", 0),
        ("1.2.3", "1.0.0", 1),
        ("1.2.3", "1.2.3", 0),
        ("1.2.3", "2.0.0", -1),
        ("1.2.3", "0.1.2", 1),
    ],
)
def test_comparisons(a: str, b: str, cmp: int) -> None:
    LIB.check_comparison(v(a), v(b), cmp)


def test_components() -> None:
    assert m(v("1.2.3"), "major") == 1
    assert m(v("1.2.3"), "minor") == 2
    assert m(v("1.2.3"), "patch") == 3
    # uint64 components become CEL ints by reinterpreting the bits, as types.Int(uint64) does.
    huge = v("18446744073709551615.9223372036854775808.9223372036854775807")
    assert m(huge, "major") == -1
    assert m(huge, "minor") == -(2**63)
    assert m(huge, "patch") == 2**63 - 1
    assert huge.major == 2**64 - 1


# --- blang/semver's own tables ------------------------------------------------------------

# version text, its components
FORMATTED = [
    ("1.2.3", (1, 2, 3, (), ())),
    ("0.0.1", (0, 0, 1, (), ())),
    ("0.0.1-alpha.preview+123.456", (0, 0, 1, ("alpha", "preview"), ("123", "456"))),
    ("1.2.3-alpha.1+123.456", (1, 2, 3, ("alpha", 1), ("123", "456"))),
    ("1.2.3-alpha.1", (1, 2, 3, ("alpha", 1), ())),
    ("1.2.3+123.456", (1, 2, 3, (), ("123", "456"))),
    ("1.2.3-alpha.b-eta+123.b-uild", (1, 2, 3, ("alpha", "b-eta"), ("123", "b-uild"))),
    ("1.2.3+123.b-uild", (1, 2, 3, (), ("123", "b-uild"))),
    ("1.2.3-alpha.b-eta", (1, 2, 3, ("alpha", "b-eta"), ())),
    ("1.0.0-0.3.7", (1, 0, 0, (0, 3, 7), ())),
    ("1.0.0-x.7.z.92", (1, 0, 0, ("x", 7, "z", 92), ())),
    ("1.0.0+0001", (1, 0, 0, (), ("0001",))),
    ("1.0.0-0a", (1, 0, 0, ("0a",), ())),
]


@pytest.mark.parametrize(("text", "parts"), FORMATTED)
def test_parse_and_format(text: str, parts: tuple[Any, ...]) -> None:
    parsed = parse_semver(text)
    assert (parsed.major, parsed.minor, parsed.patch, parsed.pre, parsed.build) == parts
    assert str(parsed) == text
    assert str(Semver(*parts)) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("v1.2.3", "1.2.3"),
        ("1.2.0-alpha", "1.2.0-alpha"),
        ("1.2.00", "1.2.0"),
        ("01.02.03", "1.2.3"),
        ("00.0.03", "0.0.3"),
        ("000.0.03", "0.0.3"),
        ("1.2", "1.2.0"),
        ("1", "1.0.0"),
        ("v01.01", "1.1.0"),
        ("1.0.00-rc.1", "1.0.0-rc.1"),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert str(parse_semver(text, normalize=True)) == expected
    assert str(v(text, True)) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # unlike blang's ParseTolerant, Kubernetes does not trim whitespace
        ("\t1.2.3 ", 'Invalid character(s) found in major number "0\\t1"'),
        ("1.0+abc", "short version cannot contain PreRelease/Build meta data"),
        # three dot-separated parts already, so it is not "short"; the padded minor is rejected
        ("1.0-rc.1", 'Invalid character(s) found in minor number "0-rc"'),
        ("1-rc", "short version cannot contain PreRelease/Build meta data"),
        ("", 'strconv.ParseUint: parsing "": invalid syntax'),
        ("vv1", 'Invalid character(s) found in major number "0v1"'),
        ("0-alpha.0.0", 'Invalid character(s) found in major number "0-alpha"'),
        # Go counts bytes, so a single two-byte character gets a zero prepended
        ("é.1", 'Invalid character(s) found in major number "0é"'),
    ],
)
def test_normalize_errors(text: str, message: str) -> None:
    with pytest.raises(SemverError) as info:
        parse_semver(text, normalize=True)
    assert str(info.value) == message


COMPARE = [
    ("1.0.0", "1.0.0", 0),
    ("2.0.0", "1.0.0", 1),
    ("0.1.0", "0.1.0", 0),
    ("0.2.0", "0.1.0", 1),
    ("0.0.1", "0.0.1", 0),
    ("0.0.2", "0.0.1", 1),
    ("1.2.3", "1.2.3", 0),
    ("2.2.4", "1.2.4", 1),
    ("1.3.3", "1.2.3", 1),
    ("1.2.4", "1.2.3", 1),
    ("1.0.0", "2.0.0", -1),
    ("2.0.0", "2.1.0", -1),
    ("2.1.0", "2.1.1", -1),
    ("1.0.0", "1.0.0-alpha", 1),
    ("1.0.0-alpha", "1.0.0-alpha.1", -1),
    ("1.0.0-alpha.1", "1.0.0-alpha.beta", -1),
    ("1.0.0-alpha.beta", "1.0.0-beta", -1),
    ("1.0.0-beta", "1.0.0-beta.2", -1),
    ("1.0.0-beta.2", "1.0.0-beta.11", -1),
    ("1.0.0-beta.11", "1.0.0-rc.1", -1),
    ("1.0.0-rc.1", "1.0.0", -1),
    ("1.0.0+1.2.3", "1.0.0", 0),
    ("1.0.0-Z", "1.0.0-a", -1),
    ("18446744073709551615.0.0", "18446744073709551614.0.0", 1),
]


@pytest.mark.parametrize(("a", "b", "cmp"), COMPARE)
def test_precedence(a: str, b: str, cmp: int) -> None:
    va, vb = parse_semver(a), parse_semver(b)
    assert va.compare(vb) == cmp
    assert vb.compare(va) == -cmp
    assert (va == vb) is (cmp == 0)
    assert (va < vb) is (cmp < 0)
    assert (va >= vb) is (cmp >= 0)
    if cmp == 0:
        assert hash(va) == hash(vb)


TOO_BIG = 'strconv.ParseUint: parsing "20000000000000000000": value out of range'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Version string empty"),
        (".", "No Major.Minor.Patch elements found"),
        ("1.", "No Major.Minor.Patch elements found"),
        (".1", "No Major.Minor.Patch elements found"),
        ("a.b.c", 'Invalid character(s) found in major number "a"'),
        ("1.a.b", 'Invalid character(s) found in minor number "a"'),
        ("1.1.a", 'Invalid character(s) found in patch number "a"'),
        ("1.a.1", 'Invalid character(s) found in minor number "a"'),
        ("a.1.1", 'Invalid character(s) found in major number "a"'),
        ("..", 'strconv.ParseUint: parsing "": invalid syntax'),
        ("1..", 'strconv.ParseUint: parsing "": invalid syntax'),
        ("1.1.", 'strconv.ParseUint: parsing "": invalid syntax'),
        ("1..1", 'strconv.ParseUint: parsing "": invalid syntax'),
        ("1.1.+123", 'strconv.ParseUint: parsing "": invalid syntax'),
        ("1.1.-beta", 'strconv.ParseUint: parsing "": invalid syntax'),
        ("-1.1.1", 'Invalid character(s) found in major number "-1"'),
        ("1.-1.1", 'Invalid character(s) found in minor number "-1"'),
        ("1.1.-1", 'strconv.ParseUint: parsing "": invalid syntax'),
        ("20000000000000000000.1.1", TOO_BIG),
        ("1.20000000000000000000.1", TOO_BIG),
        ("1.1.20000000000000000000", TOO_BIG),
        ("1.1.1-20000000000000000000", TOO_BIG),
        ("01.1.1", 'Major number must not contain leading zeroes "01"'),
        ("001.1.1", 'Major number must not contain leading zeroes "001"'),
        ("1.01.1", 'Minor number must not contain leading zeroes "01"'),
        ("1.001.1", 'Minor number must not contain leading zeroes "001"'),
        ("1.1.01", 'Patch number must not contain leading zeroes "01"'),
        ("1.1.001", 'Patch number must not contain leading zeroes "001"'),
        ("1.1.1-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.1.1-001", 'Numeric PreRelease version must not contain leading zeroes "001"'),
        ("1.1.1-beta.01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.1.1-beta.001", 'Numeric PreRelease version must not contain leading zeroes "001"'),
        ("0.0.0-!", 'Invalid character(s) found in prerelease "!"'),
        ("0.0.0+!", 'Invalid character(s) found in build meta data "!"'),
        ("0.0.0-.alpha", "Prerelease is empty"),
        ("0.0.0-alpha+", "Build meta data is empty"),
        ("0.0.0-alpha+test.", "Build meta data is empty"),
        ("1.2.3-alpha\x00", 'Invalid character(s) found in prerelease "alpha\\x00"'),
        ('1.2.3-"q"', 'Invalid character(s) found in prerelease "\\"q\\""'),
        ("1.2.3-é", 'Invalid character(s) found in prerelease "é"'),
        ("v1.0.0", 'Invalid character(s) found in major number "v1"'),
        # a "+" before the "-" makes everything after it build metadata
        ("1.0.0+a-b.c_d", 'Invalid character(s) found in build meta data "c_d"'),
    ],
)
def test_wrong_formats(text: str, message: str) -> None:
    with pytest.raises(SemverError) as info:
        parse_semver(text)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)
    assert call("isSemver", text) is False
    with pytest.raises(CelRuntimeError) as cel_info:
        v(text)
    assert str(cel_info.value) == message


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("abc", '"abc"'),
        ("a\tb\n", '"a\\tb\\n"'),
        ("\a\b\f\r\v", '"\\a\\b\\f\\r\\v"'),
        ("\x01\x7f", '"\\x01\\x7f"'),
        ("\u00a0\u200b", '"\\u00a0\\u200b"'),
        ("\U000e0001", '"\\U000e0001"'),
        ("héllo ✓", '"héllo ✓"'),
        ('"\\', '"\\"\\\\"'),
        ("\ud800", '"\\ufffd"'),
    ],
)
def test_go_quote(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


def test_semver_classmethod_and_hashing() -> None:
    assert Semver.parse("v1", normalize=True) == Semver(1, 0, 0)
    assert {parse_semver("1.0.0+a"), parse_semver("1.0.0+b"), parse_semver("1.0.0")} == {Semver(1, 0, 0)}
    assert parse_semver("1.0.0-1") != parse_semver("1.0.0-a1")
    assert (Semver(1, 0, 0) == "1.0.0") is False
