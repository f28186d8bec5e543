"""kube-scheduler's own placement as the model's starting point: CP-SAT begins from it, so the plan is at
least as good whenever the time runs out."""

from __future__ import annotations

from ....model.solution import Solution, Status
from .classes import PodClass
from .model import PlanModel
from .patterns import Domain, SlotKey
from .pool import SHARED, Pool, Split, Where


def from_solution(pm: PlanModel, solution: Solution) -> dict[int, int]:
    """Variable index -> value, for the counts and the DRA picks of the pods the solution placed."""
    unit_class = {u.id: (cls, i) for cls in pm.classes for i, u in enumerate(cls.units)}
    counts: dict[tuple[int, str], int] = {}
    # A complete hint: everything the placement does not use is 0 (CP-SAT repairs a partial one slowly).
    out: dict[int, int] = {v.index: 0 for v in pm.count.values()}
    for nm, blocks in pm.dra.values():
        out.update((v.index, 0) for v in nm.use.values())
        out.update((v.index, 0) for v in nm.chosen.values())
        out.update((v.index, 0) for b in blocks for v in b.active)
    for outcome in solution.units:
        if outcome.status != Status.ALLOCATED or outcome.unit not in unit_class:
            continue
        cls, member = unit_class[outcome.unit]
        key = (cls.index, outcome.node)
        var = pm.count.get(key)
        if var is None:
            continue
        copy = counts.get(key, 0)
        counts[key] = copy + 1
        if outcome.node not in pm.dra:
            continue
        nm, blocks = pm.dra[outcome.node]
        block = next((b for b in blocks if b.cls.index == cls.index), None)
        if block is None:
            continue
        if not block.aggregated:
            if copy >= block.instances:
                continue
            out[block.active[copy].index] = 1
        ids = [c.id for c in cls.claims[member]]
        for allocation in outcome.allocations:
            if allocation.claim not in ids:
                continue
            ci = ids.index(allocation.claim)
            position = block.first_claim + (ci if block.aggregated else copy * block.claims_per_pod + ci)
            for s in nm.facts.slots:
                if s.claim != position:
                    continue
                picked = {
                    r.device for r in allocation.results if (r.slot[1], r.slot[2]) == (s.request, s.sub)
                }
                if s.first_available:
                    taken = allocation.chosen.get(s.request) == s.sub
                    lit = nm.chosen[s.position]
                    out[lit.index] = out.get(lit.index, 0) + taken if block.aggregated else int(taken)
                for d in s.candidates:
                    use = nm.use.get((s.position, d))
                    if use is not None and d in picked:
                        out[use.index] = 1
    for key, n in counts.items():
        out[pm.count[key].index] = min(n, pm.bounds[key])
    out.update(_pool(pm, solution, unit_class))
    return out


def _pool(pm: PlanModel, solution: Solution, unit_class: dict[int, tuple[PodClass, int]]) -> dict[int, int]:
    """The pattern-planned GPUs: each one's devices as kube-scheduler took them, as a pattern that covers
    them; the devices handed to each slot key; on linked nodes, the pods per subrequest and per value of
    each matchAttribute."""
    pool = pm.pool
    if pool is None or not pool.families:
        return {}
    position = {(k, i.claim, i.request, i.sub): p for (k, p), i in pool.slots.items()}
    taken: dict[int, SlotKey] = {}  # device -> slot key
    split: dict[tuple[str, int, int], int] = {}  # (node, class, slot position) -> pods taking it
    picked: list[tuple[str, int, dict[int, int]]] = []  # (node, class, slot position -> a device it took)
    for outcome in solution.units:
        if outcome.status != Status.ALLOCATED or outcome.unit not in unit_class:
            continue
        cls, member = unit_class[outcome.unit]
        ids = [c.id for c in cls.claims[member]]
        devices: dict[int, int] = {}
        for allocation in outcome.allocations:
            if allocation.claim not in ids:
                continue
            ci = ids.index(allocation.claim)
            for r in allocation.results:
                p = position.get((cls.index, ci, r.slot[1], r.slot[2]))
                if p is not None:
                    taken[r.device] = (cls.index, p)
                    devices[p] = r.device
            for request, sub in allocation.chosen.items():
                p = position.get((cls.index, ci, request, sub))
                if p is not None:
                    split[(outcome.node, cls.index, p)] = split.get((outcome.node, cls.index, p), 0) + 1
        picked.append((outcome.node, cls.index, devices))
    handed: dict[Where, int] = {}
    domain_of: dict[int, Domain] = {}
    out: dict[int, int] = {}
    for family in pool.families.values():
        uses = [0] * len(family.patterns)
        for group in family.groups:
            vector = [0] * len(family.kinds)
            mine = []
            for d in group.devices:
                domain_of[d] = family.domain
                key = taken.get(d)
                k = next((i for i, kind in enumerate(family.kinds) if key in kind), None)
                if key is not None and k is not None:
                    vector[k] += 1
                    mine.append((family.kinds[k], key))
            if not any(vector):
                continue
            j = next(
                (
                    j
                    for j, p in enumerate(family.patterns)
                    if all(a >= b for a, b in zip(p.counts, vector, strict=True))
                ),
                None,
            )
            if j is None:
                continue  # not a set the patterns know: CP-SAT repairs this part of the hint
            uses[j] += 1
            for kind, key in mine:
                where = (family.zone, family.domain, kind, key)
                handed[where] = handed.get(where, 0) + 1
        out.update((u.index, n) for u, n in zip(family.use, uses, strict=True))
    per_key: dict[SlotKey, int] = {}
    for where, var in pool.transport.items():
        n = handed.get(where, 0)
        out[var.index] = n
        if where[0] == SHARED:
            per_key[where[3]] = per_key.get(where[3], 0) + n
    out.update((var.index, per_key.get(key, 0)) for key, var in pool.taken.items())
    out.update((var.index, split.get(where, 0)) for where, var in pool.splits.items())
    out.update(_values(pool, picked, domain_of))
    return out


def _values(
    pool: Pool, picked: list[tuple[str, int, dict[int, int]]], domain_of: dict[int, Domain]
) -> dict[int, int]:
    """Pods per value of each matchAttribute on linked nodes, by the domain of the devices they took."""
    constraints: dict[tuple[str, int], list[tuple[tuple[int, int], str, list[int]]]] = {}
    for node, blocks in pool.linked.items():
        for block in blocks:
            constraints[(node, block.cls.index)] = [
                ((cf.claim, cf.index), cf.attribute, cf.slots) for cf in block.facts.constraints
            ]
    counted: dict[Split, int] = {}
    for node, k, devices in picked:
        for constraint, attribute, positions in constraints.get((node, k), ()):
            d = next((devices[p] for p in positions if p in devices), None)
            if d is None or d not in domain_of:
                continue
            where = (node, k, constraint, dict(domain_of[d]).get(attribute))
            counted[where] = counted.get(where, 0) + 1
    return {var.index: counted.get(where, 0) for where, var in pool.domains.items()}
