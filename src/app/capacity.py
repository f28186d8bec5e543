"""`kubefit plan --node-template`: capacity planning. The fewest copies of the template to add so every
pod (of at least --min-priority) fits, proven by the planner's model: kube-scheduler's own placement with
doubling numbers of copies first (a number that is enough), then the plan with that many optional copies;
or, with --max-new-nodes, the most pods that many copies place. Copies and plan spend one budget."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from ..model.errors import InputError
from ..solver.cluster.plan.capacity import MAX_COPIES, copies, copy_name, template_name
from ..solver.cluster.plan.planner import PlanResult, plan
from ..solver.cluster.plan.progress import Progress
from ..solver.cluster.plan.summary import priority_of
from ..solver.deadline import Deadline
from ..translate.node.planned import kubelet_facts
from ..translate.node_template import read_template
from .plan_request import Builder, PlanRequest, all_placed, options


def _with_copies(request: PlanRequest, build: Builder, docs: list[dict[str, Any]], count: int) -> Any:
    if count == 0:
        return build(list(request.input.paths))
    template = request.template or ""
    with tempfile.TemporaryDirectory(prefix="kubefit-template-") as tmp:
        path = os.path.join(tmp, f"{os.path.basename(template)}.copies.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"apiVersion": "v1", "kind": "List", "items": copies(docs, count)}, f, default=str)
        return build([*request.input.paths, path])


def capacity_plan(
    request: PlanRequest, build: Builder, progress: Progress
) -> tuple[Any, PlanResult, dict[str, Any]]:
    docs = read_template(request.template or "")
    name = template_name(docs)
    cap = request.max_new_nodes
    required: int | None = None
    enough = True
    clock = request.deadline.begin()  # one budget: the copies' trials and the plan spend it
    if cap is None:
        count, enough = _enough(request, build, docs, clock, progress)
        if enough:
            required = request.min_priority if request.min_priority is not None else -(1 << 62)
    else:
        count = cap
    built = _with_copies(request, build, docs, count)
    names = tuple(copy_name(name, i) for i in range(1, count + 1))
    more = {"optional_nodes": names, "require_priority": required, "kubelet": kubelet_facts(built)}
    result = plan(built.problem, options(request, request.engine, progress, clock, **more), built)
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
    request: PlanRequest, build: Builder, docs: list[dict[str, Any]], clock: Deadline, progress: Progress
) -> tuple[int, bool]:
    """A number of copies with which kube-scheduler's own placement fits every pod required (doubling),
    and whether it was found within the budget (half of it: the plan needs the rest). Pods that do not fit
    a fresh copy alone are bad input: no number of copies helps them."""
    half = clock.share(1 / 2)
    count = 0
    while True:
        built = _with_copies(request, build, docs, count)
        if count == 1:
            _check_hosts(request, built, copy_name(template_name(docs), 1))
        progress.enter(f"kube-scheduler's pass with {count} new nodes")
        greedy = plan(built.problem, options(request, "greedy", progress, half))
        # A placement that preempts running pods does not count: the plan evicts nobody.
        if not greedy.solution.evictions and all_placed(greedy, request.min_priority, built):
            return count, True
        if count >= MAX_COPIES or half.expired() or clock.expired():
            return count, False
        count = max(1, count * 2)


def _check_hosts(request: PlanRequest, built: Any, node: str) -> None:
    """Every required pod fits on one fresh copy of the template by itself (the scheduler's filters and
    DRA there), or the template cannot host it."""
    from ..solver.cluster.plan.replay import fits_alone
    from ..solver.cluster.plan.static import setup

    problem = built.problem
    run = setup(problem)
    refused = []
    for unit in problem.units:
        if request.min_priority is not None and priority_of(problem, unit.id) < request.min_priority:
            continue
        why = fits_alone(run, unit, node)
        if why:
            refused.append(f"{unit.name} ({why})")
    if refused:
        raise InputError(
            f"{request.template}: the template cannot host {', '.join(refused[:3])}"
            + (f" and {len(refused) - 3} more" if len(refused) > 3 else "")
            + ": no number of copies places them"
        )
