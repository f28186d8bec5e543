"""Nodes whose devices differ only in names: one gathering of facts serves them all.

Gathering a node's facts (`asp.facts.gather`) is the most an explanation spends on a node, and a fleet's
nodes mostly look alike: the same devices in pools of other names, with other UUIDs. A node's signature
records, position by position, everything about its pools and devices that the facts can depend on, with
names left out where the facts do not read them:

- every device: whether it is held, shared or unreachable, who holds it, and what each pending request's
  selectors say of it;
- a device some request selects, or one that is allocated (its counters and groups count): all of it but
  its pool, slice, attributes and placement (the selectors, the unreachable set and the values below
  stand for those), and for each constraint over a request that selects it, its value, each element
  numbered by its first appearance on the node (by text and by value, the two ways the facts compare);
- every pool: all of it but its name, and whether any of its devices declares compatibility groups.

The claims count too, but for their names and ids (the facts number claims by position): a later pod
of the same template meets most nodes as the pod before left them. Nodes with equal signatures get the
same facts in the same positions, so the first node of a signature is gathered and the others take its
facts with their own devices, pools, values and claims put in (`Call.derive`). A node is gathered on
its own when the allocator would stop with an error or a selector's error could be met (the messages
name the node's devices).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from ...model.problem import Claim, InUse, NodeView, Problem, SlotKey
from ..asp.gathered import Holders, NodeFacts, SlotInfo
from ..dra import AllocationError, AllocatorView
from .keys import BOOLS, Column, Numbers, Shapes, claim_key, outcomes, pool_key, value_key
from .memo import Memo


@dataclass
class Signed:
    """A node's signature and what `derive` needs of it."""

    key: Hashable
    view: NodeView
    allocator: AllocatorView
    order: list[int]  # position -> device id
    values: list[tuple[str, str]]  # value number -> (kind, text), by first appearance


@dataclass
class Representative:
    signed: Signed
    facts: NodeFacts
    numbers: dict[tuple[str, str], int]  # (kind, text) -> value number
    position: dict[int, int]  # device id -> position
    memo: Memo = field(default_factory=Memo)  # what the reasons of the signature's nodes share


# Signing goes on past the first _TRIAL nodes while at least one in _HIT_SHARE matched an earlier node.
_TRIAL = 64
_HIT_SHARE = 8
_ROOM = 256  # representatives kept at least


class NodeClasses:
    """Representatives by signature for a whole explanation: a later unit whose claims look the same
    (pods of one template) meets most nodes as the unit before left them."""

    def __init__(self, problem: Problem) -> None:
        self.p = problem
        self.shapes = Shapes()
        # Least recently used first. Bounded by a unit's worth of nodes: a node's state changes as units
        # are placed, and a representative of a state gone would only take room.
        self.representatives: dict[Hashable, Representative] = {}
        self.room = max(_ROOM, 2 * len(problem.views))

    def get(self, key: Hashable) -> Representative | None:
        found = self.representatives.pop(key, None)
        if found is not None:
            self.representatives[key] = found
        return found

    def put(self, key: Hashable, representative: Representative) -> None:
        self.representatives[key] = representative
        if len(self.representatives) > self.room:
            del self.representatives[next(iter(self.representatives))]

    def call(self, claims: Sequence[Claim], in_use: InUse, holders: Holders) -> Call:
        return Call(self, claims, in_use, holders)


