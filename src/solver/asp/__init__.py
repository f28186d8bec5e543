"""The asp engine: each node's allocation by clingo over the declarative rules in `rules/`.

The unit and node loop is the scheduler's (`solver.units`, shared with greedy and cpsat); on each node
the Problem becomes facts (`facts`, through the typed predicate classes of `schema`), the rules are
grounded on them and the first-fit optimum (`rules/first_fit.lp`) is the allocation Kubernetes' own
search returns. The same rules, with violation groups relaxed under assumptions, explain why a pod
does not fit (`kubefit.solver.explain`). Every answer says what was proven (UnitOutcome.proof).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...model.problem import Claim, InUse, NodeView, Problem, Unit
from ...model.solution import Solution
from ..cluster.scheduler import solve_units
from ..engines import ENGINE_FEATURES, Budget
from ..units import NodeAnswer
from .search import Cache, search_node

__all__ = ["AspEngine"]


class AspEngine:
    name = "asp"

    def __init__(self) -> None:
        self.cache = Cache()

    def supports(self) -> frozenset[str]:
        return ENGINE_FEATURES

    def solve(self, problem: Problem, budget: Budget | None = None) -> Solution:
        self.cache = Cache()
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
        return search_node(self.cache, problem, unit, view, claims, in_use, budget, deadline)
