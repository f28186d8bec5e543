"""`kubefit plan` and `kubefit compare`: the verbs around the planner (loading, capacity planning's
copies, output documents and tables)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from ..model.errors import InputError
from ..model.solution import Status
from ..model.terminal import lines_text
from ..output import table
from ..solver.cluster.plan.capacity import MAX_COPIES, copies, copy_name, template_name
from ..solver.cluster.plan.planner import PlanOptions, PlanResult, plan
from ..solver.cluster.plan.progress import Progress
from ..solver.cluster.plan.summary import Summary, priority_of, summarize
from ..solver.deadline import Deadline
from ..translate.node.planned import kubelet_facts
from ..translate.node_template import read_template
from .render import with_summary

# CP-SAT's threads each hold a copy of the model: more than this many only cost memory.
MAX_WORKERS = 256

# (paths) -> Built: load, validate and build the Problem, as the other verbs do.
Builder = Callable[[list[str]], Any]


def check(args: argparse.Namespace) -> None:
    """Flags the parser cannot check alone."""
    if not 1 <= args.workers <= MAX_WORKERS:
        raise InputError(f"--workers {args.workers}: from 1 to {MAX_WORKERS}")
    template = getattr(args, "node_template", None)
    for flag, value in (("--max-new-nodes", "max_new_nodes"), ("--min-priority", "min_priority")):
        if getattr(args, value, None) is not None and not template:
            raise InputError(f"{flag} plans capacity: it needs --node-template")
    if getattr(args, "max_new_nodes", None) is not None and not 0 <= args.max_new_nodes <= MAX_COPIES:
        # Each copy is a node with its slices, built and planned: as many as the search for the fewest
        # may add at most.
        raise InputError(f"--max-new-nodes {args.max_new_nodes}: from 0 to {MAX_COPIES}")


def options(
    args: argparse.Namespace, engine: str, progress: Progress, clock: Deadline, **more: Any
) -> PlanOptions:
    return PlanOptions(
        engine, args.objective, args.time_limit, args.workers, progress, deadline=clock, **more
    )


def progress_of(args: argparse.Namespace) -> Progress:
    return Progress(args.progress if args.progress is not None else sys.stderr.isatty())


def run_plan(
    args: argparse.Namespace, build: Builder, with_document: bool = True
) -> tuple[dict[str, Any] | None, str, bool]:
    """(document, table, everything placed); the document (every pod with kube-scheduler's annotations:
    gigabytes at 1,000 nodes) only `with_document`."""
    check(args)
    with progress_of(args) as progress:
        if args.node_template:
            built, result, capacity = _capacity(args, build, progress)
        else:
            built = build(list(args.filename))
            # The budget starts once the input is read: every phase after spends it.
            clock = Deadline(args.time_limit)
            opts = options(
                args, args.engine, progress, clock, document=with_document, kubelet=kubelet_facts(built)
            )
            result = plan(built.problem, opts, built)
            capacity = None
        progress.enter("printing")
        summary = summarize(built.problem, result.solution, result.placements)
        return (
            document(built, result, capacity, summary) if with_document else None,
            text(built, result, capacity, summary, args.output == "wide"),
            _all_placed(result, args.min_priority, built),
        )


def _all_placed(result: PlanResult, min_priority: int | None, built: Any) -> bool:
    return all(
        o.status == Status.ALLOCATED
        for o in result.solution.units
        if min_priority is None or priority_of(built.problem, o.unit) >= min_priority
    )


def _with_copies(args: argparse.Namespace, build: Builder, docs: list[dict[str, Any]], count: int) -> Any:
    if count == 0:
        return build(list(args.filename))
    with tempfile.TemporaryDirectory(prefix="kubefit-template-") as tmp:
        path = os.path.join(tmp, f"{os.path.basename(args.node_template)}.copies.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"apiVersion": "v1", "kind": "List", "items": copies(docs, count)}, f, default=str)
        return build([*args.filename, path])


def _capacity(
    args: argparse.Namespace, build: Builder, progress: Progress
) -> tuple[Any, PlanResult, dict[str, Any]]:
    docs = read_template(args.node_template)
    name = template_name(docs)
    cap = args.max_new_nodes
    required: int | None = None
    enough = True
    clock = Deadline(args.time_limit)  # one budget: the copies' trials and the plan spend it
    if cap is None:
        count, enough = _enough(args, build, docs, clock, progress)
        if enough:
            required = args.min_priority if args.min_priority is not None else -(1 << 62)
    else:
        count = cap
    built = _with_copies(args, build, docs, count)
    names = tuple(copy_name(name, i) for i in range(1, count + 1))
    more = {"optional_nodes": names, "require_priority": required, "kubelet": kubelet_facts(built)}
    result = plan(built.problem, options(args, "cpsat", progress, clock, **more), built)
    new_nodes = [s for s in result.stages if s.name == "new nodes"]
    stage = new_nodes[0] if new_nodes else None
    info: dict[str, Any] = {
        "template": name,
        "newNodes": len(result.opened),
        "nodes": list(result.opened),
        "proof": stage.status if stage is not None and enough else ("optimal" if count == 0 else "unknown"),
    }
    if stage is not None and enough:
        info["atLeast"] = stage.bound
    if cap is not None:
        info["maxNewNodes"] = cap
    if not enough:
        info["note"] = (
            f"the time ran out before kube-scheduler's placement fitted every pod on {count} copies: "
            "the plan places what those copies hold, nothing is proven about more"
        )
    return built, result, info


def _enough(
    args: argparse.Namespace, build: Builder, docs: list[dict[str, Any]], clock: Deadline, progress: Progress
) -> tuple[int, bool]:
    """A number of copies with which kube-scheduler's own placement fits every pod required (doubling),
    and whether it was found within the budget (half of it: the plan needs the rest). Pods that do not fit
    a fresh copy alone are bad input: no number of copies helps them."""
    half = Deadline(None if args.time_limit is None else args.time_limit / 2)
    count = 0
    while True:
        built = _with_copies(args, build, docs, count)
        if count == 1:
            _check_hosts(args, built, copy_name(template_name(docs), 1))
        progress.enter(f"kube-scheduler's pass with {count} new nodes")
        greedy = plan(built.problem, options(args, "greedy", progress, half))
        # A placement that preempts running pods does not count: the plan evicts nobody.
        if not greedy.solution.evictions and _all_placed(greedy, args.min_priority, built):
            return count, True
        if count >= MAX_COPIES or half.expired() or clock.expired():
            return count, False
        count = max(1, count * 2)


def _check_hosts(args: argparse.Namespace, built: Any, node: str) -> None:
    """Every required pod fits on one fresh copy of the template by itself (the scheduler's filters and
    DRA there), or the template cannot host it."""
    from ..solver.cluster.plan.replay import fits_alone
    from ..solver.cluster.plan.static import setup

    problem = built.problem
    run = setup(problem)
    refused = []
    for unit in problem.units:
        if args.min_priority is not None and priority_of(problem, unit.id) < args.min_priority:
            continue
        why = fits_alone(run, unit, node)
        if why:
            refused.append(f"{unit.name} ({why})")
    if refused:
        raise InputError(
            f"{args.node_template}: the template cannot host {', '.join(refused[:3])}"
            + (f" and {len(refused) - 3} more" if len(refused) > 3 else "")
            + ": no number of copies places them"
        )


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


def run_compare(args: argparse.Namespace, build: Builder) -> tuple[dict[str, Any], str, str]:
    """(Comparison document, table, html; the page only with -o html)."""
    check(args)
    from ..solver.cluster.plan.compare import comparison, picture
    from .plan_html import FIRST_ROWS, render_html, why_groups

    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ("greedy", "cpsat")]
    if unknown or len(engines) != 2 or engines[0] == engines[1]:
        raise InputError(f"--engines {args.engines}: two of greedy, cpsat")
    results: list[PlanResult] = []
    with progress_of(args) as progress:
        built = build(list(args.filename))
        clock = Deadline(args.time_limit)  # both engines spend one budget
        kubelet = kubelet_facts(built)
        for engine in engines:
            # The planner starts from kube-scheduler's placement when it has it.
            baseline = next((r.baseline for r in results if r.baseline is not None), None)
            opts = options(args, engine, progress, clock, kubelet=kubelet)
            results.append(plan(built.problem, opts, built, baseline))
    doc = comparison(built.problem, results)
    rows = []
    keys = [
        "placed",
        "pending",
        "status",
        "seconds",
        "bound",
        "nodesTouched",
        "devicesTouched",
        "partiallyUsedDevices",
        "preempted",
    ]
    for key in keys:
        rows.append([key, *(str(doc["engines"][e].get(key, "-")) for e in engines)])
    out = table(["", *engines], rows)
    for engine, entries in doc["onlyPlacedBy"].items():
        if not entries:
            continue
        out += f"\nonly {engine} places:\n"
        if len(entries) > FIRST_ROWS:
            other = next(e for e in engines if e != engine)
            groups = why_groups(entries, other)
            out += table(["PODS", f"WHY {other.upper()} LEFT THEM PENDING"], [[len(n), w] for w, n in groups])
            out += "\n"
        out += table(
            ["POD", "NODE", "PREEMPTS", "WHY NOT THE OTHER"],
            [
                [e["pod"], e["node"], ", ".join(e.get("preempts", ())) or "-", *e["reasons"].values()]
                for e in entries[:FIRST_ROWS]
            ],
        )
        if len(entries) > FIRST_ROWS:
            out += f"({len(entries) - FIRST_ROWS} more: every pod with -o json or -o html)\n"
    html = ""
    if args.output == "html":
        html = render_html(picture(built.problem, results, f"kubefit compare: {' vs '.join(engines)}", doc))
    return doc, out, html


__all__ = ["run_compare", "run_plan"]
