"""Constraint families of the memory manager's Static policy (memorymanager/policy_static.go).

Each memory group puts its blocks (regular memory and huge pages alike) on one NUMA mask. A mask
can hold a group when the nodes' allocatable memory covers the request, when the NUMA grouping rules
allow it (a node used alone never joins a group, a node of a group is never used alone or in another
group), and when its free memory covers what the pod's containers alive together hold on it.
"""

from __future__ import annotations

from .. import bitmask
from ..bitmask import all_masks
from ..greedy.state import Table
from ..view import MemoryGroup
from .model import BoolVar, PodModel


def _table(pm: PodModel, node: int, resource: str) -> Table:
    return pm.admitter.mem.machine[node].memory.get(resource) or Table(0, 0, 0, 0, 0)


def free(pm: PodModel, mask: int, resource: str) -> int:
    return sum(_table(pm, n, resource).free for n in bitmask.bits(mask))


def _allocatable(pm: PodModel, mask: int, resource: str) -> int:
    return sum(_table(pm, n, resource).allocatable for n in bitmask.bits(mask))


def _groups_allow(pm: PodModel, mask: int) -> bool:
    """The NUMA grouping rules against the state before this pod."""
    machine = pm.admitter.mem.machine
    nodes = bitmask.bits(mask)
    if len(nodes) == 1:
        return len(machine[nodes[0]].cells) <= 1
    return all(machine[n].assignments == 0 or sorted(machine[n].cells) == nodes for n in nodes)


def candidate_masks(pm: PodModel, group: MemoryGroup) -> dict[int, bool]:
    """The masks the group may use, each with whether the memory manager prefers it."""
    if group.fixed_mask is not None:
        return {group.fixed_mask: True}
    if group.static is not None:
        return {h.mask: h.preferred for h in group.static if h.mask is not None}
    big_enough = [
        m for m in all_masks(pm.nodes) if all(_allocatable(pm, m, r) >= size for r, size in group.request)
    ]
    least = min((bitmask.count(m) for m in big_enough), default=0)
    return {m: bitmask.count(m) == least for m in big_enough if _groups_allow(pm, m)}


def memory_blocks(pm: PodModel) -> None:
    """Each memory group lies on exactly one mask the memory manager could hint."""
    for g in pm.view.groups:
        masks = candidate_masks(pm, g)
        pm.memory_masks[g.index] = masks
        row = {m: pm.bool(f"block_{g.index}_{m:b}") for m in masks}
        pm.block[g.index] = row
        pm.model.add_exactly_one(row.values())


def memory_capacity(pm: PodModel) -> None:
    """What the containers alive together hold on a mask fits its free memory: a completed init
    container's memory is reused by later containers on the same mask, sidecars and app containers
    keep theirs. (A mask the manager hinted from the state already fits; blocks in the state are
    already counted in it.)"""
    dynamic = {g.index: g for g in pm.view.groups if g.static is None and g.fixed_mask is None}
    if not dynamic:
        return
    slot_group = {s: g.index for g in pm.view.groups for s in g.slots if g.index in dynamic}
    for phase in pm.view.phases():
        live = [slot_group[s] for s in phase if s in slot_group]
        if not live:
            continue
        masks = {m for g in live for m in pm.block[g]}
        for m in sorted(masks):
            for resource in sorted({r for g in live for r, _ in dynamic[g].request}):
                held = [
                    size * pm.block[g][m]
                    for g in live
                    if m in pm.block[g]
                    for r, size in dynamic[g].request
                    if r == resource
                ]
                if held:
                    pm.model.add(sum(held) <= free(pm, m, resource))


def memory_grouping(pm: PodModel) -> None:
    """Within the pod, the NUMA grouping rules hold between its own containers too: a node is used
    alone, or by exactly one multi-node group."""
    rows = [pm.block[g.index] for g in pm.view.groups if g.fixed_mask is None]
    if len(rows) < 2:
        return
    for node in pm.nodes:
        uses: dict[int, list[BoolVar]] = {}
        for row in rows:
            for m, lit in row.items():
                if m >> node & 1:
                    uses.setdefault(m, []).append(lit)
        if len(uses) < 2:
            continue
        used = {m: pm.bool(f"memnode_{node}_{m:b}") for m in uses}
        for m, lits in uses.items():
            for lit in lits:
                pm.model.add_implication(lit, used[m])
        singles = [m for m in used if bitmask.count(m) == 1]
        multis = [m for m in used if bitmask.count(m) > 1]
        # At most one group per node, and never a group beside single-node use.
        pm.model.add(sum(used[m] for m in multis) + (used[singles[0]] if singles else 0) <= 1)
