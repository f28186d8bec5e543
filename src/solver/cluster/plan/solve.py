"""Solving the plan's model in stages, lexicographically: the pods of the highest priority placed first,
then each lower priority, then the chosen objective; each stage keeps what the earlier ones reached and
starts from their solution.

Every stage reports what it proved: `optimal`, or `feasible` with the bound (the most pods of that
priority any plan could place, as far as the solver proved), or `unknown` when the time ran out first.
The time is shared: each stage gets what the earlier ones left, the last objective at most half.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from ...cpsat.model import fix
from ...cpsat.solve import SEED
from .model import PlanModel
from .progress import Progress

_STATUS = {cp_model.OPTIMAL: "optimal", cp_model.FEASIBLE: "feasible", cp_model.INFEASIBLE: "infeasible"}


@dataclass(frozen=True)
class Goal:
    """One stage's objective: `expr`, and (maximizing) `after` preferred next, always worth less than one
    unit of `expr` (it stays below `weight`)."""

    name: str
    expr: cp_model.LinearExprT
    maximize: bool
    weight: int = 1
    after: cp_model.LinearExprT = 0

    def objective(self) -> cp_model.LinearExprT:
        if self.weight == 1:
            return self.expr
        return cp_model.LinearExpr.weighted_sum([self.expr, self.after], [self.weight, 1])


@dataclass
class Stage:
    name: str
    status: str
    value: int
    bound: int
    seconds: float


@dataclass
class Outcome:
    stages: list[Stage] = field(default_factory=list)
    values: list[int] | None = None  # the final solution, by variable index

    @property
    def status(self) -> str:
        """optimal only if every placement stage is (the last objective's proof is reported, not needed)."""
        placement = [s for s in self.stages if s.name.startswith("priority")]
        for status in ("unknown", "infeasible", "feasible"):
            if any(s.status == status for s in placement):
                return status
        return "optimal"


class _Callback(cp_model.CpSolverSolutionCallback):
    def __init__(self, progress: Progress, weight: int) -> None:
        super().__init__()
        self.progress = progress
        self.weight = weight

    def on_solution_callback(self) -> None:
        self.progress.found(self.objective_value // self.weight)


def run_stages(
    pm: PlanModel,
    stages: Sequence[Goal],
    seconds: float | None,
    workers: int,
    progress: Progress,
    hint: dict[int, int] | None = None,
    baseline: dict[str, int] | None = None,
) -> Outcome:
    """Each goal in turn; a stage's result is kept as a constraint for the next. `baseline`: kube-
    scheduler's value per stage name, for the progress line."""
    m = pm.model
    out = Outcome()
    deadline = time.monotonic() + seconds if seconds is not None else None
    kept: list[cp_model.IntVar] = []
    m.clear_hints()  # type: ignore[no-untyped-call]
    if hint:
        for index, value in hint.items():
            m.add_hint(m.get_int_var_from_proto_index(index), value)
    for i, goal in enumerate(stages):
        last = i + 1 == len(stages)
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if left is not None and last and len(stages) > 1:
            left = left / 2 if out.values is not None else left
        if goal.maximize:
            m.maximize(goal.objective())
        else:
            m.minimize(goal.objective())
        progress.solving(goal.name, (baseline or {}).get(goal.name))
        stage, values = _solve(m, goal, left, workers, progress)
        out.stages.append(stage)
        if values is None:
            break
        out.values = values
        m.clear_hints()  # type: ignore[no-untyped-call]
        for index, value in enumerate(values):
            m.add_hint(m.get_int_var_from_proto_index(index), value)
        if not last:
            # Switched on by a literal fixed for this run only: a later run (after a cut) starts afresh.
            keep = m.new_bool_var(f"keep_{goal.name}")
            fix(keep, 1)
            expr = goal.expr
            (m.add(expr >= stage.value) if goal.maximize else m.add(expr <= stage.value)).only_enforce_if(
                keep
            )
            kept.append(keep)
    m.clear_objective()  # type: ignore[no-untyped-call]
    for keep in kept:
        fix(keep, 0)
    return out


def _solve(
    m: cp_model.CpModel, goal: Goal, seconds: float | None, workers: int, progress: Progress
) -> tuple[Stage, list[int] | None]:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = SEED
    if seconds is not None:
        solver.parameters.max_time_in_seconds = max(seconds, 0.01)
    weight = goal.weight

    def bound(value: float) -> None:
        progress.bounded(value // weight if goal.maximize else value)

    solver.best_bound_callback = bound
    start = time.monotonic()
    status = solver.solve(m, _Callback(progress, weight))
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"the plan's model is invalid: {m.validate()}")
    text = _STATUS.get(status, "unknown")
    elapsed = time.monotonic() - start
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        value = round(solver.objective_value)
        best = round(solver.best_objective_bound)
        if weight > 1:
            # The lower priorities' share stays below one unit of the stage's own pods.
            value, best = value // weight, best // weight
        return Stage(goal.name, text, value, best, elapsed), list(solver.response_proto.solution)
    return Stage(goal.name, text, 0, 0, elapsed), None
