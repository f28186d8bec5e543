"""What gathering one Allocate(node, claims) call's facts produces, and the state it keeps while it
gathers: the facts with how to read their local identifiers back as the Problem's (`NodeFacts`), and
`Gathering`, which every pass of the builder extends (facts.py, claim_facts.py, counter_facts.py) and
canonical.py reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from clorm import Predicate

from ...model.problem import AttrValue, Claim, InUse, NodeView, PoolView, Problem, Slot, SlotKey
from ...model.terms import Taint
from ..dra import AllocatorView

# Who holds a device already allocated (by Device.ref): claim references, for explanations.
Holders = Mapping[str, Sequence[str]]


@dataclass(frozen=True)
class SlotInfo:
    key: SlotKey
    slot: Slot
    claim: int  # position of the claim in the call
    request: int
    sub: int
    first_available: bool


@dataclass
class NodeFacts:
    """The facts, and how to read local identifiers back as the Problem's."""

    problem: Problem
    view: NodeView
    claims: list[Claim]
    in_use: InUse
    allocator: AllocatorView
    slots: list[SlotInfo] = field(default_factory=list)
    devices: list[int] = field(default_factory=list)  # local device -> Problem device id
    pools: list[PoolView] = field(default_factory=list)
    counter_sets: list[tuple[PoolView, str]] = field(default_factory=list)
    holders: list[str] = field(default_factory=list)
    taints: list[Taint] = field(default_factory=list)
    constraints: list[tuple[int, int]] = field(default_factory=list)  # (claim position, index)
    capacities: list[tuple[int, str]] = field(default_factory=list)  # (local device, qualified name)
    # Capacity one share takes, unscaled, by (local slot, local device): for results.
    shares: dict[tuple[int, int], dict[str, Fraction]] = field(default_factory=dict)
    candidates: dict[int, list[int]] = field(default_factory=dict)  # local slot -> Problem device ids
    rank: dict[int, int] = field(default_factory=dict)  # Problem device id -> first-fit rank
    texts: dict[tuple[str, str], str] = field(default_factory=dict)  # (kind, value in facts) -> value
    facts: list[Predicate] = field(default_factory=list)
    hazards: list[str] = field(default_factory=list)

    def key(self) -> frozenset[Predicate]:
        """Equal for two calls whose rules see the same facts (same answer, in local identifiers)."""
        return frozenset(self.facts)


# Facts built, by predicate and fields (see Builder.add); cleared when it grows past _MAX_FACTS.
_FACTS: dict[tuple[Any, ...], Predicate] = {}
_MAX_FACTS = 100_000


class Gathering:
    """The builder's state: the facts so far, and the local numbering of what they name."""

    def __init__(self, nf: NodeFacts, holders: Holders | None, first_fit: bool, canonical: bool) -> None:
        self.nf = nf
        self.p = nf.problem
        self.holders = holders
        self.first_fit = first_fit
        self.canonical = canonical
        self.texts: dict[tuple[str, str], str] = {}  # (kind, value) -> its name in the facts
        self.local: dict[int, int] = {}
        self.pool_ids: dict[str, int] = {}
        self.set_ids: dict[tuple[str, str], int] = {}
        self.holder_ids: dict[str, int] = {}
        self.taint_ids: dict[Taint, int] = {}
        self.rank: dict[int, int] = {}
        self.pool_of: dict[int, PoolView] = {}
        # (slot, device) -> attribute values per constraint, gathered before numbering
        self.values: dict[tuple[int, int, int], AttrValue | None] = {}
        self.share_use: dict[tuple[int, int], dict[str, Fraction]] = {}
        self.listed: dict[int, list[int]] = {}

    def add(self, predicate: type[Predicate], **fields: Any) -> None:
        """A fact of `predicate` with these fields. Nodes of one shape repeat the same facts (a fleet's
        193 gatherings made 13,000 facts, 142 of them distinct), and a clorm fact costs microseconds to
        build: equal facts are one object, built once."""
        key = (predicate, *fields.items())
        fact = _FACTS.get(key)
        if fact is None:
            if len(_FACTS) >= _MAX_FACTS:
                _FACTS.clear()
            fact = _FACTS[key] = predicate(**fields)
        self.nf.facts.append(fact)
