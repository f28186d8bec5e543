"""Admitting pods one after another as the kubelet does, each pod placed by clingo over the kubelet's
rules (`rules/node/`), optimized by the kubelet's own criteria (`criteria.lp`, then `first_fit.lp`).

The verdict is the kubelet's: where the rules admit the pod jointly but the kubelet, allocating
container by container first fit, refuses it, the rules are solved again with what the kubelet gave
the containers before the one it refused (`kubelet_order.lp`); they then refute the pod too, and the
kubelet's reason is the answer.
"""

from __future__ import annotations

from ....errors import KubefitError
from ...asp.control import NODE, Answer, Outcome, Program
from ..bitmask import Hint
from ..problem import NodeProblem, PodFacts
from ..solving import Decisions, GreedyAnswer, Proof, SolvingAdmitter, Undecided
from ..view import PodView, view
from .facts import TooLarge, gather

# The merged hint of the pod (pod scope) and of each container, as the admitter records them.
Placed = tuple[Hint | None, dict[str, Hint]]


class AspAdmitter(SolvingAdmitter):
    def __init__(self, problem: NodeProblem, deadline: float | None) -> None:
        super().__init__(problem)
        self.deadline = deadline
        self.solves = 0

    def _admit(self, pod: PodFacts) -> Placed:
        if not pod.report:
            return super()._admit(pod)
        greedy = self.greedy(pod)
        if greedy.unavoidable:
            self.proofs[pod.uid] = Proof.INFEASIBLE
            raise greedy.error  # type: ignore[misc]
        pv = view(self, pod)
        if not pv.exclusive and not pv.groups and greedy.error is None:
            # Nothing to place: the kubelet's answer is the only one.
            self.proofs[pod.uid] = Proof.OPTIMAL
            return super()._admit(pod)
        try:
            answer = self._solve(pv, greedy)
        except TooLarge as e:
            return self._undecided(pod, greedy, f"the asp engine cannot hold these numbers: {e}")
        if answer.outcome == Outcome.UNSATISFIABLE:
            self.proofs[pod.uid] = Proof.INFEASIBLE
            if greedy.error is not None:
                raise greedy.error
            raise KubefitError(
                f"asp: pod {pod.ref}: the rules refute the pod but the kubelet admits it; this is a bug in "
                "the kubelet's rules (rules/node)"
            )
        if answer.outcome == Outcome.UNKNOWN:
            return self._undecided(pod, greedy, "the time limit ran out before the solver decided")
        self.proofs[pod.uid] = Proof.OPTIMAL if answer.optimal else Proof.FEASIBLE
        return self.apply(pv, self._decisions(pv, answer))

    def _solve(self, pv: PodView, greedy: GreedyAnswer) -> Answer:
        answer = self._run(Program(gather(self, pv, placing=True), first_fit=True, rules=NODE))
        if answer.outcome != Outcome.SATISFIABLE or greedy.error is None:
            return answer
        # The rules admit the pod, the kubelet does not: its container order decides. With what it gave
        # the earlier containers the rules must refute the pod as well.
        ordered = self._run(Program(gather(self, pv, greedy.allocated), rules=NODE))
        if ordered.outcome == Outcome.SATISFIABLE:
            raise KubefitError(
                f"asp: pod {pv.pod.ref}: the rules admit the pod even in the kubelet's container order, but "
                f"the kubelet refuses it ({greedy.error.reason}: {greedy.error.message}); this is a bug in "
                "the kubelet's rules (rules/node)"
            )
        return ordered

    def _run(self, program: Program) -> Answer:
        self.solves += 1
        return program.solve(deadline=self.deadline)

    def _undecided(
        self, pod: PodFacts, greedy: GreedyAnswer, why: str
    ) -> tuple[Hint | None, dict[str, Hint]]:
        if greedy.error is None:
            # The kubelet's own answer is valid: report it, unproven.
            self.proofs[pod.uid] = Proof.FEASIBLE
            return super()._admit(pod)
        self.proofs[pod.uid] = Proof.UNKNOWN
        raise Undecided(f"undecided, not a proof that it does not fit: {why}")

    def _decisions(self, pv: PodView, answer: Answer) -> Decisions:
        d = Decisions()
        preferred: set[int] = set()
        merged: dict[int, int] = {}
        for sym in answer.symbols:
            args = [a.number for a in sym.arguments]
            if sym.name == "assign":
                d.cpus[args[0]] = d.cpus.get(args[0], frozenset()) | {args[1]}
            elif sym.name == "block":
                d.masks[args[0]] = args[1]
            elif sym.name == "merged":
                merged[args[0]] = args[1]
            elif sym.name == "preferred":
                preferred.add(args[0])
        best_effort = self.policy.topology_policy == "best-effort"
        for u in pv.units:
            if u.index in merged:
                d.hints[u.index] = self.merged_hint(merged[u.index], u.index in preferred or not best_effort)
            else:
                d.hints[u.index] = self.unaligned_hint()
        for slot in pv.exclusive:
            d.cpus.setdefault(slot.index, frozenset())
        return d
