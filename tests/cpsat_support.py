"""Running both engines on one Problem and comparing them, for the cpsat tests."""

from __future__ import annotations

from typing import Any

from kubefit.model.problem import Problem
from kubefit.model.solution import Solution, Status
from kubefit.solver.cpsat import CpsatEngine
from kubefit.solver.engines import Budget
from kubefit.solver.greedy import GreedyEngine
from kubefit.solver.validate import validate


def cpsat(p: Problem, budget: Budget | None = None, **options: Any) -> Solution:
    """cpsat's answer (without greedy's hint unless asked: the model alone must find it); the
    validator must accept it."""
    options.setdefault("hint", False)
    answer = CpsatEngine(**options).solve(p, budget or Budget())
    assert validate(p, answer) == []
    return answer


def greedy(p: Problem, budget: Budget | None = None) -> Solution:
    return GreedyEngine().solve(p, budget or Budget())


def picks(answer: Solution, unit: int = 0) -> list[tuple[int, str, int]]:
    """(claim, request, device) of every result of a unit, in result order."""
    return [(a.claim, r.request, r.device) for a in answer.units[unit].allocations for r in a.results]


def decided(answer: Solution) -> bool:
    return all(u.status != Status.UNKNOWN for u in answer.units)


def same_answer(a: Solution, b: Solution) -> bool:
    """Same outcome, node, allocation (results in order, chosen alternatives) and error for every unit."""

    def key(s: Solution) -> list[Any]:
        return [
            (u.status, u.node, u.allocations, u.message if u.status == Status.ERROR else "") for u in s.units
        ]

    return key(a) == key(b)


def first_fit(p: Problem) -> Solution:
    """cpsat's first-fit answer, checked to be exactly greedy's (when greedy decides)."""
    answer = cpsat(p)
    reference = greedy(p)
    if decided(reference):
        assert same_answer(answer, reference), (answer, reference)
    return answer
