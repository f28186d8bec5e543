"""The Kubernetes CEL semver library (apiserver/pkg/cel/library/semverlib.go), version 1.

Versions are parsed by the rules of github.com/blang/semver/v4 `Parse`, with its
error messages, because that is what both the CEL library and DRA's `version`
device attributes use. Version 1 of the library adds the `normalize` overloads:
drop one leading "v", pad missing minor/patch with 0, strip leading zeros.
"""

from __future__ import annotations

import functools
from operator import attrgetter
from typing import Any, ClassVar

from ....model import go_strings
from ....model.errors import CelRuntimeError
from .. import types as t
from ..registry import Library
from ..values import UINT64_MAX, CelObject
from .overloads import accepts, declare_comparisons

_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")

PreRelease = int | str  # a numeric identifier, or an alphanumeric one


class SemverError(ValueError):
    """The text is not a semantic version; the message is blang/semver's."""


def go_quote(text: str) -> str:
    """Go's %q / strconv.Quote, which is how blang/semver quotes the offending part.

    A lone surrogate is not a valid rune in Go; it prints as the replacement character's escape.
    """
    return go_strings.go_quote(text, lone_surrogate="\\ufffd")


def _only(text: str, allowed: frozenset[str]) -> bool:
    return all(c in allowed for c in text)


def _leading_zero(text: str) -> bool:
    return len(text) > 1 and text[0] == "0"


def _parse_uint(text: str) -> int:
    """strconv.ParseUint(text, 10, 64) for text already known to hold only ASCII digits."""
    if not text:
        raise SemverError(f"strconv.ParseUint: parsing {go_quote(text)}: invalid syntax")
    value = int(text) if len(text) <= 40 else UINT64_MAX + 1
    if value > UINT64_MAX:
        raise SemverError(f"strconv.ParseUint: parsing {go_quote(text)}: value out of range")
    return value


def _number(text: str, role: str) -> int:
    if not _only(text, _NUMBERS):
        raise SemverError(f"Invalid character(s) found in {role.lower()} number {go_quote(text)}")
    if _leading_zero(text):
        raise SemverError(f"{role} number must not contain leading zeroes {go_quote(text)}")
    return _parse_uint(text)


def _prerelease(text: str) -> PreRelease:
    if not text:
        raise SemverError("Prerelease is empty")
    if _only(text, _NUMBERS):
        if _leading_zero(text):
            raise SemverError(f"Numeric PreRelease version must not contain leading zeroes {go_quote(text)}")
        return _parse_uint(text)
    if _only(text, _ALPHANUM):
        return text
    raise SemverError(f"Invalid character(s) found in prerelease {go_quote(text)}")


def _cmp(a: Any, b: Any) -> int:
    return int(a > b) - int(a < b)


def _cmp_prerelease(a: PreRelease, b: PreRelease) -> int:
    # Numeric identifiers sort before alphanumeric ones.
    if isinstance(a, int) and isinstance(b, int):
        return _cmp(a, b)
    if isinstance(a, int):
        return -1
    if isinstance(b, int):
        return 1
    return _cmp(a, b)


def _as_cel_int(value: int) -> int:
    # cel-go's types.Int(uint64) reinterprets the bits as a signed int64.
    return value - 2**64 if value > 2**63 - 1 else value


