"""Kubernetes IP library: ip(), isIP(), ip.isCanonical() and the IP accessors.

Addresses are parsed by Go's net/netip rules, reproduced here rather than taken
from Python's `ipaddress`, because the Kubernetes library is stricter than most
parsers and its errors quote netip: no leading zeros in IPv4 octets, no zones,
no IPv4-mapped IPv6 addresses, and messages like
`ParseAddr("1.2.3"): IPv4 address too short`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from ....model.errors import CelRuntimeError
from ....model.go_strings import go_quote
from .. import types as t
from ..registry import Library
from ..values import CelObject
from .costs import DOUBLE_TRAVERSAL, TRAVERSAL, UNIT
from .overloads import accepts

library = Library("kubernetes.net.ip")


class AddrParseError(Exception):
    """A netip.ParseAddr failure, worded as Go words it."""

    def __init__(self, text: str, msg: str, at: str = "") -> None:
        detail = f"ParseAddr({go_quote(text)}): {msg}"
        if at:
            detail += f" (at {go_quote(at)})"
        super().__init__(detail)


class Addr:
    """A netip.Addr: 4 or 16 bytes as an integer, plus an IPv6 zone."""

    __slots__ = ("bits", "value", "zone")

    def __init__(self, value: int, bits: int, zone: str = "") -> None:
        self.value = value
        self.bits = bits
        self.zone = zone

    @property
    def is4(self) -> bool:
        return self.bits == 32

    @property
    def is6(self) -> bool:
        return self.bits == 128

    @property
    def is_4in6(self) -> bool:
        return self.is6 and self.value >> 32 == 0xFFFF

    def unmap(self) -> Addr:
        return Addr(self.value & 0xFFFFFFFF, 32) if self.is_4in6 else self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Addr) and (self.value, self.bits, self.zone) == (
            other.value,
            other.bits,
            other.zone,
        )

    def __hash__(self) -> int:
        return hash((self.value, self.bits, self.zone))

    def __str__(self) -> str:
        if self.is4:
            return ".".join(str((self.value >> s) & 0xFF) for s in (24, 16, 8, 0))
        if self.is_4in6:
            text = "::ffff:" + str(self.unmap())
        else:
            groups = [(self.value >> (112 - 16 * i)) & 0xFFFF for i in range(8)]
            # RFC 5952: the longest run (two or more) of zero groups becomes "::", first on ties.
            zero_start, zero_end = -1, -1
            for i in range(8):
                j = i
                while j < 8 and groups[j] == 0:
                    j += 1
                if j - i >= 2 and j - i > zero_end - zero_start:
                    zero_start, zero_end = i, j
            parts: list[str] = []
            i = 0
            while i < 8:
                if i == zero_start:
                    parts.append("::")
                    i = zero_end
                    if i >= 8:
                        break
                elif i > 0:
                    parts.append(":")
                parts.append(f"{groups[i]:x}")
                i += 1
            text = "".join(parts)
        return text + ("%" + self.zone if self.zone else "")

    # Classification, as netip defines it.

    def is_unspecified(self) -> bool:
        return self.value == 0 and self.zone == ""

    def is_loopback(self) -> bool:
        a = self.unmap()
        return (a.value >> 24) == 127 if a.is4 else a.value == 1

    def is_multicast(self) -> bool:
        a = self.unmap()
        return (a.value >> 28) == 0xE if a.is4 else (a.value >> 120) == 0xFF

    def is_link_local_multicast(self) -> bool:
        a = self.unmap()
        if a.is4:
            return (a.value >> 8) == 0xE00000
        return (a.value >> 112) & 0xFF0F == 0xFF02

    def is_link_local_unicast(self) -> bool:
        a = self.unmap()
        if a.is4:
            return (a.value >> 16) == 0xA9FE
        return (a.value >> 112) & 0xFFC0 == 0xFE80

    def is_global_unicast(self) -> bool:
        a = self.unmap()
        if a.is4 and a.value in (0, 0xFFFFFFFF):
            return False
        if a.is6 and a.value == 0 and a.zone == "":
            return False
        return not (a.is_loopback() or a.is_multicast() or a.is_link_local_unicast())


def _parse_ipv4_fields(text: str, start: int, end: int) -> list[int]:
    fields: list[int] = []
    s = text[start:end]
    val, dig_len = 0, 0
    for i, ch in enumerate(s):
        if "0" <= ch <= "9":
            if dig_len == 1 and val == 0:
                raise AddrParseError(text, "IPv4 field has octet with leading zero")
            val = val * 10 + ord(ch) - ord("0")
            dig_len += 1
            if val > 255:
                raise AddrParseError(text, "IPv4 field has value >255")
        elif ch == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise AddrParseError(text, "IPv4 field must have at least one digit", s[i:])
            if len(fields) == 3:
                raise AddrParseError(text, "IPv4 address too long")
            fields.append(val)
            val, dig_len = 0, 0
        else:
            raise AddrParseError(text, "unexpected character", s[i:])
    if len(fields) < 3:
        raise AddrParseError(text, "IPv4 address too short")
    fields.append(val)
    return fields


def _parse_ipv6(text: str) -> Addr:
    s, zone = text, ""
    pct = s.find("%")
    if pct != -1:
        s, zone = s[:pct], s[pct + 1 :]
        if zone == "":
            raise AddrParseError(text, "zone must be a non-empty string")
    ip = [0] * 16
    ellipsis = -1
    if len(s) >= 2 and s[0] == ":" and s[1] == ":":
        ellipsis = 0
        s = s[2:]
        if s == "":
            return Addr(0, 128, zone)
    i = 0
    while i < 16:
        off, acc = 0, 0
        while off < len(s):
            digit = _HEX.get(s[off])
            if digit is None:
                break
            acc = (acc << 4) + digit
            if off > 3:
                raise AddrParseError(text, "each group must have 4 or less digits", s)
            if acc > 0xFFFF:
                raise AddrParseError(text, "IPv6 field has value >=2^16", s)
            off += 1
        if off == 0:
            raise AddrParseError(text, "each colon-separated field must have at least one digit", s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise AddrParseError(
                    text, "embedded IPv4 address must replace the final 2 fields of the address", s
                )
            if i + 4 > 16:
                raise AddrParseError(
                    text, "too many hex fields to fit an embedded IPv4 at the end of the address", s
                )
            end = len(text) - (len(zone) + 1 if zone else 0)
            ip[i : i + 4] = _parse_ipv4_fields(text, end - len(s), end)
            s = ""
            i += 4
            break
        ip[i] = acc >> 8
        ip[i + 1] = acc & 0xFF
        i += 2
        s = s[off:]
        if s == "":
            break
        if s[0] != ":":
            raise AddrParseError(text, "unexpected character, want colon", s)
        if len(s) == 1:
            raise AddrParseError(text, "colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise AddrParseError(text, "multiple :: in address", s)
            ellipsis = i
            s = s[1:]
            if s == "":
                break
    if s != "":
        raise AddrParseError(text, "trailing garbage after address", s)
    if i < 16:
        if ellipsis < 0:
            raise AddrParseError(text, "address string too short")
        n = 16 - i
        ip = ip[:ellipsis] + [0] * n + ip[ellipsis:i]
    elif ellipsis >= 0:
        raise AddrParseError(text, "the :: must expand to at least one field of zeros")
    return Addr(int.from_bytes(bytes(ip), "big"), 128, zone)


_HEX = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}


def parse_addr(text: str) -> Addr:
    """Go's netip.ParseAddr."""
    for ch in text:
        if ch == ".":
            fields = _parse_ipv4_fields(text, 0, len(text))
            return Addr(int.from_bytes(bytes(fields), "big"), 32)
        if ch == ":":
            return _parse_ipv6(text)
        if ch == "%":
            raise AddrParseError(text, "missing IPv6 address")
    raise AddrParseError(text, "unable to parse IP")


