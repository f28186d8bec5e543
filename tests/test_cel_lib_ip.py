"""Kubernetes IP library."""

from __future__ import annotations

from typing import Any

import pytest
from cel_library_support import Declaration, LibraryUnderTest

from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import ip as lib
from kubefit.translate.cel.values import equal

LIB = LibraryUnderTest(lib.library)
overload = LIB.overload


DECLARATIONS: list[Declaration] = [
    ("string_to_ip", "ip", False, (t.STRING,), t.IP),
    ("is_ip", "isIP", False, (t.STRING,), t.BOOL),
    ("ip_is_canonical", "ip.isCanonical", False, (t.STRING,), t.BOOL),
    ("ip_family", "family", True, (t.IP,), t.INT),
    ("ip_is_unspecified", "isUnspecified", True, (t.IP,), t.BOOL),
    ("ip_is_loopback", "isLoopback", True, (t.IP,), t.BOOL),
    ("ip_is_link_local_multicast", "isLinkLocalMulticast", True, (t.IP,), t.BOOL),
    ("ip_is_link_local_unicast", "isLinkLocalUnicast", True, (t.IP,), t.BOOL),
    ("ip_is_global_unicast", "isGlobalUnicast", True, (t.IP,), t.BOOL),
    ("ip_to_string", "string", False, (t.IP,), t.STRING),
]

test_declaration = LIB.declaration_test(DECLARATIONS, count=10)


def ip(text: str) -> lib.IP:
    value = overload("string_to_ip").impl(text)
    assert isinstance(value, lib.IP)
    assert value.cel_type == t.IP
    return value


PREDICATES: list[tuple[str, str, Any]] = [
    ("ip_family", "192.168.0.1", 4),
    ("ip_family", "2001:db8::68", 6),
    ("ip_family", "::1", 6),
    ("ip_is_unspecified", "0.0.0.0", True),
    ("ip_is_unspecified", "127.0.0.1", False),
    ("ip_is_unspecified", "::", True),
    ("ip_is_unspecified", "::1", False),
    ("ip_is_loopback", "127.0.0.1", True),
    ("ip_is_loopback", "127.255.0.9", True),
    ("ip_is_loopback", "1.2.3.4", False),
    ("ip_is_loopback", "192.168.0.1", False),
    ("ip_is_loopback", "::1", True),
    ("ip_is_loopback", "2001:db8::abcd", False),
    ("ip_is_link_local_multicast", "224.0.0.1", True),
    ("ip_is_link_local_multicast", "224.0.1.1", False),
    ("ip_is_link_local_multicast", "ff02::1", True),
    ("ip_is_link_local_multicast", "ff12::1", True),
    ("ip_is_link_local_multicast", "fd00::1", False),
    ("ip_is_link_local_unicast", "169.254.169.254", True),
    ("ip_is_link_local_unicast", "192.168.0.1", False),
    ("ip_is_link_local_unicast", "fe80::1", True),
    ("ip_is_link_local_unicast", "febf::1", True),
    ("ip_is_link_local_unicast", "fd80::1", False),
    ("ip_is_global_unicast", "192.168.0.1", True),
    ("ip_is_global_unicast", "10.0.0.1", True),  # private addresses still count, as in Go
    ("ip_is_global_unicast", "255.255.255.255", False),
    ("ip_is_global_unicast", "0.0.0.0", False),
    ("ip_is_global_unicast", "224.0.0.1", False),
    ("ip_is_global_unicast", "2001:db8::abcd", True),
    ("ip_is_global_unicast", "ff00::1", False),
    ("ip_is_global_unicast", "::", False),
    ("ip_is_global_unicast", "fe80::1", False),
    ("ip_to_string", "192.168.0.1", "192.168.0.1"),
    ("ip_to_string", "2001:DB8:0:0:0::ABCD", "2001:db8::abcd"),
    ("ip_to_string", "1:0:0:1:0:0:0:1", "1:0:0:1::1"),
    ("ip_to_string", "1:0:0:0:1:0:0:1", "1::1:0:0:1"),
    ("ip_to_string", "1:0:1:1:1:1:1:1", "1:0:1:1:1:1:1:1"),
    ("ip_to_string", "::1.2.3.4", "::102:304"),
    ("ip_to_string", "0:0:0:0:0:0:0:0", "::"),
]