@functools.total_ordering
class Semver(CelObject):
    """A semantic version (blang/semver `Version`) as a Python and CEL value.

    Equality, hashing and ordering use semver precedence, so build metadata is
    ignored ("1.0.0+a" == "1.0.0+b"), exactly like `Version.Compare`.
    """

    cel_type: ClassVar[t.CelType] = t.SEMVER
    go_type: ClassVar[str] = "cel.Semver"

    __slots__ = ("build", "major", "minor", "patch", "pre")

    def __init__(
        self,
        major: int,
        minor: int,
        patch: int,
        pre: tuple[PreRelease, ...] = (),
        build: tuple[str, ...] = (),
    ) -> None:
        self.major = major
        self.minor = minor
        self.patch = patch
        self.pre = pre
        self.build = build

    @classmethod
    def parse(cls, text: str, normalize: bool = False) -> Semver:
        return parse_semver(text, normalize)

    def __str__(self) -> str:
        out = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            out += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            out += "+" + ".".join(self.build)
        return out

    def __repr__(self) -> str:
        return f"Semver({str(self)!r})"

    def compare(self, other: Semver) -> int:
        """blang's Version.Compare: -1, 0 or 1."""
        for a, b in ((self.major, other.major), (self.minor, other.minor), (self.patch, other.patch)):
            if a != b:
                return _cmp(a, b)
        if not self.pre or not other.pre:
            # A version without a prerelease ranks above one with it.
            return _cmp(not self.pre, not other.pre)
        for a_pre, b_pre in zip(self.pre, other.pre, strict=False):
            c = _cmp_prerelease(a_pre, b_pre)
            if c:
                return c
        return _cmp(len(self.pre), len(other.pre))

    def _key(self) -> tuple[int, int, int, tuple[PreRelease, ...]]:
        return self.major, self.minor, self.patch, self.pre

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __lt__(self, other: Semver) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self.compare(other) < 0

    def cel_equals(self, other: object) -> bool:
        """CEL `==`: upstream's Semver.Equal errors instead of answering for a non-semver."""
        if not isinstance(other, Semver):
            raise CelRuntimeError("no such overload")
        return self.compare(other) == 0


def parse_semver(text: str, normalize: bool = False) -> Semver:
    """blang/semver v4 `Parse`, or Kubernetes' normalizing variant; raises SemverError."""
    if normalize:
        text = _normalize(text)
    if not text:
        raise SemverError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    major = _number(parts[0], "Major")
    minor = _number(parts[1], "Minor")

    rest = parts[2]
    build: list[str] = []
    prerelease: list[str] = []
    plus = rest.find("+")
    if plus != -1:
        build = rest[plus + 1 :].split(".")
        rest = rest[:plus]
    dash = rest.find("-")
    if dash != -1:
        prerelease = rest[dash + 1 :].split(".")
        rest = rest[:dash]
    patch = _number(rest, "Patch")

    pre = tuple(_prerelease(p) for p in prerelease)
    for item in build:
        if not item:
            raise SemverError("Build meta data is empty")
        if not _only(item, _ALPHANUM):
            raise SemverError(f"Invalid character(s) found in build meta data {go_quote(item)}")
    return Semver(major, minor, patch, pre, tuple(build))


def _normalize(text: str) -> str:
    """Kubernetes' normalizeAndParse preprocessing (ParseTolerant without whitespace trimming)."""
    if text.startswith("v"):
        text = text[1:]
    parts = text.split(".", 2)
    for i, part in enumerate(parts):
        # Go measures the length in bytes, which matters for a lone non-ASCII character.
        if len(part.encode("utf-8", "surrogatepass")) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in _NUMBERS:
                part = "0" + part
            parts[i] = part
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return ".".join(parts)


is_semver_text = accepts(parse_semver, SemverError)


def _unwrap(value: Any) -> Semver:
    if isinstance(value, Semver):
        return value
    raise CelRuntimeError("no such overload")


library = Library("semver")


@library.function("semver", params=(t.STRING,), result=t.SEMVER, id="string_to_semver")
@library.function("semver", params=(t.STRING, t.BOOL), result=t.SEMVER, id="string_bool_to_semver")
def string_to_semver(text: str, normalize: bool = False) -> Semver:
    try:
        return parse_semver(text, normalize)
    except SemverError as e:
        raise CelRuntimeError(str(e)) from e


library.function("isSemver", params=(t.STRING,), result=t.BOOL, id="is_semver_string")(is_semver_text)
library.function("isSemver", params=(t.STRING, t.BOOL), result=t.BOOL, id="is_semver_string_bool")(
    is_semver_text
)
declare_comparisons(library, t.SEMVER, "semver", lambda v, other: _unwrap(v).compare(_unwrap(other)))

for _part in ("major", "minor", "patch"):
    library.function(_part, member=True, params=(t.SEMVER,), result=t.INT, id=f"semver_{_part}")(
        lambda v, get=attrgetter(_part): _as_cel_int(get(_unwrap(v)))
    )
