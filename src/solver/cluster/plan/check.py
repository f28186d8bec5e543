"""Checking a plan before it is printed: every planned pod replayed on the scheduler's state and checked by
its filters where the plan put it, the whole plan by the Solution validator, gangs short of their minimum
left pending; and why each pod left pending fits nowhere."""

from __future__ import annotations

from ....model.problem import Problem
from ....model.solution import Solution, Status, UnitOutcome
from ...validate import validate
from .classes import PodClass
from .decode import Placement
from .replay import STILL_FITS, replay, violations, why_pending
from .static import Reach


class PlanError(RuntimeError):
    """A plan that the scheduler's filters or the Solution validator reject: a bug, never an answer."""


def finish(
    problem: Problem,
    placements: dict[int, Placement],
    reaches: list[Reach],
    groups: list[PodClass],
    reasons: dict[int, str] | None = None,
    unclaimed: frozenset[int] = frozenset(),
    proven: bool = True,
    deadline: float | None = None,
) -> tuple[Solution, list[str]]:
    """The plan as a Solution, checked by the scheduler's filters and the Solution validator. A pod a
    filter rejects where the model put it (the model is stricter than the filters by design, so this is a
    safety net) is left pending, and so are the other members of its gang; the notes say which. `proven`:
    whether the plan is the best there is (else a pod that would still fit says the time ran out).
    `deadline` (time.monotonic): where the plan's budget ends; a pending pod's trial cycle stops there (one
    node's DRA search can outlast any budget) and says its nodes were not decided in time."""
    notes: list[str] = []
    gang_of = {u.id: u.gang.name for u in problem.units if u.gang is not None}
    for _ in range(len(problem.units) + 1):
        state = replay(problem, placements, deadline)
        broken = violations(state, placements)
        if not broken:
            break
        gangs = {gang_of[u] for u in broken if u in gang_of}
        for uid, why in broken.items():
            notes.append(f"left pending after the filters' check: {why}")
            placements.pop(uid, None)
        for uid in [u for u in placements if gang_of.get(u) in gangs]:
            placements.pop(uid)
    error_of = {u.id: r.error for cls, r in zip(groups, reaches, strict=True) for u in cls.units if r.error}
    error_of.update(reasons or {})
    error_of.update(_short_gangs(problem, placements))
    outcomes = []
    class_of = {u.id: cls.index for cls in groups for u in cls.units}
    told: dict[int, str] = {}  # class -> why its pods wait (class mates see the same cluster)
    for unit in problem.units:
        placed = placements.get(unit.id)
        if placed is not None:
            outcomes.append(UnitOutcome(unit.id, Status.ALLOCATED, placed.node, placed.allocations))
        elif unit.id in error_of:
            status = Status.ERROR if unit.error and unit.error == error_of[unit.id] else Status.UNSATISFIABLE
            outcomes.append(UnitOutcome(unit.id, status, message=error_of[unit.id]))
        else:
            k = class_of.get(unit.id, -1 - unit.id)
            if k not in told:
                told[k] = _still_fits(why_pending(state, unit), proven)
            outcomes.append(UnitOutcome(unit.id, Status.UNSATISFIABLE, message=told[k]))
    solution = Solution("plan", tuple(outcomes))
    # Pods whose scheduler does not run DynamicResources are placed without their claims, as it places
    # them: the allocator's rules have nothing to check there.
    checked_units = tuple(
        UnitOutcome(o.unit, Status.UNSATISFIABLE) if o.unit in unclaimed else o for o in solution.units
    )
    invalid = validate(problem, Solution("plan", checked_units))
    if invalid:
        # A safety net like the filters' above: never print a plan the validator refuses. Such pods wait
        # (with their gangs), and the plan is checked again.
        broken_units = {v.unit for v in invalid}
        for v in invalid:
            notes.append(f"left pending after the validator's check: {v}")
        gangs = {gang_of[u] for u in broken_units if u in gang_of}
        kept = {u: p for u, p in placements.items() if u not in broken_units and gang_of.get(u) not in gangs}
        if len(kept) == len(placements):
            raise PlanError("the plan breaks the allocator's rules: " + "; ".join(map(str, invalid[:5])))
        solution, more = finish(problem, kept, reaches, groups, reasons, unclaimed, proven, deadline)
        return solution, [*notes, *more]
    return solution, notes


def _still_fits(message: str, proven: bool) -> str:
    """Why a pod that fits beside the plan waits: the time ran out, or the model is stricter there."""
    if not message.startswith(STILL_FITS):
        return message
    if proven:
        return f"{message} (kubefit's model of this plan is stricter here than the scheduler's filters)"
    return f"{message} (the time limit ran out before the plan could add it: --time-limit)"


def _short_gangs(problem: Problem, placements: dict[int, Placement]) -> dict[int, str]:
    """Members left pending because their gang cannot reach its minimum in the plan."""
    placed: dict[str, int] = {}
    for unit in problem.units:
        if unit.gang is not None:
            placed[unit.gang.name] = placed.get(unit.gang.name, 0) + (unit.id in placements)
    out = {}
    for unit in problem.units:
        gang = unit.gang
        if gang is None or unit.id in placements or gang.bound + placed[gang.name] >= gang.min_count:
            continue
        out[unit.id] = (
            f'pod group "{gang.name}" needs {gang.min_count} pods placed together, and the plan cannot place '
            "that many beside the pods it places."
        )
    return out
