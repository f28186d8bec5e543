"""The facts of one Allocate(node, claims) call, from the Problem, for the rules in `rules/`.

The allocator's pre-search validation runs first (`solver.dra.AllocatorView.check`, so errors read the
same). Then each request slot gets its candidate devices: what the selectors accept and nothing about
the device alone rules out (binding conditions, the partitionable gate, a capacity request it cannot
take). Everything that depends on what else is picked — in-use state, taints, counters, groups,
capacity sums, constraints — is left to the rules, so that an explanation can name it.

Identifiers are local and numbered in search order (slots, then devices by first-fit rank, then pools,
counter sets, holders and taints by first appearance), so nodes of the same shape give the same facts
and one answer serves them all. Pairs whose evaluation would make the scheduler stop with an error (a
CEL error, a refused capacity request, a constraint violated in All mode) are never candidates; they
are listed as hazards, because only the search order decides whether the scheduler meets them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from clorm import Predicate

from ...model.node_selector import is_node_local, selector_hazard, terms_of
from ...model.problem import (
    AttrValue,
    Claim,
    CounterUse,
    Device,
    InUse,
    NodeView,
    PoolView,
    Problem,
    SelectableTable,
    Slot,
    SlotKey,
)
from ...model.terms import Taint
from ..attributes import as_set
from ..capacity import CapacityError, device_capacity, fit
from ..dra import AllocationError, AllocatorView
from . import canonical
from . import schema as s
from .amounts import TooLarge, overdraws, scaled

__all__ = ["Holders", "NodeFacts", "SlotInfo", "TooLarge", "gather"]

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


class Builder:
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

    # --- pass 1: candidates, in Problem ids ----------------------------------------------------------

    def slots(self) -> None:
        nf = self.nf
        for pool in nf.view.pools:
            for d in pool.devices:
                self.pool_of[d] = pool
                if pool.state == "complete":
                    self.rank.setdefault(d, len(self.rank))
        nf.rank = self.rank
        for ci, claim in enumerate(nf.claims):
            for ri, request in enumerate(claim.requests):
                for si, slot in enumerate(request.slots):
                    nf.slots.append(SlotInfo((claim.id, ri, si), slot, ci, ri, si, request.first_available))
        for position, info in enumerate(nf.slots):
            if info.slot.mode == "All":
                self.all_candidates(position, info)
            else:
                self.exact_candidates(position, info)
        self.selector_hazards()

    def selector_hazards(self) -> None:
        for position, ds in self.nf.candidates.items():
            info = self.nf.slots[position]
            hazard = selector_hazard(self.nf.claims[info.claim], info.slot, (self.p.devices[d] for d in ds))
            if hazard is not None:
                self.nf.hazards.append(hazard)
                return

    def exact_candidates(self, position: int, info: SlotInfo) -> None:
        p = self.p
        admin = bool(info.slot.admin_access)
        out: list[int] = []
        table = p.selectable
        column = table.column_of(info.key) if isinstance(table, SelectableTable) else None
        for d in self.rank:
            device = p.devices[d]
            outcome = column.get(d, False) if column is not None else False
            if column is None or outcome.__class__ is tuple:
                outcome = table.get((info.key, d), False)  # an error, worded
            if not p.on("DeviceBindingAndStatus") and device.binding_conditions:
                continue
            if not admin and device.ref in self.nf.in_use.exclusive:
                # The search skips it before evaluating anything: never an error, only held.
                if outcome is True and self.takeable(position, info, device, quiet=True):
                    out.append(d)
                continue
            if isinstance(outcome, str):
                self.nf.hazards.append(outcome)
                continue
            if outcome and self.takeable(position, info, device):
                out.append(d)
        self.nf.candidates[position] = out

    def all_candidates(self, position: int, info: SlotInfo) -> None:
        frozen = self.nf.allocator.slots[info.key].all_devices
        self.listed[position] = list(frozen)
        self.nf.candidates[position] = [
            d for d in frozen if self.takeable(position, info, self.p.devices[d], all_mode=True)
        ]

    def takeable(
        self, position: int, info: SlotInfo, device: Device, all_mode: bool = False, quiet: bool = False
    ) -> bool:
        """What rules a (slot, device) pair out on its own; errors it would raise become hazards (unless
        `quiet`: the search never evaluates a device it skips as in use)."""
        p = self.p
        hazards = [] if quiet else self.nf.hazards
        allocator = self.nf.allocator
        if device.consumes and not p.on("PartitionableDevices"):
            return False
        multi = allocator.multi(device)
        existing = device.ref in self.nf.in_use.shared_capacity
        if (
            device.consumes
            and not p.on("CompatibilityGroups")
            and not (multi and existing)
            and allocator.peers_grouped(device)
        ):
            return False
        if p.on("ConsumableCapacity"):
            try:
                if multi:
                    # What existing shares leave is the capacity rule's business.
                    consumed = fit(
                        device, info.slot.capacity_requests, {}, {}, p.on("FractionalCapacityRange")
                    )
                else:
                    consumed = allocator.capacity_fit(info.key, device.id, self.nf.claims[info.claim])
            except (CapacityError, AllocationError) as e:
                hazards.append(str(e))
                return False
            if consumed is None:
                return False
            if multi:
                self.share_use[(position, device.id)] = consumed
        claim = self.nf.claims[info.claim]
        data = allocator.slots[info.key]
        for index, constraint in enumerate(claim.constraints):
            if not constraint.applies_to(info.slot):
                continue
            if all_mode:
                hazards.append(
                    f"claim {claim.ref}, request {info.slot.name}: all devices are taken under a constraint"
                )
            try:
                value = allocator.attribute(data, device, constraint.attribute)
            except AllocationError as e:
                hazards.append(str(e))
                return False
            self.values[(position, device.id, index)] = value
        return True

    # --- pass 2: numbering and facts -----------------------------------------------------------------

    def number(self) -> None:
        used = {d for ds in self.nf.candidates.values() for d in ds}
        used |= {d for ds in self.listed.values() for d in ds}
        order = sorted(used, key=self.rank.__getitem__)
        if self.canonical and not canonical.order_matters(self):
            order = canonical.order(self, order)
        for d in order:
            self.local[d] = len(self.nf.devices)
            self.nf.devices.append(d)

    def emit(self) -> None:
        nf = self.nf
        p = self.p
        self.add(s.MaxResults, n=p.max_results)
        for position, info in enumerate(nf.slots):
            self.slot_facts(position, info)
        for d in nf.devices:
            self.device_facts(d)
        self.constraint_facts()
        self.counter_facts()
        self.capacity_facts()
        if self.first_fit:
            self.levels()

    def slot_facts(self, position: int, info: SlotInfo) -> None:
        slot = info.slot
        self.add(s.SlotFact, slot=position, claim=info.claim, request=info.request, sub=info.sub)
        if info.first_available and info.sub == 0:
            self.add(s.Alternatives, claim=info.claim, request=info.request)
        if slot.mode == "All":
            self.add(s.AllMode, slot=position)
            for d in self.listed[position]:
                self.add(s.Listed, slot=position, device=self.local[d])
        else:
            # Beyond the claim limit every count fails alike (and clingo's integers are 32-bit).
            self.add(s.Count, slot=position, n=min(slot.count, self.p.max_results + 1))
        if slot.admin_access:
            self.add(s.Admin, slot=position)
        for d in self.nf.candidates[position]:
            self.add(s.Cand, slot=position, device=self.local[d])
        if self.p.on("DeviceTaints"):
            for i, t in enumerate(slot.tolerations):
                self.add(
                    s.TolerationFact,
                    slot=position,
                    index=i,
                    key=t.key,
                    operator=t.operator,
                    value=t.value,
                    effect=t.effect,
                )

    def holder(self, name: str) -> int:
        if name not in self.holder_ids:
            self.holder_ids[name] = len(self.nf.holders)
            self.nf.holders.append(name)
        return self.holder_ids[name]

    def held_by(self, ref: str) -> list[int]:
        names = (self.holders or {}).get(ref) or ("",)
        return [self.holder(n) for n in names]

    def device_facts(self, d: int) -> None:
        p = self.p
        nf = self.nf
        device = p.devices[d]
        local = self.local[d]
        ref = device.ref
        multi = nf.allocator.multi(device)
        if multi:
            self.add(s.Multi, device=local)
        if ref in nf.in_use.exclusive:
            for h in self.held_by(ref):
                self.add(s.Held, device=local, holder=h)
        if ref in nf.in_use.shared and not multi:
            for h in self.held_by(ref):
                self.add(s.Shared, device=local, holder=h)
        if multi and ref in nf.in_use.shared_capacity:
            self.add(s.ExistingShare, device=local)
        if d in nf.view.unreachable:
            self.add(s.Unreachable, device=local)
        if is_node_local(device):
            self.add(s.NodeLocal, device=local)
        elif terms_of(device) > 1:
            self.add(s.ManyTerms, device=local)
        if p.on("DeviceTaints"):
            for taint in device.taints:
                t = self.taint_ids.get(taint)
                if t is None:
                    t = self.taint_ids[taint] = len(self.nf.taints)
                    self.nf.taints.append(taint)
                    self.add(s.TaintDef, taint=t, key=taint.key, value=taint.value, effect=taint.effect)
                self.add(s.TaintOn, device=local, taint=t)

    def constraint_facts(self) -> None:
        nf = self.nf
        lists = self.p.on("ListTypeAttributes")
        q = 0
        for ci, claim in enumerate(nf.claims):
            for index, constraint in enumerate(claim.constraints):
                nf.constraints.append((ci, index))
                self.add(s.ConstraintFact, constraint=q, claim=ci, kind=constraint.kind)
                for position, info in enumerate(nf.slots):
                    if info.claim != ci or not constraint.applies_to(info.slot):
                        continue
                    self.add(s.Covers, constraint=q, slot=position)
                    for d in sorted(nf.candidates[position], key=self.local.__getitem__):
                        self.value_facts(q, position, self.local[d], self.values[(position, d, index)], lists)
                q += 1

    def value_facts(self, q: int, position: int, local: int, value: AttrValue | None, lists: bool) -> None:
        if value is None or (lists and as_set(value) is None):
            self.add(s.NoValue, constraint=q, slot=position, device=local)
            return
        if not lists and (value.is_list or value.kind is None):
            self.add(s.Odd, constraint=q, slot=position, device=local)
            return
        assert value.kind is not None
        for v in sorted(set(value.values), key=str):
            text = ("true" if v else "false") if isinstance(v, bool) else str(v)
            if self.canonical:
                # Only equality matters: values are named in the order devices have them.
                name = self.texts.setdefault((value.kind, text), f"v{len(self.texts)}")
                self.nf.texts[(value.kind, name)] = text
                text = name
            self.add(s.Value, constraint=q, slot=position, device=local, kind=value.kind, text=text)

    def counter_facts(self) -> None:
        """Counters of every pool a candidate draws from; groups of every counter set it draws from."""
        nf = self.nf
        p = self.p
        if not p.on("PartitionableDevices"):
            return
        pools: list[PoolView] = []
        # counter set -> (slot, device, counters) per charge a pick can make (see counters.lp)
        draws: dict[int, list[tuple[int, int, Mapping[str, Fraction]]]] = {}
        slots_of = self.slots_of()
        for d in nf.devices:
            device = p.devices[d]
            if not device.consumes:
                continue
            pool = self.pool_of[d]
            if pool.ref not in self.pool_ids:
                self.pool_ids[pool.ref] = len(self.pool_ids)
                nf.pools.append(pool)
                pools.append(pool)
            local = self.local[d]
            self.add(s.InPool, device=local, pool=self.pool_ids[pool.ref])
            merged = _merged(device.consumes)
            for name, counters in merged.items():
                if name not in pool.counter_sets:
                    continue  # an unknown counter set: the pool is invalid and never searched
                cs = self.set_id(pool, name)
                self.add(s.Draws, device=local, counter_set=cs)
                # Every pick of a device that is not multi-allocatable draws (an admin pick again); a
                # multi-allocatable one draws once, when its first share opens it (slot -1).
                charges = [-1] if nf.allocator.multi(device) else slots_of.get(d, [])
                draws.setdefault(cs, []).extend((slot, local, counters) for slot in charges)
            if p.on("CompatibilityGroups"):
                for use in device.consumes:
                    for g in use.groups if use.counter_set in pool.counter_sets else ():
                        self.add(
                            s.Declares, device=local, counter_set=self.set_id(pool, use.counter_set), group=g
                        )
        for pool in pools:
            available = nf.allocator.available(pool)
            grouped = p.on("CompatibilityGroups") and _grouped(p, pool)
            for name in sorted(pool.counter_sets):
                drawn = (pool.ref, name) in self.set_ids
                counted = False
                drawing = draws.get(self.set_ids.get((pool.ref, name), -1), [])
                totals = _totals(drawing)
                for counter in sorted(available.get(name, {})):
                    left = available[name][counter]
                    if totals.get(counter, 0) <= left:
                        continue  # all candidates together fit: the counter cannot stand in the way
                    users = [(slot, d, c[counter]) for slot, d, c in drawing if counter in c]
                    counted = True
                    self.counter(self.set_id(pool, name), counter, left, users)
                if counted:
                    self.add(s.CounterSet, counter_set=self.set_id(pool, name), pool=self.pool_ids[pool.ref])
                if drawn and grouped:
                    cs = self.set_id(pool, name)
                    has, plain, common = nf.allocator.group_state(pool, name)
                    if has:
                        self.add(s.Seed, counter_set=cs, kind="plain" if plain else "grouped")
                        for g in sorted(common):
                            self.add(s.SeedGroup, counter_set=cs, group=g)

    def set_id(self, pool: PoolView, name: str) -> int:
        """Counter sets are numbered as candidates first draw on them (then by name)."""
        key = (pool.ref, name)
        if key not in self.set_ids:
            self.set_ids[key] = len(self.nf.counter_sets)
            self.nf.counter_sets.append((pool, name))
        return self.set_ids[key]

    def counter(self, cs: int, counter: str, left: Fraction, users: list[tuple[int, int, Fraction]]) -> None:
        """What is left of one counter and what each candidate draws, or, for amounts too large for
        clingo, the sets of charges (slot, device) that overdraw it."""
        ints = scaled([left, *(a for _, _, a in users)])
        if ints is None:
            for i, members in enumerate(overdraws(left, [a for _, _, a in users])):
                self.add(s.Overdraw, counter_set=cs, counter=counter, index=i)
                for m in members:
                    slot, local, _ = users[m]
                    self.add(
                        s.OverdrawMember, counter_set=cs, counter=counter, index=i, slot=slot, device=local
                    )
            return
        self.add(s.CounterLeft, counter_set=cs, counter=counter, amount=ints[0])
        amounts = dict(zip((local for _, local, _ in users), ints[1:], strict=False))
        for local, amount in amounts.items():
            self.add(s.Consumes, device=local, counter_set=cs, counter=counter, amount=amount)

    def slots_of(self) -> dict[int, list[int]]:
        """Device -> the slots (positions) that may pick it: candidates, and All lists."""
        out: dict[int, list[int]] = {}
        for position in sorted({*self.nf.candidates, *self.listed}):
            for d in dict.fromkeys([*self.nf.candidates.get(position, ()), *self.listed.get(position, ())]):
                out.setdefault(d, []).append(position)
        return out

    def capacity_facts(self) -> None:
        nf = self.nf
        by_device: dict[int, dict[int, dict[str, Fraction]]] = {}
        for (position, d), consumed in self.share_use.items():
            by_device.setdefault(d, {})[position] = consumed
        for d in nf.devices:
            uses = by_device.get(d)
            if not uses:
                continue
            device = self.p.devices[d]
            local = self.local[d]
            existing = nf.in_use.shared_capacity.get(device.ref, {})
            for position, consumed in uses.items():
                nf.shares[(position, local)] = consumed
            for name, resolved in sorted(device_capacity(device).items()):
                x = len(nf.capacities)
                nf.capacities.append((local, name))
                left = resolved.capacity.value - existing.get(name, Fraction(0))
                positions = sorted(uses)
                amounts = [uses[pos].get(name, Fraction(0)) for pos in positions]
                ints = scaled([left, *amounts])
                if ints is None:
                    for i, members in enumerate(overdraws(left, amounts)):
                        self.add(s.CapOverdraw, device=local, capacity=x, index=i)
                        for m in members:
                            self.add(
                                s.CapOverdrawMember, device=local, capacity=x, index=i, slot=positions[m]
                            )
                    continue
                self.add(s.CapLeft, device=local, capacity=x, amount=ints[0])
                for pos, amount in zip(positions, ints[1:], strict=True):
                    self.add(s.CapUse, slot=pos, device=local, capacity=x, amount=amount)

    def levels(self) -> None:
        """Priorities in search order: a request's alternative index, then its picks by rank."""
        nf = self.nf
        order: list[tuple[int, int, list[int]]] = []  # (claim, request, slot positions)
        for position, info in enumerate(nf.slots):
            if order and order[-1][:2] == (info.claim, info.request):
                order[-1][2].append(position)
            else:
                order.append((info.claim, info.request, [position]))
        sizes = [
            (1 if nf.slots[positions[0]].first_available else 0)
            + max(len(nf.candidates[pos]) for pos in positions)
            for _, _, positions in order
        ]
        level = sum(sizes)
        for (claim, request, positions), size in zip(order, sizes, strict=True):
            top = level
            if nf.slots[positions[0]].first_available:
                self.add(s.ChoiceLevel, claim=claim, request=request, level=top)
                top -= 1
            for pos in positions:
                if nf.slots[pos].slot.mode == "All":
                    continue
                for i, d in enumerate(nf.candidates[pos]):
                    self.add(s.PickLevel, slot=pos, device=self.local[d], level=top - i)
            level -= size


