"""Many nodes as one pool of GPUs: the plan over placement patterns (cutting-stock style).

Where every pod that can go to a node takes a single device, and nothing else about the node binds
(node resources cannot run out whatever lands there, no ports, no rules between pods), which node a
device sits on does not matter: only which devices of each GPU (counter set) are taken together. Each
GPU is a *group*: its devices in first-fit order, what each draws from the GPU's counters, and which
classes (and which of their firstAvailable subrequests) may take it. Groups that look the same share a
*family*, whose patterns are enumerated once: the maximal sets of devices that fit together, as counts
per class and subrequest (an A100 has a few dozen for five MIG profiles). The model holds, per family, how
many GPUs take each pattern; its LP bound is the cutting-stock bound, which is what proves a plan of
thousands of pods optimal. Decoding hands each GPU a pattern (node after node, so the pods land on as few
nodes as they can) and each pattern's devices to the class's pods in queue order.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from ortools.sat.python import cp_model

from ...problem import Device, Problem, consumption
from .dra_node import Block

SlotKey = tuple[int, int]  # (class index, subrequest index)
VISITS = 200_000  # enumeration steps per family before it is given up (the nodes are modelled one by one)


@dataclass(frozen=True)
class Group:
    node: str
    devices: tuple[int, ...]  # in first-fit order


@dataclass(frozen=True)
class Pattern:
    counts: tuple[int, ...]  # per family key
    witness: tuple[tuple[int, SlotKey], ...]  # (device position, slot key) that realize it


@dataclass
class Family:
    keys: tuple[SlotKey, ...]
    patterns: list[Pattern]
    groups: list[Group] = field(default_factory=list)
    use: list[cp_model.IntVar] = field(default_factory=list)  # GPUs taking each pattern


DeviceView = tuple[dict[str, Fraction], frozenset[SlotKey]]  # what a device draws, who may take it


class GroupView(NamedTuple):
    """A GPU of one node as the patterns see it; `signature` is equal for GPUs that plan alike."""

    signature: Hashable
    group: Group
    keys: tuple[SlotKey, ...]
    devices: list[DeviceView]
    left: dict[str, Fraction]  # the counters not drawn yet


@dataclass
class SlotInfo:
    result_name: str
    first_available: bool


@dataclass
class Pool:
    """The nodes planned by patterns."""

    families: dict[Hashable, Family] = field(default_factory=dict)
    slots: dict[SlotKey, SlotInfo] = field(default_factory=dict)
    taken: dict[SlotKey, cp_model.IntVar] = field(default_factory=dict)  # pods placed per slot key
    _enumerated: dict[Hashable, list[Pattern] | None] = field(default_factory=dict)

    def signature_groups(self, problem: Problem, blocks: Sequence[Block]) -> list[GroupView] | None:
        """The node's groups with their signatures, or None when the node does not fit the pattern view."""
        options: dict[int, set[SlotKey]] = {}
        for block in blocks:
            facts = block.facts
            if not (block.aggregated and block.claims_per_pod == 1 and len(facts.requests()) == 1):
                return None
            for s in facts.slots:
                if s.count != 1 or s.all_mode or s.admin:
                    return None
                key = (block.cls.index, s.sub)
                self.slots.setdefault(key, SlotInfo(s.slot.result_name, s.first_available))
                for d in s.candidates:
                    options.setdefault(d, set()).add(key)
        if not options:
            return None
        facts = blocks[0].facts
        by_set: dict[tuple[str, str], list[int]] = {}
        out = []
        for d in sorted(options, key=facts.rank.__getitem__):
            device = problem.devices[d]
            if len(device.consumes) > 1 or any(u.groups for u in device.consumes):
                return None
            if device.consumes:
                by_set.setdefault((facts.pool_of[d].ref, device.consumes[0].counter_set), []).append(d)
            else:
                out.append(self._signature(problem, (d,), options, {}, facts.view.node))
        for (pool_ref, name), members in by_set.items():
            pool = facts.pool_of[members[0]]
            available = facts.available.get(pool_ref) or facts.allocator.available(pool)
            out.append(
                self._signature(
                    problem, tuple(members), options, dict(available.get(name, {})), facts.view.node
                )
            )
        return out

    @staticmethod
    def _signature(
        problem: Problem,
        members: tuple[int, ...],
        options: dict[int, set[SlotKey]],
        left: dict[str, Fraction],
        node: str,
    ) -> GroupView:
        devices: list[DeviceView] = [(_draws(problem.devices[d]), frozenset(options[d])) for d in members]
        keys = tuple(sorted(set().union(*(o for _, o in devices))))
        signature = (
            tuple(sorted(left.items())),
            tuple((tuple(sorted(draw.items())), tuple(sorted(opts))) for draw, opts in devices),
        )
        return GroupView(signature, Group(node, members), keys, devices, left)

    def patterns(self, view: GroupView) -> list[Pattern] | None:
        if view.signature not in self._enumerated:
            self._enumerated[view.signature] = enumerate_patterns(view.keys, view.devices, view.left)
        return self._enumerated[view.signature]

    def add(
        self, signature: Hashable, group: Group, keys: tuple[SlotKey, ...], patterns: list[Pattern]
    ) -> None:
        family = self.families.get(signature)
        if family is None:
            family = self.families[signature] = Family(keys, patterns)
        family.groups.append(group)

    def build(self, model: cp_model.CpModel, counts: dict[int, int]) -> dict[int, list[cp_model.IntVar]]:
        """Pattern counts per family and pods per slot key; returns class -> its pods placed here."""
        supply: dict[SlotKey, list[cp_model.LinearExprT]] = {}
        for i, family in enumerate(self.families.values()):
            size = len(family.groups)
            family.use = [
                model.new_int_var(0, size, f"pattern_f{i}_{j}") for j in range(len(family.patterns))
            ]
            model.add(sum(family.use) <= size)
            for j, pattern in enumerate(family.patterns):
                for key, n in zip(family.keys, pattern.counts, strict=True):
                    if n:
                        supply.setdefault(key, []).append(n * family.use[j])
        out: dict[int, list[cp_model.IntVar]] = {}
        for key in sorted(supply):
            var = model.new_int_var(0, counts[key[0]], f"pooled_k{key[0]}_s{key[1]}")
            model.add(var <= sum(supply[key]))
            self.taken[key] = var
            out.setdefault(key[0], []).append(var)
        return out

    def touched(self) -> list[cp_model.LinearExprT]:
        """GPUs given a non-empty pattern."""
        return [
            u for f in self.families.values() for p, u in zip(f.patterns, f.use, strict=True) if any(p.counts)
        ]


