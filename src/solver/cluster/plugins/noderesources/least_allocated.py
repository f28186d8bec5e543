"""LeastAllocated: favour nodes with the most room left (least_allocated.go).

Each resource scores its unused share on 0-100 (0 once over-requested); the node scores the weighted
mean, in integer arithmetic truncated as upstream's int64 arithmetic is."""

from __future__ import annotations

from .....model.cluster.points import MAX_NODE_SCORE


def least_requested_score(requested: int, capacity: int) -> int:
    if requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def least_allocated(
    requested: list[int], allocated: list[int], allocatable: list[int], weights: list[int]
) -> int:
    node_score = weight_sum = 0
    for i, capacity in enumerate(allocatable):
        node_score += least_requested_score(requested[i], capacity) * weights[i]
        weight_sum += weights[i]
    return node_score // weight_sum if weight_sum else 0
