"""What one node's model is built from: every request slot with its candidate devices in first-fit
order, and the node-wide facts the constraint families read (counters left, compatibility groups of
allocated peers, attribute values under constraints, capacity one pick takes).

Everything a single (slot, device) pair decides on its own is settled here, so the model only has
variables for pairs that can really be chosen: the selectors (and node reachability, binding
conditions), the in-use state, taints, consumable capacity against what is already consumed, a
device's own counters against what its pool has left, and compatibility with allocated peers.

The allocator's pre-search validation runs first (`solver.dra.AllocatorView.check`, so errors read the
same). Pairs whose evaluation would make the scheduler stop with an error (a selector or derived
attribute failing in CEL, a capacity request it refuses) are never candidates; they are listed as
hazards, because whether the first-fit search reaches them decides between an error and an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ...model.node_selector import selector_hazard
from ...model.problem import (
    AttrValue,
    Claim,
    Device,
    InUse,
    NodeView,
    PoolView,
    Problem,
    Slot,
    SlotKey,
    consumption,
)
from ..attributes import as_set
from ..dra import AllocationError, AllocatorView, admits

GroupSeed = tuple[bool, bool, frozenset[str]]  # (has members, all declared no group, common groups)


@dataclass
class SlotFacts:
    """One request or subrequest of one claim, as the model sees it."""

    key: SlotKey
    slot: Slot
    position: int  # order of the slot in the search: claims, requests, subrequests
    claim: int  # position of its claim in the call
    request: int
    sub: int
    first_available: bool
    count: int  # devices to pick; for All mode, the frozen list's length
    all_mode: bool
    admin: bool
    candidates: list[int] = field(default_factory=list)  # device ids in first-fit order (All: every one)
    impossible: bool = False  # never choosable (an All device that cannot be taken, an empty All list)
    consumed: dict[int, dict[str, Fraction]] = field(default_factory=dict)  # capacity one pick takes


@dataclass
class ConstraintFacts:
    """One matchAttribute / distinctAttribute of a claim and the values it sees, per candidate pick."""

    claim: int
    index: int
    kind: str
    attribute: str
    slots: list[int]  # positions of the slots it covers
    values: dict[tuple[int, int], AttrValue] = field(default_factory=dict)  # (slot position, device)


@dataclass
class NodeFacts:
    problem: Problem
    view: NodeView
    claims: list[Claim]
    in_use: InUse
    allocator: AllocatorView
    slots: list[SlotFacts] = field(default_factory=list)
    rank: dict[int, int] = field(default_factory=dict)  # device -> first-fit rank (complete pools)
    pool_of: dict[int, PoolView] = field(default_factory=dict)
    multi: set[int] = field(default_factory=set)  # multi-allocatable devices (shares)
    existing_shares: set[int] = field(default_factory=set)  # multi devices already holding shares
    available: dict[str, dict[str, dict[str, Fraction]]] = field(default_factory=dict)  # pool->set->counter
    overdrawn: dict[str, bool] = field(default_factory=dict)  # pool -> some counter below 0 already
    seeds: dict[tuple[str, str], GroupSeed] = field(default_factory=dict)  # (pool, counter set)
    constraints: list[ConstraintFacts] = field(default_factory=list)
    hazards: list[str] = field(default_factory=list)

    def requests(self) -> list[list[SlotFacts]]:
        """Slots grouped by request, in search order."""
        out: dict[tuple[int, int], list[SlotFacts]] = {}
        for s in self.slots:
            out.setdefault((s.claim, s.request), []).append(s)
        return list(out.values())

    def charged(self, d: int) -> bool:
        """Whether a pick of the device draws on its pool's counters (a share only opens them once)."""
        return bool(self.problem.devices[d].consumes) and d not in self.existing_shares


def gather(problem: Problem, view: NodeView, claims: Sequence[Claim], in_use: InUse) -> NodeFacts:
    """Raises AllocationError for what the allocator rejects before searching."""
    allocator = AllocatorView(problem, view, claims, in_use)
    allocator.check()
    facts = NodeFacts(problem, view, list(claims), in_use, allocator)
    for pool in view.pools:
        for d in pool.devices:
            facts.pool_of[d] = pool
        if pool.state == "complete":
            for d in pool.devices:
                facts.rank.setdefault(d, len(facts.rank))
    for d in facts.rank:
        device = problem.devices[d]
        if allocator.multi(device):
            facts.multi.add(d)
            if device.ref in in_use.shared_capacity:
                facts.existing_shares.add(d)
    for ci, claim in enumerate(facts.claims):
        for ri, request in enumerate(claim.requests):
            for si, slot in enumerate(request.slots):
                key = (claim.id, ri, si)
                data = allocator.slots[key]
                facts.slots.append(
                    SlotFacts(
                        key,
                        slot,
                        len(facts.slots),
                        ci,
                        ri,
                        si,
                        request.first_available,
                        data.count,
                        slot.mode == "All",
                        bool(slot.admin_access),
                    )
                )
    for s in facts.slots:
        if s.all_mode:
            _all_candidates(facts, s, allocator.slots[s.key].all_devices)
        else:
            _exact_candidates(facts, s)
    _constraints(facts)
    _selector_hazards(facts)
    return facts


def _selector_hazards(facts: NodeFacts) -> None:
    devices = facts.problem.devices
    for s in facts.slots:
        hazard = selector_hazard(facts.claims[s.claim], s.slot, (devices[d] for d in s.candidates))
        if hazard is not None:
            facts.hazards.append(hazard)
            return


# --- candidates -----------------------------------------------------------------------------------------


