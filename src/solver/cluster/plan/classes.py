"""Pending pods grouped into classes of interchangeable pods: the planner decides how many of a class go
to each node, never which of them (aggregation is what lets it plan thousands of pods).

Two pods are interchangeable when everything the scheduler and the allocator read of them is equal:
priority, requests, ports, placement rules, labels (other pods' rules match them), namespace, gang, and
their pending claims' shape (the same selector outcomes, counts and constraints, as DraContext compares
them). A pod whose claims are shared with another pod, or already allocated, is a class of its own.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ....model.cluster.facts import Pod
from ....model.problem import Claim, Problem, Unit
from ..dra import DraContext


@dataclass
class PodClass:
    index: int
    pods: list[Pod]  # in queue order
    units: list[Unit]  # the pods' units, same order
    gang: str = ""  # the gang-scheduled PodGroup the pods belong to
    claims: list[list[Claim]] = field(default_factory=list)  # per pod: its pending claims, in unit order

    @property
    def pod(self) -> Pod:
        """The representative: every member answers the same."""
        return self.pods[0]

    @property
    def unit(self) -> Unit:
        return self.units[0]

    @property
    def count(self) -> int:
        return len(self.pods)

    @property
    def priority(self) -> int:
        return self.pod.priority

    @property
    def name(self) -> str:
        first = self.pod.key
        return first if self.count == 1 else f"{first} (+{self.count - 1} like it)"


def _frozen(value: Any) -> Hashable:
    if isinstance(value, Mapping):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value  # type: ignore[no-any-return]


# What the scheduler reads of a pod (model.cluster.facts.Pod), by field: two pods of a class agree on each.
KEY_FIELDS = (
    "namespace",
    "labels",
    "priority",
    "preemption_policy",
    "scheduler_name",
    "node_name",
    "requests",
    "score_requests",
    "ports",
    "tolerations",
    "node_selector",
    "required_node_affinity",
    "preferred_node_affinity",
    "required_affinity",
    "required_anti_affinity",
    "preferred_affinity",
    "preferred_anti_affinity",
    "spread_constraints",
    "default_spread_selector",
    "images",
    "scheduling_gates",
    "pod_group",
)

# The Pod fields the key leaves out, and why pods that differ in them are still interchangeable to the
# plan (tests/test_plan_class_key.py holds every field of the Pod to one of these two lists).
IGNORED_FIELDS = {
    "name": "the pod's identity: the class stands for pods that differ only in who they are",
    "uid": "the pod's identity, as its name",
    "nominated_node": "where kube-scheduler tries a pending pod first and holds room for it; the plan places "
    "every pending pod at once, so none keeps a nomination (kube-scheduler's pass reads it pod by pod)",
    "start_time": "read of running pods only (which victim preemption picks); classes hold pending pods",
    "terminating": "read of the pods counted on nodes (spreading skips terminating ones), "
    "not of the pod placed",
    "disruption_target": "read of running pods only (an earlier preemption's victims)",
    "claims": "the pod's claims by name, for preemption's victims; a pending pod's claims enter the class by "
    "their shape (DraContext.signature), and a pod whose claims are shared or allocated is a class alone",
}


def pod_key(pod: Pod) -> Hashable:
    """What the scheduler reads of a pod, without its identity."""
    return tuple(_frozen(getattr(pod, name)) for name in KEY_FIELDS)


def shared_claims(problem: Problem, units: Sequence[Unit]) -> dict[int, list[int]]:
    """Pending claims several pending pods use: claim -> the units, in queue order (the first one's
    allocation is the claim's; the others go where it is)."""
    users: dict[int, list[int]] = {}
    for unit in units:
        for c in unit.claims:
            if not problem.claims[c].allocated:
                users.setdefault(c, []).append(unit.id)
    return {c: u for c, u in users.items() if len(u) > 1}


def classes(
    problem: Problem, pods: Mapping[int, Pod], units: Sequence[Unit], dra: DraContext
) -> list[PodClass]:
    """The units' pods in classes, classes in the queue order of their first pod."""
    users: dict[int, int] = {}
    for unit in problem.units:
        for c in unit.claims:
            users[c] = users.get(c, 0) + 1
    shared = shared_claims(problem, units)
    out: list[PodClass] = []
    by_key: dict[Hashable, PodClass] = {}
    for unit in units:
        pod = pods[unit.id]
        # A claim the pod names twice (an API-invalid pod answered with a warning) is allocated once.
        once = {c.id: c for c in dra.pending(unit)}.values()
        pending = [c for c in once if c.id not in shared or shared[c.id][0] == unit.id]
        alone = any(problem.claims[c].allocated or users[c] > 1 for c in unit.claims)
        shape = dra.signature(unit, pending) if pending else ()
        gang = unit.gang.name if unit.gang is not None else ""
        key: Hashable = (
            ("unit", unit.id) if alone or shape is None else (pod_key(pod), gang, shape, tuple(unit.nodes))
        )
        cls = by_key.get(key)
        if cls is None:
            cls = by_key[key] = PodClass(len(out), [], [], gang)
            out.append(cls)
        cls.pods.append(pod)
        cls.units.append(unit)
        cls.claims.append(pending)
    return out
