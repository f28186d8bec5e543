"""What the solving node engines (cpsat, asp) share: pods admitted one after another as the kubelet
admits them, each pod's placement decided by a solver instead of the kubelet's first fit.

Pods are still admitted in order and never moved afterwards (running pods keep their CPUs); a solver
decides, for one pod at a time, the CPUs of each slot, the NUMA mask of each memory group and the
merged hint of each unit (`Decisions`), and `SolvingAdmitter.apply` writes them into the managers'
state exactly where the kubelet would have written its own. Pods the kubelet re-admits silently
(already running) keep what the kubelet itself gave them, so they are admitted by the greedy path.

The kubelet's own answer on the same state (`GreedyAnswer`) comes first: a solver starts from it,
and where a solver proves that nothing fits, the kubelet's rejection (its reason and message) is what
is reported. Rejections no choice can avoid (a request that is not a multiple of the core size under
full-pcpus-only, an empty pod shared pool) are reported without solving.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from ...model.errors import KubefitError
from ...model.node.problem import ContainerFacts, CPUSet, NodeProblem, PodFacts
from ...model.node.solution import NodeSolution
from . import bitmask
from .admission import AdmissionError, EmptyPodSharedPoolError, SMTAlignmentError
from .bitmask import Hint
from .greedy import podlevel
from .greedy.admit import Admitter
from .hint_merge import merge
from .view import BUBBLE, PodView, view


class Proof(StrEnum):
    OPTIMAL = "optimal"  # admitted, and no assignment is better on the criteria
    FEASIBLE = "feasible"  # admitted, but the time ran out before the assignment was proven best
    INFEASIBLE = "infeasible"  # proven: no assignment satisfies the policy
    UNKNOWN = "unknown"  # the time ran out before anything was found or proven


class Undecided(AdmissionError):
    reason = "Unknown"


@dataclass
class GreedyAnswer:
    """What the kubelet itself does with the pod on the same state."""

    error: AdmissionError | None
    cpus: dict[str, CPUSet]  # container (or the bubble) -> exclusive CPUs
    blocks: dict[str, int]  # container -> memory mask
    hints: dict[str, Hint]  # container (or "" for the pod) -> merged hint
    # For a rejected pod: what the kubelet gave the containers it allocated before refusing the pod
    # (container -> (CPUs, memory mask)), which it forgets when it refuses the pod.
    allocated: dict[str, tuple[CPUSet | None, int | None]] = field(default_factory=dict)

    @property
    def unavoidable(self) -> bool:
        """A rejection of the pod's shape that no placement avoids."""
        error = self.error
        if isinstance(error, EmptyPodSharedPoolError):
            return True
        return isinstance(error, SMTAlignmentError) and "not multiple" in error.message


@dataclass
class Decisions:
    """One pod's placement: CPUs per slot, the mask of each memory group, the merged hint per unit."""

    cpus: dict[int, CPUSet] = field(default_factory=dict)
    masks: dict[int, int] = field(default_factory=dict)
    hints: dict[int, Hint] = field(default_factory=dict)


# The merged hint of the pod (pod scope) and of each container, as the admitter records them.
Placed = tuple[Hint | None, dict[str, Hint]]


