"""The scoring both plugins share (resource_allocation.go): for each configured resource the node has,
what the node would have requested with the pod, what it has requested without it, and its allocatable
amount; a strategy turns those into the node's score.

NodeResourcesFit counts cpu and memory with the non-zero defaults of containers that request none
(NonZeroRequested, the pod's `score_requests`); BalancedAllocation counts what is really requested.
Other resources always count what is requested. A scalar resource the pod does not request is left
out, and so is any resource the node has none of.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .....model.cluster.args import ResourceSpec
from .....model.cluster.facts import CPU, EPHEMERAL_STORAGE, MEMORY, Pod
from ...framework import NodeInfo, StateData
from .resource_names import is_scalar

# (requested with the pod, requested without it, allocatable, weights) of the resources scored on a
# node -> the node's score.
Scorer = Callable[[list[int], list[int], list[int], list[int]], int]

_NON_ZERO = frozenset({CPU, MEMORY})


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's int64 division does."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@dataclass(frozen=True, slots=True)
class Entry:
    """A configured resource the pod may be scored on, with the pod's request for it."""

    name: str
    weight: int
    request: int
    non_zero: bool  # the node's usage of it counts the non-zero defaults


@dataclass(frozen=True)
class ScoreState(StateData):
    """What PreScore computes once per pod: the entries every node is scored on."""

    entries: tuple[Entry, ...]


class ResourceAllocationScorer:
    def __init__(self, resources: Sequence[ResourceSpec], scorer: Scorer, use_requested: bool) -> None:
        self.resources = tuple(resources)
        self.scorer = scorer
        self.use_requested = use_requested

    def pod_requests(self, pod: Pod) -> tuple[int, ...]:
        """The pod's request for each configured resource, in their order."""
        amounts = pod.requests if self.use_requested else pod.score_requests
        return tuple(amounts.get(spec.name, 0) for spec in self.resources)

    def entries(self, requests: Sequence[int]) -> tuple[Entry, ...]:
        out = []
        for spec, request in zip(self.resources, requests, strict=True):
            name = spec.name
            if name in _NON_ZERO or name == EPHEMERAL_STORAGE:
                out.append(Entry(name, spec.weight, request, not self.use_requested and name in _NON_ZERO))
            # A scalar resource the pod does not request is bypassed; other names (pods, storage)
            # are never among a node's allocatable resources as the scheduler counts them.
            elif is_scalar(name) and request != 0:
                out.append(Entry(name, spec.weight, request, False))
        return tuple(out)

    def state_for(self, pod: Pod) -> ScoreState:
        return ScoreState(self.entries(self.pod_requests(pod)))

    def score(self, node: NodeInfo, entries: tuple[Entry, ...]) -> int:
        allocatable_of = node.node.allocatable
        used_of = node.requested
        non_zero_of = node.score_requested
        requested: list[int] = []
        allocated: list[int] = []
        allocatable: list[int] = []
        weights: list[int] = []
        for entry in entries:
            capacity = allocatable_of.get(entry.name, 0)
            if capacity == 0:
                continue
            used = (non_zero_of if entry.non_zero else used_of).get(entry.name, 0)
            requested.append(used + entry.request)
            allocated.append(used)
            allocatable.append(capacity)
            weights.append(entry.weight)
        return self.scorer(requested, allocated, allocatable, weights)
