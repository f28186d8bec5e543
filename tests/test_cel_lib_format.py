"""Kubernetes format library."""

from __future__ import annotations

import pytest
from validation_helpers import LABEL, LABEL_VALUE, NAME_PART, SUBDOMAIN

from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import format as lib
from kubefit.translate.cel.registry import Overload
from kubefit.translate.cel.values import Optional, equal

NAMES = [
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
]


def overload(function: str) -> Overload:
    found = [o for o in lib.library.overloads if o.function == function]
    assert len(found) == 1, function
    return found[0]


def fmt(name: str) -> lib.NamedFormat:
    value = overload(f"format.{name}").impl()
    assert isinstance(value, lib.NamedFormat)
    assert value.cel_type == t.NAMED_FORMAT
    return value


def validate(name: str, text: str) -> Optional:
    result = overload("validate").impl(fmt(name), text)
    assert isinstance(result, Optional)
    return result


def test_declarations() -> None:
    named = overload("format.named")
    assert (named.id, named.member, named.params, named.result) == (
        "format-named",
        False,
        (t.STRING,),
        t.optional_of(t.NAMED_FORMAT),
    )
    check = overload("validate")
    assert (check.id.removesuffix("_member"), check.member, check.params, check.result) == (
        "format-validate",
        True,
        (t.NAMED_FORMAT, t.STRING),
        t.optional_of(t.list_of(t.STRING)),
    )
    for name in NAMES:
        ov = overload(f"format.{name}")
        assert (ov.id, ov.member, ov.params, ov.result) == (f"format.{name}", False, (), t.NAMED_FORMAT)
    assert len(lib.library.overloads) == len(NAMES) + 2
    assert all(o.cost is not None and o.estimate is not None for o in lib.library.overloads)


@pytest.mark.parametrize("name", NAMES)
def test_named_lookup(name: str) -> None:
    found = overload("format.named").impl(name)
    assert found.has
    assert equal(found.value, fmt(name))
    for other in NAMES:
        if other != name:
            assert not equal(fmt(name), fmt(other))


def test_unknown_name() -> None:
    assert not overload("format.named").impl("unknown").has
    assert not overload("format.named").impl("DNS1123Label").has


DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)

VALID = [
    ("dns1123Label", "my-label-name"),
    ("dns1123Label", "123-abc"),
    ("dns1123Label", "a" * 63),
    ("dns1123Subdomain", "apiextensions.k8s.io"),
    ("dns1123Subdomain", "example.com"),
    ("dns1035Label", "my-label-name"),
    ("qualifiedName", "apiextensions.k8s.io/v1beta1"),
    ("qualifiedName", "my.name"),
    ("qualifiedName", "MyName"),
    ("dns1123LabelPrefix", "my-label-prefix-"),
    ("dns1123SubdomainPrefix", "mysubdomain.prefix.-"),
    ("dns1035LabelPrefix", "my-label-prefix-"),
    ("labelValue", "my-cool-label-Value"),
    ("labelValue", ""),
    ("uri", "http://example.com"),
    ("uri", "/absolute/path"),
    ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
    ("uuid", "123E4567E89B12D3A456426614174000"),
    ("byte", "aGVsbG8="),
    ("byte", "aGVsbA=="),
    ("date", "2021-01-01"),
    ("date", "2020-01-01"),
    ("date", "2024-02-29"),
    ("datetime", "2021-01-01T00:00:00Z"),
    ("datetime", "2020-01-01t23:59:59.999+05:30"),
    ("datetime", "2020-01-01T00:00:00-08:00"),
]


@pytest.mark.parametrize(("name", "text"), VALID)
def test_valid(name: str, text: str) -> None:
    assert not validate(name, text).has


