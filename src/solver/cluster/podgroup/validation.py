"""validatePodGroup (pkg/scheduler/schedule_one_podgroup.go): before a tree's cycle, the whole hierarchy
(its groups, and its pods pending or on nodes) must share the root's priority, its preemption policy (the
root group's with PodGroupPreemptionPolicy, else the first pod's) and one scheduler name; otherwise every
pending pod of the tree fails with upstream's error.
"""

from __future__ import annotations

from collections.abc import Mapping

from ....model.cluster.facts import Pod
from ....model.cluster.podgroup import COMPOSITE, PREEMPTION_POLICY_GATE, GroupFact, Groups
from .info import GroupInfo

PREEMPT_LOWER = "PreemptLowerPriority"

GROUP_PRIORITY = (
    "all pod groups in a hierarchy should have the same priority as the root pod group's priority, "
    'got {} ("{}") and {} ("{}")'
)
GROUP_POLICY = (
    "all pod groups in a hierarchy should have the same preemption policy as the root pod group's "
    'preemption policy, got {} ("{}") and {} ("{}")'
)
SCHEDULER_NAME = (
    "all pods in a pod group hierarchy should have the same .spec.schedulerName set, "
    'got: "{}" ("{}") and "{}" ("{}")'
)
POD_PRIORITY = (
    "all pods in a pod group hierarchy should have the same priority as the root pod group's priority, "
    'got {} ("{}") and {} ("{}")'
)
POD_GROUP_POLICY = (
    "all pods in a pod group hierarchy should have the same preemption policy as the root pod group's "
    'preemption policy, got {} ("{}") and {} ("{}")'
)
POD_POLICY = (
    'all pods in a pod group hierarchy should have the same preemption policy, got {} ("{}") and {} ("{}")'
)


def entity_key(fact: GroupFact) -> str:
    """How upstream names a group in logs and errors (fwk.EntityKey)."""
    kind = "compositepodgroup" if fact.kind == COMPOSITE else "podgroup"
    return f"{kind}/{fact.namespace}/{fact.name}"


def validate(root: GroupInfo, pods: Mapping[int, Pod], groups: Groups) -> str:
    """The error of the first entity that breaks the rules ("" when none does), in upstream's order: each
    group before its children, a PodGroup's pending pods before those on nodes."""
    policy_gate = groups.on(PREEMPTION_POLICY_GATE)
    first = next((pods[u] for leaf in root.leaves() for u in leaf.queued), None)
    if first is None:
        return ""
    priority = root.fact.priority
    policy = (root.fact.preemption_policy or PREEMPT_LOWER) if policy_gate else first.preemption_policy
    root_key = entity_key(root.fact)
    for info in root.walk():
        key = entity_key(info.fact)
        if info.fact.priority != priority:
            return GROUP_PRIORITY.format(info.fact.priority, key, priority, root_key)
        group_policy = info.fact.preemption_policy or PREEMPT_LOWER
        if policy_gate and group_policy != policy:
            return GROUP_POLICY.format(group_policy, key, policy, root_key)
        if info.composite:
            continue
        for pod in (*(pods[u] for u in info.queued), *info.scheduled):
            if pod.scheduler_name != first.scheduler_name:
                return SCHEDULER_NAME.format(pod.scheduler_name, pod.name, first.scheduler_name, first.name)
            if pod.priority != priority:
                return POD_PRIORITY.format(pod.priority, pod.name, priority, root_key)
            if pod.preemption_policy != policy:
                if policy_gate:
                    return POD_GROUP_POLICY.format(pod.preemption_policy, pod.name, policy, root_key)
                return POD_POLICY.format(pod.preemption_policy, pod.name, policy, first.name)
    return ""
