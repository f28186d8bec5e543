"""kube-scheduler's placement (greedy) beside the batch plan (cpsat): the numbers, the pods only one of
them places and why the other left each pending, and the picture of every GPU under each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ....model.problem import Problem, consumption
from .decode import Placement
from .planner import PlanResult
from .summary import summarize

API_VERSION = "kubefit.io/v1alpha1"


def comparison(problem: Problem, results: Sequence[PlanResult]) -> dict[str, Any]:
    engines: dict[str, Any] = {}
    for r in results:
        s = summarize(problem, r.solution, r.placements)
        entry = {
            "placed": s.placed,
            "pending": s.pending,
            "status": r.status,
            "seconds": round(r.seconds, 3),
            "nodesTouched": s.nodes_touched,
            "devicesTouched": s.devices_touched,
            "partiallyUsedDevices": s.partially_used,
            # Running pods evicted to place pending ones (kube-scheduler preempts; a plan evicts nobody).
            "preempted": len(r.solution.evictions),
        }
        if r.bound is not None:
            entry["bound"] = r.bound
        engines[r.engine] = entry
    only: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        rows = []
        for other in results:
            if other is r:
                continue
            for unit, placed in sorted(r.placements.items()):
                if unit in other.placements:
                    continue
                row: dict[str, Any] = {
                    "pod": problem.units[unit].pod or problem.units[unit].name,
                    "node": placed.node,
                    "reasons": {other.engine: reason(problem, other, unit, placed)},
                }
                victims = [e.victim.key for e in r.solution.evictions if e.unit == unit]
                if victims:
                    row["preempts"] = victims
                rows.append(row)
        only[r.engine] = rows
    return {"apiVersion": API_VERSION, "kind": "Comparison", "engines": engines, "onlyPlacedBy": only}


def reason(problem: Problem, other: PlanResult, unit: int, placed: Placement) -> str:
    """Why `other` left the pod pending: its own message, then what it had put where this placement goes
    (the pods holding the same devices or drawing on the same counter sets there, else the node's pods)."""
    outcome = other.solution.units[unit]
    message = outcome.message or "left pending"
    devices = problem.devices
    wanted = {r.device for a in placed.allocations for r in a.results}
    sets = {(devices[d].driver, devices[d].pool, u.counter_set) for d in wanted for u in devices[d].consumes}
    blockers: list[str] = []
    for uid, p in sorted(other.placements.items()):
        if p.node != placed.node or uid == unit:
            continue
        held = [r.device for a in p.allocations for r in a.results]
        hits = [
            devices[d].name
            for d in held
            if d in wanted
            or any((devices[d].driver, devices[d].pool, u.counter_set) in sets for u in devices[d].consumes)
        ]
        if hits:
            blockers.append(f"{_pod(problem, uid)} ({', '.join(hits)})")
    if blockers:
        shown = ", ".join(blockers[:4]) + (f" and {len(blockers) - 4} more" if len(blockers) > 4 else "")
        return f"{message} {_who(other.engine, placed.node)} {shown}, holding what this pod needs."
    earlier = [_pod(problem, uid) for uid, p in sorted(other.placements.items()) if p.node == placed.node]
    if earlier:
        shown = ", ".join(earlier[:4]) + (f" and {len(earlier) - 4} more" if len(earlier) > 4 else "")
        return f"{message} {_who(other.engine, placed.node)} {shown}."
    return message


def _who(engine: str, node: str) -> str:
    """kube-scheduler places one pod after another; the plan places all of them at once."""
    if engine == "greedy":
        return f"On node {node}, greedy had placed earlier"
    return f"On node {node}, {engine}'s plan puts"


def _pod(problem: Problem, unit: int) -> str:
    u = problem.units[unit]
    return u.pod or u.name


def picture(
    problem: Problem, results: Sequence[PlanResult], title: str, data: Mapping[str, Any]
) -> dict[str, Any]:
    """The HTML renderer's input (html.py): per node, each counter set and device under each engine."""
    holders = _existing_holders(problem)
    planned = {r.engine: _planned(problem, r.placements) for r in results}
    nodes = []
    touched = {p.node for r in results for p in r.placements.values()}
    for name, view in problem.views.items():
        if name not in touched and not any(holders.get(d) for pool in view.pools for d in pool.devices):
            continue
        groups = []
        plain = []
        for pool in view.pools:
            for set_name, counters in sorted(pool.counter_sets.items()):
                members = [
                    d
                    for d in (*pool.devices, *pool.counter_devices)
                    if set_name in consumption(problem.devices[d])
                ]
                engines = {}
                for r in results:
                    cells = []
                    for d in dict.fromkeys(members):
                        pod, existing = planned[r.engine].get(d), False
                        if pod is None and d in holders:
                            pod, existing = holders[d], True
                        if pod is None:
                            continue
                        draws = consumption(problem.devices[d])[set_name]
                        cells.append(
                            {
                                "device": problem.devices[d].name,
                                "pod": pod,
                                "existing": existing,
                                "counters": {c: _num(v) for c, v in draws.items()},
                            }
                        )
                    engines[r.engine] = cells
                groups.append(
                    {
                        "name": f"{pool.ref}/{set_name}",
                        "label": set_name.removesuffix("-counter-set"),
                        "counters": [{"name": c, "capacity": _num(v)} for c, v in counters.items()],
                        "engines": engines,
                    }
                )
            for d in pool.devices:
                device = problem.devices[d]
                if device.consumes:
                    continue
                plain.append(
                    {
                        "name": device.name,
                        "driver": device.driver,
                        "engines": {r.engine: planned[r.engine].get(d) or holders.get(d) for r in results},
                    }
                )
        nodes.append({"name": name, "groups": groups, "devices": plain})
    return {"title": title, "comparison": dict(data), "engines": [r.engine for r in results], "nodes": nodes}


def _num(value: Any) -> int | float:
    return int(value) if value == int(value) else float(value)


def _existing_holders(problem: Problem) -> dict[int, str]:
    out: dict[int, str] = {}
    for hold in problem.holds.values():
        if len(hold.pods) != 1 or hold.others:
            continue
        pod = next(iter(hold.pods))
        for held in hold.devices:
            if not held.shared:
                out.update(dict.fromkeys(held.ids, pod))
    for device in problem.devices:
        if device.id not in out and problem.in_use.allocated(device.ref):
            out[device.id] = "(allocated)"
    return out


def _planned(problem: Problem, placements: Mapping[int, Placement]) -> dict[int, str]:
    out: dict[int, str] = {}
    for unit, p in placements.items():
        for a in p.allocations:
            for r in a.results:
                out[r.device] = _pod(problem, unit)
    return out
