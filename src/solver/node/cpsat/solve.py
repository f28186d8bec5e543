"""Solving one pod's model: lexicographic stages under one deadline, and what the run proved.

One worker and a fixed seed make answers deterministic (a pod's model is small; more workers would
only change the time, never the optimum, but could change which of several equal optima is printed).
Each stage fixes the value the previous one proved and starts from its solution. A stage cut short
by the deadline keeps the last solution: then the answer is valid but not proven best ("feasible").
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from ..solving import Proof
from .model import Expr, PodModel

WORKERS = 1
SEED = 0
# The cosmetic last stage (lowest CPU ids) never gets more than this.
COSMETIC_SECONDS = 2.0


@dataclass
class Outcome:
    proof: Proof
    values: dict[int, int]  # variable index -> value, of the best solution found
    objectives: list[int]


def _solver(seconds: float | None) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = WORKERS
    solver.parameters.random_seed = SEED
    if seconds is not None:
        solver.parameters.max_time_in_seconds = max(seconds, 0.001)
    return solver


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()


def solve(
    pm: PodModel,
    objectives: list[Expr],
    cosmetic: Expr | None,
    deadline: float | None,
    start: dict[int, int] | None = None,
) -> Outcome:
    """Minimize `objectives` in order, then `cosmetic` for a short while."""
    model = pm.model
    if start:
        pm.value_hints(start)
    values: dict[int, int] = {}
    found: list[int] = []
    proof = Proof.OPTIMAL
    plan: list[tuple[Expr, bool]] = [(o, False) for o in objectives]
    if cosmetic is not None:
        plan.append((cosmetic, True))
    if not plan:
        plan.append((0, False))
    for expr, is_cosmetic in plan:
        left = _left(deadline)
        if is_cosmetic:
            left = COSMETIC_SECONDS if left is None else min(left, COSMETIC_SECONDS)
        if left is not None and left <= 0:
            if not values:
                return Outcome(Proof.UNKNOWN, {}, [])
            return Outcome(Proof.FEASIBLE if not is_cosmetic else proof, values, found)
        model.minimize(expr)
        solver = _solver(left)
        status = solver.solve(model)
        if status == cp_model.MODEL_INVALID:
            raise RuntimeError(f"cpsat built an invalid node model: {model.validate()}")
        if status == cp_model.INFEASIBLE:
            # Only the first stage can be infeasible: later stages add what an earlier one proved.
            return Outcome(Proof.INFEASIBLE, {}, [])
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            if not values:
                return Outcome(Proof.UNKNOWN, {}, [])
            return Outcome(proof if is_cosmetic else Proof.FEASIBLE, values, found)
        values = dict(enumerate(solver.response_proto.solution))
        best = round(solver.objective_value)
        if status != cp_model.OPTIMAL:
            if is_cosmetic:
                return Outcome(proof, values, found)
            return Outcome(Proof.FEASIBLE, values, [*found, best])
        found.append(best)
        model.add(expr <= best)
        pm.value_hints(values)
    return Outcome(proof, values, found)
