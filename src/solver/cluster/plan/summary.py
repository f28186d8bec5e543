"""What a plan adds up to: pods placed and pending per priority, nodes and devices it touches, and the
fragmentation it leaves (counter sets, i.e. partitionable GPUs, partly used with room for more)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ....model.problem import Problem, consumption
from ....model.solution import Solution, Status
from .decode import Placement


@dataclass
class Summary:
    placed: int = 0
    pending: int = 0
    by_priority: dict[int, tuple[int, int]] = field(default_factory=dict)  # priority -> (placed, pending)
    nodes_touched: int = 0
    devices_touched: int = 0
    partially_used: int = 0  # counter sets with some use and room for another of their devices

    def as_dict(self) -> dict[str, Any]:
        return {
            "placed": self.placed,
            "pending": self.pending,
            "byPriority": [
                {"priority": p, "placed": a, "pending": b}
                for p, (a, b) in sorted(self.by_priority.items(), reverse=True)
            ],
            "nodesTouched": self.nodes_touched,
            "devicesTouched": self.devices_touched,
            "partiallyUsedDevices": self.partially_used,
        }


def priority_of(problem: Problem, unit: int) -> int:
    cluster = problem.cluster
    pod = cluster.pending.get(unit) if cluster is not None else None
    return pod.priority if pod is not None else 0


def summarize(problem: Problem, solution: Solution, placements: Mapping[int, Placement]) -> Summary:
    out = Summary()
    for outcome in solution.units:
        priority = priority_of(problem, outcome.unit)
        placed, pending = out.by_priority.get(priority, (0, 0))
        if outcome.status == Status.ALLOCATED:
            out.by_priority[priority] = (placed + 1, pending)
            out.placed += 1
        else:
            out.by_priority[priority] = (placed, pending + 1)
            out.pending += 1
    out.nodes_touched = len({p.node for p in placements.values()})
    devices = {r.device for p in placements.values() for a in p.allocations for r in a.results}
    out.devices_touched = len(devices)
    out.partially_used = len(partly_used(problem, devices))
    return out


def counter_use(problem: Problem, taken: set[int]) -> dict[tuple[str, str], dict[str, Fraction]]:
    """(pool, counter set) -> counter -> drawn, by the devices in use before the plan and `taken`."""
    used: dict[tuple[str, str], dict[str, Fraction]] = {}
    for device in problem.devices:
        if not device.consumes or not (device.id in taken or problem.in_use.allocated(device.ref)):
            continue
        for name, counters in consumption(device).items():
            sums = used.setdefault((f"{device.driver}/{device.pool}", name), {})
            for counter, value in counters.items():
                sums[counter] = sums.get(counter, Fraction(0)) + value
    return used


def partly_used(problem: Problem, taken: set[int]) -> list[tuple[str, str]]:
    """Counter sets the plan draws on that are in use and could still hold one more of their devices."""
    used = counter_use(problem, taken)
    touched = {
        (f"{d.driver}/{d.pool}", u.counter_set)
        for d in (problem.devices[i] for i in taken)
        for u in d.consumes
    }
    capacity: dict[tuple[str, str], Mapping[str, Fraction]] = {}
    for view in problem.views.values():
        for pool in view.pools:
            for name, counters in pool.counter_sets.items():
                capacity[(pool.ref, name)] = counters
    members: dict[tuple[str, str], list[int]] = {}
    for device in problem.devices:
        draws = consumption(device)
        if len(draws) == 1:
            members.setdefault((f"{device.driver}/{device.pool}", next(iter(draws))), []).append(device.id)
    out = []
    busy = {problem.devices[i].ref for i in taken}
    for key in sorted(touched):
        left = {c: v - used.get(key, {}).get(c, Fraction(0)) for c, v in capacity.get(key, {}).items()}
        for d in members.get(key, ()):
            device = problem.devices[d]
            if device.ref in busy or problem.in_use.allocated(device.ref):
                continue
            if all(v <= left.get(c, Fraction(0)) for c, v in consumption(device)[key[1]].items()):
                out.append(key)
                break
    return out
