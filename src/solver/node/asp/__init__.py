"""The asp node engine: the kubelet's CPU, memory and topology managers as the declarative rules of
`rules/node/`, solved by clingo for each pod in turn (see admit.py, facts.py)."""

from __future__ import annotations

import time

from ....model.node.problem import NodeProblem
from ....model.node.solution import NodeSolution
from .admit import AspAdmitter

# The whole run's budget when none is given: explicit, so a hard pod never hangs a command.
DEFAULT_TIME_LIMIT = 60.0

__all__ = ["DEFAULT_TIME_LIMIT", "AspNodeEngine"]


class AspNodeEngine:
    name = "asp"

    def __init__(self, time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
        self.time_limit = time_limit

    def admit(self, problem: NodeProblem) -> NodeSolution:
        deadline = None if self.time_limit is None else time.monotonic() + self.time_limit
        return AspAdmitter(problem, deadline).run()
