"""Objectives: what makes one allocation on a node better than another.

first-fit (the default) is the allocation Kubernetes' depth-first search returns: the lexicographically
first in its search order (claims, requests, a firstAvailable request's subrequest index, then each
device's rank, the k-th device of a request after the (k-1)-th). It is found in stages, one position
at a time: fix what is decided, minimize the next position, fix it. A stage costs a solve only when the
incumbent does not already hold the lowest value that position could take; weighted ranks would need
2^rank weights (lexicographic order over sets) and overflow 64 bits beyond ~60 devices.

The other objectives optimize their own measure first and break ties by first-fit, so every answer
is unique and deterministic:
    pack                      fewest counter sets (partitionable GPUs) and multi-allocatable devices
                              newly opened: least fragmentation
    spread                    the most distinct counter sets and multi-allocatable devices used
    prefer-lower-alternatives the smallest sum of chosen subrequest indexes over firstAvailable
                              requests (the scheduler's scoring of prioritized lists)
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from .counters import charged
from .facts import SlotFacts
from .model import Literal, NodeModel, fix
from .solve import Outcome, Runner

OBJECTIVES = ("first-fit", "pack", "spread", "prefer-lower-alternatives")


def optimize(runner: Runner, objective: str) -> Outcome:
    """Solve the node model for `objective`; OPTIMAL means the allocation in runner.values is proven."""
    nm = runner.nm
    measure = primary(nm, objective)
    if measure is not None:
        nm.model.minimize(measure)
        outcome = runner.run()
        if outcome != Outcome.OPTIMAL:
            return outcome
        nm.model.add(measure == runner.objective)
        nm.model.clear_objective()  # type: ignore[no-untyped-call]
    else:
        outcome = runner.run()
        if outcome != Outcome.OPTIMAL:
            return outcome
    return first_fit(runner)


def primary(nm: NodeModel, objective: str) -> cp_model.LinearExprT | None:
    if objective == "first-fit":
        return None
    if objective == "prefer-lower-alternatives":
        return sum(s.sub * nm.chosen[s.position] for s in nm.facts.slots if s.first_available)
    if objective in ("pack", "spread"):
        units = opened_units(nm, fresh_only=objective == "pack")
        return sum(units) if objective == "pack" else -sum(units)
    raise ValueError(f"unknown objective {objective!r} (one of {', '.join(OBJECTIVES)})")


def opened_units(nm: NodeModel, fresh_only: bool) -> list[Literal]:
    """One literal per counter set and per multi-allocatable device the picks touch; with `fresh_only`
    only those nothing allocated touched before (their opening is what fragments)."""
    m = nm.model
    facts = nm.facts
    out: list[Literal] = []
    sets: dict[tuple[str, str], list[int]] = {}
    for pool_ref, devices in charged(nm).items():
        for d in devices:
            for use in facts.problem.devices[d].consumes:
                sets.setdefault((pool_ref, use.counter_set), []).append(d)
    for (pool_ref, name), devices in sets.items():
        pool = facts.pool_of[devices[0]]
        if fresh_only and facts.allocator.group_state(pool, name)[0]:
            continue  # allocated peers opened it already (group_state's first field: has members)
        touched = m.new_bool_var(f"opens_{pool_ref}_{name}")
        for d in devices:
            m.add_implication(nm.picked(d), touched)
        m.add_bool_or([touched.negated(), *(nm.picked(d) for d in devices)])
        out.append(touched)
    out += [nm.picked(d) for d in nm.uses_of if d in facts.multi and d not in facts.existing_shares]
    return out


# --- first-fit, in stages -----------------------------------------------------------------------------


def first_fit(runner: Runner) -> Outcome:
    """Fix the search order's positions one at a time to their lowest feasible value."""
    nm = runner.nm
    for slots in nm.facts.requests():
        slot = slots[0]
        if slot.first_available:
            slot_or_none = _first_alternative(runner, slots)
            if slot_or_none is None:
                return Outcome.FEASIBLE
            slot = slot_or_none
        if slot.all_mode:
            continue
        if not _first_devices(runner, slot):
            return Outcome.FEASIBLE
    return Outcome.OPTIMAL


def _first_alternative(runner: Runner, slots: Sequence[SlotFacts]) -> SlotFacts | None:
    nm = runner.nm
    current = next(s for s in slots if runner.value(nm.chosen[s.position]))
    lowest = next(s for s in slots if not s.impossible)
    if current.sub > lowest.sub:
        nm.model.minimize(sum(s.sub * nm.chosen[s.position] for s in slots))
        outcome = runner.run()
        nm.model.clear_objective()  # type: ignore[no-untyped-call]
        if outcome != Outcome.OPTIMAL:
            return None
        current = next(s for s in slots if runner.value(nm.chosen[s.position]))
    for s in slots:
        fix(nm.chosen[s.position], int(s is current))
    return current


def _first_devices(runner: Runner, slot: SlotFacts) -> bool:
    """The slot's picks, lowest rank first; False when the time ran out before they were proven."""
    nm = runner.nm
    uses = [nm.use[(slot.position, d)] for d in slot.candidates]
    start = 0
    for _ in range(slot.count):
        at = next(i for i in range(start, len(uses)) if runner.value(uses[i]))
        if at > start:
            at = _lowest_pick(runner, uses[start : at + 1])
            if at < 0:
                return False
            at += start
        for lit in uses[start:at]:
            fix(lit, 0)
        fix(uses[at], 1)
        start = at + 1
    return True


def _lowest_pick(runner: Runner, uses: Sequence[Literal]) -> int:
    """The lowest index among `uses` (the last one is the incumbent's) some solution picks, or -1."""
    m = runner.nm.model
    # none[i]: nothing among uses[0..i] is picked; minimizing their sum moves the first pick forward.
    none: list[Literal] = []
    for lit in uses[:-1]:
        flag = m.new_bool_var(f"skip_{lit.name}")
        m.add_bool_or([lit, *([none[-1].negated()] if none else []), flag])
        none.append(flag)
    m.add_bool_or(list(uses))
    m.minimize(sum(none))
    outcome = runner.run()
    m.clear_objective()  # type: ignore[no-untyped-call]
    if outcome != Outcome.OPTIMAL:
        return -1
    return next(i for i, lit in enumerate(uses) if runner.value(lit))
