"""Evaluator.Preempt: whether and where preempting lower-priority pods lets the pod in.

Only nodes the cycle rejected as Unschedulable are tried (UnschedulableAndUnresolvable ones, and
nodes never evaluated, cannot be helped by evicting pods). When no node can help, the answer is
the FitError of the preemption itself: the statuses of the nodes it tried, every other node counted
as "Preemption is not helpful for scheduling".
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ....model.cluster.args import DefaultPreemptionArgs
from ....model.cluster.facts import Pod
from ..fit_error import fit_error_message
from ..framework import Code, CycleState, Handle, Status, error
from ..runtime import Framework
from .candidates import aggregate, candidate_count, dry_run, offset_of, pick_one
from .eligibility import ineligibility

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_NODES = "no nodes available"


@dataclass(frozen=True)
class Preemption:
    """What prepareCandidate acts on: the nominated node, the victims to evict (most important first)
    and the lower-priority pods nominated to that node whose nomination is cleared."""

    node: str
    victims: tuple[Pod, ...]
    cleared: tuple[Pod, ...]


@dataclass(frozen=True)
class Refusal:
    """Why there is no preemption (the status, without the "preemption: " prefix), and whether the pod's
    nomination goes with it: preemption found no candidate (cleared), rather than not being tried."""

    status: Status
    clear: bool = False


@dataclass(frozen=True)
class Services:
    """What the scheduler lends the evaluator: the running framework, the nominated pods of a node,
    and the random source (None: deterministic)."""

    framework: Framework
    nominated: Callable[[str], list[Pod]]
    rng: random.Random | None


def preempt(
    services: Services,
    handle: Handle,
    args: DefaultPreemptionArgs,
    state: CycleState,
    pod: Pod,
    statuses: Mapping[str, Status],
) -> Preemption | Refusal:
    """A Preemption, or why there is none."""
    nominated_status = statuses.get(pod.nominated_node) if pod.nominated_node else None
    why = ineligibility(
        pod, handle.snapshot, nominated_status.code if nominated_status is not None else Code.UNRESOLVABLE
    )
    if why:
        return Refusal(Status(Code.UNSCHEDULABLE, (why,)))
    all_nodes = handle.snapshot.nodes
    if not all_nodes:
        return Refusal(error(NO_NODES))
    potential = [n for n in all_nodes if _unschedulable(statuses.get(n.name))]
    rng = services.rng
    if not potential:
        return _not_helpful(len(all_nodes), {})
    if rng is not None:
        # Upstream lists these nodes from a map: in a random order.
        rng.shuffle(potential)
    offset = offset_of(len(potential), rng)
    wanted = candidate_count(args, len(potential))
    found = dry_run(
        services.framework,
        state,
        pod,
        potential,
        handle.cluster.budgets,
        offset,
        wanted,
        services.nominated,
    )
    if not found.candidates:
        if found.errors:
            return Refusal(error(aggregate(found.errors)))
        return _not_helpful(len(all_nodes), found.statuses)
    best = pick_one(found.candidates, rng)
    cleared = tuple(p for p in services.nominated(best.node) if p.priority < pod.priority)
    return Preemption(best.node, best.victims, cleared)


def _unschedulable(status: Status | None) -> bool:
    return status is not None and status.code == Code.UNSCHEDULABLE


def _not_helpful(num_nodes: int, statuses: Mapping[str, Status]) -> Refusal:
    absent = Status(Code.UNRESOLVABLE, (NOT_HELPFUL,))
    return Refusal(Status(Code.UNSCHEDULABLE, (fit_error_message(num_nodes, statuses, absent),)), clear=True)
