"""Admitting pods one after another as the kubelet does, each pod's placement chosen by CP-SAT.

Pods are still admitted in order and never moved afterwards (running pods keep their CPUs); what
changes is how each pod is placed: every choice the kubelet makes greedily (which of equally good
NUMA masks, which CPUs inside them, which memory mask) is decided jointly for the whole pod by the
criteria of objective.py. Pods the kubelet re-admits silently (already running) keep what the kubelet
itself gave them, so they are admitted by the greedy path.

The kubelet's own answer on the same state is computed first: it is the solver's starting point,
and when the solver proves that nothing fits, the kubelet's rejection (its reason and message) is
what is reported. Rejections no choice can avoid (a request that is not a multiple of the core size
under full-pcpus-only, an empty pod shared pool) are reported without solving.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ....errors import KubefitError
from .. import bitmask
from ..admission import AdmissionError, EmptyPodSharedPoolError, SMTAlignmentError
from ..bitmask import Hint
from ..greedy import podlevel
from ..greedy.admit import Admitter
from ..hint_merge import merge
from ..problem import CPUSet, NodeProblem, PodFacts
from ..solution import NodeSolution, PodAdmission
from . import cpus, memory, objective, topology
from .facts import BUBBLE, PodView, view
from .model import Guards, PodModel
from .solve import Outcome, Proof, solve


class Undecided(AdmissionError):
    reason = "Unknown"


@dataclass
class GreedyAnswer:
    """What the kubelet itself does with the pod on the same state."""

    error: AdmissionError | None
    cpus: dict[str, CPUSet]  # container (or the bubble) -> exclusive CPUs
    blocks: dict[str, int]  # container -> memory mask
    hints: dict[str, Hint]


class CpsatAdmitter(Admitter):
    def __init__(self, problem: NodeProblem, deadline: float | None) -> None:
        super().__init__(problem)
        self.deadline = deadline
        self.proofs: dict[str, str] = {}

    def run(self) -> NodeSolution:
        admissions = []
        for pod in self.problem.pods:
            a = self.admit(pod)
            proof = self.proofs.get(pod.uid, "")
            if proof:
                a = PodAdmission(
                    a.pod,
                    a.admitted,
                    a.reason,
                    a.message,
                    a.numa_affinity,
                    a.pod_cpus,
                    a.default_cpus,
                    a.containers,
                    proof,
                )
            admissions.append(a)
        return NodeSolution(tuple(admissions), self.cpus.freeze(), self.mem.freeze())

    # --- one pod ---------------------------------------------------------------------------------

    def _admit(self, pod: PodFacts) -> tuple[Hint | None, dict[str, Hint]]:
        if not pod.report:
            return super()._admit(pod)
        greedy = self._greedy(pod)
        if isinstance(greedy.error, EmptyPodSharedPoolError) or _not_multiple(greedy.error):
            self.proofs[pod.uid] = Proof.INFEASIBLE
            raise greedy.error  # type: ignore[misc]
        pv = view(self, pod)
        if not pv.exclusive and not pv.groups and greedy.error is None:
            # Nothing to place: the kubelet's answer is the only one.
            self.proofs[pod.uid] = Proof.OPTIMAL
            return super()._admit(pod)
        pm = build(self, pv)
        terms = objective.criteria(pm)
        staged = objective.stages(terms)
        cosmetic = objective.lowest_cpus(pm)
        start = _start(pm, greedy) if greedy.error is None else None
        outcome = solve(
            pm, [e for _, e, _ in staged], cosmetic[1] if cosmetic[2] else None, self.deadline, start
        )
        self.proofs[pod.uid] = outcome.proof
        if outcome.proof == Proof.INFEASIBLE:
            if greedy.error is not None:
                raise greedy.error
            raise KubefitError(
                f"cpsat: pod {pod.ref}: the model has no assignment but the kubelet admits the pod; "
                "this is a bug in the cpsat node engine"
            )
        if outcome.proof == Proof.UNKNOWN:
            if greedy.error is None:
                # The kubelet's own answer is valid: report it, unproven.
                self.proofs[pod.uid] = Proof.FEASIBLE
                return super()._admit(pod)
            raise Undecided(
                "undecided, not a proof that it does not fit: the time limit ran out before the solver "
                "found an assignment or proved there is none (raise --time-limit)"
            )
        return self._apply(pm, outcome)

    def _greedy(self, pod: PodFacts) -> GreedyAnswer:
        saved = self._save()
        try:
            pod_hint, hints = super()._admit(pod)
        except AdmissionError as e:
            return GreedyAnswer(e, {}, {}, {})
        finally:
            taken_cpus = self.cpus
            taken_mem = self.mem
            self._restore(saved)
        got: dict[str, CPUSet] = {}
        bubble = taken_cpus.pod_entries.get(pod.uid)
        if bubble is not None and pod.uid not in self.cpus.pod_entries:
            got[BUBBLE] = bubble
        for c in pod.containers:
            entry = taken_cpus.get(pod.uid, c.name)
            if entry is not None:
                got[c.name] = entry
        blocks = {}
        for c in pod.containers:
            b = taken_mem.blocks(pod.uid, c.name)
            if b:
                blocks[c.name] = bitmask.mask_of(b[0].numa)
        if pod_hint is not None:
            hints = {**hints, "": pod_hint}
        return GreedyAnswer(None, got, blocks, hints)

    # --- decisions into the managers' state ----------------------------------------------------------

    def _apply(self, pm: PodModel, outcome: Outcome) -> tuple[Hint | None, dict[str, Hint]]:
        pv = pm.view
        pod = pv.pod
        values = outcome.values
        chosen: dict[int, CPUSet] = {
            s: frozenset(c for c, v in row.items() if values[v.index]) for s, row in pm.x.items()
        }
        masks = {g: next(m for m, v in row.items() if values[v.index]) for g, row in pm.block.items()}
        unit_hints = {u.index: self._unit_hint(pm, u.index, values) for u in pv.units}
        if self.policy.topology_policy == "none":
            unaligned = Hint(None, False)
            self._place(pv, chosen, masks)
            return None, {c.name: unaligned for c in pod.containers}
        if pv.pod_level:
            hint = unit_hints[0]
            bubble = chosen[0]
            self.cpus.pod_entries[pod.uid] = bubble
            memory_hint = Hint(masks[0], True) if 0 in masks else hint
            podlevel.allocate(self, pod, memory_hint)
            self.cpus.default -= bubble
            return hint, {c.name: hint for c in pod.containers}
        self._place(pv, chosen, masks)
        if self.policy.topology_scope == "pod":
            hint = unit_hints[0]
            return hint, {c.name: hint for c in pod.containers}
        return None, {pv.slots[u.index].name: unit_hints[u.index] for u in pv.units}

    def _place(self, pv: PodView, chosen: dict[int, CPUSet], masks: dict[int, int]) -> None:
        pod = pv.pod
        for s in pv.slots:
            c = s.container
            assert c is not None
            if s.cpus and self.cpu is not None:
                cpus_of = chosen[s.index]
                if s.fixed_cpus is None:
                    self.cpus.set(pod.uid, c.name, cpus_of)
                    self.cpus.default -= cpus_of
                self.cpu.update_reusable(pod, c, cpus_of)
            if s.memory_group is not None and self.memory is not None:
                existing = self.mem.blocks(pod.uid, c.name)
                if existing is not None:
                    self.memory.update_reusable(pod, c, existing)
                else:
                    self.memory.assign(self.mem, pod, c, masks[s.memory_group])

    def _unit_hint(self, pm: PodModel, unit: int, values: dict[int, int]) -> Hint:
        row = pm.merged.get(unit)
        if row is None:
            # No resource has a preference: the merge of nothing, as the kubelet computes it.
            return merge(self.policy.topology_policy, self.numa, [None], self.policy.prefer_closest_numa)[0]
        mask = next(m for m, v in row.items() if values[v.index])
        preferred = bool(values[pm.preferred[unit].index]) if unit in pm.preferred else True
        if self.policy.topology_policy == "single-numa-node" and mask == self.numa.default_mask:
            return Hint(None, preferred)
        return Hint(mask, preferred)


def _not_multiple(error: AdmissionError | None) -> bool:
    return isinstance(error, SMTAlignmentError) and "not multiple" in error.message


def build(admitter: Admitter, pv: PodView, guards: Guards | None = None) -> PodModel:
    """The model of one pod: variables, then every constraint family (with `guards`: each family's
    constraints in named groups, for explanations)."""
    pm = PodModel(admitter, pv, guards=guards)
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
