"""The cpsat node engine: the kubelet's admission rules as CP-SAT constraints, each pod placed by
the kubelet's own criteria instead of its first fit (see admit.py, objective.py, solve.py)."""

from __future__ import annotations

from ....model.node.problem import NodeProblem
from ....model.node.solution import NodeSolution
from .admit import CpsatAdmitter, deadline_after
from .solve import SEED, WORKERS

# The whole run's budget when none is given: explicit, so a hard pod never hangs a command.
DEFAULT_TIME_LIMIT = 60.0

__all__ = ["DEFAULT_TIME_LIMIT", "SEED", "WORKERS", "CpsatNodeEngine"]


class CpsatNodeEngine:
    name = "cpsat"

    def __init__(self, time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
        self.time_limit = time_limit

    def admit(self, problem: NodeProblem) -> NodeSolution:
        return CpsatAdmitter(problem, deadline_after(self.time_limit)).run()
