"""PodEligibleToPreemptOthers: whether the pod may preempt at all in this cycle.

Not with preemptionPolicy Never; nor while lower-priority victims of its earlier preemption are
still terminating on the node it is nominated to, unless the filters found that node
UnschedulableAndUnresolvable (preempting there again cannot be what it waits for).
"""

from __future__ import annotations

from ....model.cluster.facts import Pod
from ..framework import Code, Snapshot
from .victims import may_preempt

PREEMPT_NEVER = "Never"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

NEVER = "not eligible due to preemptionPolicy=Never."
TERMINATING_VICTIM = "not eligible due to a terminating pod on the nominated node."


def terminating_by_preemption(pod: Pod) -> bool:
    return pod.terminating and pod.disruption_target == PREEMPTION_BY_SCHEDULER


def ineligibility(pod: Pod, snapshot: Snapshot, nominated_node_code: Code) -> str:
    """Why the pod may not preempt ("" when it may). `nominated_node_code` is the code the cycle gave
    the pod's nominated node (UnschedulableAndUnresolvable for a node it did not evaluate)."""
    if pod.preemption_policy == PREEMPT_NEVER:
        return NEVER
    if not pod.nominated_node or nominated_node_code == Code.UNRESOLVABLE:
        return ""
    node = snapshot.get(pod.nominated_node)
    if node is not None:
        for other in node.pods:
            if may_preempt(other, pod) and terminating_by_preemption(other):
                return TERMINATING_VICTIM
    return ""
