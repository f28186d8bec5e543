"""`kubefit plan`: every pending pod placed at once (the planner, `solver.cluster.plan`), or with a node
template the fewest copies of it to add (`capacity`); the document and text in `plan_render`."""

from __future__ import annotations

from ..solver.cluster.plan.planner import plan
from ..solver.cluster.plan.summary import summarize
from ..translate.node.planned import kubelet_facts
from .capacity import capacity_plan
from .plan_render import document, text
from .plan_request import PlanRequest, all_placed, builder, check, options, progress_of
from .requests import EXIT_NO_FIT, EXIT_OK, Answer

__all__ = ["PlanRequest", "plan_verb"]


def plan_verb(request: PlanRequest) -> Answer:
    """The plan's document (every pod with kube-scheduler's annotations: gigabytes at 1,000 nodes) only
    for -o json|yaml; the summary and the pods left pending (every pod with -o wide)."""
    fmt = request.fmt
    with_document = fmt in ("json", "yaml")
    check(request)
    build = builder(request.input)
    with progress_of(request) as progress:
        if request.template:
            built, result, capacity = capacity_plan(request, build, progress)
        else:
            built = build(list(request.input.paths))
            # The budget starts once the input is read: every phase after spends it.
            clock = request.deadline.begin()
            opts = options(
                request, request.engine, progress, clock, document=with_document, kubelet=kubelet_facts(built)
            )
            result = plan(built.problem, opts, built)
            capacity = None
        progress.enter("printing")
        summary = summarize(built.problem, result.solution, result.placements)
        doc = document(built, result, capacity, summary) if with_document else None
        out = text(built, result, capacity, summary, fmt == "wide")
        code = EXIT_OK if all_placed(result, request.min_priority, built) else EXIT_NO_FIT
    return Answer(doc, out, code, "table" if fmt == "wide" else fmt)
