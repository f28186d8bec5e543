"""SchedulingGates: a pod with scheduling gates stays out of the active queue until every gate is
removed (pkg/scheduler/framework/plugins/schedulinggates)."""

from __future__ import annotations

from ....model.cluster import names
from ....model.cluster.facts import Pod
from ..framework import Plugin, Status, unresolvable


class SchedulingGates(Plugin):
    name = names.SCHEDULING_GATES
    points = names.POINTS_OF[names.SCHEDULING_GATES]

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.scheduling_gates:
            return None
        # Worded as Go prints a []string with %v.
        return unresolvable(f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]")
