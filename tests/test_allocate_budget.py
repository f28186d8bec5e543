"""`allocate --time-limit S` is one budget for the run after reading: the scheduler's run spends it first and
the reasons get what is left, not S again. A fake clock stands in for time: the scheduler's run takes 7 of
the 10 seconds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import kubefit.solver.explain as explain_module
from kubefit.app.allocate import AllocateRequest, allocate
from kubefit.app.requests import Input
from kubefit.model.features import ALL_ON
from kubefit.solver import deadline, engines

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mig-batch"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_reasons_get_what_the_schedulers_run_left(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(deadline.time, "monotonic", clock)
    given: dict[str, Any] = {}
    real_get = engines.get

    def timed_engine(name: str, **options: Any) -> Any:
        engine = real_get(name, **options)
        solve = engine.solve

        def slow_solve(problem: Any, budget: engines.Budget) -> Any:
            given["solve"] = budget.seconds
            clock.now += 7.0
            return solve(problem, engines.Budget(budget.steps, None))

        engine.solve = slow_solve
        return engine

    real_explain = explain_module.explain

    def recording_explain(source: Any, solution: Any, options: Any = None) -> Any:
        given["reasons"] = options.time_limit
        return real_explain(source, solution, explain_module.Options(None, options.steps, options.units))

    monkeypatch.setattr(engines, "get", timed_engine)
    monkeypatch.setattr(explain_module, "explain", recording_explain)
    request = AllocateRequest(
        Input((str(EXAMPLE),), False, ALL_ON), "json", deadline=deadline.Deadline(10.0, waiting=True)
    )
    answer = allocate(request)
    assert answer.code == 1  # mig-batch leaves pods pending: their reasons are asked for
    assert given == {"solve": 10.0, "reasons": 3.0}