class Call:
    """The nodes of one unit: Allocate(node, claims) for its pending claims, in the state it met."""

    def __init__(
        self, classes: NodeClasses, claims: Sequence[Claim], in_use: InUse, holders: Holders
    ) -> None:
        problem = classes.p
        self.classes = classes
        self.p = problem
        self.claims = list(claims)
        self.in_use = in_use
        self.holders = holders
        self.shapes = classes.shapes
        self.signed = 0
        self.hits = 0
        # Pending slots in call order, each with its selectors' outcomes by device and the constraints
        # (index, attribute) over it.
        self.slots: list[tuple[SlotKey, Column, list[tuple[int, str]]]] = []
        for claim in self.claims:
            for ri, request in enumerate(claim.requests):
                for si, slot in enumerate(request.slots):
                    key = (claim.id, ri, si)
                    over = [(i, c.attribute) for i, c in enumerate(claim.constraints) if c.applies_to(slot)]
                    self.slots.append((key, outcomes(problem, key), over))
        # Everything about the claims but their names and ids: the facts number claims by position.
        self.shape = tuple(claim_key(c) for c in self.claims)
        # Devices (by ref) something is known of: held, shared, with shares, or with named holders.
        self.marked = in_use.exclusive | in_use.shared | set(in_use.shared_capacity) | set(holders)

    def state(self, ref: str) -> tuple[object, ...] | None:
        """What is in use of a device (None: nothing), with who holds it."""
        if ref not in self.marked:
            return None
        used = self.in_use.shared_capacity.get(ref)
        return (
            ref in self.in_use.exclusive,
            ref in self.in_use.shared,
            tuple(used.items()) if used is not None else None,
            tuple(self.holders.get(ref, ())),
        )

    def sign(self, view: NodeView) -> Signed | None:
        """The node's signature, or None when it is to be gathered on its own."""
        if view.error:
            return None
        allocator = AllocatorView(self.p, view, self.claims, self.in_use)
        try:
            allocator.check()
        except AllocationError:
            return None
        devices = self.p.devices
        index: dict[int, int] = {}
        order: list[int] = []
        numbers = Numbers()
        parts: list[object] = []
        pool_columns = []
        for pool in view.pools:
            for d in (*pool.devices, *pool.counter_devices):
                if d not in index:
                    index[d] = len(order)
                    order.append(d)
            columns = [tuple([outcome.get(d, False) for d in pool.devices]) for _, outcome, _ in self.slots]
            if not all(BOOLS.issuperset(c) for c in columns):
                return None  # a selector's error: its message names the device
            pool_columns.append(columns)
        if not any(True in c for columns in pool_columns for c in columns):
            # No device of the node is a candidate: the facts name none, so what is in use (and by whom)
            # is nothing to them, and the node is alike any other of its pools' shape.
            bare = tuple(
                (pool_key(pool, index, devices), tuple(columns), _unreachable(view, pool.devices))
                for pool, columns in zip(view.pools, pool_columns, strict=True)
            )
            return Signed((self.shape, None, bare), view, allocator, order, numbers.values)
        for pool, columns in zip(view.pools, pool_columns, strict=True):
            ids = pool.devices
            states = [self.state(devices[d].ref) for d in ids] if self.marked else []
            chosen = {i for c in columns for i, o in enumerate(c) if o is True}
            chosen.update(i for i, used in enumerate(states) if used is not None and _allocated(used))
            details = []
            for i in sorted(chosen):
                device = devices[ids[i]]
                picked = []
                for (key, _, over), found in zip(self.slots, columns, strict=True):
                    if found[i] is not True:
                        continue
                    for c, attribute in over:
                        try:
                            value = allocator.attribute(allocator.slots[key], device, attribute)
                        except AllocationError:
                            return None
                        picked.append((c, value_key(value, numbers)))
                details.append((i, self.shapes(device), tuple(picked)))
            searched = set(ids)
            others = []  # drawing on the pool's counters from slices of other nodes
            for d in pool.counter_devices:
                if d in searched:
                    continue
                used = self.state(devices[d].ref) if self.marked else None
                allocated = used is not None and _allocated(used)
                others.append((index[d], used, self.shapes(devices[d]) if allocated else None))
            parts.append(
                (
                    pool_key(pool, index, devices),
                    tuple(columns),
                    tuple(states),
                    _unreachable(view, ids),
                    tuple(details),
                    tuple(others),
                )
            )
        return Signed((self.shape, tuple(parts)), view, allocator, order, numbers.values)

    def worth(self) -> bool:
        """Whether signing the next node is likely to pay: a signature costs a fraction of a gathering,
        so it does while a fair share of the nodes signed so far matched an earlier one (nodes that
        all differ, as under varied use, stop the signing early)."""
        return self.signed < _TRIAL or self.hits * _HIT_SHARE >= self.signed

    def representative(self, signed: Signed) -> Representative | None:
        self.signed += 1
        found = self.classes.get(signed.key)
        self.hits += found is not None
        return found

    def keep(self, signed: Signed, facts: NodeFacts) -> Representative:
        """A node's gathered facts, to serve the nodes of the same signature."""
        numbers = {kv: n for n, kv in enumerate(signed.values)}
        position = {d: i for i, d in enumerate(signed.order)}
        representative = Representative(signed, facts, numbers, position)
        self.classes.put(signed.key, representative)
        return representative

    def derive(self, rep: Representative, signed: Signed) -> NodeFacts:
        """The facts of a node of the same signature as `rep`: its own devices, pools and values in the
        representative's positions."""
        source = rep.facts
        position = rep.position
        order = signed.order

        def moved(ds: Sequence[int]) -> list[int]:
            return [order[position[d]] for d in ds]

        pools = {id(a): b for a, b in zip(rep.signed.view.pools, signed.view.pools, strict=True)}
        nf = NodeFacts(self.p, signed.view, self.claims, self.in_use, signed.allocator)
        nf.slots = source.slots if source.claims == self.claims else _slots(self.claims)
        nf.devices = moved(source.devices)
        nf.pools = [pools[id(pool)] for pool in source.pools]
        nf.counter_sets = [(pools[id(pool)], name) for pool, name in source.counter_sets]
        nf.holders = source.holders
        nf.taints = source.taints
        nf.constraints = source.constraints
        nf.capacities = source.capacities
        nf.shares = source.shares
        nf.candidates = {slot: moved(ds) for slot, ds in source.candidates.items()}
        nf.rank = {order[position[d]]: r for d, r in source.rank.items()}
        nf.texts = {
            (kind, name): signed.values[rep.numbers[(kind, text)]][1]
            for (kind, name), text in source.texts.items()
        }
        nf.facts = source.facts
        nf.hazards = []
        return nf


def _slots(claims: Sequence[Claim]) -> list[SlotInfo]:
    """The call's slots as the facts number them (claims, then requests, then subrequests, in order)."""
    return [
        SlotInfo((claim.id, ri, si), slot, ci, ri, si, request.first_available)
        for ci, claim in enumerate(claims)
        for ri, request in enumerate(claim.requests)
        for si, slot in enumerate(request.slots)
    ]


def _unreachable(view: NodeView, ids: Sequence[int]) -> tuple[int, ...]:
    return tuple(i for i, d in enumerate(ids) if d in view.unreachable) if view.unreachable else ()


def _allocated(state: tuple[object, ...]) -> bool:
    return bool(state[0] or state[1] or state[2] is not None)
