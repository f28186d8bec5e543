"""Constraint families of the topology manager: the merged hint of each unit, the hint of each
resource it merges, and what the merged hint means for the CPUs allocated with it.

The kubelet merges every resource's hint list (topologymanager/policy.go): a permutation's mask is
the AND of its masks, preferred only when every hint is preferred and all masks are equal. Restricted
and single-numa-node admit only a preferred result, so there the merged mask must be a preferred hint
of every resource; best-effort admits anything and only ranks. Which hint of equal rank the kubelet
takes (the numerically lowest mask) is a first-fit choice this engine makes by its own criteria.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import bitmask
from ..bitmask import all_masks
from ..view import CPU, MEMORY, Unit
from .model import BoolVar, Expr, PodModel


@dataclass(frozen=True)
class Resource:
    """One hint provider's resource for a unit: which masks it can hint, which of them preferred."""

    name: str
    masks: dict[int, bool]  # mask -> preferred
    kind: str  # "static" | CPU (the model states the hint) | MEMORY (the mask of a memory group)
    ref: int = -1  # the slot (cpu) or memory group (memory)


def cpu_min_size(pm: PodModel, request: int) -> int:
    """The fewest NUMA nodes whose *total* CPUs could hold the request (capacity, not availability)."""
    topo = pm.topo
    sizes = [
        bitmask.count(m) for m in all_masks(pm.nodes) if len(topo.cpus_in("numa", bitmask.bits(m))) >= request
    ]
    return min(sizes, default=len(pm.nodes))


def resources(pm: PodModel, unit: Unit) -> list[Resource]:
    """The resources whose hints the unit's merge takes, in a fixed order."""
    out = [
        Resource(name, {h.mask: h.preferred for h in hints if h.mask is not None}, "static")
        for name, hints in sorted(unit.static.items())
    ]
    cpu = pm.admitter.cpu
    if unit.cpu_slot is not None and cpu is not None:
        request = pm.view.slots[unit.cpu_slot].cpus
        least = cpu_min_size(pm, request)
        masks = {m: bitmask.count(m) == least or cpu._socket_aligned(m, least) for m in all_masks(pm.nodes)}
        out.append(Resource(CPU, masks, CPU, unit.cpu_slot))
    if unit.memory_group is not None:
        out.append(Resource(MEMORY, dict(pm.memory_masks[unit.memory_group]), MEMORY, unit.memory_group))
    return out


def merged_hints(pm: PodModel) -> None:
    """Each unit gets one merged hint. Restricted and single-numa-node admit only a preferred one, so
    its mask must be a preferred hint of every resource (single-numa-node: of one NUMA node); a unit
    with no resource expressing a preference needs no mask."""
    policy = pm.policy
    if policy == "none":
        return
    for unit in pm.view.units:
        res = resources(pm, unit)
        pm.unit_resources[unit.index] = res
        if not res:
            continue
        name = unit.name
        if policy == "best-effort":
            masks = all_masks(pm.nodes)
        else:
            masks = [m for m in all_masks(pm.nodes) if all(r.masks.get(m, False) for r in res)]
            if policy == "single-numa-node":
                masks = [m for m in masks if bitmask.count(m) == 1]
        row = {m: pm.bool(f"merged_{name}_{m:b}") for m in masks}
        pm.merged[unit.index] = row
        pm.model.add_exactly_one(row.values())
        if policy == "best-effort":
            pm.preferred[unit.index] = pm.bool(f"preferred_{name}")
            _best_effort(pm, unit, res)
        else:
            for r in res:
                _selected(pm, unit, r, row)


def _selected(pm: PodModel, unit: Unit, r: Resource, chosen: dict[int, BoolVar]) -> None:
    """The resource's hint is the mask in `chosen`: a mask it cannot hint is ruled out, a dynamic
    one must hold (CPU: enough usable CPUs; memory: the group's blocks lie on it)."""
    for m, lit in chosen.items():
        if m not in r.masks:
            pm.model.add(lit == 0)
    if r.kind == CPU:
        cpu_hint_valid(pm, unit, r.ref, chosen)
    elif r.kind == MEMORY:
        blocks = pm.block[r.ref]
        for m in set(blocks) | set(chosen):
            if m in chosen and m in blocks:
                pm.model.add(blocks[m] == chosen[m])
            elif m in chosen:
                pm.model.add(chosen[m] == 0)
            else:
                pm.model.add(blocks[m] == 0)


