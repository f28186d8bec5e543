"""The cpsat engine: each node's allocation as an OR-tools CP-SAT model.

The unit and node loop is the scheduler's (`solver.units`, shared with greedy); on each node the
claims become one model (`build`: variables for candidate picks only, one module per constraint
family) and an objective picks the allocation (`objective`: first-fit by default, which is exactly
the allocation Kubernetes' own search returns). Every answer says what was proven (UnitOutcome.proof):
optimal, feasible (time ran out while optimizing), infeasible, or unknown (time ran out first).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...model.errors import KubefitError
from ...model.problem import Claim, InUse, NodeView, Problem, Unit
from ...model.solution import Solution
from ..cluster.scheduler import solve_units
from ..engines import ENGINE_FEATURES, Budget
from ..units import NodeAnswer
from .objective import OBJECTIVES
from .search import Options, search_node
from .solve import WORKERS

__all__ = ["OBJECTIVES", "CpsatEngine"]


class CpsatEngine:
    name = "cpsat"

    def __init__(
        self,
        objective: str = "first-fit",
        dump_model: str | None = None,
        hint: bool = True,
        workers: int = WORKERS,
    ) -> None:
        if objective not in OBJECTIVES:
            raise KubefitError(f"unknown objective {objective!r} (one of {', '.join(OBJECTIVES)})")
        self.options = Options(objective, hint, workers, dump_model)

    def supports(self) -> frozenset[str]:
        return ENGINE_FEATURES

    def solve(self, problem: Problem, budget: Budget | None = None) -> Solution:
        return solve_units(problem, budget or Budget(), self.name, self.search, proves=True)

    def search(
        self,
        problem: Problem,
        unit: Unit,
        view: NodeView,
        claims: Sequence[Claim],
        in_use: InUse,
        budget: Budget,
        deadline: float | None,
    ) -> NodeAnswer:
        return search_node(self.options, problem, unit, view, claims, in_use, budget, deadline)
