"""TaintToleration: a node's NoSchedule / NoExecute taints keep off pods that do not tolerate them;
nodes score lower the more PreferNoSchedule taints the pod does not tolerate
(pkg/scheduler/framework/plugins/tainttoleration)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from ....model.cluster import names
from ....model.cluster.facts import Pod
from ....model.cluster.points import FILTER, SCORE
from ....model.terms import Taint, Toleration
from ..framework import Code, CycleState, NodeInfo, Plugin, StateData, Status, default_normalize

ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"
PRE_SCORE_STATE_KEY = "PreScore" + names.TAINT_TOLERATION

_DO_NOT_SCHEDULE = frozenset({"NoSchedule", "NoExecute"})
_PREFER_NO_SCHEDULE = "PreferNoSchedule"

# Preemption cannot remove a taint, hence unresolvable.
_REJECTED = Status(Code.UNRESOLVABLE, (ERR_REASON_UNTOLERATED,), names.TAINT_TOLERATION)


def tolerated(tolerations: Sequence[Toleration], taint: Taint) -> bool:
    return any(toleration.tolerates(taint) for toleration in tolerations)


class PreScoreState(StateData):
    """The pod's tolerations that can tolerate a PreferNoSchedule taint (an empty effect means any)."""

    __slots__ = ("tolerations",)

    def __init__(self, tolerations: tuple[Toleration, ...]) -> None:
        self.tolerations = tolerations


class TaintToleration(Plugin):
    name = names.TAINT_TOLERATION
    points = names.POINTS_OF[names.TAINT_TOLERATION]
    normalizes = True

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        for taint in node.node.taints:
            if taint.effect in _DO_NOT_SCHEDULE and not tolerated(pod.tolerations, taint):
                return _REJECTED
        return None

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        relevant = tuple(t for t in pod.tolerations if not t.effect or t.effect == _PREFER_NO_SCHEDULE)
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(relevant))
        return None

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        s = state.read(PRE_SCORE_STATE_KEY)
        if not isinstance(s, PreScoreState):
            # Upstream's Score fails the same way when PreScore did not run.
            raise LookupError(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        count = 0
        for taint in node.node.taints:
            if taint.effect == _PREFER_NO_SCHEDULE and not tolerated(s.tolerations, taint):
                count += 1
        return count

    def normalize(self, state: CycleState, pod: Pod, scores: dict[str, int]) -> Status | None:
        # Fewer intolerable taints is better: the node with none gets the highest score.
        default_normalize(scores, reverse=True)
        return None

    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        if point == FILTER:
            return pod.tolerations
        s = state.read(PRE_SCORE_STATE_KEY)
        return s.tolerations if point == SCORE and isinstance(s, PreScoreState) else None