def _totals(charges: Sequence[tuple[int, int, Mapping[str, Fraction]]]) -> dict[str, Fraction]:
    """What the charges draw together, by counter."""
    out: dict[str, Fraction] = {}
    for _, _, counters in charges:
        for counter, amount in counters.items():
            out[counter] = out[counter] + amount if counter in out else amount
    return out


def _merged(uses: Sequence[CounterUse]) -> Mapping[str, Mapping[str, Fraction]]:
    """What a device draws, by counter set (a set named twice draws the sum)."""
    if len(uses) == 1:
        return {uses[0].counter_set: uses[0].counters}  # read only: no copy
    merged: dict[str, dict[str, Fraction]] = {}
    for use in uses:
        counters = merged.setdefault(use.counter_set, {})
        for counter, value in use.counters.items():
            counters[counter] = counters.get(counter, Fraction(0)) + value
    return merged


def _grouped(problem: Problem, pool: PoolView) -> bool:
    """Whether any device of the pool declares compatibility groups (else none can be violated)."""
    return any(use.groups for d in pool.counter_devices for use in problem.devices[d].consumes)


def gather(
    problem: Problem,
    view: NodeView,
    claims: Sequence[Claim],
    in_use: InUse,
    holders: Holders | None = None,
    first_fit: bool = True,
    canonical: bool = False,
) -> NodeFacts:
    """Raises AllocationError for what the allocator rejects before searching, TooLarge for amounts
    clingo cannot hold. `first_fit`: with the priorities of the first-fit order; `canonical`: devices
    and values numbered so that nodes of the same shape give equal facts (for explanations: the first-fit
    order is then lost)."""
    allocator = AllocatorView(problem, view, claims, in_use)
    allocator.check()
    nf = NodeFacts(problem, view, list(claims), in_use, allocator)
    builder = Builder(nf, holders, first_fit, canonical)
    builder.slots()
    builder.number()
    builder.emit()
    return nf
