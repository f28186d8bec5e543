"""The greedy node engine: exactly what the kubelet does (first fit, best-fit orderings)."""

from __future__ import annotations

from ....model.node.problem import NodeProblem
from ....model.node.solution import NodeSolution
from .admit import Admitter


class GreedyNodeEngine:
    name = "greedy"

    def admit(self, problem: NodeProblem) -> NodeSolution:
        return Admitter(problem).run()
