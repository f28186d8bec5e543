"""Soft spreading: PreScore counts matching pods per domain of the filtered nodes, Score sums each
constraint's weighted count for the node, NormalizeScore turns fewer pods into a higher score
(scoring.go)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .....model.cluster.facts import HOSTNAME, Pod, SpreadConstraint
from .....model.cluster.points import MAX_NODE_SCORE
from ...framework import NodeInfo, StateData
from .common import count_matching, has_all_keys, included


class PreScoreState(StateData):
    """Per soft constraint: matching pods per domain value (not kept for hostname constraints, whose
    domain is the node itself and is counted in Score) and the domain-count weight. `ignored` are the
    filtered nodes missing a required topology key: they score 0. Read-only, so clone is identity."""

    def __init__(
        self,
        constraints: tuple[SpreadConstraint, ...],
        ignored: frozenset[str],
        counts: list[dict[str, int]],
        weights: list[float],
    ) -> None:
        self.constraints = constraints
        self.ignored = ignored
        self.counts = counts
        self.weights = weights
        self.by_hostname = tuple(c.topology_key == HOSTNAME for c in constraints)


def topology_normalizing_weight(size: int) -> float:
    """log(size + 2): a count in a topology with many domains weighs more than one in a topology with
    few, so that summing constraints does not let the coarse topology drown the fine one."""
    return math.log(size + 2)


def build_state(
    pod: Pod,
    constraints: tuple[SpreadConstraint, ...],
    require_all_keys: bool,
    filtered: Sequence[NodeInfo],
    all_nodes: Sequence[NodeInfo],
) -> PreScoreState:
    """Domains are those of the filtered nodes (a node missing a key is in the "" domain when the keys are
    not all required); pods are counted on every node of the cluster that lies in one of those domains."""
    counts: list[dict[str, int]] = [{} for _ in constraints]
    ignored: set[str] = set()
    for info in filtered:
        labels = info.node.labels
        if require_all_keys and not has_all_keys(labels, constraints):
            ignored.add(info.name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key != HOSTNAME:
                counts[i].setdefault(labels.get(c.topology_key, ""), 0)
    weights = [
        topology_normalizing_weight(
            len(filtered) - len(ignored) if c.topology_key == HOSTNAME else len(counts[i])
        )
        for i, c in enumerate(constraints)
    ]
    namespace = pod.namespace
    for info in all_nodes:
        node = info.node
        labels = node.labels
        if require_all_keys and not has_all_keys(labels, constraints):
            continue
        for i, c in enumerate(constraints):
            domain = counts[i]
            value = labels.get(c.topology_key, "")
            if value not in domain or not included(c, pod, node):
                continue
            domain[value] += count_matching(info.pods, c.selector, namespace)
    return PreScoreState(constraints, frozenset(ignored), counts, weights)


def round_half_away(x: float) -> int:
    """Go's math.Round (Python's round() rounds half to even)."""
    whole = math.floor(x)
    return int(whole) + (1 if x - whole >= 0.5 else 0)


def score_node(state: PreScoreState, pod: Pod, info: NodeInfo) -> int:
    """Σ count × weight + (maxSkew - 1) over the constraints whose key the node has; the maxSkew term
    waters down differences between domains as maxSkew grows."""
    if info.name in state.ignored:
        return 0
    labels = info.node.labels
    total = 0.0
    for i, c in enumerate(state.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if state.by_hostname[i]:
            count = count_matching(info.pods, c.selector, pod.namespace)
        else:
            count = state.counts[i].get(value, 0)
        total += count * state.weights[i] + (c.max_skew - 1)
    return round_half_away(total)


def normalize(state: PreScoreState, scores: dict[str, int]) -> None:
    """Reverse scale: the node with the fewest matching pods gets 100, each other
    100 × (max + min - score) / max; ignored nodes get 0 and take no part in min and max."""
    ignored = state.ignored
    kept = [v for name, v in scores.items() if name not in ignored]
    lowest = min(kept, default=0)
    highest = max(kept, default=0)
    for name, value in scores.items():
        if name in ignored:
            scores[name] = 0
        elif highest == 0:
            scores[name] = MAX_NODE_SCORE
        else:
            scores[name] = MAX_NODE_SCORE * (highest + lowest - value) // highest
