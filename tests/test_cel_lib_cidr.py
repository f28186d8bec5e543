"""Kubernetes CIDR library."""

from __future__ import annotations

from typing import Any

import pytest
from cel_library_support import Declaration, LibraryUnderTest

from kubefit.model.errors import CelRuntimeError
from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import cidr as lib
from kubefit.translate.cel.library import ip as ip_lib
from kubefit.translate.cel.values import equal

LIB = LibraryUnderTest(lib.library)
overload = LIB.overload


DECLARATIONS: list[Declaration] = [
    ("string_to_cidr", "cidr", False, (t.STRING,), t.CIDR),
    ("is_cidr", "isCIDR", False, (t.STRING,), t.BOOL),
    ("cidr_contains_ip_string", "containsIP", True, (t.CIDR, t.STRING), t.BOOL),
    ("cidr_contains_ip_ip", "containsIP", True, (t.CIDR, t.IP), t.BOOL),
    ("cidr_contains_cidr_string", "containsCIDR", True, (t.CIDR, t.STRING), t.BOOL),
    ("cidr_contains_cidr", "containsCIDR", True, (t.CIDR, t.CIDR), t.BOOL),
    ("cidr_ip", "ip", True, (t.CIDR,), t.IP),
    ("cidr_prefix_length", "prefixLength", True, (t.CIDR,), t.INT),
    ("cidr_masked", "masked", True, (t.CIDR,), t.CIDR),
    ("cidr_to_string", "string", False, (t.CIDR,), t.STRING),
]

test_declaration = LIB.declaration_test(DECLARATIONS, count=10)


def cidr(text: str) -> lib.CIDR:
    value = overload("string_to_cidr").impl(text)
    assert isinstance(value, lib.CIDR)
    assert value.cel_type == t.CIDR
    return value


def ip(text: str) -> ip_lib.IP:
    value = ip_lib.ip(text)
    assert isinstance(value, ip_lib.IP)
    return value


def test_parse_keeps_host_bits() -> None:
    assert str(cidr("192.168.0.0/24")) == "192.168.0.0/24"
    assert str(cidr("192.168.0.1/16")) == "192.168.0.1/16"
    assert str(cidr("2001:DB8::/32")) == "2001:db8::/32"
    assert str(cidr("0.0.0.0/0")) == "0.0.0.0/0"


CONTAINS: list[tuple[str, str, Any, bool]] = [
    ("cidr_contains_ip_ip", "192.168.0.0/24", "192.168.0.1", True),
    ("cidr_contains_ip_ip", "192.168.0.0/24", "192.168.1.1", False),
    ("cidr_contains_ip_string", "192.168.0.0/24", "192.168.0.1", True),
    ("cidr_contains_ip_string", "192.168.0.0/24", "192.168.1.1", False),
    ("cidr_contains_ip_ip", "2001:db8::/32", "2001:db8::1", True),
    ("cidr_contains_ip_ip", "2001:db8::/32", "2001:dc8::1", False),
    ("cidr_contains_ip_string", "2001:db8::/32", "2001:db8::1", True),
    ("cidr_contains_ip_string", "2001:db8::/32", "2001:dc8::1", False),
    ("cidr_contains_ip_string", "192.168.0.129/24", "192.168.0.1", True),  # host bits are ignored
    ("cidr_contains_ip_string", "0.0.0.0/0", "8.8.8.8", True),
    ("cidr_contains_ip_string", "2001:db8::/32", "192.168.0.1", False),
    ("cidr_contains_ip_string", "0.0.0.0/0", "::1", False),
    ("cidr_contains_cidr", "192.168.0.0/24", "192.168.0.0/25", True),
    ("cidr_contains_cidr", "192.168.0.0/24", "192.168.0.0/23", False),
    ("cidr_contains_cidr_string", "192.168.0.0/24", "192.168.0.0/25", True),
    ("cidr_contains_cidr_string", "192.168.0.0/24", "192.168.0.0/23", False),
    ("cidr_contains_cidr", "2001:db8::/32", "2001:db8::/33", True),
    ("cidr_contains_cidr", "2001:db8::/32", "2001:db8::/31", False),
    ("cidr_contains_cidr_string", "2001:db8::/32", "2001:db8::/33", True),
    ("cidr_contains_cidr_string", "2001:db8::/32", "2001:db8::/31", False),
    ("cidr_contains_cidr", "192.168.1.0/24", "192.168.2.0/24", False),
    ("cidr_contains_cidr", "192.168.0.0/24", "192.168.0.0/24", True),
    ("cidr_contains_cidr", "192.168.0.7/24", "192.168.0.0/30", True),
    # What the Kubernetes code computes: the other address must be our network address.
    ("cidr_contains_cidr", "192.168.0.0/16", "192.168.10.0/24", False),
    ("cidr_contains_cidr_string", "192.168.0.0/16", "192.168.10.0/24", False),
    ("cidr_contains_cidr", "192.168.0.0/24", "192.168.0.1/32", False),
    ("cidr_contains_cidr", "192.168.0.0/24", "2001:db8::/64", False),
    ("cidr_contains_cidr", "2001:db8::/64", "192.168.0.0/24", False),
]


@pytest.mark.parametrize(("overload_id", "network", "other", "expected"), CONTAINS)
def test_contains(overload_id: str, network: str, other: Any, expected: bool) -> None:
    if overload_id == "cidr_contains_ip_ip":
        other = ip(other)
    elif overload_id == "cidr_contains_cidr":
        other = cidr(other)
    assert overload(overload_id).impl(cidr(network), other) is expected


