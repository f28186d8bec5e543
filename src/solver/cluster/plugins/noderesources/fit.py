"""NodeResourcesFit (fit.go, helper/resource_fit.go): Filter rejects a node without room for the pod's
requests; Score rates the node by the configured strategy.

Filter reasons come in upstream's order: "Too many pods", then cpu, memory, ephemeral-storage, then
scalar resources (by name, where upstream's map order is random). A request larger than the node's
whole allocatable amount cannot be helped by preemption (UnschedulableAndUnresolvable). Requests of 0
are not checked, nor extended resources the configuration ignores (by name, or by the domain before
"/"). Extended resources backed by DRA device classes never reach here: translation leaves them to
DynamicResources.

A node that publishes no allocatable resources at all is not checked for the resources every node
has (pod slots, cpu, memory, ephemeral-storage, hugepages), as kubefit's node-level fit does not check
them either (inputs often leave node status out): upstream would count every amount as 0 and reject
every pod. Extended resources are still checked there, as 0: nothing on such a node provides them.
A node that publishes some is checked as upstream does, what it leaves out counting as 0.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from .....model.cluster import names
from .....model.cluster.args import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
    ScoringStrategy,
)
from .....model.cluster.facts import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Pod
from .....model.cluster.points import FILTER, SCORE
from ...framework import Code, CycleState, Handle, NodeInfo, Plugin, StateData, Status, error
from ...podgroup.info import GroupInfo, Placement, Proposed
from .least_allocated import least_allocated
from .most_allocated import most_allocated
from .placement_score import placement_score
from .requested_to_capacity_ratio import requested_to_capacity_ratio
from .resource_allocation import ResourceAllocationScorer, Scorer, ScoreState
from .resource_names import is_extended, is_scalar

PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_RESOURCES_FIT
PRE_SCORE_STATE_KEY = "PreScore" + names.NODE_RESOURCES_FIT

TOO_MANY_PODS = "Too many pods"


def insufficient(resource: str) -> str:
    return f"Insufficient {resource}"


_CORE = tuple((resource, insufficient(resource)) for resource in (CPU, MEMORY, EPHEMERAL_STORAGE))


@dataclass(frozen=True)
class PreFilterState(StateData):
    """The pod's requests as Filter checks them, in the order of its reasons: (resource, amount, reason)
    for cpu, memory and ephemeral-storage when requested, then the scalar resources it requests and
    does not ignore."""

    checks: tuple[tuple[str, int, str], ...]


def scorer_for(strategy: ScoringStrategy) -> Scorer:
    if strategy.type == LEAST_ALLOCATED:
        return least_allocated
    if strategy.type == MOST_ALLOCATED:
        return most_allocated
    if strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        return requested_to_capacity_ratio(strategy.shape)
    raise ValueError(f"scoring strategy {strategy.type} is not supported")


def _missing(key: str) -> str:
    return f'error reading "{key}" from cycleState: not found'


class Fit(Plugin):
    name = names.NODE_RESOURCES_FIT
    points = names.POINTS_OF[names.NODE_RESOURCES_FIT]

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        if args is None:
            args = NodeResourcesFitArgs()
        if not isinstance(args, NodeResourcesFitArgs):
            raise TypeError(f"want args to be of type NodeResourcesFitArgs, got {type(args).__name__}")
        self.ignored_resources = args.ignored_resources
        self.ignored_groups = args.ignored_resource_groups
        strategy = args.scoring_strategy
        self.scorer = ResourceAllocationScorer(strategy.resources, scorer_for(strategy), use_requested=False)

    # --- Filter ---------------------------------------------------------------------------------------

    def _ignored(self, name: str) -> bool:
        if not is_extended(name):
            return False
        return name in self.ignored_resources or name.split("/", 1)[0] in self.ignored_groups

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        requests = pod.requests
        checks = [
            (resource, requests[resource], reason)
            for resource, reason in _CORE
            if requests.get(resource, 0) > 0
        ]
        checks += (
            (name, amount, insufficient(name))
            for name, amount in sorted(requests.items())
            if amount != 0 and is_scalar(name) and not self._ignored(name)
        )
        s = PreFilterState(tuple(checks))
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        s = state.read(PRE_FILTER_STATE_KEY)
        if not isinstance(s, PreFilterState):
            return error(_missing(PRE_FILTER_STATE_KEY))
        allocatable = node.node.allocatable
        if not allocatable:
            missing = tuple(reason for name, amount, reason in s.checks if is_extended(name))
            return Status(Code.UNRESOLVABLE, missing) if missing else None
        reasons: list[str] = []
        unresolvable = False
        if len(node.pods) + 1 > allocatable.get(PODS, 0):
            reasons.append(TOO_MANY_PODS)
        if not s.checks:
            return Status(Code.UNSCHEDULABLE, tuple(reasons)) if reasons else None
        used = node.requested
        for resource, amount, reason in s.checks:
            capacity = allocatable.get(resource, 0)
            if amount > capacity - used.get(resource, 0):
                reasons.append(reason)
                unresolvable = unresolvable or amount > capacity
        if not reasons:
            return None
        return Status(Code.UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE, tuple(reasons))

    # --- Score ----------------------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, self.scorer.state_for(pod))
        return None

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        s = state.read(PRE_SCORE_STATE_KEY)
        if not isinstance(s, ScoreState):
            # Upstream computes the requests here when PreScore did not run.
            s = self.scorer.state_for(pod)
        return self.scorer.score(node, s.entries)

    # --- PlacementScore -------------------------------------------------------------------------------

    def score_placement(self, group: GroupInfo, placement: Placement, proposed: Sequence[Proposed]) -> int:
        return placement_score(self.scorer, placement, proposed)

    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        if point == FILTER:
            s = state.read(PRE_FILTER_STATE_KEY)
            return s.checks if isinstance(s, PreFilterState) else None
        if point == SCORE:
            scored = state.read(PRE_SCORE_STATE_KEY)
            return (scored if isinstance(scored, ScoreState) else self.scorer.state_for(pod)).entries
        return None
