"""The greedy engine: what Kubernetes itself does.

Units (pods) one at a time, in the scheduler's order; for each, the nodes in
order, running the structured allocator's first-fit search on each until one
succeeds; what a unit allocates is in use for the units after it (the loop is
`solver.units`, shared with the other engines). A node whose search runs over
the step or time budget answers "unknown", never "does not fit".
"""

from __future__ import annotations

from collections.abc import Sequence

from ...model.node_selector import creation_error
from ...model.problem import Claim, InUse, NodeView, Problem, Unit
from ...model.solution import Solution, Status
from ..cluster.scheduler import solve_units
from ..dra import AllocationError, BudgetExceeded
from ..engines import ENGINE_FEATURES, Budget
from ..units import NodeAnswer, Taken
from .allocator import NodeAllocator

__all__ = ["GreedyEngine", "search_node"]


class GreedyEngine:
    name = "greedy"

    def supports(self) -> frozenset[str]:
        return ENGINE_FEATURES

    def solve(self, problem: Problem, budget: Budget | None = None) -> Solution:
        return solve_units(problem, budget or Budget(), self.name, search_node)


def search_node(
    problem: Problem,
    unit: Unit,
    view: NodeView,
    claims: Sequence[Claim],
    in_use: InUse,
    budget: Budget,
    deadline: float | None = None,
) -> NodeAnswer:
    """The structured allocator's first-fit search for the claims on one node."""
    allocator = NodeAllocator(problem, view, claims, in_use, budget.steps, budget.devices, deadline)
    try:
        done = allocator.run()
    except AllocationError as e:
        return NodeAnswer(Status.ERROR, message=str(e), steps=allocator.steps, per_node=e.per_node)
    except BudgetExceeded:
        return NodeAnswer(
            Status.UNKNOWN,
            message=_limit(budget, allocator),
            steps=allocator.steps,
        )
    if not done:
        return NodeAnswer(Status.UNSATISFIABLE, message="cannot allocate all claims", steps=allocator.steps)
    allocations = tuple(allocator.allocations())
    for allocation in allocations:
        devices = [problem.devices[r.device] for r in allocation.results]
        error = creation_error(problem.claims[allocation.claim].name, devices, view.node)
        if error is not None:
            return NodeAnswer(Status.ERROR, message=error, steps=allocator.steps)
    taken = tuple(
        Taken(device, admin, shared, consumed) for device, admin, shared, consumed in allocator.taken()
    )
    return NodeAnswer(Status.ALLOCATED, allocations, taken, steps=allocator.steps)


def _limit(budget: Budget, allocator: NodeAllocator) -> str:
    """Which budget stopped the search."""
    if budget.devices is not None and allocator.tried > budget.devices:
        return f"search stopped at its limit of {budget.devices} devices tried"
    if budget.steps is not None and allocator.steps > budget.steps:
        return f"search stopped at its limit of {budget.steps} steps"
    return f"search stopped at the time limit after {allocator.steps} steps"
