"""Minimal sets of reasons: an unsatisfiable core over the rules' violation groups, shrunk by deletion.

clingo's core (the enforced groups it needed to refute the assumptions) is small but not minimal.
Deletion makes it minimal: drop one group, solve with the rest enforced; if it is still unsatisfiable
the group was not needed (and the new core may drop more at once), else it stays. The result is a
minimal unsatisfiable subset: removing any one of its groups makes the rest satisfiable. Groups are
tried in a fixed order — the most specific concerns first, a request's own need last — so the same
input always gives the same reasons.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from ...model.families import Family
from ..asp.control import Outcome, Program

# Which groups to try dropping first: a set that keeps a request's need and the constraint or counter
# it runs into reads better than one that keeps every device another claim holds.
_ORDER = tuple(
    f.rule
    for f in (
        Family.TAINTS,
        Family.NODE,
        Family.CAPACITY,
        Family.COMPATIBILITY_GROUPS,
        Family.EXCLUSIVE,
        Family.COUNTERS,
        Family.RESULT_LIMIT,
        Family.ATTRIBUTES,
        Family.COUNT,
    )
)


def order(program: Program, groups: Sequence[int]) -> list[int]:
    """Groups (literals) in the order deletion tries them."""

    def key(lit: int) -> tuple[int, str]:
        name = program.groups[lit].name
        return (_ORDER.index(name) if name in _ORDER else len(_ORDER), str(program.groups[lit]))

    return sorted(groups, key=key)


@dataclass(frozen=True)
class Core:
    groups: tuple[int, ...]  # the enforced groups (literals) that cannot hold together, in deletion order
    minimal: bool  # False when the time ran out before every group was tried


def minimal_core(
    program: Program,
    core: Sequence[int],
    deadline: float | None = None,
    given: Sequence[int] | None = None,
    ordered: bool = False,
) -> Core:
    """Shrink `core` (the groups of an unsatisfiable solve) until it is minimal; `ordered`: the core is
    already in the order deletion should try (else DRA's order of concerns)."""
    current = list(core) if ordered else order(program, core)
    i = 0
    while i < len(current):
        if deadline is not None and time.monotonic() > deadline:
            return Core(tuple(current), False)
        trial = current[:i] + current[i + 1 :]
        answer = program.solve(trial, deadline, given, read=False)
        if answer.outcome == Outcome.UNSATISFIABLE:
            kept = set(answer.core)
            current = [g for g in trial if g in kept]
        elif answer.outcome == Outcome.SATISFIABLE:
            i += 1
        else:
            return Core(tuple(current), False)
    return Core(tuple(current), True)


def is_minimal(program: Program, groups: Sequence[int], given: Sequence[int] | None = None) -> bool:
    """The definition, checked: the groups cannot hold together, and without any one of them they can."""
    if program.solve(list(groups), given=given, read=False).outcome != Outcome.UNSATISFIABLE:
        return False
    return all(
        program.solve([g for g in groups if g != dropped], given=given, read=False).outcome
        == Outcome.SATISFIABLE
        for dropped in groups
    )
