"""The PodTopologySpread plugin: PreFilter / Filter with the AddPod / RemovePod extensions for hard
constraints, PreScore / Score / NormalizeScore for soft ones (plugin.go)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .....model.cluster import names
from .....model.cluster.facts import Pod
from ...framework import SKIP, CycleState, Handle, NodeInfo, Plugin, Status, error
from . import filtering, scoring
from .common import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY, constraints_for, defaults_of

PRE_FILTER_STATE_KEY = "PreFilter" + names.POD_TOPOLOGY_SPREAD
PRE_SCORE_STATE_KEY = "PreScore" + names.POD_TOPOLOGY_SPREAD


def _missing(key: str) -> str:
    return f'reading "{key}" from cycleState: not found'


class PodTopologySpread(Plugin):
    name = names.POD_TOPOLOGY_SPREAD
    points = names.POINTS_OF[names.POD_TOPOLOGY_SPREAD]
    normalizes = True

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        self.defaults = defaults_of(args)

    # --- hard constraints -----------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        constraints = constraints_for(pod, DO_NOT_SCHEDULE, self.defaults)
        if not constraints:
            return None, SKIP
        # Every node of the snapshot, not just `nodes` (the candidates): domains and the global minimum are
        # the whole cluster's, as upstream's framework hands PreFilter the full node list.
        all_nodes = self.handle.snapshot.nodes
        state.write(PRE_FILTER_STATE_KEY, filtering.build_state(pod, constraints, all_nodes))
        return None, None

    def add_pod(self, state: CycleState, pod: Pod, added: Pod, node: NodeInfo) -> Status | None:
        return self._update(state, pod, added, node, 1)

    def remove_pod(self, state: CycleState, pod: Pod, removed: Pod, node: NodeInfo) -> Status | None:
        return self._update(state, pod, removed, node, -1)

    def _update(self, state: CycleState, pod: Pod, changed: Pod, node: NodeInfo, delta: int) -> Status | None:
        s = state.read(PRE_FILTER_STATE_KEY)
        if not isinstance(s, filtering.PreFilterState):
            return error(_missing(PRE_FILTER_STATE_KEY))
        filtering.update_with_pod(s, changed, pod, node.node, delta)
        return None

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        s = state.read(PRE_FILTER_STATE_KEY)
        if not isinstance(s, filtering.PreFilterState):
            return error(_missing(PRE_FILTER_STATE_KEY))
        return filtering.filter_node(s, node.node)

    # --- soft constraints -----------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        all_nodes = self.handle.snapshot.nodes
        if not all_nodes:
            return SKIP
        constraints = constraints_for(pod, SCHEDULE_ANYWAY, self.defaults)
        if not constraints:
            return SKIP
        # Only the system defaults let a node without a zone label still spread by hostname.
        require_all_keys = bool(pod.spread_constraints) or not self.defaults.system
        s = scoring.build_state(pod, constraints, require_all_keys, nodes, all_nodes)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        return scoring.score_node(self._pre_score_state(state), pod, node)

    def normalize(self, state: CycleState, pod: Pod, scores: dict[str, int]) -> Status | None:
        scoring.normalize(self._pre_score_state(state), scores)
        return None

    @staticmethod
    def _pre_score_state(state: CycleState) -> scoring.PreScoreState:
        s = state.read(PRE_SCORE_STATE_KEY)
        if not isinstance(s, scoring.PreScoreState):
            raise LookupError(_missing(PRE_SCORE_STATE_KEY))
        return s
