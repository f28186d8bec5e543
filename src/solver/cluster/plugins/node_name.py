"""NodeName: a pod whose spec.nodeName is set fits only the node of that name
(pkg/scheduler/framework/plugins/nodename)."""

from __future__ import annotations

from collections.abc import Hashable

from ....model.cluster import names
from ....model.cluster.facts import Pod
from ....model.cluster.points import FILTER
from ..framework import Code, CycleState, NodeInfo, Plugin, Status

ERR_REASON = "node(s) didn't match the requested node name"

# No preemption can rename a node, hence unresolvable.
_REJECTED = Status(Code.UNRESOLVABLE, (ERR_REASON,), names.NODE_NAME)


class NodeName(Plugin):
    name = names.NODE_NAME
    points = names.POINTS_OF[names.NODE_NAME]

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        if pod.node_name and pod.node_name != node.name:
            return _REJECTED
        return None

    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        return pod.node_name if point == FILTER else None
