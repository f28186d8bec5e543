"""NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate the
node.kubernetes.io/unschedulable:NoSchedule taint (pkg/scheduler/framework/plugins/nodeunschedulable)."""

from __future__ import annotations

from collections.abc import Hashable

from ....model.cluster import names
from ....model.cluster.facts import Pod
from ....model.cluster.points import FILTER
from ....model.terms import Taint
from ..framework import Code, CycleState, NodeInfo, Plugin, Status

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"

# The taint a cordoned node is treated as having, whether or not the node controller has added it yet.
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")

# Preemption cannot uncordon a node, hence unresolvable.
_REJECTED = Status(Code.UNRESOLVABLE, (ERR_REASON_UNSCHEDULABLE,), names.NODE_UNSCHEDULABLE)


class NodeUnschedulable(Plugin):
    name = names.NODE_UNSCHEDULABLE
    points = names.POINTS_OF[names.NODE_UNSCHEDULABLE]

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        if not node.node.unschedulable:
            return None
        for toleration in pod.tolerations:
            if toleration.tolerates(UNSCHEDULABLE_TAINT):
                return None
        return _REJECTED

    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        return pod.tolerations if point == FILTER else None
