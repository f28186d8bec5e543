"""NodeResourcesBalancedAllocation: favour nodes whose resource usage the pod makes more even
(balanced_allocation.go).

The score is 100 * (1 - the standard deviation of the node's used fractions with the pod on it),
truncated, in float64 arithmetic as upstream's. Pods that request none of the configured resources
are not scored (Skip), lest they pile up on one node.

Upstream has discussed scoring the change the pod brings instead (with against without it); the
released scheduler scores the node with the pod, and so does kubefit.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

from .....model.cluster import names
from .....model.cluster.args import NodeResourcesBalancedAllocationArgs
from .....model.cluster.facts import Pod
from .....model.cluster.points import MAX_NODE_SCORE, SCORE
from ...framework import SKIP, CycleState, Handle, NodeInfo, Plugin, Status
from .resource_allocation import ResourceAllocationScorer, ScoreState

PRE_SCORE_STATE_KEY = "PreScore" + names.BALANCED_ALLOCATION


def balance(requested: list[int], allocatable: list[int]) -> int:
    """100 * (1 - std) of the used fractions (each capped at 1); the two-resource case is |f1 - f2| / 2."""
    fractions = []
    total = 0.0
    for used, capacity in zip(requested, allocatable, strict=True):
        if capacity == 0:
            continue
        fraction = min(float(used) / float(capacity), 1.0)
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        squares = 0.0
        for fraction in fractions:
            squares = squares + (fraction - mean) * (fraction - mean)
        std = math.sqrt(squares / len(fractions))
    return int((1 - std) * float(MAX_NODE_SCORE))


def balanced_scorer(
    requested: list[int], allocated: list[int], allocatable: list[int], weights: list[int]
) -> int:
    return balance(requested, allocatable)


class BalancedAllocation(Plugin):
    name = names.BALANCED_ALLOCATION
    points = names.POINTS_OF[names.BALANCED_ALLOCATION]

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        if args is None:
            args = NodeResourcesBalancedAllocationArgs()
        if not isinstance(args, NodeResourcesBalancedAllocationArgs):
            raise TypeError(
                f"want args to be of type NodeResourcesBalancedAllocationArgs, got {type(args).__name__}"
            )
        self.scorer = ResourceAllocationScorer(args.resources, balanced_scorer, use_requested=True)

    def _state(self, pod: Pod) -> ScoreState | None:
        """The pod's entries, or None for a pod that requests none of the resources."""
        requests = self.scorer.pod_requests(pod)
        if not any(requests):
            return None
        return ScoreState(self.scorer.entries(requests))

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        s = self._state(pod)
        if s is None:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        s = state.read(PRE_SCORE_STATE_KEY)
        if not isinstance(s, ScoreState):
            # Without PreScore (upstream computes it here too); a best-effort pod scores 0.
            s = self._state(pod)
            if s is None:
                return 0
        return self.scorer.score(node, s.entries)

    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        if point != SCORE:
            return None
        s = state.read(PRE_SCORE_STATE_KEY)
        if not isinstance(s, ScoreState):
            s = self._state(pod)
        return s.entries if s is not None else "unscored"
