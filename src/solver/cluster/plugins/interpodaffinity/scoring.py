"""InterPodAffinity's preferred half: PreScore sums weights per topology pair, Score reads them, and
NormalizeScore scales them min-max to [0, 100].

For every existing pod, on the pair its node has for a term's topology key:
+weight for each of the incoming pod's preferred affinity terms it matches, -weight for each of
its preferred anti-affinity terms; +hardPodAffinityWeight for each of the existing pod's required
affinity terms the incoming pod matches, and +/-weight for the existing pod's preferred affinity /
anti-affinity terms the incoming pod matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .....model.cluster.facts import AffinityTerm, Pod, WeightedAffinityTerm
from .....model.cluster.points import MAX_NODE_SCORE
from ...framework import NodeInfo, Snapshot, StateData

PRE_SCORE_KEY = "PreScoreInterPodAffinity"

Namespaces = Mapping[str, Mapping[str, str]]
ScoreMap = dict[str, dict[str, int]]  # topology key -> value -> summed weight


class PreScoreState(StateData):
    """Read-only once built, so clones share it."""

    __slots__ = ("topology",)

    def __init__(self, topology: ScoreMap) -> None:
        self.topology = topology


def _add(scores: ScoreMap, labels: Mapping[str, str], term: AffinityTerm, weight: int) -> None:
    value = labels.get(term.topology_key)
    if value is not None:
        values = scores.setdefault(term.topology_key, {})
        values[value] = values.get(value, 0) + weight


def _weighted(
    scores: ScoreMap,
    labels: Mapping[str, str],
    terms: Sequence[WeightedAffinityTerm],
    target: Pod,
    namespaces: Namespaces,
    sign: int,
) -> None:
    for wt in terms:
        if wt.term.matches(target.namespace, target.labels, namespaces):
            _add(scores, labels, wt.term, sign * wt.weight)


def topology_scores(pod: Pod, snapshot: Snapshot, hard_weight: int, namespaces: Namespaces) -> ScoreMap:
    """The weights per topology pair. An entry exists once a term matched on a node with its key, even
    when the weights cancel out (PreScore skips only when nothing matched at all)."""
    has_preferences = bool(pod.preferred_affinity or pod.preferred_anti_affinity)
    scores: ScoreMap = {}
    nodes: Iterable[NodeInfo] = snapshot.nodes if has_preferences else snapshot.with_affinity()
    for node in nodes:
        labels = node.node.labels
        if not labels:
            continue
        # Pods without any pod (anti-)affinity only matter to the incoming pod's own preferences.
        for other in node.pods if has_preferences else node.affinity_pods:
            _weighted(scores, labels, pod.preferred_affinity, other, namespaces, 1)
            _weighted(scores, labels, pod.preferred_anti_affinity, other, namespaces, -1)
            if hard_weight > 0:
                for term in other.required_affinity:
                    if term.matches(pod.namespace, pod.labels, namespaces):
                        _add(scores, labels, term, hard_weight)
            _weighted(scores, labels, other.preferred_affinity, pod, namespaces, 1)
            _weighted(scores, labels, other.preferred_anti_affinity, pod, namespaces, -1)
    return scores


def score_node(topology: ScoreMap, labels: Mapping[str, str]) -> int:
    total = 0
    for key, values in topology.items():
        value = labels.get(key)
        if value is not None:
            total += values.get(value, 0)
    return total


def normalize(scores: dict[str, int]) -> None:
    """Min-max scaling to [0, MaxNodeScore], all zero when every node scored the same.

    Upstream computes MaxNodeScore * ((score - min) / (max - min)) in float64 and truncates; Python
    floats are the same IEEE doubles, so doing exactly that reproduces its results bit for bit
    (integer arithmetic would not: 29 of 100 is 28 there).
    """
    if not scores:
        return
    low = min(scores.values())
    spread = max(scores.values()) - low
    for name, value in scores.items():
        scores[name] = int(float(MAX_NODE_SCORE) * (float(value - low) / float(spread))) if spread > 0 else 0