INVALID = [
    ("dns1123Label", "contains a space", [LABEL]),
    ("dns1123Label", "a.b", ["must not contain dots"]),
    ("dns1123Label", "-start", [LABEL]),
    ("dns1123Label", "a" * 64, ["must be no more than 63 characters"]),
    ("dns1123Label", "A" * 64, ["must be no more than 63 characters", LABEL]),
    ("dns1123Label", "", [LABEL]),
    ("dns1123Subdomain", "contains a space", [SUBDOMAIN]),
    ("dns1123Subdomain", "a" * 254, ["must be no more than 253 characters"]),
    ("dns1035Label", "contains a space", [DNS1035_MSG]),
    ("dns1035Label", "1abc", [DNS1035_MSG]),
    ("qualifiedName", "contains a space", [NAME_PART]),
    ("qualifiedName", "/name", ["prefix part must be non-empty"]),
    ("qualifiedName", "example.com/", ["name part must be non-empty", NAME_PART]),
    ("qualifiedName", "Bad_Prefix/name", ["prefix part " + SUBDOMAIN]),
    ("qualifiedName", "a" * 64, ["name part must be no more than 63 characters"]),
    (
        "qualifiedName",
        "a/b/c",
        [
            "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
            "'/' (e.g. 'example.com/MyName')"
        ],
    ),
    ("dns1123LabelPrefix", "contains a space-", [LABEL]),
    ("dns1123LabelPrefix", "-", [LABEL]),
    ("dns1123SubdomainPrefix", "contains a space-", [SUBDOMAIN]),
    ("dns1035LabelPrefix", "contains a space-", [DNS1035_MSG]),
    # The last two bytes are replaced, so a multi-byte character before the dash stays invalid.
    ("dns1123LabelPrefix", "abé-", [LABEL]),
    ("labelValue", "my-cool-label-Value!!\n\n!!!", [LABEL_VALUE]),
    ("labelValue", "a" * 64, ["must be no more than 63 characters"]),
    ("uri", "foo", ['parse "foo": invalid URI for request']),
    ("uri", "https://a:b:c/", ['parse "https://a:b:c/": invalid port ":c" after host']),
    ("uuid", "123e4567-e89b-12d3-a456-42661417400", ["does not match the UUID format"]),
    ("uuid", "123e4567-e89b-12d3-a456-426614174000\n", ["does not match the UUID format"]),
    ("byte", "aGVsbG8", ["invalid base64"]),
    ("byte", "", ["invalid base64"]),
    ("byte", "aGVs bG8=", ["invalid base64"]),
    ("date", "2020-01-32", ["invalid date"]),
    ("date", "2021-02-29", ["invalid date"]),
    ("date", "2020-1-01", ["invalid date"]),
    ("date", "2020-01-01T00:00:00Z", ["invalid date"]),
    ("datetime", "2020-01-32T00:00:00Z", ["invalid datetime"]),
    ("datetime", "2020-01-01T24:00:00Z", ["invalid datetime"]),
    ("datetime", "2020-01-01T00:60:00Z", ["invalid datetime"]),
    ("datetime", "2020-01-01T00:00:00", ["invalid datetime"]),
    ("datetime", "2020-01-01", ["invalid datetime"]),
    ("datetime", "2020", ["invalid datetime"]),
]


@pytest.mark.parametrize(("name", "text", "messages"), INVALID)
def test_invalid(name: str, text: str, messages: list[str]) -> None:
    result = validate(name, text)
    assert result.has
    assert result.value == messages


def test_date_years() -> None:
    # Go's four-character year may carry a sign.
    assert lib.is_date("+123-01-01")
    assert lib.is_date("0000-02-29")
    assert not lib.is_date("1900-02-29")
    assert not lib.is_date("++12-01-01")
    assert not lib.is_date("２０２０-01-01")


def test_costs() -> None:
    # ceil((1 + len) * 0.1) * ceil(max regex size * 0.25)
    assert overload("validate").cost([fmt("dns1123Label"), "a" * 19]) == 2 * 8
    assert overload("validate").cost([fmt("dns1123Subdomain"), "abc"]) == 1 * 15
    assert overload("format.named").cost(["uuid"]) == 1
    assert overload("validate").estimate([1, 19]) >= 2 * 8
