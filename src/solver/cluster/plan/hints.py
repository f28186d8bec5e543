"""kube-scheduler's own placement as the model's starting point: CP-SAT begins from it, so the plan is at
least as good whenever the time runs out."""

from __future__ import annotations

from ...solution import Solution, Status
from .classes import PodClass
from .model import PlanModel


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
    """The pattern-planned nodes: each GPU's devices as kube-scheduler took them, as the smallest pattern
    that covers them, and the pods per class and subrequest."""
    pool = pm.pool
    if pool is None or not pool.families:
        return {}
    taken: dict[int, tuple[int, int]] = {}  # device -> slot key
    for outcome in solution.units:
        if outcome.status != Status.ALLOCATED or outcome.unit not in unit_class:
            continue
        cls, _ = unit_class[outcome.unit]
        for allocation in outcome.allocations:
            for r in allocation.results:
                taken[r.device] = (cls.index, r.slot[2])
    out: dict[int, int] = {}
    per_key: dict[tuple[int, int], int] = {}
    for family in pool.families.values():
        uses = [0] * len(family.patterns)
        for group in family.groups:
            vector = [0] * len(family.keys)
            for d in group.devices:
                key = taken.get(d)
                if key is not None and key in family.keys:
                    vector[family.keys.index(key)] += 1
            if not any(vector):
                continue
            for j, pattern in enumerate(family.patterns):
                if all(a >= b for a, b in zip(pattern.counts, vector, strict=True)):
                    uses[j] += 1
                    for key, n in zip(family.keys, vector, strict=True):
                        per_key[key] = per_key.get(key, 0) + n
                    break
        out.update((u.index, n) for u, n in zip(family.use, uses, strict=True))
    out.update((var.index, per_key.get(key, 0)) for key, var in pool.taken.items())
    return out
