"""A pod that fits only by preempting others: which pods kube-scheduler evicts for it, their priorities
and the PodDisruptionBudgets that cover them. Such a pod does not "fit": its verdict is `preempts`."""

from __future__ import annotations

from dataclasses import replace

from ...model.claim_holds import release_evicted
from ...model.cluster.facts import Cluster, selects
from ...model.problem import Problem, Unit
from ...model.solution import Solution, UnitOutcome
from ..units import State
from .model import Kind, NodeExplanation, UnitExplanation, Verdict, Victim


def victims_of(problem: Problem, solution: Solution, unit: Unit) -> tuple[Victim, ...]:
    budgets = problem.cluster.budgets if problem.cluster is not None else ()
    out = []
    for eviction in solution.evictions:
        if eviction.unit != unit.id:
            continue
        pod = eviction.victim
        covering = tuple(
            (b.name, b.disruptions_allowed)
            for b in budgets
            if b.namespace == pod.namespace and selects(b.selector, pod.labels)
        )
        out.append(Victim(pod.key, pod.priority, covering))
    return tuple(out)


def preempting(name: str, unit: Unit, outcome: UnitOutcome, victims: tuple[Victim, ...]) -> UnitExplanation:
    shown = ", ".join(v.pod for v in victims)
    return UnitExplanation(
        unit.id,
        name,
        Verdict.PREEMPTS,
        f"{name} fits on node {outcome.node} only by preempting {shown}",
        outcome.node,
        outcome.allocations,
        (NodeExplanation(outcome.node, Verdict.PREEMPTS),),
        victims=victims,
    )


def release_victims(problem: Problem, solution: Solution, unit: Unit, state: State) -> None:
    """The claims of the unit's victims that nothing reserves any more are free for the units after it."""
    gone = {e.victim.key: e.victim.claims for e in solution.evictions if e.unit == unit.id}
    release_evicted(problem.holds, gone, state.exclusive, state.shared, state.capacity)


def without_device_preemption(problem: Problem, unit: Unit, node: NodeExplanation) -> NodeExplanation:
    """Where devices the pod needs are held by pods of lower priority and DRAPreemption is off, say that
    kube-scheduler does not preempt them for their devices (it would for cpu or memory)."""
    cluster = problem.cluster
    pod = cluster.pending.get(unit.id) if cluster is not None else None
    if pod is None or cluster is None or problem.on("Preemption"):
        return node
    lower: dict[str, int] = {}
    for reason in node.reasons:
        hold = (
            problem.holds.get(str(reason.objects.get("holder", "")))
            if reason.kind == Kind.DEVICES_IN_USE
            else None
        )
        if hold is None:
            continue
        priorities = _priorities(cluster)
        for holder in sorted(hold.pods):
            if priorities.get(holder, pod.priority) < pod.priority:
                lower[holder] = priorities[holder]
    if not lower:
        return node
    shown = ", ".join(f"{p} (priority {v})" for p, v in lower.items())
    hint = (
        f"held by lower-priority {shown}: kube-scheduler does not preempt pods for their devices unless "
        "the DRAPreemption feature gate is on"
    )
    return replace(node, hints=(*node.hints, hint))


# The running pods' priorities of the last cluster asked about (explaining a plan asks for each pending
# pod on each node: made once, not from thousands of running pods each time).
_PRIORITIES: list[tuple[Cluster, dict[str, int]]] = []


def _priorities(cluster: Cluster) -> dict[str, int]:
    if not _PRIORITIES or _PRIORITIES[0][0] is not cluster:
        _PRIORITIES[:] = [(cluster, {p.key: p.priority for p in cluster.bound})]
    return _PRIORITIES[0][1]
