"""`allocate -o wide`: why each pod went where it went — the nodes ranked by kube-scheduler's total score,
each score plugin's share (its weighted score, the normalized score before weight in brackets), and
the nodes the filters turned away with the first reason each gave."""

from __future__ import annotations

from ...model.cluster.record import Record
from ...model.problem import Problem
from ...model.solution import Solution, Status
from ...model.terminal import lines_text
from ...output import table

RUNNERS_UP = 5  # nodes shown below the chosen one
FILTERED_SHOWN = 5


def scores_text(problem: Problem, solution: Solution) -> str:
    parts = []
    for outcome in solution.units:
        record = outcome.record
        if record is None:
            continue
        unit = problem.units[outcome.unit]
        parts.append(_pod(unit.pod or unit.name, outcome.status, outcome.node, record))
    return "\n" + "\n".join(parts) if parts else ""


def evictions(solution: Solution) -> tuple[list[list[str]], list[str]]:
    """The allocation table's rows for the pods preempted (UNIT, STATUS, NODE and dashes), and a line each
    saying for whom."""
    rows = [[e.victim.key, "preempted", e.node, "-", "-", "-"] for e in solution.evictions]
    lines = [
        f"{e.victim.key}: preempted (priority {e.victim.priority}) on node {e.node} to make room for "
        f"{e.preemptor.key} (priority {e.preemptor.priority})"
        for e in solution.evictions
    ]
    return rows, lines


def _pod(name: str, status: Status, node: str, record: Record) -> str:
    evaluated = f"{record.feasible} of {record.evaluated} nodes evaluated passed the filters"
    if status == Status.ALLOCATED and record.feasible == 1:
        head = f"{name}: scheduled on {node} ({evaluated}; the only feasible node is taken without scoring)"
    elif status == Status.ALLOCATED:
        head = f"{name}: scheduled on {node} ({evaluated}; profile {record.profile})"
    elif record.nominated:
        head = f"{name}: nominated to {record.nominated} after preemption ({evaluated})"
    else:
        head = f"{name}: not scheduled ({evaluated})"
    lines = [head]
    if record.victims:
        lines.append(f"  preempts: {', '.join(record.victims)}")
    if record.totals:
        plugins = list(dict.fromkeys(p for scores in record.scores.values() for p in scores))
        rows = []
        for node_name, total in record.ranking()[: RUNNERS_UP + 1]:
            raw = record.scores.get(node_name, {})
            weighted = record.weighted.get(node_name, {})
            mark = "*" if node_name == record.selected else ""
            cells = [f"{weighted.get(p, 0)} ({raw[p]})" if p in raw else "-" for p in plugins]
            rows.append([f"{node_name}{mark}", total, *cells])
        text = table(["NODE", "TOTAL", *plugins], rows)
        lines += ["  " + line for line in text.rstrip("\n").splitlines()]
        hidden = len(record.totals) - RUNNERS_UP - 1
        if hidden > 0:
            lines.append(f"  … and {hidden} more feasible nodes")
    rejected = [
        (n, v) for n, verdicts in record.filters.items() for v in verdicts.items() if v[1] != "passed"
    ]
    for node_name, (plugin, reason) in rejected[:FILTERED_SHOWN]:
        lines.append(f"  filtered out: {node_name} ({plugin}: {reason})")
    if len(rejected) > FILTERED_SHOWN:
        lines.append(f"  … and {len(rejected) - FILTERED_SHOWN} more nodes filtered out")
    for plugin, what in record.pre_filter.items():
        lines.append(f"  prefilter {plugin}: {what}")
    return lines_text(lines)