def test_accessors() -> None:
    assert equal(overload("cidr_ip").impl(cidr("192.168.0.0/24")), ip("192.168.0.0"))
    assert equal(overload("cidr_ip").impl(cidr("192.168.0.1/24")), ip("192.168.0.1"))
    assert equal(overload("cidr_ip").impl(cidr("2001:db8::/32")), ip("2001:db8::"))
    assert equal(overload("cidr_masked").impl(cidr("192.168.0.0/24")), cidr("192.168.0.0/24"))
    assert equal(overload("cidr_masked").impl(cidr("192.168.0.1/24")), cidr("192.168.0.0/24"))
    assert equal(overload("cidr_masked").impl(cidr("2001:db8:1::/32")), cidr("2001:db8::/32"))
    assert equal(overload("cidr_masked").impl(cidr("1.2.3.4/0")), cidr("0.0.0.0/0"))
    assert overload("cidr_prefix_length").impl(cidr("192.168.0.0/24")) == 24
    assert overload("cidr_prefix_length").impl(cidr("2001:db8::/32")) == 32
    assert overload("cidr_prefix_length").impl(cidr("::1/128")) == 128
    assert overload("cidr_to_string").impl(cidr("192.168.0.0/24")) == "192.168.0.0/24"
    assert str(cidr("2001:db8::/32")) == "2001:db8::/32"


def test_equality() -> None:
    assert equal(cidr("192.168.0.0/24"), cidr("192.168.0.0/24"))
    assert equal(cidr("127.0.0.1/24"), cidr("127.0.0.1/24"))
    # Equality compares the address as written, not the network.
    assert not equal(cidr("192.168.0.1/24"), cidr("192.168.0.0/24"))
    assert not equal(cidr("192.168.0.0/24"), cidr("192.168.0.0/25"))
    assert not equal(cidr("10.0.0.0/8"), "10.0.0.0/8")


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("192.168.0.0/16", True),
        ("::1/128", True),
        ("192.168.0.0/33", False),
        ("::1/129", False),
        ("192.168.0.1/16", True),
        ("192.168.0.0", False),
        ("192.168.0.0/", False),
        ("192.168.0.0/024", False),
        ("192.168.0.0/+8", False),
        ("::ffff:1.2.3.4/120", False),
        ("fe80::1%eth0/64", False),
        ("192.168.001.1/24", False),
    ],
)
def test_is_cidr(text: str, valid: bool) -> None:
    assert overload("is_cidr").impl(text) is valid


def _double(detail: str) -> str:
    # Upstream wraps the parse error in the same context twice.
    prefix = "network address parse error during conversion from string: "
    return prefix + prefix + detail


CIDR_ERRORS = [
    ("192.168.0.0/", _double('netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""')),
    ("2001:db8::/", _double('netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""')),
    ("192.168.0.0/024", _double('netip.ParsePrefix("192.168.0.0/024"): bad bits after slash: "024"')),
    ("192.168.0.0/-1", _double('netip.ParsePrefix("192.168.0.0/-1"): bad bits after slash: "-1"')),
    ("192.168.0.0/+", _double('netip.ParsePrefix("192.168.0.0/+"): bad bits after slash: "+"')),
    ("192.168.0.0/x", _double('netip.ParsePrefix("192.168.0.0/x"): bad bits after slash: "x"')),
    ("192.168.0.0/33", _double('netip.ParsePrefix("192.168.0.0/33"): prefix length out of range')),
    ("::/129", _double('netip.ParsePrefix("::/129"): prefix length out of range')),
    ("192.168.0.0", _double("netip.ParsePrefix(\"192.168.0.0\"): no '/'")),
    (
        "192.168.001.1/24",
        _double(
            'netip.ParsePrefix("192.168.001.1/24"): ParseAddr("192.168.001.1"): IPv4 field has '
            "octet with leading zero"
        ),
    ),
    (
        "fe80::1%eth0/64",
        _double('netip.ParsePrefix("fe80::1%eth0/64"): IPv6 zones cannot be present in a prefix'),
    ),
    (
        "::ffff:1.2.3.4/120",
        "network address parse error during conversion from string: "
        'IPv4-mapped IPv6 address "::ffff:1.2.3.4/120" is not allowed',
    ),
]


@pytest.mark.parametrize(("text", "message"), CIDR_ERRORS)
def test_cidr_error(text: str, message: str) -> None:
    LIB.check_error("string_to_cidr", (text,), message)


def test_contains_string_errors() -> None:
    with pytest.raises(CelRuntimeError, match=r'^IP Address "1\.2\.3" parse error'):
        overload("cidr_contains_ip_string").impl(cidr("1.0.0.0/8"), "1.2.3")
    with pytest.raises(CelRuntimeError) as info:
        overload("cidr_contains_cidr_string").impl(cidr("1.0.0.0/8"), "1.2.3.0/")
    assert str(info.value) == _double('netip.ParsePrefix("1.2.3.0/"): bad bits after slash: ""')


def test_costs() -> None:
    assert overload("string_to_cidr").cost(["192.168.0.0/24"]) == 2
    assert overload("cidr_contains_ip_ip").cost([cidr("10.0.0.0/8"), ip("10.0.0.1")]) == 1
    assert overload("cidr_contains_ip_string").cost([cidr("10.0.0.0/8"), "10.0.0.1"]) == 2
    assert overload("cidr_contains_cidr").cost([cidr("10.0.0.0/8"), cidr("10.0.0.0/16")]) == 3
    assert overload("cidr_contains_cidr_string").cost([cidr("10.0.0.0/8"), "10.0.0.0/16"]) == 5
    assert overload("cidr_ip").cost([cidr("10.0.0.0/8")]) == 1