def parse_ip(text: str) -> Addr:
    """The Kubernetes rules on top of ParseAddr; raises ValueError with upstream's message."""
    try:
        addr = parse_addr(text)
    except AddrParseError as e:
        raise ValueError(f"IP Address {go_quote(text)} parse error during conversion from string: {e}") from e
    if addr.zone:
        raise ValueError(f"IP address {go_quote(text)} with zone value is not allowed")
    if addr.is_4in6:
        raise ValueError(f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed")
    return addr


@dataclass(frozen=True)
class IP(CelObject):
    """An IP address (`net.IP`), equal and hashed by its address."""

    cel_type: ClassVar[t.CelType] = t.IP
    go_type: ClassVar[str] = "cel.IP"

    addr: Addr

    def __str__(self) -> str:
        return str(self.addr)

    def __repr__(self) -> str:
        return f"ip({str(self)!r})"


@library.function("ip", params=(t.STRING,), result=t.IP, id="string_to_ip", costs=TRAVERSAL)
def ip(s: str) -> IP:
    try:
        return IP(parse_ip(s))
    except ValueError as e:
        raise CelRuntimeError(str(e)) from e


library.function("isIP", params=(t.STRING,), result=t.BOOL, id="is_ip", costs=TRAVERSAL)(
    accepts(parse_ip, ValueError)
)


# Parsing, then comparing the canonical form with the input.
@library.function(
    "ip.isCanonical", params=(t.STRING,), result=t.BOOL, id="ip_is_canonical", costs=DOUBLE_TRAVERSAL
)
def ip_is_canonical(s: str) -> bool:
    return str(ip(s)) == s


@library.function("family", member=True, params=(t.IP,), result=t.INT, id="ip_family", costs=UNIT)
def family(value: IP) -> int:
    return 4 if value.addr.is4 else 6


def _of_addr(predicate: Callable[[Addr], bool]) -> Callable[[IP], bool]:
    return lambda value: predicate(value.addr)


for _name, _id, _predicate in (
    ("isUnspecified", "ip_is_unspecified", Addr.is_unspecified),
    ("isLoopback", "ip_is_loopback", Addr.is_loopback),
    ("isLinkLocalMulticast", "ip_is_link_local_multicast", Addr.is_link_local_multicast),
    ("isLinkLocalUnicast", "ip_is_link_local_unicast", Addr.is_link_local_unicast),
    ("isGlobalUnicast", "ip_is_global_unicast", Addr.is_global_unicast),
):
    library.function(_name, member=True, params=(t.IP,), result=t.BOOL, id=_id, costs=UNIT)(
        _of_addr(_predicate)
    )


@library.function("string", params=(t.IP,), result=t.STRING, id="ip_to_string", costs=UNIT)
def ip_to_string(value: IP) -> str:
    return str(value.addr)
