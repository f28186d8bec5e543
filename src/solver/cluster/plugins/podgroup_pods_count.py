"""PodGroupPodsCount (pkg/scheduler/framework/plugins/podgrouppodscount): a placement scores the group's
pods it would hold, those already on nodes included (of every PodGroup below a CompositePodGroup),
normalized against the best placement (0-100)."""

from __future__ import annotations

from collections.abc import Sequence

from ....model.cluster import names
from ....model.cluster.points import MAX_NODE_SCORE, MIN_NODE_SCORE
from ..framework import Plugin, Status, error
from ..podgroup.info import GroupInfo, Placement, Proposed


class PodGroupPodsCount(Plugin):
    name = names.POD_GROUP_PODS_COUNT
    points = names.POINTS_OF[names.POD_GROUP_PODS_COUNT]

    def score_placement(self, group: GroupInfo, placement: Placement, proposed: Sequence[Proposed]) -> int:
        return len(group.scheduled_pods()) + len(proposed)

    def normalize_placement_scores(self, group: GroupInfo, scores: list[int]) -> Status | None:
        best = max(scores, default=0)
        if best == 0:
            return error("no pods from pod group are assigned to any of the candidate placements")
        for i, score in enumerate(scores):
            scores[i] = MIN_NODE_SCORE + score * (MAX_NODE_SCORE - MIN_NODE_SCORE) // best
        return None