def _exact_candidates(facts: NodeFacts, s: SlotFacts) -> None:
    """Devices of complete pools, in first-fit order, that pass every check a pick makes on its own."""
    for d in facts.rank:
        if not s.admin and facts.problem.devices[d].ref in facts.in_use.exclusive:
            continue  # the search skips it before evaluating anything
        if (
            _selected(facts, s, d)
            and _fits_capacity(facts, s, d)
            and _free(facts, s, d)
            and _takeable(facts, s, d)
        ):
            s.candidates.append(d)


def _all_candidates(facts: NodeFacts, s: SlotFacts, frozen: list[int]) -> None:
    """All mode takes the frozen list whole: one device that cannot be taken rules the slot out."""
    s.candidates = list(frozen)
    s.impossible = not frozen
    for d in frozen:
        if not (_fits_capacity(facts, s, d) and _free(facts, s, d) and _takeable(facts, s, d)):
            s.impossible = True


def _free(facts: NodeFacts, s: SlotFacts, d: int) -> bool:
    """In-use state: admin access ignores it; a live share keeps a device from exclusive use."""
    if s.admin:
        return True
    ref = facts.problem.devices[d].ref
    if ref in facts.in_use.exclusive:
        return False
    return d in facts.multi or ref not in facts.in_use.shared


def _selected(facts: NodeFacts, s: SlotFacts, d: int) -> bool:
    """Class and request selectors, binding conditions and per-device node reachability."""
    try:
        return facts.allocator.selectable(s.key, d)
    except AllocationError as e:
        facts.hazards.append(str(e))
        return False


def _fits_capacity(facts: NodeFacts, s: SlotFacts, d: int) -> bool:
    """Consumable capacity: the rounded request fits beside what existing shares consume."""
    if not facts.problem.on("ConsumableCapacity"):
        return True
    try:
        consumed = facts.allocator.capacity_fit(s.key, d, facts.claims[s.claim])
    except AllocationError as e:
        facts.hazards.append(str(e))
        return False
    if consumed is None:
        return False
    if d in facts.multi:
        s.consumed[d] = consumed
    return True


def _takeable(facts: NodeFacts, s: SlotFacts, d: int) -> bool:
    """Partitionable devices, taints, and a device's own counters and groups against its pool."""
    p = facts.problem
    device = p.devices[d]
    if device.consumes and not p.on("PartitionableDevices"):
        return False
    if p.on("DeviceTaints") and _blocking_taint(device, s.slot):
        return False
    if not facts.charged(d):
        return True
    return _counters_alone(facts, device) and _groups_admit(facts, device)


def _blocking_taint(device: Device, slot: Slot) -> bool:
    return any(
        taint.effect in ("NoSchedule", "NoExecute") and not any(t.tolerates(taint) for t in slot.tolerations)
        for taint in device.taints
    )


def _counters_alone(facts: NodeFacts, device: Device) -> bool:
    """The device's own consumption fits what its pool has left (every counter of the pool is checked)."""
    pool = facts.pool_of[device.id]
    available = facts.available.get(pool.ref)
    if available is None:
        available = facts.available[pool.ref] = facts.allocator.available(pool)
    # A counter the device does not draw still fails the pick when allocated devices overdraw it already.
    overdrawn = facts.overdrawn.get(pool.ref)
    if overdrawn is None:
        overdrawn = facts.overdrawn[pool.ref] = any(
            value < 0 for counters in available.values() for value in counters.values()
        )
    if overdrawn:
        return False
    for name, draws in consumption(device).items():
        counters = available.get(name)
        if counters is None:
            continue
        for counter, amount in draws.items():
            value = counters.get(counter)
            if value is not None and value < amount:
                return False
    return True


def _groups_admit(facts: NodeFacts, device: Device) -> bool:
    """Compatibility groups of allocated peers on each counter set the device draws from."""
    pool = facts.pool_of[device.id]
    if not facts.problem.on("CompatibilityGroups"):
        return not facts.allocator.peers_grouped(device)
    for use in device.consumes:
        key = (pool.ref, use.counter_set)
        seed = facts.seeds.get(key)
        if seed is None:
            seed = facts.seeds[key] = facts.allocator.group_state(pool, use.counter_set)
        if not admits(seed, frozenset(use.groups)):
            return False
    return True


# --- constraints ------------------------------------------------------------------------------------------


def _constraints(facts: NodeFacts) -> None:
    """Attribute values (derived ones per slot) of every candidate under a constraint; a pick without a
    usable value cannot be under it, and All mode turns a violation into the allocator's error."""
    lists = facts.problem.on("ListTypeAttributes")
    for ci, claim in enumerate(facts.claims):
        for index, constraint in enumerate(claim.constraints):
            covered = [s for s in facts.slots if s.claim == ci and constraint.applies_to(s.slot)]
            cf = ConstraintFacts(
                ci, index, constraint.kind, constraint.attribute, [s.position for s in covered]
            )
            for s in covered:
                if s.all_mode and s.candidates:
                    facts.hazards.append(
                        f"claim {claim.ref}, request {s.slot.name}: takes all devices under a constraint, "
                        "an error if one of them breaks it"
                    )
                keep = []
                for d in s.candidates:
                    value = _value(facts, s, d, constraint.attribute)
                    usable = value is not None and (not lists or as_set(value) is not None)
                    if usable:
                        assert value is not None
                        cf.values[(s.position, d)] = value
                        keep.append(d)
                    elif s.all_mode:
                        s.impossible = True
                if not s.all_mode:
                    s.candidates = keep
            facts.constraints.append(cf)


def _value(facts: NodeFacts, s: SlotFacts, d: int, name: str) -> AttrValue | None:
    try:
        return facts.allocator.attribute(facts.allocator.slots[s.key], facts.problem.devices[d], name)
    except AllocationError as e:
        facts.hazards.append(str(e))
        return None
