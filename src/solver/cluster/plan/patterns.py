"""Many GPUs as few: placement patterns (cutting-stock style).

Where the pods that can go to a node take devices with nothing between them (no matchAttribute, no admin
access, no All mode, no shares), which node a device sits on matters only for what binds per node: only
which devices of each GPU (counter set) are taken together. Each GPU is a *group*: its free devices in
first-fit order and what each draws from the GPU's counters. A device's *kind* is the set of slot keys
(class, slot) that may take it: pods of different priorities or gangs asking for the same profile see one
kind, so the patterns do not multiply with the classes. Groups that look the same (counters left, each
device's draw and kind) share a *family*, whose patterns are enumerated once: the maximal sets of devices
that fit together, as counts per kind (an A100 has a few dozen for five MIG profiles). The model (pool.py)
holds how many GPUs take each pattern; its LP bound is the cutting-stock bound, which is what proves a plan
of thousands of pods optimal.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from ....model.problem import Device, Problem, consumption
from ...cpsat.facts import NodeFacts
from .dra_node import Block, free_picks

SlotKey = tuple[int, int]  # (class index, slot position in the class's claims)
Kind = frozenset[SlotKey]  # the slot keys that may take a device
VISITS = 200_000  # enumeration steps per family before it is given up (the nodes are modelled one by one)


@dataclass(frozen=True)
class Group:
    node: str
    devices: tuple[int, ...]  # in first-fit order
    busy: bool = False  # some of its devices (or counters) are taken already


@dataclass(frozen=True)
class Pattern:
    counts: tuple[int, ...]  # per kind of the family
    witness: tuple[tuple[int, int], ...]  # (device position, kind position) that realize it


@dataclass(frozen=True)
class SlotInfo:
    """One request (or subrequest) of a class's pods, as the patterns hand out its devices."""

    claim: int  # the claim's position among the pod's pending claims
    request: int
    sub: int
    result_name: str
    first_available: bool
    count: int  # devices one pod takes


DeviceView = tuple[dict[str, Fraction], Kind]  # what a device draws, who may take it


Value = tuple[str | None, tuple[int | bool | str, ...]]  # an attribute's value as matchAttribute compares it
Domain = tuple[tuple[str, Value | None], ...]  # per attribute a constraint on the node matches: the value


class GroupView(NamedTuple):
    """A GPU of one node as the patterns see it; `signature` is equal for GPUs that plan alike."""

    signature: int  # equal for GPUs that plan alike (Views.signatures)
    group: Group
    kinds: tuple[Kind, ...]  # the kinds of its devices, in a stable order
    devices: list[DeviceView]
    left: dict[str, Fraction]  # the counters not drawn yet
    domain: Domain = ()  # the value its devices share for each matched attribute


def single_device(block: Block) -> bool:
    """Whether each pod of the block's class takes exactly one device (one claim, one request, one pick):
    then pods can be pooled across nodes, as no two of their devices need to share one."""
    facts = block.facts
    return block.claims_per_pod == 1 and len(facts.requests()) == 1 and all(s.count == 1 for s in facts.slots)


def poolable(block: Block) -> bool:
    """Whether patterns describe the class's claims on the node exactly: picks with nothing between them
    but matchAttribute over single values (the devices a pod takes under one share a value: pool.py splits
    the node's devices by value)."""
    facts = block.facts
    if facts.hazards or not free_picks(facts):
        return False
    if any(s.count < 1 or s.impossible for s in facts.slots):
        return False
    covered: set[int] = set()
    for cf in facts.constraints:
        if cf.kind != "match" or covered & set(cf.slots):
            return False
        covered |= set(cf.slots)
        if any(facts.slots[p].first_available for p in cf.slots):
            return False
        if any(v.is_list or v.kind is None for v in cf.values.values()):
            return False
    return True


def slot_infos(block: Block) -> dict[SlotKey, SlotInfo]:
    return {
        (block.cls.index, s.position): SlotInfo(
            s.claim, s.request, s.sub, s.slot.result_name, s.first_available, s.count
        )
        for s in block.facts.slots
    }


