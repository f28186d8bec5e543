"""Admitting pods one after another as the kubelet does, each pod placed by clingo over the kubelet's
rules (`rules/node/`), optimized by the kubelet's own criteria (`criteria.lp`, then `first_fit.lp`).

The verdict is the kubelet's: where the rules admit the pod jointly but the kubelet, allocating
container by container first fit, refuses it, the rules are solved again with what the kubelet gave
the containers before the one it refused (`kubelet_order.lp`); they then refute the pod too, and the
kubelet's reason is the answer.
"""

from __future__ import annotations

from ....model.errors import KubefitError
from ....model.node.problem import NodeProblem
from ...asp.control import NODE, Answer, Outcome, Program
from ..solving import Decisions, GreedyAnswer, Placed, Proof, SolvingAdmitter
from ..view import PodView
from .facts import TooLarge, gather


class AspAdmitter(SolvingAdmitter):
    name = "asp"

    def __init__(self, problem: NodeProblem, deadline: float | None) -> None:
        super().__init__(problem)
        self.deadline = deadline

    def place(self, pv: PodView, greedy: GreedyAnswer) -> Placed:
        pod = pv.pod
        try:
            answer = self._solve(pv, greedy)
        except TooLarge as e:
            return self.undecided(pod, greedy, f"the asp engine cannot hold these numbers: {e}")
        if answer.outcome == Outcome.UNSATISFIABLE:
            raise self.refuted(pod, greedy)
        if answer.outcome == Outcome.UNKNOWN:
            return self.undecided(
                pod, greedy, "the time limit ran out before the solver decided (raise --time-limit)"
            )
        self.proofs[pod.uid] = Proof.OPTIMAL if answer.optimal else Proof.FEASIBLE
        return self.apply(pv, self._decisions(pv, answer))

    def _solve(self, pv: PodView, greedy: GreedyAnswer) -> Answer:
        answer = Program(gather(self, pv, placing=True, start=greedy), first_fit=True, rules=NODE).solve(
            deadline=self.deadline
        )
        if answer.outcome != Outcome.SATISFIABLE or greedy.error is None:
            return answer
        # The rules admit the pod, the kubelet does not: its container order decides. With what it gave
        # the earlier containers the rules must refute the pod as well.
        ordered = Program(gather(self, pv, greedy.allocated), rules=NODE).solve(deadline=self.deadline)
        if ordered.outcome == Outcome.SATISFIABLE:
            raise KubefitError(
                f"asp: pod {pv.pod.ref}: the rules admit the pod even in the kubelet's container order, but "
                f"the kubelet refuses it ({greedy.error.reason}: {greedy.error.message}); this is a bug in "
                "the kubelet's rules (rules/node)"
            )
        return ordered

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