def _draws(device: Device) -> dict[str, Fraction]:
    draws = consumption(device)
    return next(iter(draws.values())) if draws else {}


def enumerate_patterns(
    keys: tuple[SlotKey, ...], devices: list[DeviceView], left: dict[str, Fraction]
) -> list[Pattern] | None:
    """The maximal count vectors of the sets of devices that fit the counters together (one witness set
    each), or None when there are too many sets to look at."""
    index = {k: i for i, k in enumerate(keys)}
    found: dict[tuple[int, ...], tuple[tuple[int, SlotKey], ...]] = {}
    visits = 0
    counts = [0] * len(keys)
    chosen: list[tuple[int, SlotKey]] = []

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
        draw, options = devices[i]
        if fits(draw, room):
            after = {c: v - draw.get(c, Fraction(0)) for c, v in room.items()}
            for key in sorted(options):
                counts[index[key]] += 1
                chosen.append((i, key))
                if not walk(i + 1, after):
                    return False
                chosen.pop()
                counts[index[key]] -= 1
        return walk(i + 1, room)

    if not walk(0, dict(left)):
        return None
    vectors = sorted(found, key=lambda v: (-sum(v), v))
    maximal: list[tuple[int, ...]] = []
    for v in vectors:
        if not any(all(a >= b for a, b in zip(m, v, strict=True)) for m in maximal):
            maximal.append(v)
    return [Pattern(v, found[v]) for v in maximal]
