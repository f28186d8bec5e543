"""GangScheduling (pkg/scheduler/framework/plugins/gangscheduling): a gang's pods stay out of the queue
until `minCount` of them exist (PreEnqueue; for a CompositePodGroup tree, until the root has
`minGroupCount` ready children, recursively), and in the PodGroup cycle it says whether a placement can
still reach the minimum as its pods are tried (PlacementFeasible: Wait, Unschedulable or Success).
"""

from __future__ import annotations

from typing import Any

from ....model.cluster import names
from ....model.cluster.facts import Pod
from ....model.cluster.podgroup import COMPOSITE_GATE, GroupFact, Groups
from ..framework import Code, Handle, Plugin, Status, unresolvable

WAITING_FOR_GANG = "waiting for minCount pods from a gang to appear in scheduling queue"


class GangScheduling(Plugin):
    name = names.GANG_SCHEDULING
    points = names.POINTS_OF[names.GANG_SCHEDULING]

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        self._counts: dict[str, int] | None = None

    def _groups(self) -> Groups | None:
        return self.handle.cluster.groups

    def _all_pods(self) -> dict[str, int]:
        """AllPodsCount per PodGroup: the pods kube-scheduler knows of it, bound and pending."""
        if self._counts is None:
            counts: dict[str, int] = {}
            cluster = self.handle.cluster
            for pod in (*cluster.bound, *cluster.pending.values()):
                if pod.pod_group:
                    key = f"{pod.namespace}/{pod.pod_group}"
                    counts[key] = counts.get(key, 0) + 1
            self._counts = counts
        return self._counts

    # --- PreEnqueue ---------------------------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        groups = self._groups()
        if not pod.pod_group or groups is None:
            return None
        group = groups.pod_groups.get(f"{pod.namespace}/{pod.pod_group}")
        if group is None:
            return unresolvable(
                f'waiting for pod\'s pod group "{pod.pod_group}" to appear in scheduling queue'
            )
        if not groups.on(COMPOSITE_GATE) or not group.parent:
            if not group.gang or self.ready(group):
                return None
            return unresolvable(WAITING_FOR_GANG)
        if groups.parent_of(group) is None:
            return unresolvable(f'waiting for composite pod group "{group.parent}" tree to meet quorum')
        root = groups.root_of(group)
        if self.ready(root):
            return None
        return unresolvable(f'waiting for composite pod group "{root.name}" tree to meet quorum')

    def ready(self, group: GroupFact) -> bool:
        """The hierarchy tracker's readiness: a PodGroup has at least its minimum of pods (1 for the basic
        policy); a CompositePodGroup at least its minimum of ready children (1 for basic)."""
        groups = self._groups()
        assert groups is not None
        if group.kind == "PodGroup":
            return self._all_pods().get(group.key, 0) >= group.min_count
        ready = sum(1 for child in groups.children_of(group) if self.ready(child))
        return ready >= group.min_count

    # --- PlacementFeasible ----------------------------------------------------------------------------

    def placement_feasible(self, group: GroupFact, scheduled: int, remaining: int) -> Status | None:
        minimum = group.min_count
        if remaining + scheduled < minimum:
            return Status(
                Code.UNSCHEDULABLE,
                (f"minCount ({minimum}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining",),
            )
        if scheduled < minimum:
            return Status(
                Code.WAIT,
                (f"minCount ({minimum}) is not yet satisfied: {scheduled} scheduled, {remaining} remaining",),
            )
        return None
