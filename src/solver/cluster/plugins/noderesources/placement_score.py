"""NodeResourcesFit's placement score (kubernetes/kubernetes#136652): how full a placement's nodes would be
with the group's proposed pods, summed over the placement, scored MostAllocated whatever the plugin's
own strategy, with the strategy's resource weights (so the same args shape both scores)."""

from __future__ import annotations

from collections.abc import Sequence

from ...podgroup.info import Placement, Proposed
from .most_allocated import most_allocated
from .resource_allocation import ResourceAllocationScorer


def placement_score(
    scorer: ResourceAllocationScorer, placement: Placement, proposed: Sequence[Proposed]
) -> int:
    requests = [0] * len(scorer.resources)
    for p in proposed:
        for i, amount in enumerate(scorer.pod_requests(p.pod)):
            requests[i] += amount
    requested: list[int] = []
    allocated: list[int] = []
    allocatable: list[int] = []
    weights: list[int] = []
    for entry in scorer.entries(requests):
        total = used = 0
        for node in placement.nodes:
            capacity = node.node.allocatable.get(entry.name, 0)
            if capacity == 0:
                continue
            total += capacity
            used += (node.score_requested if entry.non_zero else node.requested).get(entry.name, 0)
        if total == 0:
            continue
        requested.append(used + entry.request)
        allocated.append(used)
        allocatable.append(total)
        weights.append(entry.weight)
    return most_allocated(requested, allocated, allocatable, weights)
