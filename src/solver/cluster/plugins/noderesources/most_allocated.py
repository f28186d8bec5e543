"""MostAllocated: favour nodes already the most used, to pack them (most_allocated.go).

Each resource scores its used share on 0-100, capped at 100 since the non-zero defaults of pods without
requests can exceed what a node has; the node scores the weighted mean, truncated."""

from __future__ import annotations

from .....model.cluster.points import MAX_NODE_SCORE


def most_requested_score(requested: int, capacity: int) -> int:
    return min(requested, capacity) * MAX_NODE_SCORE // capacity


def most_allocated(
    requested: list[int], allocated: list[int], allocatable: list[int], weights: list[int]
) -> int:
    node_score = weight_sum = 0
    for i, capacity in enumerate(allocatable):
        node_score += most_requested_score(requested[i], capacity) * weights[i]
        weight_sum += weights[i]
    return node_score // weight_sum if weight_sum else 0