def _best_effort(pm: PodModel, unit: Unit, res: list[Resource]) -> None:
    """Best-effort: each resource picks one of its hints, the merged mask is their AND, and it is
    preferred only when every picked hint is preferred and equal to it. A resource that cannot be
    satisfied (an empty list) contributes "any, not preferred"."""
    merged = pm.merged[unit.index]
    preferred = pm.preferred[unit.index]
    picks: list[dict[int, BoolVar]] = []
    hints = pm.hint.setdefault(unit.index, {})
    for r in res:
        if not r.masks:
            pm.model.add(preferred == 0)
            continue
        if r.kind == MEMORY:
            row = pm.block[r.ref]
        else:
            row = {m: pm.bool(f"hint_{unit.name}_{r.name}_{m:b}") for m in r.masks}
            pm.model.add_exactly_one(row.values())
            if r.kind == CPU:
                cpu_hint_valid(pm, unit, r.ref, row)
        hints[r.name] = row
        picks.append(row)
        # Preferred: this resource's pick is the merged mask itself, and a preferred hint of it.
        for m, lit in merged.items():
            if m in row:
                pm.model.add_bool_or([preferred.Not(), lit.Not(), row[m]])
            else:
                pm.model.add_bool_or([preferred.Not(), lit.Not()])
        for m, lit in row.items():
            if not r.masks.get(m, False):
                pm.model.add_implication(lit, preferred.Not())
    if not picks:
        return
    for node in pm.nodes:
        inside = pm.node_of(merged, node)
        each = [pm.node_of(row, node) for row in picks]
        for e in each:
            pm.model.add(inside <= e)
        pm.model.add(inside >= sum(each) - (len(each) - 1))


def cpu_hint_valid(pm: PodModel, unit: Unit, slot: int, chosen: dict[int, BoolVar]) -> None:
    """A mask is a CPU hint of the container when its usable CPUs (free, or held by a completed init
    container of the pod) cover the request, and it holds every such reusable CPU."""
    s = pm.view.slots[slot]
    topo = pm.topo
    usable = {cpu: pm.usable(slot, cpu) for cpu in s.candidates}
    per_node = {n: sum(usable[c] for c in s.candidates if topo.of(c, "numa") == n) for n in pm.nodes}
    for m, lit in chosen.items():
        inside = sum(per_node[n] for n in bitmask.bits(m))
        pm.model.add(inside >= s.cpus).only_enforce_if(lit)
    for cpu in s.candidates:
        for reused in pm.reusable(slot, cpu):
            pm.model.add(reused <= pm.node_of(chosen, topo.of(cpu, "numa")))


def aligned_cpus(pm: PodModel) -> None:
    """CPUs are taken inside the merged mask first (with align-by-socket: inside the sockets it
    touches), as many as it holds; only what does not fit goes elsewhere. A preferred merged hint is
    a CPU hint, so then every CPU lies inside it."""
    if pm.policy == "none":
        return
    by_socket = pm.admitter.policy.option("align-by-socket")
    topo = pm.topo
    for unit in pm.view.units:
        merged = pm.merged.get(unit.index)
        if merged is None:
            continue
        for slot in unit.slots:
            s = pm.view.slots[slot]
            if s.cpus == 0 or s.fixed_cpus is not None:
                continue
            fits = pm.bool(f"fits_{s.name}")
            if pm.policy != "best-effort":
                pm.model.add(fits == 1)
            else:
                pm.model.add_implication(pm.preferred[unit.index], fits)
            for cpu, lit in pm.x[slot].items():
                inside: Expr
                if by_socket:
                    socket = topo.of(cpu, "socket")
                    inside = sum(
                        v for m, v in merged.items() if socket in topo.sockets_of_numa(bitmask.bits(m))
                    )
                else:
                    inside = pm.node_of(merged, topo.of(cpu, "numa"))
                pm.model.add(lit <= inside).only_enforce_if(fits)
                # Not all fit: every usable CPU inside was taken.
                pm.model.add(lit >= pm.usable(slot, cpu) + inside - 1).only_enforce_if(fits.Not())
