"""The InterPodAffinity plugin (pkg/scheduler/framework/plugins/interpodaffinity).

Existing pods count whether or not they are terminating, as upstream counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from .....model.cluster.args import InterPodAffinityArgs
from .....model.cluster.facts import Pod
from .....model.cluster.points import FILTER, PRE_FILTER, PRE_SCORE, SCORE
from ...framework import SKIP, CycleState, Handle, NodeInfo, Plugin, Status, error
from ...runtime import FrameworkError
from . import filtering, scoring


def _missing(key: str) -> Status:
    return error(f'error reading "{key}" from cycleState: not found')


class InterPodAffinity(Plugin):
    name: ClassVar[str] = filtering.NAME
    points: ClassVar[frozenset[str]] = frozenset({PRE_FILTER, FILTER, PRE_SCORE, SCORE})
    normalizes: ClassVar[bool] = True

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        config = args if isinstance(args, InterPodAffinityArgs) else InterPodAffinityArgs()
        self.hard_pod_affinity_weight = config.hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = config.ignore_preferred_terms_of_existing_pods

    # --- PreFilter / Filter ---------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        # Every node of the snapshot, not just `nodes` (the candidates): pods anywhere make a domain match.
        snapshot = self.handle.snapshot
        computed = filtering.pre_filter_state(
            pod, snapshot.nodes, snapshot.with_required_anti_affinity(), self.handle.namespaces
        )
        if not computed.existing_anti_affinity and not (pod.required_affinity or pod.required_anti_affinity):
            return None, SKIP
        state.write(filtering.PRE_FILTER_KEY, computed)
        return None, None

    def _pre_filter_state(self, state: CycleState) -> filtering.PreFilterState | None:
        found = state.read(filtering.PRE_FILTER_KEY)
        return found if isinstance(found, filtering.PreFilterState) else None

    def add_pod(self, state: CycleState, pod: Pod, added: Pod, node: NodeInfo) -> Status | None:
        computed = self._pre_filter_state(state)
        if computed is None:
            return _missing(filtering.PRE_FILTER_KEY)
        computed.update_with_pod(added, node, 1)
        return None

    def remove_pod(self, state: CycleState, pod: Pod, removed: Pod, node: NodeInfo) -> Status | None:
        computed = self._pre_filter_state(state)
        if computed is None:
            return _missing(filtering.PRE_FILTER_KEY)
        computed.update_with_pod(removed, node, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        computed = self._pre_filter_state(state)
        if computed is None:
            return _missing(filtering.PRE_FILTER_KEY)
        return filtering.filter_node(computed, node.node.labels)

    # --- PreScore / Score / NormalizeScore ------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if self.ignore_preferred_terms_of_existing_pods and not (
            pod.preferred_affinity or pod.preferred_anti_affinity
        ):
            return SKIP
        topology = scoring.topology_scores(
            pod, self.handle.snapshot, self.hard_pod_affinity_weight, self.handle.namespaces
        )
        if not topology:
            return SKIP
        state.write(scoring.PRE_SCORE_KEY, scoring.PreScoreState(topology))
        return None

    def _pre_score_state(self, state: CycleState) -> scoring.PreScoreState | None:
        found = state.read(scoring.PRE_SCORE_KEY)
        return found if isinstance(found, scoring.PreScoreState) else None

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        computed = self._pre_score_state(state)
        if computed is None:
            # Score returns no status: a missing state stops the cycle as upstream's error status would.
            raise FrameworkError(_missing(scoring.PRE_SCORE_KEY).with_plugin(self.name))
        return scoring.score_node(computed.topology, node.node.labels)

    def normalize(self, state: CycleState, pod: Pod, scores: dict[str, int]) -> Status | None:
        computed = self._pre_score_state(state)
        if computed is None:
            return _missing(scoring.PRE_SCORE_KEY)
        scoring.normalize(scores)
        return None
