"""`kubefit plan`'s answer: the Plan document first, then every object with the plan's annotations
(made as they are written), and the summary with the pods left pending grouped by why."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model.solution import Status
from ..model.terminal import lines_text
from ..output import table
from ..solver.cluster.plan.planner import PlanResult
from ..solver.cluster.plan.summary import Summary, priority_of
from .render import with_summary


def document(
    built: Any, result: PlanResult, capacity: dict[str, Any] | None, summary: Summary
) -> dict[str, Any]:
    from .render import render_list

    status: dict[str, Any] = {
        "engine": result.engine,
        "status": result.status,
        "seconds": round(result.seconds, 3),
    }
    if result.bound is not None:
        status["bound"] = result.bound
    status.update(summary.as_dict())
    if result.note:
        status["note"] = result.note
    if capacity is not None:
        status["capacity"] = capacity
    plan_doc = {"apiVersion": "kubefit.io/v1alpha1", "kind": "Plan", "status": status}
    doc = render_list(built, result.solution, result.messages, lazy=True)
    doc["items"] = _with_plan(plan_doc, doc["items"], result)
    return doc


def _with_plan(
    plan_doc: dict[str, Any], items: Iterator[dict[str, Any]], result: PlanResult
) -> Iterator[Any]:
    """The Plan first, then the List's items, each pod annotated with the plan's status and bound (as
    they are made: the writer takes them one by one)."""
    yield plan_doc
    for item in items:
        if item.get("kind") == "Pod":
            annotations = item.setdefault("metadata", {}).setdefault("annotations", {})
            annotations["kubefit.io/plan-status"] = result.status
            if result.bound is not None:
                annotations["kubefit.io/plan-bound"] = str(result.bound)
        yield item


def text(
    built: Any, result: PlanResult, capacity: dict[str, Any] | None, s: Summary, wide: bool = False
) -> str:
    """The summary first; then the pods left pending, grouped by why (every pod with -o wide)."""
    problem = built.problem
    bound = f", bound {result.bound}" if result.bound is not None else ""
    baseline = ""
    if result.engine != "greedy" and result.baseline is not None:
        placed = sum(o.status == Status.ALLOCATED for o in result.baseline.units)
        baseline = f" (kube-scheduler places {placed})"
    lines = [
        f"engine {result.engine}: {result.status}{bound}, {result.seconds:.1f}s",
        f"placed {s.placed} of {s.placed + s.pending}{baseline}, pending {s.pending}; nodes touched "
        f"{s.nodes_touched}, devices touched {s.devices_touched}, partially used GPUs/counter sets "
        f"{s.partially_used}",
    ]
    if len(s.by_priority) > 1:
        lines.append(
            "by priority: "
            + "; ".join(
                f"{p}: {a} placed, {b} pending" for p, (a, b) in sorted(s.by_priority.items(), reverse=True)
            )
        )
    if capacity is not None:
        proof = {"optimal": "proven minimal", "feasible": f"at least {capacity.get('atLeast')} needed"}
        lines.append(
            f"new nodes from template {capacity['template']}: {capacity['newNodes']} "
            f"({proof.get(capacity['proof'], capacity['proof'])})"
        )
    if result.note:
        lines.append(f"note: {result.note}")
    out = lines_text(lines)
    pending = pending_groups(problem, result)
    if pending:
        rows = [[str(n), str(p), why] for (p, why), n in pending]
        out += "\n" + table(["PENDING", "PRIORITY", "WHY"], rows)
    if wide:
        rows = []
        for o in result.solution.units:
            unit = problem.units[o.unit]
            devices = ", ".join(problem.devices[r.device].name for a in o.allocations for r in a.results)
            why = with_summary(o.message, result.messages.get(o.unit))
            rows.append([unit.pod or unit.name, o.node or "-", devices or ("-" if o.node else why)])
        out += "\n" + table(["POD", "NODE", "DEVICES / WHY PENDING"], rows)
    elif pending:
        out += "\n(every pod with -o wide)\n"
    return out


def pending_groups(problem: Any, result: PlanResult) -> list[tuple[tuple[int, str], int]]:
    """(priority, why) -> pods left pending for it, most pods first; a pod's own name in its message reads
    `the pod`, so that its class mates' messages group together."""
    counts: dict[tuple[int, str], int] = {}
    for o in result.solution.units:
        if o.status == Status.ALLOCATED:
            continue
        unit = problem.units[o.unit]
        why = with_summary(o.message, result.messages.get(o.unit))
        if unit.pod:
            why = why.replace(f"pod {unit.pod}", "the pod")
        key = (priority_of(problem, o.unit), why)
        counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda t: (-t[1], -t[0][0], t[0][1]))
