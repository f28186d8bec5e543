"""Kubernetes format library: named string formats and `<format>.validate(string)`.

`format.named(name)` returns an optional NamedFormat, `format.<name>()` the format
itself, and `validate` returns `optional.none()` for a valid string or the list
of messages apimachinery (or kube-openapi's strfmt) reports for an invalid one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...validation.names import (
    Wording,
    byte_len,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
)
from .. import types as t
from ..registry import Library
from ..values import CelObject, Optional
from .standard_strings import regex_cost
from .urls import URLError, parse_request_uri

library = Library("format")

# --- apimachinery validation -----------------------------------------------------------

# The rules are the API server's (`validation.names`); only some wording differs.
_WORDING = Wording(length_unit="characters", qualified_name="a qualified name")


def _worded(check: Callable[[str, Wording], list[str]]) -> Callable[[str], list[str]]:
    return lambda s: check(s, _WORDING)


def _mask_trailing_dash(name: str) -> str:
    """A generateName prefix may end in '-': its last two bytes are replaced by 'a' before checking."""
    raw = name.encode("utf-8", "surrogatepass")
    if len(raw) > 1 and raw.endswith(b"-"):
        return (raw[:-2] + b"a").decode("utf-8", "replace")
    return name


def _as_prefix(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    return lambda s: check(_mask_trailing_dash(s))


_DNS1123_LABEL = _worded(is_dns1123_label)
_DNS1123_SUBDOMAIN = _worded(is_dns1123_subdomain)
_DNS1035_LABEL = _worded(is_dns1035_label)


# --- kube-openapi strfmt formats -------------------------------------------------------

# The regular expressions strfmt and govalidator use (as data: their lengths set the cost).
_UUID_PATTERN = r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"
_BASE64_PATTERN = r"^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$"
_DATETIME_PATTERN = r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
# govalidator's URL expression is about this long; only the cost estimate uses it.
_URL_PATTERN_SIZE = 1100

_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")
_BASE64_RE = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})")
# Go's '.' never matches a newline.
_TIME_RE = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})([^\n][0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _two_digits(s: str) -> int | None:
    if len(s) == 2 and s.isascii() and s.isdigit():
        return int(s)
    return None


def is_date(s: str) -> bool:
    """Go's time.Parse with layout "2006-01-02" succeeds."""
    if len(s) != 10 or s[4] != "-" or s[7] != "-":
        return False
    year_text = s[:4]
    digits = year_text[1:] if year_text[0] in "+-" else year_text
    if not (digits.isascii() and digits.isdigit()):
        return False
    year = int(year_text)
    month = _two_digits(s[5:7])
    day = _two_digits(s[8:10])
    if month is None or day is None or not 1 <= month <= 12:
        return False
    days = 29 if month == 2 and _is_leap(year) else _DAYS[month - 1]
    return 1 <= day <= days


def is_datetime(s: str) -> bool:
    """strfmt's IsDateTime: a valid date, a 't' (any case) and an RFC 3339 time of day."""
    if byte_len(s) < 4:
        return False
    parts = s.lower().split("t")
    if len(parts) < 2 or not is_date(parts[0]):
        return False
    m = _TIME_RE.fullmatch(parts[1])
    if m is None:
        return False
    return m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59"


def _validate_uri(s: str) -> list[str]:
    try:
        parse_request_uri(s)
    except URLError as e:
        return [str(e)]
    return []


def _message_if(ok: Callable[[str], bool], message: str) -> Callable[[str], list[str]]:
    return lambda s: [] if ok(s) else [message]


# --- the NamedFormat type ------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    name: str
    check: Callable[[str], list[str]]
    max_regex_size: int


