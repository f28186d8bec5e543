"""The generic name, uid and quantity rules behind every DRA validator."""

from __future__ import annotations

import pytest

from kubefit.translate.validation import field_errors, names, quantities


@pytest.mark.parametrize("value", ["a", "my-name", "123-abc", "x" * 63])
def test_valid_dns_labels(value: str) -> None:
    assert names.is_dns1123_label(value) == []


def test_a_dotted_name_is_a_subdomain_but_no_label() -> None:
    assert names.is_dns1123_label("a.b") == ["must not contain dots"]
    assert names.is_dns1123_subdomain("a.b") == []


def test_labels_and_subdomains_have_byte_limits() -> None:
    assert names.is_dns1123_label("x" * 64)[0] == "must be no more than 63 bytes"
    assert names.is_dns1123_subdomain("x" * 254)[0] == "must be no more than 253 bytes"


@pytest.mark.parametrize("value", ["_x", "MyName", "a1_b2"])
def test_valid_c_identifiers(value: str) -> None:
    assert names.is_c_identifier(value) == []


def test_a_c_identifier_cannot_start_with_a_digit() -> None:
    assert names.is_c_identifier("1x")[0].startswith(
        "a valid C identifier must start with alphabetic character"
    )


@pytest.mark.parametrize("value", ["app", "example.com/app", "a.b_c-d"])
def test_valid_qualified_names(value: str) -> None:
    assert names.is_qualified_name(value) == []


def test_qualified_name_prefix_and_name_problems() -> None:
    assert names.is_qualified_name("/x") == ["prefix part must be non-empty"]
    assert names.is_qualified_name("a/b/c")[0].startswith("a valid label key must consist of")
    assert names.is_qualified_name("Example.com/x")[0].startswith(
        "prefix part a lowercase RFC 1123 subdomain"
    )
    assert names.is_qualified_name("x" * 64)[0] == "name part must be no more than 63 bytes"


def test_label_values_may_be_empty_but_not_too_long() -> None:
    assert names.is_label_value("") == []
    assert names.is_label_value("v" * 64)[0] == "must be no more than 63 bytes"


def test_extended_and_node_allocatable_resource_names() -> None:
    assert names.is_extended_resource_name("example.com/gpu")
    assert not names.is_extended_resource_name("memory")
    assert not names.is_extended_resource_name("requests.example.com/gpu")
    assert names.is_node_allocatable_resource_name("hugepages-1Gi")
    assert not names.is_node_allocatable_resource_name("ephemeral-storage")


def test_map_keys_in_paths_are_shortened_in_the_middle() -> None:
    assert names.truncate_key("short", 96) == "short"
    cut = names.truncate_key("a" * 50 + "b" * 50, 20)
    assert cut == "a" * 9 + "..." + "b" * 8


@pytest.mark.parametrize(
    ("uid", "message"),
    [
        ("ac051fac-2ead-46d9-b8b4-4e0fbeb7455d", None),
        ("{ac051fac-2ead-46d9-b8b4-4e0fbeb7455d}", "uid must be in RFC 4122 normalized form"),
        ("ac051fac2ead46d9b8b44e0fbeb7455d", "uid must be in RFC 4122 normalized form"),
        ("ac051fac-2ead-46d9-b8b4-4e0fbeb7455z", "error validating uid: invalid UUID format"),
        ("xyz", "error validating uid: invalid UUID length: 3"),
    ],
)
def test_uids(uid: str, message: str | None) -> None:
    found = names.validate_uid(uid, ("shareID",))
    if message is None:
        assert found == []
    else:
        assert len(found) == 1 and message in found[0].message


def test_quantities_are_read_as_the_api_server_decodes_them() -> None:
    parsed = quantities.parse_quantity("1.1")
    assert not isinstance(parsed, str)
    # Messages show the canonical spelling, as kubectl does.
    assert str(parsed) == "1100m"
    assert quantities.is_fractional(parsed)
    assert quantities.decimal_key(parsed) == "1.1"
    five = quantities.parse_quantity("5.0")
    assert not isinstance(five, str)
    assert quantities.decimal_key(five) == "5"
    assert not quantities.is_fractional(five)


@pytest.mark.parametrize("text", ["", "1Gx", "1 Gi", "ten", "1..5", "--1"])
def test_malformed_quantities(text: str) -> None:
    assert isinstance(quantities.parse_quantity(text), str)
    path = ("spec", "value")
    amount, errs = quantities.validate_quantity(text, path)
    assert amount is None
    assert [e.path for e in errs] == [path]


def test_error_messages_read_like_the_api_server() -> None:
    assert field_errors.too_many(("p",), 33, 32).message == "Too many: 33: must have at most 32 items"
    assert field_errors.too_long(("p",), 63).message == "Too long: may not be more than 63 bytes"
    assert field_errors.required(("p",)).message == "Required value"
    assert field_errors.invalid(("p",), 'a"b', "bad").message == 'Invalid value: "a\\"b": bad'
    assert (
        field_errors.not_supported(("p",), "x", ["a", "b"]).message
        == 'Unsupported value: "x": supported values: "a", "b"'
    )
