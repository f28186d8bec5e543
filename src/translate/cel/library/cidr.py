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
from dataclasses import dataclass
from typing import Any, ClassVar

from ....model.errors import CelRuntimeError
from ....model.go_strings import go_quote
from .. import types as t
from ..registry import Costs, Declaration, Library
from ..values import CelObject
from .costs import TRAVERSAL, UNIT, size_at, traversal
from .ip import IP, Addr, AddrParseError, parse_addr
from .ip import ip as _to_ip
from .overloads import accepts

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


@dataclass(frozen=True)
class CIDR(CelObject):
    """A network prefix (`net.CIDR`), equal and hashed by its address and length."""

    cel_type: ClassVar[t.CelType] = t.CIDR
    go_type: ClassVar[str] = "cel.CIDR"

    prefix: Prefix

    def __str__(self) -> str:
        return str(self.prefix)

    def __repr__(self) -> str:
        return f"cidr({str(self)!r})"


@library.function("cidr", params=(t.STRING,), result=t.CIDR, id="string_to_cidr", costs=TRAVERSAL)
def cidr(s: str) -> CIDR:
    try:
        return CIDR(parse_cidr(s))
    except ValueError as e:
        # Upstream adds the same context a second time here.
        raise CelRuntimeError(f"network address parse error during conversion from string: {e}") from e


def _containment(base: int, parses: bool) -> Costs:
    """Comparing two byte strings (a CIDR counts as size 1) plus `base`, and parsing a string argument.

    The estimate's worst case compares two 16-byte addresses.
    """

    def cost(args: Sequence[Any]) -> int:
        parsed = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
        return traversal(2) + base + traversal(len(parsed))

    def estimate(sizes: Sequence[int]) -> int:
        return traversal(32) + base + (traversal(size_at(sizes, 1)) if parses else 0)

    return Costs(cost, estimate)


library.function("isCIDR", params=(t.STRING,), result=t.BOOL, id="is_cidr", costs=TRAVERSAL)(
    accepts(parse_cidr, ValueError)
)


def _contains_cidr(outer: Prefix, inner: Prefix) -> bool:
    if outer.bits > inner.addr.bits:
        return False
    # Upstream compares our masked network with the other address at our length
    # *without* masking it, so only a CIDR whose address is exactly our network
    # address is contained: 10.0.0.0/8 contains 10.0.0.0/16 but not 10.1.0.0/16.
    return outer.masked() == Prefix(inner.addr, outer.bits) and outer.bits <= inner.bits


def _contains(name: str, overload_id: str, operand: t.CelType, base: int) -> Declaration:
    """Containment, of a value or of a string to parse; `base` is what the check adds to comparing two
    byte strings."""
    return library.function(
        name,
        member=True,
        params=(t.CIDR, operand),
        result=t.BOOL,
        id=overload_id,
        costs=_containment(base, parses=operand == t.STRING),
    )


# Checking a CIDR costs one more comparison (and a size-1 traversal) than checking an address.
_CIDR_BASE = traversal(1) + 1


@_contains("containsIP", "cidr_contains_ip_string", t.STRING, 0)
def contains_ip_string(network: CIDR, s: str) -> bool:
    return network.prefix.contains(_to_ip(s).addr)


@_contains("containsIP", "cidr_contains_ip_ip", t.IP, 0)
def contains_ip(network: CIDR, address: IP) -> bool:
    return network.prefix.contains(address.addr)


@_contains("containsCIDR", "cidr_contains_cidr_string", t.STRING, _CIDR_BASE)
def contains_cidr_string(network: CIDR, s: str) -> bool:
    return _contains_cidr(network.prefix, cidr(s).prefix)


@_contains("containsCIDR", "cidr_contains_cidr", t.CIDR, _CIDR_BASE)
def contains_cidr(network: CIDR, other: CIDR) -> bool:
    return _contains_cidr(network.prefix, other.prefix)


@library.function("ip", member=True, params=(t.CIDR,), result=t.IP, id="cidr_ip", costs=UNIT)
def cidr_ip(network: CIDR) -> IP:
    return IP(network.prefix.addr)


@library.function("masked", member=True, params=(t.CIDR,), result=t.CIDR, id="cidr_masked", costs=UNIT)
def masked(network: CIDR) -> CIDR:
    return CIDR(network.prefix.masked())


@library.function(
    "prefixLength", member=True, params=(t.CIDR,), result=t.INT, id="cidr_prefix_length", costs=UNIT
)
def prefix_length(network: CIDR) -> int:
    return network.prefix.bits


@library.function("string", params=(t.CIDR,), result=t.STRING, id="cidr_to_string", costs=UNIT)
def cidr_to_string(network: CIDR) -> str:
    return str(network.prefix)
