"""A plan replayed on the scheduler's own state: every planned pod bound to its node and its claims'
devices taken, as the cluster would look once the plan is applied.

On that state the scheduler's filters (the same plugin code) check each planned pod where it is (without
itself), and say in upstream's words why each pod left pending fits nowhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ....model.cluster import names
from ....model.problem import Problem, Unit
from ....model.solution import Status
from ...units import NodeAnswer
from ..cycle import CycleResult
from ..framework import CycleState, NodeInfo
from ..plugins.dynamic_resources import AllocatorError
from ..runtime import FrameworkError
from ..scheduler import Run
from .decode import Placement
from .static import setup


def replay(problem: Problem, placements: Mapping[int, Placement], deadline: float | None = None) -> Run:
    run = setup(problem, deadline)
    for unit in problem.units:
        placed = placements.get(unit.id)
        if placed is None:
            continue
        pod = replace(run.pods[unit.id], node_name=placed.node, nominated_node="")
        run.snapshot.by_name[placed.node].add_pod(pod)
        run.pods[unit.id] = pod
        run.dra.commit(NodeAnswer(Status.ALLOCATED, placed.allocations, placed.taken))
    return run


def violations(run: Run, placements: Mapping[int, Placement]) -> dict[int, str]:
    """Planned pods some scheduler filter (DRA aside: the Solution validator checks it) rejects where the
    plan put them, given everything else the plan placed."""
    out: dict[int, str] = {}
    for unit in run.problem.units:
        placed = placements.get(unit.id)
        if placed is None:
            continue
        pod = run.pods[unit.id]
        fw = run.frameworks.get(run.cluster.scheduler_name or pod.scheduler_name)
        node = run.snapshot.by_name[placed.node]
        if fw is None:
            out[unit.id] = f"pod {pod.key}: no scheduler profile"
            continue
        node.remove_pod(pod)
        try:
            state = CycleState()
            fw.run_pre_filter(state, pod, run.snapshot.nodes)
            state.skip_filter.add(names.DYNAMIC_RESOURCES)
            status = fw.run_filters(state, pod, node)
        finally:
            node.add_pod(pod)
        if status is not None:
            out[unit.id] = f"pod {pod.key} on node {placed.node}: {status.plugin}: {status.message}"
    return out


def _try(run: Run, unit: Unit, nodes: list[NodeInfo]) -> tuple[CycleResult | None, str]:
    """One scheduling cycle for the pod over the nodes (no preemption): its result, or the error the
    scheduler stops with."""
    pod = run.pods[unit.id]
    cycle = run.cycles.get(run.cluster.scheduler_name or pod.scheduler_name)
    if cycle is None:
        return None, "no scheduler profile for the pod"
    try:
        return cycle.run(pod, nodes, {}, post_filter=False), ""
    except AllocatorError as e:
        return None, e.answer.message  # the scheduler stops with this error for the pod, as `allocate` says
    except FrameworkError as e:
        return None, e.status.message


def why_pending(run: Run, unit: Unit) -> str:
    """The scheduler's FitError for the pod on the planned state, or where it would still fit."""
    result, error = _try(run, unit, run.candidates(unit))
    if result is None:
        return error
    if not result.node:
        return result.message
    _release(run, result)
    return f"{STILL_FITS} {result.node} once the plan is applied"


STILL_FITS = "would still fit on node"


def _release(run: Run, result: CycleResult) -> None:
    """Undo the allocation a trial cycle reserved."""
    if result.answer is not None:
        run.dra.undo(result.answer)


def fits_alone(run: Run, unit: Unit, node: str) -> str:
    """ "" when the pod fits on the node of the run's cluster by itself, else why not (the scheduler's
    FitError for that node). The run is left as it was."""
    info = run.snapshot.get(node)
    if info is None:
        return f"no node {node}"
    result, error = _try(run, unit, [info])
    if result is None:
        return error
    if not result.node:
        return result.message
    _release(run, result)
    return ""