class NamedFormat(CelObject):
    """A named format (`kubernetes.NamedFormat`); equal when the names are."""

    cel_type: ClassVar[t.CelType] = t.NAMED_FORMAT
    go_type: ClassVar[str] = "*cel.Format"

    def __init__(self, spec: _Spec) -> None:
        self.spec = spec

    @property
    def name(self) -> str:
        return self.spec.name

    def validate(self, s: str) -> list[str]:
        return self.spec.check(s)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedFormat) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"NamedFormat({self.name})"

    def __str__(self) -> str:
        return self.name


FORMATS: dict[str, NamedFormat] = {
    key: NamedFormat(spec)
    for key, spec in {
        "dns1123Label": _Spec("DNS1123Label", _DNS1123_LABEL, 30),
        "dns1123Subdomain": _Spec("DNS1123Subdomain", _DNS1123_SUBDOMAIN, 60),
        "dns1035Label": _Spec("DNS1035Label", _DNS1035_LABEL, 30),
        "qualifiedName": _Spec("QualifiedName", _worded(is_qualified_name), 60),
        "dns1123LabelPrefix": _Spec("DNS1123LabelPrefix", _as_prefix(_DNS1123_LABEL), 30),
        "dns1123SubdomainPrefix": _Spec("DNS1123SubdomainPrefix", _as_prefix(_DNS1123_SUBDOMAIN), 60),
        "dns1035LabelPrefix": _Spec("DNS1035LabelPrefix", _as_prefix(_DNS1035_LABEL), 30),
        "labelValue": _Spec("LabelValue", _worded(is_label_value), 40),
        "uri": _Spec("URI", _validate_uri, _URL_PATTERN_SIZE),
        "uuid": _Spec(
            "uuid",
            _message_if(lambda s: _UUID_RE.fullmatch(s) is not None, "does not match the UUID format"),
            len(_UUID_PATTERN),
        ),
        "byte": _Spec(
            "byte",
            _message_if(lambda s: _BASE64_RE.fullmatch(s) is not None, "invalid base64"),
            len(_BASE64_PATTERN),
        ),
        "date": _Spec("date", _message_if(is_date, "invalid date"), len(_DATETIME_PATTERN)),
        "datetime": _Spec("datetime", _message_if(is_datetime, "invalid datetime"), len(_DATETIME_PATTERN)),
    }.items()
}


def _unit(_: Sequence[Any]) -> int:
    return 1


def _unit_estimate(_: Sequence[int]) -> int:
    return 1


@library.function(
    "format.named",
    params=(t.STRING,),
    result=t.optional_of(t.NAMED_FORMAT),
    id="format-named",
    cost=_unit,
    estimate=_unit_estimate,
)
def named(name: str) -> Optional:
    found = FORMATS.get(name)
    return Optional.NONE if found is None else Optional(found)


def _constant(fmt: NamedFormat) -> Callable[[], NamedFormat]:
    def constant() -> NamedFormat:
        return fmt

    return constant


for _key, _fmt in FORMATS.items():
    library.function(
        f"format.{_key}",
        params=(),
        result=t.NAMED_FORMAT,
        id=f"format.{_key}",
        cost=_unit,
        estimate=_unit_estimate,
    )(_constant(_fmt))


def _validate_cost(args: Sequence[Any]) -> int:
    fmt = args[0] if args and isinstance(args[0], NamedFormat) else None
    text = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    return regex_cost(len(text), fmt.spec.max_regex_size if fmt else 0)


def _validate_estimate(sizes: Sequence[int]) -> int:
    # The format is not known statically: assume the longest expression.
    longest = max(f.spec.max_regex_size for f in FORMATS.values())
    return regex_cost(sizes[1] if len(sizes) > 1 else 0, longest)


@library.function(
    "validate",
    member=True,
    params=(t.NAMED_FORMAT, t.STRING),
    result=t.optional_of(t.list_of(t.STRING)),
    id="format-validate",
    cost=_validate_cost,
    estimate=_validate_estimate,
)
def validate(fmt: NamedFormat, s: str) -> Optional:
    errors = fmt.validate(s)
    return Optional.NONE if not errors else Optional(errors)
