"""Why each pod the plan leaves pending fits nowhere, as `kubefit explain` says it (minimal reasons per
node), on the cluster as the plan leaves it: the explainer replays the placed pods first, whatever their
place in the queue, then explains one pod of each class (its class mates share the answer)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from ....model.solution import Solution, Status
from ...explain import Options, explain
from ...explain.model import Verdict
from .classes import PodClass

log = logging.getLogger("kubefit")


def pending_reasons(
    built: Any, solution: Solution, groups: list[PodClass], seconds: float | None
) -> dict[int, str]:
    """Unit -> explain's summary, for the units left pending."""
    problem = built.problem
    pending = {o.unit for o in solution.units if o.status == Status.UNSATISFIABLE}
    if not pending:
        return {}
    # One pod per class, the classes with the most pods waiting first: if the time runs out, most pods
    # have their reasons.
    waiting = {cls.index: sum(u.id in pending for u in cls.units) for cls in groups}
    first = {
        next(u.id for u in cls.units if u.id in pending): waiting[cls.index]
        for cls in groups
        if waiting[cls.index]
    }
    wanted = set(first)
    placed_first = sorted(problem.units, key=lambda u: (u.id in pending, -first.get(u.id, 0), u.id))
    outcomes = {o.unit: o for o in solution.units}
    reordered = replace(built, problem=replace(problem, units=tuple(placed_first)))
    ordered = Solution(solution.engine, tuple(outcomes[u.id] for u in placed_first))
    try:
        units = explain(reordered, ordered, Options(seconds, None, frozenset(wanted)))
    except Exception as e:  # an explanation is extra detail: the plan stands without it
        log.warning("could not explain the pending pods: %s", e)
        return {}
    # Only proofs: a pod explain finds a place for, or could not decide in time, keeps the scheduler's words.
    summary = {u.unit: u.summary for u in units if u.verdict in (Verdict.DOES_NOT_FIT, Verdict.ERROR)}
    out: dict[int, str] = {}
    for cls in groups:
        told = next((u for u in cls.units if u.id in summary), None)
        if told is None:
            continue
        for u in cls.units:
            if u.id in pending:
                # The class mates' answers are the representative's, with their own names.
                out[u.id] = summary[told.id].replace(f"pod {told.name}", f"pod {u.name}")
    return out
