"""Admitting pods one after another as the kubelet does, each pod's placement chosen by CP-SAT.

The flow is the solving engines' (solving.py): every choice the kubelet makes greedily (which of
equally good NUMA masks, which CPUs inside them, which memory mask) is decided jointly for the whole
pod by the criteria of objective.py, starting from the kubelet's own answer.
"""

from __future__ import annotations

import time

from ....model.node.problem import NodeProblem
from ..greedy.admit import Admitter
from ..solving import Decisions, GreedyAnswer, Placed, Proof, SolvingAdmitter
from ..view import PodView
from . import cpus, memory, objective, topology
from .model import PodModel
from .solve import Outcome, solve


class CpsatAdmitter(SolvingAdmitter):
    def __init__(self, problem: NodeProblem, deadline: float | None) -> None:
        super().__init__(problem)
        self.deadline = deadline

    name = "cpsat"

    def place(self, pv: PodView, greedy: GreedyAnswer) -> Placed:
        pod = pv.pod
        pm = build(self, pv)
        terms = objective.criteria(pm)
        staged = objective.stages(terms)
        cosmetic = objective.lowest_cpus(pm)
        start = _start(pm, greedy) if greedy.error is None else None
        outcome = solve(
            pm, [e for _, e, _ in staged], cosmetic[1] if cosmetic[2] else None, self.deadline, start
        )
        if outcome.proof == Proof.INFEASIBLE:
            raise self.refuted(pod, greedy)
        if outcome.proof == Proof.UNKNOWN:
            return self.undecided(
                pod,
                greedy,
                "the time limit ran out before the solver found an assignment or proved there is none "
                "(raise --time-limit)",
            )
        self.proofs[pod.uid] = outcome.proof
        return self.apply(pv, self._decisions(pm, outcome))

    def _decisions(self, pm: PodModel, outcome: Outcome) -> Decisions:
        values = outcome.values
        d = Decisions()
        for s, row in pm.x.items():
            d.cpus[s] = frozenset(c for c, v in row.items() if values[v.index])
        for g, row in pm.block.items():
            d.masks[g] = next(m for m, v in row.items() if values[v.index])
        for u in pm.view.units:
            merged = pm.merged.get(u.index)
            if merged is None:
                # No resource has a preference: the merge of nothing, as the kubelet computes it.
                d.hints[u.index] = self.unaligned_hint()
                continue
            mask = next(m for m, v in merged.items() if values[v.index])
            preferred = bool(values[pm.preferred[u.index].index]) if u.index in pm.preferred else True
            d.hints[u.index] = self.merged_hint(mask, preferred)
        return d


def build(admitter: Admitter, pv: PodView) -> PodModel:
    """The model of one pod: variables, then every constraint family."""
    pm = PodModel(admitter, pv)
    pm.cpu_vars()
    cpus.cpu_counts(pm)
    cpus.cpu_lifetimes(pm)
    cpus.free_physical_cpus(pm)
    memory.memory_blocks(pm)
    memory.memory_capacity(pm)
    memory.memory_grouping(pm)
    topology.merged_hints(pm)
    topology.aligned_cpus(pm)
    return pm


def _start(pm: PodModel, greedy: GreedyAnswer) -> dict[int, int]:
    """The kubelet's answer as a starting point (a hint: the solver repairs what does not fit)."""
    values: dict[int, int] = {}
    for s, row in pm.x.items():
        got = greedy.cpus.get(pm.view.slots[s].name, frozenset())
        for c, v in row.items():
            values[v.index] = int(c in got)
    for g, row in pm.block.items():
        names = [pm.view.slots[s].name for s in pm.view.groups[g].slots]
        mask = next((greedy.blocks[n] for n in names if n in greedy.blocks), None)
        for m, v in row.items():
            values[v.index] = int(m == mask)
    for u, row in pm.merged.items():
        name = pm.view.units[u].name
        hint = greedy.hints.get(name if name in greedy.hints else "")
        mask = hint.mask if hint is not None and hint.mask is not None else pm.admitter.numa.default_mask
        for m, v in row.items():
            values[v.index] = int(m == mask)
        if u in pm.preferred and hint is not None:
            values[pm.preferred[u].index] = int(hint.preferred)
    return values


def deadline_after(seconds: float | None) -> float | None:
    return None if seconds is None else time.monotonic() + seconds
