"""`kubefit compare`: the pending pods placed by two planning engines (greedy: kube-scheduler; cpsat: the
batch planner) within one budget, side by side: a table, a Comparison document, or one HTML page."""

from __future__ import annotations

from dataclasses import dataclass

from ..output import table
from ..solver import registry
from ..solver.cluster.plan.planner import PlanResult, plan
from ..translate.node.planned import kubelet_facts
from .plan_request import Planning, builder, check, options, progress_of
from .requests import EXIT_OK, Answer


@dataclass(frozen=True)
class CompareRequest(Planning):
    """`compare`: `fmt` json, yaml, table or html."""

    engines: str = "greedy,cpsat"  # two planning engines, comma-separated


def compare(request: CompareRequest) -> Answer:
    """The Comparison document and table, or with -o html the page."""
    check(request)
    from ..solver.cluster.plan.compare import comparison, picture
    from .plan_html import FIRST_ROWS, render_html, why_groups

    engines = registry.plan_pair(request.engines)
    build = builder(request.input)
    results: list[PlanResult] = []
    with progress_of(request) as progress:
        built = build(list(request.input.paths))
        clock = request.deadline.begin()  # both engines spend one budget
        kubelet = kubelet_facts(built)
        for engine in engines:
            # The planner starts from kube-scheduler's placement when it has it.
            baseline = next((r.baseline for r in results if r.baseline is not None), None)
            opts = options(request, engine, progress, clock, kubelet=kubelet)
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
    if request.fmt == "html":
        html = render_html(picture(built.problem, results, f"kubefit compare: {' vs '.join(engines)}", doc))
        return Answer(doc, out, EXIT_OK, request.fmt, verbatim=html)
    return Answer(doc, out, EXIT_OK, request.fmt)