@pytest.mark.parametrize(("overload_id", "text", "expected"), PREDICATES)
def test_accessor(overload_id: str, text: str, expected: Any) -> None:
    result = overload(overload_id).impl(ip(text))
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("192.168.0.1", True),
        ("192.168.0.1.0", False),
        ("2001:db8::68", True),
        ("2001:db8:::68", False),
        ("127.0.0.256", False),
        (":::1", False),
        ("::ffff:1.2.3.4", False),
        ("fe80::1%eth0", False),
        ("01.2.3.4", False),
        ("", False),
        (" 1.2.3.4", False),
    ],
)
def test_is_ip(text: str, valid: bool) -> None:
    assert overload("is_ip").impl(text) is valid


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("127.0.0.1", True),
        ("2001:db8::abcd", True),
        ("2001:DB8::ABCD", False),
        ("2001:db8::0:0:0:abcd", False),
        ("2001:db8::68", True),
        ("::", True),
        ("0::0", False),
    ],
)
def test_is_canonical(text: str, canonical: bool) -> None:
    assert overload("ip_is_canonical").impl(text) is canonical


def _parse_error(text: str, detail: str) -> str:
    return f'IP Address "{text}" parse error during conversion from string: ParseAddr("{text}"): {detail}'


IP_ERRORS = [
    ("192.168.0.1.0", _parse_error("192.168.0.1.0", "IPv4 address too long")),
    (
        "2001:db8:::68",
        _parse_error("2001:db8:::68", 'each colon-separated field must have at least one digit (at ":68")'),
    ),
    ("127.0.0.256", _parse_error("127.0.0.256", "IPv4 field has value >255")),
    ("1.2.3", _parse_error("1.2.3", "IPv4 address too short")),
    ("01.2.3.4", _parse_error("01.2.3.4", "IPv4 field has octet with leading zero")),
    ("1..2.3", _parse_error("1..2.3", 'IPv4 field must have at least one digit (at ".2.3")')),
    ("1.2.3.x", _parse_error("1.2.3.x", 'unexpected character (at "x")')),
    ("", 'IP Address "" parse error during conversion from string: ParseAddr(""): unable to parse IP'),
    ("abc", _parse_error("abc", "unable to parse IP")),
    ("%eth0", _parse_error("%eth0", "missing IPv6 address")),
    ("fe80::1%", _parse_error("fe80::1%", "zone must be a non-empty string")),
    ("12345::", _parse_error("12345::", 'each group must have 4 or less digits (at "12345::")')),
    ("1:2", _parse_error("1:2", "address string too short")),
    ("1::2::3", _parse_error("1::2::3", 'multiple :: in address (at ":3")')),
    ("1:2:3:4:5:6:7:8:9", _parse_error("1:2:3:4:5:6:7:8:9", 'trailing garbage after address (at "9")')),
    (
        "1:2:3:4:5:6:7::8",
        _parse_error("1:2:3:4:5:6:7::8", "the :: must expand to at least one field of zeros"),
    ),
    ("1:2:", _parse_error("1:2:", 'colon must be followed by more characters (at ":")')),
    ("1:2x", _parse_error("1:2x", 'unexpected character, want colon (at "x")')),
    (
        "1:2:3.4.5.6",
        _parse_error(
            "1:2:3.4.5.6",
            'embedded IPv4 address must replace the final 2 fields of the address (at "3.4.5.6")',
        ),
    ),
    (
        "1:2:3:4:5:6:7:1.2.3.4",
        _parse_error(
            "1:2:3:4:5:6:7:1.2.3.4",
            'embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")',
        ),
    ),
    (
        "::1:2:3:4:5:6:7:1.2.3.4",
        _parse_error(
            "::1:2:3:4:5:6:7:1.2.3.4",
            'too many hex fields to fit an embedded IPv4 at the end of the address (at "1.2.3.4")',
        ),
    ),
    ("::1.2.3.04", _parse_error("::1.2.3.04", "IPv4 field has octet with leading zero")),
    ("fe80::1%eth0", 'IP address "fe80::1%eth0" with zone value is not allowed'),
    ("::ffff:1.2.3.4", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'),
    ("::ffff:102:304", 'IPv4-mapped IPv6 address "::ffff:102:304" is not allowed'),
]


@pytest.mark.parametrize(("text", "message"), IP_ERRORS)
def test_ip_error(text: str, message: str) -> None:
    for overload_id in ("string_to_ip", "ip_is_canonical"):
        LIB.check_error(overload_id, (text,), message)


def test_equality_and_string() -> None:
    assert equal(ip("2001:db8::68"), ip("2001:DB8::68"))
    assert not equal(ip("10.0.0.1"), ip("10.0.0.2"))
    assert not equal(ip("::"), ip("0.0.0.0"))
    assert not equal(ip("10.0.0.1"), "10.0.0.1")
    assert str(ip("2001:DB8::68")) == "2001:db8::68"
    assert hash(ip("::1")) == hash(ip("0::1"))


def test_costs() -> None:
    assert overload("string_to_ip").cost(["192.168.0.100"]) == 2
    assert overload("ip_is_canonical").cost(["192.168.0.100"]) == 3
    assert overload("ip_family").cost([ip("::1")]) == 1
    assert overload("is_ip").estimate([45]) == 5
