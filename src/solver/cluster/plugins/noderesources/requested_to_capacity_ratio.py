"""RequestedToCapacityRatio: score each resource's utilization by a user-given broken-linear shape
(requested_to_capacity_ratio.go, helper/shape_score.go).

Shape points give scores on 0-10 (MaxCustomPriorityScore), scaled by 10 to the node score range.
Resources scoring 0 do not count in the weighted mean, which is rounded half away from zero."""

from __future__ import annotations

from collections.abc import Sequence

from .....model.cluster.args import ShapePoint
from .....model.cluster.points import MAX_NODE_SCORE
from .resource_allocation import Scorer, go_div

MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10


def broken_linear(shape: Sequence[tuple[int, int]], p: int) -> int:
    """helper.BuildBrokenLinearFunction: the score at utilization `p` of the (utilization, score) points,
    flat before the first and after the last, linear in between with Go's truncating division."""
    for i, (utilization, score) in enumerate(shape):
        if p <= utilization:
            if i == 0:
                return score
            prev_utilization, prev_score = shape[i - 1]
            return prev_score + go_div(
                (score - prev_score) * (p - prev_utilization), utilization - prev_utilization
            )
    return shape[-1][1]


def requested_to_capacity_ratio(shape: Sequence[ShapePoint]) -> Scorer:
    points = tuple(
        (point.utilization, point.score * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for point in shape
    )
    full = broken_linear(points, MAX_UTILIZATION)

    def resource_score(requested: int, capacity: int) -> int:
        if requested > capacity:
            return full
        # Exact integer utilization, as upstream computes it without overflow.
        return broken_linear(points, max(requested, 0) * MAX_UTILIZATION // capacity)

    def scorer(requested: list[int], allocated: list[int], allocatable: list[int], weights: list[int]) -> int:
        node_score = weight_sum = 0
        for i, capacity in enumerate(allocatable):
            score = resource_score(requested[i], capacity)
            if score > 0:
                node_score += score * weights[i]
                weight_sum += weights[i]
        if weight_sum == 0:
            return 0
        # math.Round of a non-negative quotient of small integers: half rounds up.
        return (2 * node_score + weight_sum) // (2 * weight_sum)

    return scorer
