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
  their devices from the node's kinds.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from .dra_node import Block
from .patterns import Group, GroupView, Kind, Pattern, SlotInfo, SlotKey, enumerate_patterns, slot_infos

SHARED = ""  # the zone of GPUs pooled across nodes


@dataclass
class Family:
    zone: str
    kinds: tuple[Kind, ...]
    patterns: list[Pattern]
    groups: list[Group] = field(default_factory=list)
    use: list[cp_model.IntVar] = field(default_factory=list)  # GPUs taking each pattern


Transport = dict[tuple[str, Kind, SlotKey], cp_model.IntVar]


@dataclass
class Pool:
    families: dict[Hashable, Family] = field(default_factory=dict)
    slots: dict[SlotKey, SlotInfo] = field(default_factory=dict)
    linked: dict[str, list[Block]] = field(default_factory=dict)  # node -> its classes' blocks
    transport: Transport = field(default_factory=dict)  # (zone, kind, key) -> devices handed over
    taken: dict[SlotKey, cp_model.IntVar] = field(default_factory=dict)  # shared zone: pods per slot key
    # Linked zones: (node, class, slot position) -> pods of the class on the node taking that subrequest
    # of a firstAvailable request.
    splits: dict[tuple[str, int, int], cp_model.IntVar] = field(default_factory=dict)
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
            family = self.families.get((zone, view.signature))
            if family is None:
                family = self.families[(zone, view.signature)] = Family(zone, view.kinds, patterns)
            family.groups.append(view.group)

    def zones(self) -> list[str]:
        return list(dict.fromkeys(f.zone for f in self.families.values()))

    def build(
        self,
        model: cp_model.CpModel,
        counts: dict[int, int],
        node_counts: dict[tuple[int, str], cp_model.IntVar],
        optional: dict[str, cp_model.IntVar],
    ) -> dict[int, list[cp_model.IntVar]]:
        """Pattern counts, supplies and transports; returns class -> its pods placed in the shared zone
        (a linked zone's pods are the per-node counts `node_counts` already hold)."""
        supply: dict[tuple[str, Kind], list[cp_model.LinearExprT]] = {}
        most: dict[tuple[str, Kind], int] = {}
        for i, family in enumerate(self.families.values()):
            size = len(family.groups)
            tag = f"{family.zone or 'pool'}_f{i}"
            family.use = [
                model.new_int_var(0, size, f"pattern_{tag}_{j}") for j in range(len(family.patterns))
            ]
            opened = optional.get(family.zone)
            model.add(sum(family.use) <= (size * opened if opened is not None else size))
            for k, kind in enumerate(family.kinds):
                supply.setdefault((family.zone, kind), []).extend(
                    p.counts[k] * u for p, u in zip(family.patterns, family.use, strict=True) if p.counts[k]
                )
                top = max((p.counts[k] for p in family.patterns), default=0)
                most[(family.zone, kind)] = most.get((family.zone, kind), 0) + top * size
        handed: dict[tuple[str, SlotKey], list[cp_model.IntVar]] = {}
        for (zone, kind), given in sorted(supply.items(), key=lambda t: (t[0][0], sorted(t[0][1]))):
            moved = []
            for key in sorted(kind):
                info = self.slots[key]
                top = min(most[(zone, kind)], counts[key[0]] * info.count)
                var = model.new_int_var(
                    0, top, f"hand_{zone or 'pool'}_k{key[0]}_s{key[1]}_{len(self.transport)}"
                )
                self.transport[(zone, kind, key)] = var
                handed.setdefault((zone, key), []).append(var)
                moved.append(var)
            model.add(sum(moved) <= sum(given))
        out: dict[int, list[cp_model.IntVar]] = {}
        for (zone, key), moved in sorted(handed.items()):
            if zone != SHARED:
                continue
            var = model.new_int_var(0, counts[key[0]], f"pooled_k{key[0]}_s{key[1]}")
            model.add(var == sum(moved))
            self.taken[key] = var
            out.setdefault(key[0], []).append(var)
        for node, blocks in self.linked.items():
            for block in blocks:
                self._pods_take(model, node, block, node_counts[(block.cls.index, node)], handed)
        return out

    def _pods_take(
        self,
        model: cp_model.CpModel,
        node: str,
        block: Block,
        pods: cp_model.IntVar,
        handed: dict[tuple[str, SlotKey], list[cp_model.IntVar]],
    ) -> None:
        """Every pod of the class on the node gets each request's devices from the node's kinds (a
        firstAvailable request: those of one of its subrequests)."""
        k = block.cls.index
        for slots in block.facts.requests():
            if slots[0].first_available:
                split = [model.new_int_var(0, block.bound, f"sub_{node}_k{k}_s{s.position}") for s in slots]
                model.add(sum(split) == pods)
                self.splits.update(((node, k, s.position), v) for s, v in zip(slots, split, strict=True))
                takers: list[cp_model.LinearExprT] = list(split)
            else:
                takers = [pods]
            for s, who in zip(slots, takers, strict=True):
                moved = handed.get((node, (k, s.position)), [])
                model.add(sum(moved) == s.count * who)

    def touched(self) -> list[cp_model.LinearExprT]:
        """GPUs not in use before that the plan gives a non-empty pattern."""
        return [
            u
            for f in self.families.values()
            for p, u in zip(f.patterns, f.use, strict=True)
            if any(p.counts) and not all(g.busy for g in f.groups)
        ]
