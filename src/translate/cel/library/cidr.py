"""Kubernetes CIDR library: cidr(), isCIDR(), containsIP, containsCIDR, ip, masked, prefixLength.

Prefixes are parsed by Go's netip.ParsePrefix rules (see `ip`), with the
Kubernetes extra: no IPv4-mapped IPv6 address. Host bits after the prefix are
kept (`cidr('10.0.0.1/8')` is valid; `masked()` clears them), and two CIDRs are
equal only when address and length both match.

`containsCIDR` reproduces what the Kubernetes code computes, which is narrower
than its documentation says: the other CIDR's address must equal this CIDR's
network address (`cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')` is
false on a real API server).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ....errors import CelRuntimeError
from .. import types as t
from ..registry import Library
from ..values import CelObject
from .ip import IP, Addr, AddrParseError, parse_addr, parse_ip
from .standard_strings import traversal
from .strings import go_quote

library = Library("net.cidr")


class Prefix:
    """A netip.Prefix: an address and a prefix length (host bits not cleared)."""

    __slots__ = ("addr", "bits")

    def __init__(self, addr: Addr, bits: int) -> None:
        self.addr = addr
        self.bits = bits

    def masked(self) -> Prefix:
        host_bits = self.addr.bits - self.bits
        value = (self.addr.value >> host_bits) << host_bits
        return Prefix(Addr(value, self.addr.bits), self.bits)

    def contains(self, addr: Addr) -> bool:
        if addr.zone or addr.bits != self.addr.bits:
            return False
        host_bits = self.addr.bits - self.bits
        return (addr.value >> host_bits) == (self.addr.value >> host_bits)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Prefix) and self.addr == other.addr and self.bits == other.bits

    def __hash__(self) -> int:
        return hash((self.addr, self.bits))

    def __str__(self) -> str:
        return f"{self.addr}/{self.bits}"


def parse_prefix(text: str) -> Prefix:
    """Go's netip.ParsePrefix; raises ValueError with netip's message."""

    def fail(msg: str) -> ValueError:
        return ValueError(f"netip.ParsePrefix({go_quote(text)}): {msg}")

    slash = text.rfind("/")
    if slash < 0:
        raise fail("no '/'")
    try:
        addr = parse_addr(text[:slash])
    except AddrParseError as e:
        raise fail(str(e)) from e
    if addr.is6 and addr.zone:
        raise fail("IPv6 zones cannot be present in a prefix")
    bits_text = text[slash + 1 :]
    # Go refuses a sign or leading zero (Atoi alone would take them).
    bad_bits = fail("bad bits after slash: " + go_quote(bits_text))
    if not (bits_text.isascii() and bits_text.isdigit()) or (len(bits_text) > 1 and bits_text[0] == "0"):
        raise bad_bits
    bits = int(bits_text)
    if bits > 2**63 - 1:
        raise bad_bits
    if bits < 0 or bits > addr.bits:
        raise fail("prefix length out of range")
    return Prefix(addr, bits)


def parse_cidr(text: str) -> Prefix:
    """The Kubernetes rules on top of ParsePrefix; raises ValueError with upstream's message."""
    try:
        prefix = parse_prefix(text)
    except ValueError as e:
        raise ValueError(f"network address parse error during conversion from string: {e}") from e
    if prefix.addr.is_4in6:
        raise ValueError(f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed")
    return prefix


class CIDR(CelObject):
    """A network prefix (`net.CIDR`)."""

    cel_type: ClassVar[t.CelType] = t.CIDR
    go_type: ClassVar[str] = "cel.CIDR"

    def __init__(self, prefix: Prefix) -> None:
        self.prefix = prefix

    def __str__(self) -> str:
        return str(self.prefix)

    def __repr__(self) -> str:
        return f"cidr({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CIDR) and self.prefix == other.prefix

    def __hash__(self) -> int:
        return hash(self.prefix)


def _to_cidr(s: str) -> CIDR:
    try:
        return CIDR(parse_cidr(s))
    except ValueError as e:
        # Upstream adds the same context a second time here.
        raise CelRuntimeError(f"network address parse error during conversion from string: {e}") from e


def _to_ip(s: str) -> IP:
    try:
        return IP(parse_ip(s))
    except ValueError as e:
        raise CelRuntimeError(str(e)) from e


def _string_len(args: Sequence[Any], i: int) -> int:
    return len(args[i]) if i < len(args) and isinstance(args[i], str) else 1


def _parse_cost(args: Sequence[Any]) -> int:
    return traversal(_string_len(args, 0))


def _parse_estimate(sizes: Sequence[int]) -> int:
    return traversal(sizes[0] if sizes else 0)


def _unit(_: Sequence[Any]) -> int:
    return 1


def _unit_estimate(_: Sequence[int]) -> int:
    return 1


def _contains_ip_cost(args: Sequence[Any]) -> int:
    # Comparing two byte strings (a CIDR counts as size 1), plus parsing a string argument.
    cost = traversal(2)
    if len(args) > 1 and isinstance(args[1], str):
        cost += traversal(len(args[1]))
    return cost


def _contains_cidr_cost(args: Sequence[Any]) -> int:
    cost = traversal(2) + traversal(1) + 1
    if len(args) > 1 and isinstance(args[1], str):
        cost += traversal(len(args[1]))
    return cost


def _contains_estimate(base: int) -> Any:
    def estimate(sizes: Sequence[int]) -> int:
        # Worst case compares two 16-byte addresses.
        return traversal(32) + base

    return estimate


def _contains_string_estimate(base: int) -> Any:
    def estimate(sizes: Sequence[int]) -> int:
        return traversal(32) + base + traversal(sizes[1] if len(sizes) > 1 else 0)

    return estimate


@library.function(
    "cidr", params=(t.STRING,), result=t.CIDR, id="string_to_cidr", cost=_parse_cost, estimate=_parse_estimate
)
def cidr(s: str) -> CIDR:
    return _to_cidr(s)


@library.function(
    "isCIDR", params=(t.STRING,), result=t.BOOL, id="is_cidr", cost=_parse_cost, estimate=_parse_estimate
)
def is_cidr(s: str) -> bool:
    try:
        parse_cidr(s)
    except ValueError:
        return False
    return True


@library.function(
    "containsIP",
    member=True,
    params=(t.CIDR, t.STRING),
    result=t.BOOL,
    id="cidr_contains_ip_string",
    cost=_contains_ip_cost,
    estimate=_contains_string_estimate(0),
)
def contains_ip_string(network: CIDR, s: str) -> bool:
    return network.prefix.contains(_to_ip(s).addr)


@library.function(
    "containsIP",
    member=True,
    params=(t.CIDR, t.IP),
    result=t.BOOL,
    id="cidr_contains_ip_ip",
    cost=_contains_ip_cost,
    estimate=_contains_estimate(0),
)
def contains_ip(network: CIDR, address: IP) -> bool:
    return network.prefix.contains(address.addr)


@library.function(
    "containsCIDR",
    member=True,
    params=(t.CIDR, t.STRING),
    result=t.BOOL,
    id="cidr_contains_cidr_string",
    cost=_contains_cidr_cost,
    estimate=_contains_string_estimate(2),
)
def contains_cidr_string(network: CIDR, s: str) -> bool:
    return _contains_cidr(network.prefix, _to_cidr(s).prefix)


@library.function(
    "containsCIDR",
    member=True,
    params=(t.CIDR, t.CIDR),
    result=t.BOOL,
    id="cidr_contains_cidr",
    cost=_contains_cidr_cost,
    estimate=_contains_estimate(2),
)
def contains_cidr(network: CIDR, other: CIDR) -> bool:
    return _contains_cidr(network.prefix, other.prefix)


def _contains_cidr(outer: Prefix, inner: Prefix) -> bool:
    if outer.bits > inner.addr.bits:
        return False
    # Upstream compares our masked network with the other address at our length
    # *without* masking it, so only a CIDR whose address is exactly our network
    # address is contained: 10.0.0.0/8 contains 10.0.0.0/16 but not 10.1.0.0/16.
    return outer.masked() == Prefix(inner.addr, outer.bits) and outer.bits <= inner.bits


@library.function(
    "ip", member=True, params=(t.CIDR,), result=t.IP, id="cidr_ip", cost=_unit, estimate=_unit_estimate
)
def cidr_ip(network: CIDR) -> IP:
    return IP(network.prefix.addr)


@library.function(
    "masked",
    member=True,
    params=(t.CIDR,),
    result=t.CIDR,
    id="cidr_masked",
    cost=_unit,
    estimate=_unit_estimate,
)
def masked(network: CIDR) -> CIDR:
    return CIDR(network.prefix.masked())


@library.function(
    "prefixLength",
    member=True,
    params=(t.CIDR,),
    result=t.INT,
    id="cidr_prefix_length",
    cost=_unit,
    estimate=_unit_estimate,
)
def prefix_length(network: CIDR) -> int:
    return network.prefix.bits


@library.function(
    "string", params=(t.CIDR,), result=t.STRING, id="cidr_to_string", cost=_unit, estimate=_unit_estimate
)
def cidr_to_string(network: CIDR) -> str:
    return str(network.prefix)
