"""NUMA affinity masks as the topology manager handles them (topologymanager/bitmask).

A mask is a Python int, bit i set = NUMA node i. `None` stands for "no preference" (the nil mask).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import combinations

# The kubelet's masks are 64 bits (BitMask.Add refuses any other bit): no machine it serves has a NUMA
# node outside 0..63, so a device attribute naming one is on none of the machine's nodes.
MASK_BITS = 64


def mask_of(nodes: Iterable[int]) -> int:
    out = 0
    for n in nodes:
        if 0 <= n < MASK_BITS:
            out |= 1 << n
    return out


def bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def count(mask: int) -> int:
    return bin(mask).count("1")


def narrower(a: int, b: int) -> bool:
    """a is narrower than b: fewer NUMA nodes, or as many and a smaller number (so {1,2} < {0,3})."""
    ca, cb = count(a), count(b)
    return a < b if ca == cb else ca < cb


def iterate(nodes: Iterable[int], visit: Callable[[int], None]) -> None:
    """Every non-empty subset of `nodes`: by size, then in lexicographic order of the node list."""
    ordered = sorted(nodes)
    for k in range(1, len(ordered) + 1):
        for combo in combinations(ordered, k):
            visit(mask_of(combo))


def all_masks(nodes: Iterable[int]) -> list[int]:
    """Every non-empty set of NUMA nodes, narrowest first (then numerically, as the kubelet ranks)."""
    ordered = sorted(nodes)
    out = [mask_of(c) for k in range(1, len(ordered) + 1) for c in combinations(ordered, k)]
    return sorted(out, key=lambda m: (count(m), m))


def is_subset(inner: int, outer: int) -> bool:
    return inner & ~outer == 0


@dataclass(frozen=True)
class Hint:
    """A TopologyHint: a NUMA affinity (None = any) and whether it is preferred."""

    mask: int | None
    preferred: bool

    def nodes(self) -> list[int] | None:
        return None if self.mask is None else bits(self.mask)

    def __str__(self) -> str:
        nodes = "any" if self.mask is None else ",".join(map(str, bits(self.mask)))
        return f"{{{nodes} {'preferred' if self.preferred else 'not preferred'}}}"
