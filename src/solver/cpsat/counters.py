"""Partitionable devices: shared counters and compatibility groups of one pool's counter sets."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ...model.problem import consumption
from .model import Literal, NodeModel
from .scale import integral


def charged(nm: NodeModel) -> dict[str, list[int]]:
    """Pool -> candidate devices whose picks draw on the pool's counters."""
    out: dict[str, list[int]] = {}
    for d in nm.uses_of:
        if nm.facts.charged(d):
            out.setdefault(nm.facts.pool_of[d].ref, []).append(d)
    return out


def charge(nm: NodeModel, d: int) -> tuple[cp_model.LinearExprT, int]:
    """(times the device's counters are drawn, at most): every pick of an exclusive device draws (an
    admin pick again), a multi-allocatable device draws once when its first share opens it."""
    if d in nm.facts.multi:
        return nm.picked(d), 1
    return nm.times(d), nm.bound(d)


def shared_counters(nm: NodeModel) -> None:
    """What charged picks draw from each counter stays within what the pool has left."""
    for pool_ref, devices in charged(nm).items():
        pool = nm.facts.pool_of[devices[0]]
        available = nm.facts.available.get(pool_ref) or nm.facts.allocator.available(pool)
        if any(left < 0 for counters in available.values() for left in counters.values()):
            # What is allocated already overdraws a counter: the allocator then lets no device that
            # draws on the pool's counters join (the pool's counters do not cover what is allocated).
            for d in devices:
                nm.model.add(charge(nm, d)[0] == 0)
            continue
        drawn = {d: consumption(nm.facts.problem.devices[d]) for d in devices}
        for name, counters in available.items():
            for counter, left in counters.items():
                terms = [(d, drawn[d][name][counter]) for d in devices if drawn[d].get(name, {}).get(counter)]
                if sum(amount * charge(nm, d)[1] for d, amount in terms) <= left:
                    continue  # cannot run out
                ints = integral([left, *(amount for _, amount in terms)])
                drawing = [coef * charge(nm, d)[0] for (d, _), coef in zip(terms, ints[1:], strict=True)]
                nm.model.add(sum(drawing) <= ints[0])


def compatibility_groups(nm: NodeModel) -> None:
    """Devices drawing on one counter set (allocated peers included) share a compatibility group, or all
    declare none."""
    if not nm.facts.problem.on("CompatibilityGroups"):
        return  # without the feature a grouped peer already ruled candidates out (facts)
    members: dict[tuple[str, str], dict[int, frozenset[str]]] = {}
    for pool_ref, devices in charged(nm).items():
        for d in devices:
            for use in nm.facts.problem.devices[d].consumes:
                members.setdefault((pool_ref, use.counter_set), {})[d] = frozenset(use.groups)
    for key, groups in members.items():
        pool = nm.facts.pool_of[next(iter(groups))]
        has, _, common = nm.facts.seeds.get(key) or nm.facts.allocator.group_state(pool, key[1])
        grouped = {d: g for d, g in groups.items() if g}
        plain = [d for d in groups if not groups[d]]
        mode: Literal | None = None
        if grouped and plain:
            # Group-less and grouped devices never mix (allocated peers already fixed which kind may join).
            mode = nm.model.new_bool_var(f"groupless_{key[0]}_{key[1]}")
            for d in plain:
                nm.model.add_implication(nm.picked(d), mode)
            for d in grouped:
                nm.model.add_implication(nm.picked(d), mode.negated())
        universe = frozenset().union(*grouped.values()) if grouped else frozenset()
        if has:
            universe &= common
        if not grouped or universe & frozenset.intersection(*grouped.values()):
            continue  # every grouped candidate shares one group: nothing to decide
        survives: dict[str, Literal] = {}
        for g in sorted(universe):
            survives[g] = nm.model.new_bool_var(f"group_{key[0]}_{key[1]}_{g}")
            for d, g_set in grouped.items():
                if g not in g_set:
                    nm.model.add_implication(survives[g], nm.picked(d).negated())
        # Only a grouped pick needs a surviving group: with none left (allocated peers share none with
        # any candidate), no grouped device may be picked, and the rest of the node still may be.
        for d in grouped:
            nm.model.add_bool_or(list(survives.values())).only_enforce_if(nm.picked(d))