@dataclass
class Views:
    """What node_groups makes again and again across nodes, made once: kinds (equal ones are one object),
    their order, and each device's draw."""

    kinds: dict[Hashable, Kind] = field(default_factory=dict)
    order: dict[Kind, tuple[SlotKey, ...]] = field(default_factory=dict)
    draws: dict[int, tuple[dict[str, Fraction], Hashable]] = field(default_factory=dict)
    signatures: dict[Hashable, int] = field(default_factory=dict)  # a GPU's signature -> its number

    def kind(self, parts: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]) -> Kind:
        """The kind of a device taken by slot positions `p` of classes `c`, for each (c, p) in parts."""
        found = self.kinds.get(parts)
        if found is None:
            found = self.kinds[parts] = frozenset(
                (k, p) for classes, ps in parts for k in classes for p in ps
            )
            self.order[found] = tuple(sorted(found))
        return found

    def draw(self, device: Device) -> tuple[dict[str, Fraction], Hashable]:
        found = self.draws.get(device.id)
        if found is None:
            draw = _draws(device)
            found = self.draws[device.id] = (draw, tuple(sorted((c, _plain(v)) for c, v in draw.items())))
        return found


def node_groups(
    problem: Problem, blocks: Sequence[Block], views: Views | None = None
) -> list[GroupView] | None:
    """The node's GPUs (and lone devices) as the patterns see them, or None when its devices do not fit
    the pattern view (a device drawing on several counter sets, compatibility groups)."""
    views = views if views is not None else Views()
    # Classes sharing one gathering of facts (one claims' shape) see the same candidates.
    shapes: dict[int, tuple[NodeFacts, list[int]]] = {}
    for block in blocks:
        shapes.setdefault(id(block.facts), (block.facts, []))[1].append(block.cls.index)
    positions: dict[int, list[tuple[tuple[int, ...], tuple[int, ...]]]] = {}
    for facts, classes in shapes.values():
        taking: dict[int, list[int]] = {}
        for s in facts.slots:
            for d in s.candidates:
                taking.setdefault(d, []).append(s.position)
        members = tuple(classes)
        for d, ps in taking.items():
            positions.setdefault(d, []).append((members, tuple(ps)))
    if not positions:
        return None
    kinds = {d: views.kind(tuple(parts)) for d, parts in positions.items()}
    values = _matched(blocks)
    if values is None:
        return None
    facts = blocks[0].facts
    node = facts.view.node
    by_set: dict[tuple[str, str], list[int]] = {}
    out = []
    for d in sorted(kinds, key=facts.rank.__getitem__):
        device = problem.devices[d]
        if len(device.consumes) > 1 or any(u.groups for u in device.consumes):
            return None
        if device.consumes:
            by_set.setdefault((facts.pool_of[d].ref, device.consumes[0].counter_set), []).append(d)
        else:
            out.append(_view(problem, views, (d,), kinds, {}, node, False, _domain((d,), values)))
    for (pool_ref, name), members_of_set in by_set.items():
        pool = facts.pool_of[members_of_set[0]]
        available = facts.available.get(pool_ref) or facts.allocator.available(pool)
        left = dict(available.get(name, {}))
        busy = _busy(pool.counter_sets.get(name, {}), left)
        domain = _domain(tuple(members_of_set), values)
        if domain is None:
            return None  # a GPU whose devices differ in a matched attribute: devices one by one
        out.append(_view(problem, views, tuple(members_of_set), kinds, left, node, busy, domain))
    return out


def _matched(blocks: Sequence[Block]) -> dict[str, dict[int, Value]] | None:
    """attribute -> device -> its value, for every attribute a matchAttribute of the node's classes reads;
    None when a device shows two values of one attribute (derived per request)."""
    out: dict[str, dict[int, Value]] = {}
    for block in blocks:
        for cf in block.facts.constraints:
            seen = out.setdefault(cf.attribute, {})
            for (_, d), v in cf.values.items():
                value = (v.kind, v.values)
                if seen.setdefault(d, value) != value:
                    return None
    return out