class SolvingAdmitter(Admitter):
    """An admitter whose subclasses `place` each reported pod by their solver."""

    name = "solver"

    def __init__(self, problem: NodeProblem) -> None:
        super().__init__(problem)
        self.proofs: dict[str, str] = {}
        # The pod being allocated by the greedy path: what it gave each container so far.
        self._allocated: dict[str, tuple[CPUSet | None, int | None]] | None = None

    def run(self) -> NodeSolution:
        admissions = []
        for pod in self.problem.pods:
            a = self.admit(pod)
            proof = self.proofs.get(pod.uid, "")
            admissions.append(replace(a, proof=proof) if proof else a)
        return NodeSolution(tuple(admissions), self.cpus.freeze(), self.mem.freeze())

    # --- one pod ---------------------------------------------------------------------------------

    def _admit(self, pod: PodFacts) -> Placed:
        if not pod.report:
            return self.kubelet(pod)
        greedy = self.greedy(pod)
        if greedy.unavoidable:
            self.proofs[pod.uid] = Proof.INFEASIBLE
            raise greedy.error  # type: ignore[misc]
        pv = view(self, pod)
        if not pv.exclusive and not pv.groups and greedy.error is None:
            # Nothing to place: the kubelet's answer is the only one.
            self.proofs[pod.uid] = Proof.OPTIMAL
            return self.kubelet(pod)
        return self.place(pv, greedy)

    def place(self, pv: PodView, greedy: GreedyAnswer) -> Placed:
        """Decide the pod by the solver, record what it proved, and apply its decisions (`apply`)."""
        raise NotImplementedError

    def kubelet(self, pod: PodFacts) -> Placed:
        """Admit the pod as the kubelet does."""
        return super()._admit(pod)

    def refuted(self, pod: PodFacts, greedy: GreedyAnswer) -> AdmissionError:
        """The solver proved that nothing fits: the kubelet's rejection, which must be one."""
        self.proofs[pod.uid] = Proof.INFEASIBLE
        if greedy.error is not None:
            return greedy.error
        raise KubefitError(
            f"{self.name}: pod {pod.ref}: the {self.name} node engine finds no admission but the kubelet "
            "admits the pod; this is a bug in kubefit"
        )

    def undecided(self, pod: PodFacts, greedy: GreedyAnswer, why: str) -> Placed:
        """The solver did not decide in time: the kubelet's own answer when it admits (valid, unproven),
        else Unknown, never a rejection."""
        if greedy.error is None:
            self.proofs[pod.uid] = Proof.FEASIBLE
            return self.kubelet(pod)
        self.proofs[pod.uid] = Proof.UNKNOWN
        raise Undecided(f"undecided, not a proof that it does not fit: {why}")

    # --- the kubelet's answer ----------------------------------------------------------------------

    def _allocate(self, pod: PodFacts, c: ContainerFacts, hint: Hint) -> None:
        super()._allocate(pod, c, hint)
        if self._allocated is not None:
            cpus = self.cpus.get(pod.uid, c.name) if self.cpu is not None else None
            blocks = self.mem.blocks(pod.uid, c.name)
            self._allocated[c.name] = (cpus, bitmask.mask_of(blocks[0].numa) if blocks else None)

    def greedy(self, pod: PodFacts) -> GreedyAnswer:
        """The kubelet's answer on the current state, which is left as it was."""
        saved = self._save()
        self._allocated = {}
        try:
            pod_hint, hints = self.kubelet(pod)
        except AdmissionError as e:
            return GreedyAnswer(e, {}, {}, {}, self._allocated)
        finally:
            allocated = self._allocated
            self._allocated = None
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
        return GreedyAnswer(None, got, blocks, hints, allocated)

    # --- decisions into the managers' state ----------------------------------------------------------

    def unaligned_hint(self) -> Hint:
        """The merge of no hints at all, as the kubelet computes it for a unit nothing has a say in."""
        return merge(self.policy.topology_policy, self.numa, [None], self.policy.prefer_closest_numa)[0]

    def merged_hint(self, mask: int, preferred: bool) -> Hint:
        """A merged mask as the kubelet records it: single-numa-node turns "every node" into no mask."""
        if self.policy.topology_policy == "single-numa-node" and mask == self.numa.default_mask:
            return Hint(None, preferred)
        return Hint(mask, preferred)

    def apply(self, pv: PodView, d: Decisions) -> Placed:
        pod = pv.pod
        if self.policy.topology_policy == "none":
            unaligned = Hint(None, False)
            self._place(pv, d)
            return None, {c.name: unaligned for c in pod.containers}
        if pv.pod_level:
            hint = d.hints[0]
            bubble = d.cpus[0]
            self.cpus.pod_entries[pod.uid] = bubble
            memory_hint = Hint(d.masks[0], True) if 0 in d.masks else hint
            podlevel.allocate(self, pod, memory_hint)
            self.cpus.default -= bubble
            return hint, {c.name: hint for c in pod.containers}
        self._place(pv, d)
        if self.policy.topology_scope == "pod":
            hint = d.hints[0]
            return hint, {c.name: hint for c in pod.containers}
        return None, {pv.slots[u.index].name: d.hints[u.index] for u in pv.units}

    def _place(self, pv: PodView, d: Decisions) -> None:
        pod = pv.pod
        for s in pv.slots:
            c = s.container
            assert c is not None
            if s.cpus and self.cpu is not None:
                cpus_of = d.cpus[s.index]
                if s.fixed_cpus is None:
                    self.cpus.set(pod.uid, c.name, cpus_of)
                    self.cpus.default -= cpus_of
                self.cpu.update_reusable(pod, c, cpus_of)
            if s.memory_group is not None and self.memory is not None:
                existing = self.mem.blocks(pod.uid, c.name)
                if existing is not None:
                    self.memory.update_reusable(pod, c, existing)
                else:
                    self.memory.assign(self.mem, pod, c, d.masks[s.memory_group])
