"""The nodes planned by placement patterns (patterns.py), in the plan's CP-SAT model.

Each family of alike GPUs gets, per pattern, how many of its GPUs take it; the devices a pattern frees
are counted per kind, and a *transport* hands each kind's devices to the slot keys that may take them.
Families live in *zones*:
- the shared zone ("") pools GPUs across nodes where nothing binds per node: pods that take one device
  each, node resources that cannot run out, the `pack` objective. Its LP bound is the cutting-stock bound.
- a node's own zone ("linked") keeps its GPUs to itself, where something does bind per node: cpu, memory
  or pods running out, pods taking several devices (which must all be on the node), an objective that
  looks at nodes, a node capacity planning may open. The class counts on the node are the plan's usual
  per-node counts (model.py checks node resources and ports on them); here each pod's requests take
  their devices from the node's kinds. Under a matchAttribute, a pod's devices come from one *domain*:
  the node's GPUs and devices sharing that attribute's value (a PCIe root), and the pods of the class
  are split over the values.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from .dra_node import Block
from .patterns import (
    Domain,
    Group,
    GroupView,
    Kind,
    Pattern,
    SlotInfo,
    SlotKey,
    Value,
    Views,
    enumerate_patterns,
    slot_infos,
)

SHARED = ""  # the zone of GPUs pooled across nodes


@dataclass
class Family:
    zone: str
    kinds: tuple[Kind, ...]
    patterns: list[Pattern]
    domain: Domain = ()
    groups: list[Group] = field(default_factory=list)
    use: list[cp_model.IntVar] = field(default_factory=list)  # GPUs taking each pattern


Where = tuple[str, Domain, Kind, SlotKey]  # (zone, domain, kind, slot key) of a transport
# A class's pods on a node that take one value under one of their matchAttribute constraints:
# (node, class, (claim, constraint index), value).
Split = tuple[str, int, tuple[int, int], Value | None]


@dataclass
class Pool:
    families: dict[Hashable, Family] = field(default_factory=dict)
    slots: dict[SlotKey, SlotInfo] = field(default_factory=dict)
    linked: dict[str, list[Block]] = field(default_factory=dict)  # node -> its classes' blocks
    transport: dict[Where, cp_model.IntVar] = field(default_factory=dict)  # devices handed over
    taken: dict[SlotKey, cp_model.IntVar] = field(default_factory=dict)  # shared zone: pods per slot key
    # Linked zones: (node, class, slot position) -> pods of the class on the node taking that subrequest
    # of a firstAvailable request.
    splits: dict[tuple[str, int, int], cp_model.IntVar] = field(default_factory=dict)
    domains: dict[Split, cp_model.IntVar] = field(default_factory=dict)
    views: Views = field(default_factory=Views)  # what node_groups makes once for every node
    _enumerated: dict[Hashable, list[Pattern] | None] = field(default_factory=dict)

    def patterns(self, view: GroupView) -> list[Pattern] | None:
        if view.signature not in self._enumerated:
            self._enumerated[view.signature] = enumerate_patterns(view.kinds, view.devices, view.left)
        return self._enumerated[view.signature]

    def add(self, zone: str, views: Sequence[GroupView], blocks: Sequence[Block]) -> None:
        """The node's GPUs, in the shared zone or in the node's own (then its blocks are kept too)."""
        for block in blocks:
            self.slots.update(slot_infos(block))
        if zone != SHARED:
            self.linked[zone] = list(blocks)
        for view in views:
            patterns = self.patterns(view)
            assert patterns is not None, "add only groups whose patterns were found"
            # In the shared zone a pod takes one device: no two of its devices need to share a value.
            domain = view.domain if zone != SHARED else ()
            family = self.families.get((zone, domain, view.signature))
            if family is None:
                family = Family(zone, view.kinds, patterns, domain)
                self.families[(zone, domain, view.signature)] = family
            family.groups.append(view.group)

    def build(
        self,
        model: cp_model.CpModel,
        counts: dict[int, int],
        node_counts: dict[tuple[int, str], cp_model.IntVar],
        optional: dict[str, cp_model.IntVar],
    ) -> dict[int, list[cp_model.IntVar]]:
        """Pattern counts, supplies and transports; returns class -> its pods placed in the shared zone
        (a linked zone's pods are the per-node counts `node_counts` already hold)."""
        supply: dict[tuple[str, Domain, Kind], list[cp_model.LinearExprT]] = {}
        most: dict[tuple[str, Domain, Kind], int] = {}
        for i, family in enumerate(self.families.values()):
            size = len(family.groups)
            tag = f"{family.zone or 'pool'}_f{i}"
            family.use = [
                model.new_int_var(0, size, f"pattern_{tag}_{j}") for j in range(len(family.patterns))
            ]
            opened = optional.get(family.zone)
            model.add(sum(family.use) <= (size * opened if opened is not None else size))
            for k, kind in enumerate(family.kinds):
                where = (family.zone, family.domain, kind)
                supply.setdefault(where, []).extend(
                    p.counts[k] * u for p, u in zip(family.patterns, family.use, strict=True) if p.counts[k]
                )
                top = max((p.counts[k] for p in family.patterns), default=0)
                most[where] = most.get(where, 0) + top * size
        for (zone, domain, kind), given in sorted(supply.items(), key=lambda t: _order(t[0])):
            moved = []
            for key in sorted(kind):
                top = min(most[(zone, domain, kind)], counts[key[0]] * self.slots[key].count)
                name = f"hand_{zone or 'pool'}_k{key[0]}_s{key[1]}_{len(self.transport)}"
                var = model.new_int_var(0, top, name)
                self.transport[(zone, domain, kind, key)] = var
                moved.append(var)
            model.add(sum(moved) <= sum(given))
        zones: dict[str, list[tuple[Domain, SlotKey, cp_model.IntVar]]] = {}
        for (zone, domain, _, key), var in self.transport.items():
            zones.setdefault(zone, []).append((domain, key, var))
        out: dict[int, list[cp_model.IntVar]] = {}
        for key, moved in sorted(_by_key(zones.get(SHARED, [])).items()):
            var = model.new_int_var(0, counts[key[0]], f"pooled_k{key[0]}_s{key[1]}")
            model.add(var == sum(moved))
            self.taken[key] = var
            out.setdefault(key[0], []).append(var)
        for node, blocks in self.linked.items():
            handed = zones.get(node, [])
            for block in blocks:
                self._pods_take(model, node, block, node_counts[(block.cls.index, node)], handed)
        return out

    def _pods_take(
        self,
        model: cp_model.CpModel,
        node: str,
        block: Block,
        pods: cp_model.IntVar,
        transports: list[tuple[Domain, SlotKey, cp_model.IntVar]],
    ) -> None:
        """Every pod of the class on the node gets each request's devices from the node's kinds (a
        firstAvailable request: those of one of its subrequests; under a matchAttribute: those of one
        value)."""
        k = block.cls.index
        facts = block.facts
        mine = [t for t in transports if t[1][0] == k]
        handed = _by_key(mine)
        covered: set[int] = set()
        for cf in facts.constraints:
            covered |= set(cf.slots)
            self._one_value(model, node, block, pods, (cf.claim, cf.index), cf.attribute, cf.slots, mine)
        for slots in facts.requests():
            if slots[0].position in covered:
                continue
            if slots[0].first_available:
                split = [model.new_int_var(0, block.bound, f"sub_{node}_k{k}_s{s.position}") for s in slots]
                model.add(sum(split) == pods)
                self.splits.update(((node, k, s.position), v) for s, v in zip(slots, split, strict=True))
                takers: list[cp_model.LinearExprT] = list(split)
            else:
                takers = [pods]
            for s, who in zip(slots, takers, strict=True):
                model.add(sum(handed.get((k, s.position), [])) == s.count * who)

    def _one_value(
        self,
        model: cp_model.CpModel,
        node: str,
        block: Block,
        pods: cp_model.IntVar,
        constraint: tuple[int, int],
        attribute: str,
        positions: list[int],
        transports: list[tuple[Domain, SlotKey, cp_model.IntVar]],
    ) -> None:
        """The class's pods on the node split over the attribute's values; each covered slot takes its
        devices from families of the pod's value."""
        k = block.cls.index
        by_value: dict[Value | None, dict[int, list[cp_model.IntVar]]] = {}
        for domain, key, var in transports:
            if key[1] in positions:
                value = dict(domain).get(attribute)
                by_value.setdefault(value, {}).setdefault(key[1], []).append(var)
        parts = []
        for value, moved in sorted(by_value.items(), key=lambda t: repr(t[0])):
            tag = f"value_{node}_k{k}_c{constraint[0]}_{constraint[1]}_{len(self.domains)}"
            part = model.new_int_var(0, block.bound, tag)
            self.domains[(node, k, constraint, value)] = part
            parts.append(part)
            for p in positions:
                model.add(sum(moved.get(p, [])) == block.facts.slots[p].count * part)
        model.add(sum(parts) == pods)

    def touched(self) -> list[cp_model.LinearExprT]:
        """GPUs not in use before that the plan gives a non-empty pattern."""
        return [
            u
            for f in self.families.values()
            for p, u in zip(f.patterns, f.use, strict=True)
            if any(p.counts) and not all(g.busy for g in f.groups)
        ]


def _by_key(
    transports: list[tuple[Domain, SlotKey, cp_model.IntVar]],
) -> dict[SlotKey, list[cp_model.IntVar]]:
    out: dict[SlotKey, list[cp_model.IntVar]] = {}
    for _, key, var in transports:
        out.setdefault(key, []).append(var)
    return out


def _order(where: tuple[str, Domain, Kind]) -> tuple[str, str, list[SlotKey]]:
    return where[0], repr(where[1]), sorted(where[2])
