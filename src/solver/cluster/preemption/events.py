"""What preempting a victim shows on the API: the DisruptionTarget condition patched onto the victim
and the "Preempted" Event about it (Executor.PreemptPod).

Victims already terminating get neither: upstream makes no API call for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ....model.cluster.facts import Pod
from .eligibility import PREEMPTION_BY_SCHEDULER

DISRUPTION_TARGET = "DisruptionTarget"
EVENT_NORMAL = "Normal"
PREEMPTED = "Preempted"
PREEMPTING = "Preempting"


@dataclass(frozen=True)
class PodCondition:
    type: str
    status: str
    reason: str
    message: str


@dataclass(frozen=True)
class Event:
    """An events.k8s.io Event: `regarding` is the victim, `related` the preemptor."""

    regarding: Pod
    related: Pod
    type: str
    reason: str
    action: str
    note: str


@dataclass(frozen=True)
class VictimEvent:
    victim: Pod
    condition: PodCondition
    event: Event


def disruption_condition(preemptor: Pod, kind: str = "pod") -> PodCondition:
    return PodCondition(
        DISRUPTION_TARGET,
        "True",
        PREEMPTION_BY_SCHEDULER,
        f"{preemptor.scheduler_name}: preempting to accommodate a higher priority {kind}",
    )


def victim_events(
    preemptor: Pod, node: str, victims: Sequence[Pod], group_uid: str | None = None
) -> list[VictimEvent]:
    """One entry per victim the scheduler deletes, in the victims' order. A PodGroup preemptor
    (`group_uid`) preempts on the whole cluster: the Event names the group and the "cluster" node."""
    kind = "pod" if group_uid is None else "podgroup"
    condition = disruption_condition(preemptor, kind)
    note = f"Preempted by {kind} {preemptor.uid if group_uid is None else group_uid} on node {node}"
    return [
        VictimEvent(v, condition, Event(v, preemptor, EVENT_NORMAL, PREEMPTED, PREEMPTING, note))
        for v in victims
        if not v.terminating
    ]