def _domain(members: tuple[int, ...], values: dict[str, dict[int, Value]]) -> Domain | None:
    """What the devices share of each matched attribute (None for an attribute none of them has); None
    when they differ."""
    out = []
    for attribute in sorted(values):
        found = {values[attribute][d] for d in members if d in values[attribute]}
        if len(found) > 1:
            return None
        out.append((attribute, next(iter(found), None)))
    return tuple(out)


def _busy(total: Mapping[str, Fraction], left: dict[str, Fraction]) -> bool:
    """Whether running devices draw on the counter set already (some counter below its published total)."""
    return any(left.get(c, Fraction(0)) < v for c, v in total.items())


def _view(
    problem: Problem,
    views: Views,
    members: tuple[int, ...],
    kinds: dict[int, Kind],
    left: dict[str, Fraction],
    node: str,
    busy: bool,
    domain: Domain | None,
) -> GroupView:
    devices: list[DeviceView] = []
    draws: list[Hashable] = []
    for d in members:
        draw, key = views.draw(problem.devices[d])
        devices.append((draw, kinds[d]))
        draws.append(key)
    order = tuple(sorted({k for _, k in devices}, key=views.order.__getitem__))
    index = {k: i for i, k in enumerate(order)}
    signature = (
        tuple(sorted((c, _plain(v)) for c, v in left.items())),
        tuple((draw, index[kind]) for draw, (_, kind) in zip(draws, devices, strict=True)),
        tuple(views.order[k] for k in order),
    )
    # Hashed once here; everything after looks the GPU up by this number.
    number = views.signatures.setdefault(signature, len(views.signatures))
    return GroupView(number, Group(node, members, busy), order, devices, left, domain or ())


def _plain(value: Fraction) -> int | Fraction:
    """A whole amount as an int, which hashes far faster than a Fraction."""
    return value.numerator if value.denominator == 1 else value


def _draws(device: Device) -> dict[str, Fraction]:
    draws = consumption(device)
    return next(iter(draws.values())) if draws else {}


def enumerate_patterns(
    kinds: Sequence[Kind], devices: Sequence[DeviceView], left: dict[str, Fraction]
) -> list[Pattern] | None:
    """The maximal count vectors (per kind) of the sets of devices that fit the counters together (one
    witness set each), or None when there are too many sets to look at."""
    index = {k: i for i, k in enumerate(kinds)}
    found: dict[tuple[int, ...], tuple[tuple[int, int], ...]] = {}
    visits = 0
    counts = [0] * len(kinds)
    chosen: list[tuple[int, int]] = []

    def fits(draw: dict[str, Fraction], room: dict[str, Fraction]) -> bool:
        return all(v <= room.get(c, Fraction(0)) for c, v in draw.items() if v)

    def walk(i: int, room: dict[str, Fraction]) -> bool:
        nonlocal visits
        visits += 1
        if visits > VISITS:
            return False
        if i == len(devices):
            found.setdefault(tuple(counts), tuple(chosen))
            return True
        draw, kind = devices[i]
        if fits(draw, room):
            after = {c: v - draw.get(c, Fraction(0)) for c, v in room.items()}
            k = index[kind]
            counts[k] += 1
            chosen.append((i, k))
            if not walk(i + 1, after):
                return False
            chosen.pop()
            counts[k] -= 1
        return walk(i + 1, room)

    if not walk(0, dict(left)):
        return None
    vectors = sorted(found, key=lambda v: (-sum(v), v))
    maximal: list[tuple[int, ...]] = []
    for v in vectors:
        if not any(all(a >= b for a, b in zip(m, v, strict=True)) for m in maximal):
            maximal.append(v)
    return [Pattern(v, found[v]) for v in maximal]
