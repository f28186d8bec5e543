"""InterPodAffinity's required half: PreFilter counts, the Filter checks and the PreFilter extensions.

PreFilter walks the cluster once and counts, per topology pair (label key, value of the node a
pod runs on), the existing pods that matter to the incoming pod: those whose required
anti-affinity selects it, those that match all of its affinity terms (one count per term) and
those its anti-affinity terms select. Filter then only looks the node's labels up in these
counts. This is upstream's default path: its alpha InterPodAffinityHostnameFastPath gate (off by
default) checks kubernetes.io/hostname terms against the node's own pods instead, which decides
differently only in corner cases (nodes sharing a hostname value, matching pods on unlabelled nodes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .....model.cluster.facts import AffinityTerm, Pod
from ...framework import NodeInfo, StateData, Status, unresolvable, unschedulable

NAME = "InterPodAffinity"
PRE_FILTER_KEY = "PreFilter" + NAME

REASON_AFFINITY = "node(s) didn't match pod affinity rules"
REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

# Preemption cannot bring a missing affinity partner, but it can evict a pod that repels.
AFFINITY_REJECTED = unresolvable(REASON_AFFINITY)
ANTI_AFFINITY_REJECTED = unschedulable(REASON_ANTI_AFFINITY)
EXISTING_ANTI_AFFINITY_REJECTED = unschedulable(REASON_EXISTING_ANTI_AFFINITY)

Namespaces = Mapping[str, Mapping[str, str]]

_NONE: dict[str, int] = {}


class TopologyCounts:
    """Matched-pod counts per topology pair, grouped by key (topologyToMatchedTermCount).

    A pair whose count returns to zero is dropped, so emptiness means "no pair counted".
    """

    __slots__ = ("by_key",)

    def __init__(self, by_key: dict[str, dict[str, int]] | None = None) -> None:
        self.by_key: dict[str, dict[str, int]] = by_key if by_key is not None else {}

    def __bool__(self) -> bool:
        return bool(self.by_key)

    def update(self, labels: Mapping[str, str], key: str, delta: int) -> None:
        """Adds `delta` to the pair the node with `labels` has for `key` (nothing when it lacks the key)."""
        value = labels.get(key)
        if value is None:
            return
        values = self.by_key.setdefault(key, {})
        count = values.get(value, 0) + delta
        if count:
            values[value] = count
            return
        values.pop(value, None)
        if not values:
            del self.by_key[key]

    def count(self, key: str, value: str) -> int:
        return self.by_key.get(key, _NONE).get(value, 0)

    def pairs(self) -> dict[tuple[str, str], int]:
        return {(k, v): n for k, values in self.by_key.items() for v, n in values.items()}

    def clone(self) -> TopologyCounts:
        return TopologyCounts({k: dict(v) for k, v in self.by_key.items()})


def matches_all(terms: Sequence[AffinityTerm], pod: Pod, namespaces: Namespaces) -> bool:
    """The pod matches every term (never true for no terms): one pod must satisfy all affinity terms."""
    if not terms:
        return False
    return all(t.matches(pod.namespace, pod.labels, namespaces) for t in terms)


class PreFilterState(StateData):
    """What Filter and the PreFilter extensions need; the counts are copied when the state is cloned."""

    __slots__ = (
        "affinity",
        "affinity_keys",
        "anti_affinity",
        "anti_affinity_keys",
        "existing_anti_affinity",
        "namespaces",
        "pod",
        "self_match",
    )

    def __init__(self, pod: Pod, namespaces: Namespaces) -> None:
        self.pod = pod
        self.namespaces = namespaces
        self.existing_anti_affinity = TopologyCounts()  # existing pods' required anti-affinity vs the pod
        self.affinity = TopologyCounts()  # pods matching all the pod's affinity terms
        self.anti_affinity = TopologyCounts()  # pods the pod's anti-affinity terms select
        self.affinity_keys = tuple(t.topology_key for t in pod.required_affinity)
        self.anti_affinity_keys = tuple(dict.fromkeys(t.topology_key for t in pod.required_anti_affinity))
        # Whether the pod may be the first of a group that wants to be together (it matches its own terms).
        self.self_match = matches_all(pod.required_affinity, pod, namespaces)

    def clone(self) -> PreFilterState:
        out = PreFilterState.__new__(PreFilterState)
        out.pod = self.pod
        out.namespaces = self.namespaces
        out.existing_anti_affinity = self.existing_anti_affinity.clone()
        out.affinity = self.affinity.clone()
        out.anti_affinity = self.anti_affinity.clone()
        out.affinity_keys = self.affinity_keys
        out.anti_affinity_keys = self.anti_affinity_keys
        out.self_match = self.self_match
        return out

    def count_existing(self, other: Pod, labels: Mapping[str, str], delta: int) -> None:
        """`other`'s required anti-affinity terms that select the incoming pod."""
        pod = self.pod
        for term in other.required_anti_affinity:
            if term.matches(pod.namespace, pod.labels, self.namespaces):
                self.existing_anti_affinity.update(labels, term.topology_key, delta)

    def count_incoming(self, other: Pod, labels: Mapping[str, str], delta: int) -> None:
        """`other` against the incoming pod's own required affinity and anti-affinity terms."""
        pod, namespaces = self.pod, self.namespaces
        if matches_all(pod.required_affinity, other, namespaces):
            for term in pod.required_affinity:
                self.affinity.update(labels, term.topology_key, delta)
        for term in pod.required_anti_affinity:
            if term.matches(other.namespace, other.labels, namespaces):
                self.anti_affinity.update(labels, term.topology_key, delta)

    def update_with_pod(self, other: Pod, node: NodeInfo, delta: int) -> None:
        """`other` joins (+1) or leaves (-1) `node` in a simulation (AddPod / RemovePod)."""
        labels = node.node.labels
        self.count_existing(other, labels, delta)
        self.count_incoming(other, labels, delta)


def pre_filter_state(
    pod: Pod, all_nodes: Iterable[NodeInfo], anti_affinity_nodes: Iterable[NodeInfo], namespaces: Namespaces
) -> PreFilterState:
    state = PreFilterState(pod, namespaces)
    for node in anti_affinity_nodes:
        labels = node.node.labels
        for other in node.anti_affinity_pods:
            state.count_existing(other, labels, 1)
    if pod.required_affinity or pod.required_anti_affinity:
        for node in all_nodes:
            labels = node.node.labels
            for other in node.pods:
                state.count_incoming(other, labels, 1)
    return state


def filter_node(state: PreFilterState, labels: Mapping[str, str]) -> Status | None:
    if state.affinity_keys and not _satisfies_affinity(state, labels):
        return AFFINITY_REJECTED
    anti = state.anti_affinity
    if anti:
        for key in state.anti_affinity_keys:
            value = labels.get(key)
            if value is not None and anti.count(key, value) > 0:
                return ANTI_AFFINITY_REJECTED
    existing = state.existing_anti_affinity
    if existing:
        for key, values in existing.by_key.items():
            value = labels.get(key)
            if value is not None and values.get(value, 0) > 0:
                return EXISTING_ANTI_AFFINITY_REJECTED
    return None


def _satisfies_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    affinity = state.affinity
    found = True
    for key in state.affinity_keys:
        value = labels.get(key)
        # The node needs every topology key, even for the first pod of a group.
        if value is None:
            return False
        if affinity.count(key, value) <= 0:
            found = False
    if found:
        return True
    # No pod anywhere matches: let a pod that matches its own terms start the group.
    return not affinity and state.self_match
