"""Running CP-SAT on a node model: the solver settings, the incumbent, and what a run proved.

One worker and a fixed seed: the answers are deterministic, and a node's model is small enough that
extra workers cost more to start than they save (benchmarks/cpsat_scaling.py measures it). The
first-fit order is unique, so with more workers only the time changes, never the allocation.
"""

from __future__ import annotations

import time
from enum import StrEnum

from ortools.sat.python import cp_model

from .model import Literal, NodeModel

WORKERS = 1
SEED = 0


class Outcome(StrEnum):
    OPTIMAL = "optimal"  # the run's objective (or feasibility) is proven
    FEASIBLE = "feasible"  # a solution, but the time ran out before the objective was proven
    INFEASIBLE = "infeasible"
    UNKNOWN = "unknown"  # the time ran out before anything was found or proven


_OUTCOME = {
    cp_model.OPTIMAL: Outcome.OPTIMAL,
    cp_model.FEASIBLE: Outcome.FEASIBLE,
    cp_model.INFEASIBLE: Outcome.INFEASIBLE,
}


class Runner:
    """Solves one node model again and again as stages narrow it, keeping the best solution found."""

    def __init__(self, nm: NodeModel, deadline: float | None, workers: int = WORKERS) -> None:
        self.nm = nm
        self.deadline = deadline
        self.workers = workers
        self.values: list[int] | None = None  # the incumbent, by variable index
        self.objective = 0  # the incumbent's objective value, when the run had an objective
        self.solves = 0

    def run(self) -> Outcome:
        """Solve the model as it stands, hinted with the incumbent; a solution becomes the incumbent."""
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = self.workers
        solver.parameters.random_seed = SEED
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                return Outcome.UNKNOWN
            solver.parameters.max_time_in_seconds = left
        if self.values is not None:
            self.hint(self.values)
        self.solves += 1
        status = solver.solve(self.nm.model)
        if status == cp_model.MODEL_INVALID:
            raise RuntimeError(f"cpsat built an invalid model: {self.nm.model.validate()}")
        outcome = _OUTCOME.get(status, Outcome.UNKNOWN)
        if outcome in (Outcome.OPTIMAL, Outcome.FEASIBLE):
            self.values = list(solver.response_proto.solution)
            self.objective = round(solver.objective_value)
        return outcome

    def hint(self, values: list[int]) -> None:
        m = self.nm.model
        m.clear_hints()  # type: ignore[no-untyped-call]
        for lit in self.decision_literals():
            m.add_hint(lit, values[lit.index])

    def hint_picks(self, picks: set[tuple[int, int]]) -> None:
        """Hint an allocation given as (slot position, device) picks (greedy's answer)."""
        m = self.nm.model
        m.clear_hints()  # type: ignore[no-untyped-call]
        positions = {position for position, _ in picks}
        for s in self.nm.facts.slots:
            if s.first_available:
                m.add_hint(self.nm.chosen[s.position], s.position in positions)
            if not s.all_mode:
                for d in s.candidates:
                    m.add_hint(self.nm.use[(s.position, d)], (s.position, d) in picks)

    def decision_literals(self) -> list[Literal]:
        nm = self.nm
        lits = [lit for s, lit in ((s, nm.chosen[s.position]) for s in nm.facts.slots) if s.first_available]
        lits += [lit for (position, _), lit in nm.use.items() if not nm.facts.slots[position].all_mode]
        return lits

    def value(self, lit: Literal) -> int:
        assert self.values is not None
        return self.values[lit.index]
