"""Solving the plan's model in stages, lexicographically: the pods of the highest priority placed first,
then each lower priority, then the chosen objective; each stage keeps what the earlier ones reached and
starts from their solution.

Every stage reports what it proved: `optimal`, or `feasible` with the bound (the most pods of that
priority any plan could place, as far as the solver proved), or `unknown` when the time ran out first.
The time limit is shared: each stage gets what the earlier ones left, the last objective at most half.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from ...cpsat.model import fix
from ...cpsat.solve import SEED
from .model import PlanModel

_STATUS = {cp_model.OPTIMAL: "optimal", cp_model.FEASIBLE: "feasible", cp_model.INFEASIBLE: "infeasible"}


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


class Progress:
    """A line on stderr with the incumbent and the bound, once a stage runs longer than a moment."""

    def __init__(self, enabled: bool, after: float = 2.0) -> None:
        self.enabled = enabled
        self.after = after
        self.start = time.monotonic()
        self.label = ""
        self.incumbent: float | None = None
        self.bound: float | None = None
        self.shown = False

    def update(self) -> None:
        if not self.enabled or time.monotonic() - self.start < self.after:
            return
        width = 24
        filled = 0
        if self.incumbent is not None and self.bound:
            filled = max(0, min(width, round(width * self.incumbent / self.bound)))
        bar = "#" * filled + "." * (width - filled)
        found = "-" if self.incumbent is None else f"{self.incumbent:g}"
        bound = "-" if self.bound is None else f"{self.bound:g}"
        elapsed = time.monotonic() - self.start
        line = f"plan {self.label}: [{bar}] incumbent {found}, bound {bound}, {elapsed:.0f}s"
        end = "\r" if sys.stderr.isatty() else "\n"
        print(line.ljust(78), end=end, file=sys.stderr, flush=True)
        self.shown = True

    def close(self) -> None:
        if self.shown and sys.stderr.isatty():
            print(file=sys.stderr)


class _Callback(cp_model.CpSolverSolutionCallback):
    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress

    def on_solution_callback(self) -> None:
        self.progress.incumbent = self.objective_value
        self.progress.update()


def run_stages(
    pm: PlanModel,
    stages: Sequence[tuple[str, cp_model.LinearExprT, bool]],
    seconds: float | None,
    workers: int,
    progress: Progress,
    hint: dict[int, int] | None = None,
) -> Outcome:
    """Each (name, expression, maximize) in turn; a stage's result is kept as a constraint for the next."""
    m = pm.model
    out = Outcome()
    deadline = time.monotonic() + seconds if seconds is not None else None
    kept: list[cp_model.IntVar] = []
    m.clear_hints()  # type: ignore[no-untyped-call]
    if hint:
        for index, value in hint.items():
            m.add_hint(m.get_int_var_from_proto_index(index), value)
    for i, (name, expr, maximize) in enumerate(stages):
        last = i + 1 == len(stages)
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if left is not None and last and len(stages) > 1:
            left = left / 2 if out.values is not None else left
        if maximize:
            m.maximize(expr)
        else:
            m.minimize(expr)
        stage, values = _solve(m, name, left, workers, progress)
        out.stages.append(stage)
        if values is None:
            if stage.status == "infeasible" and out.values is None:
                out.values = None
            break
        out.values = values
        m.clear_hints()  # type: ignore[no-untyped-call]
        for index, value in enumerate(values):
            m.add_hint(m.get_int_var_from_proto_index(index), value)
        if not last:
            # Switched on by a literal fixed for this run only: a later run (after a cut) starts afresh.
            keep = m.new_bool_var(f"keep_{name}")
            fix(keep, 1)
            (m.add(expr >= stage.value) if maximize else m.add(expr <= stage.value)).only_enforce_if(keep)
            kept.append(keep)
    m.clear_objective()  # type: ignore[no-untyped-call]
    for keep in kept:
        fix(keep, 0)
    progress.close()
    return out


def _solve(
    m: cp_model.CpModel, name: str, seconds: float | None, workers: int, progress: Progress
) -> tuple[Stage, list[int] | None]:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = SEED
    if seconds is not None:
        solver.parameters.max_time_in_seconds = max(seconds, 0.01)
    progress.label = name
    progress.incumbent = None
    progress.bound = None

    def bound(value: float) -> None:
        progress.bound = value
        progress.update()

    solver.best_bound_callback = bound
    start = time.monotonic()
    status = solver.solve(m, _Callback(progress))
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"the plan's model is invalid: {m.validate()}")
    text = _STATUS.get(status, "unknown")
    elapsed = time.monotonic() - start
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        value = round(solver.objective_value)
        stage = Stage(name, text, value, round(solver.best_objective_bound), elapsed)
        return stage, list(solver.response_proto.solution)
    return Stage(name, text, 0, 0, elapsed), None
