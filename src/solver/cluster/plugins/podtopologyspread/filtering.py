"""Hard spreading: PreFilter counts matching pods per domain, Filter rejects nodes whose domain would
exceed maxSkew over the global minimum, AddPod / RemovePod keep the counts right in simulations
(filtering.go)."""

from __future__ import annotations

from collections.abc import Sequence

from .....model.cluster.facts import Node, Pod, SpreadConstraint, selects
from ...framework import NodeInfo, StateData, Status, unresolvable, unschedulable
from .common import count_matching, has_all_keys, included

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

CONSTRAINTS_NOT_MATCH = unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
NODE_LABEL_NOT_MATCH = unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)

MAX_INT32 = 2**31 - 1


class CriticalPaths:
    """The two domains with the fewest matching pods; `first_count` is always the global minimum.

    Two suffice because a simulation only ever changes the counts of one node's domains (preemption
    evaluates each node on its own copy of the state). Ties and the initial empty value behave as
    upstream's criticalPaths, so that a domain whose value is "" is tracked the same way."""

    __slots__ = ("first_count", "first_value", "second_count", "second_value")

    def __init__(self) -> None:
        self.first_value = ""
        self.first_count = MAX_INT32
        self.second_value = ""
        self.second_count = MAX_INT32

    def update(self, value: str, count: int) -> None:
        if value == self.first_value or value == self.second_value:
            if value == self.first_value:
                self.first_count = count
            else:
                self.second_count = count
            if self.first_count > self.second_count:
                self.first_value, self.second_value = self.second_value, self.first_value
                self.first_count, self.second_count = self.second_count, self.first_count
        elif count < self.first_count:
            self.second_value, self.second_count = self.first_value, self.first_count
            self.first_value, self.first_count = value, count
        elif count < self.second_count:
            self.second_value, self.second_count = value, count

    def copy(self) -> CriticalPaths:
        out = CriticalPaths()
        out.first_value, out.first_count = self.first_value, self.first_count
        out.second_value, out.second_count = self.second_value, self.second_count
        return out


class PreFilterState(StateData):
    """Per hard constraint: matching pods per domain value, the critical paths, and whether the incoming
    pod itself matches (it adds one to the domain it lands in)."""

    def __init__(
        self,
        constraints: tuple[SpreadConstraint, ...],
        self_match: tuple[int, ...],
        counts: list[dict[str, int]],
        paths: list[CriticalPaths],
    ) -> None:
        self.constraints = constraints
        self.self_match = self_match
        self.counts = counts
        self.paths = paths

    def min_match(self, i: int) -> int:
        """The global minimum, taken as 0 while fewer domains than minDomains are eligible."""
        if len(self.counts[i]) < self.constraints[i].min_domains:
            return 0
        return self.paths[i].first_count

    def clone(self) -> PreFilterState:
        return PreFilterState(
            self.constraints,
            self.self_match,
            [dict(c) for c in self.counts],
            [p.copy() for p in self.paths],
        )


def build_state(
    pod: Pod, constraints: tuple[SpreadConstraint, ...], nodes: Sequence[NodeInfo]
) -> PreFilterState:
    """Counts over every node that has all the constraints' topology keys; a constraint counts only on
    nodes its inclusion policies admit, and such a node's domain is eligible even with no matching pod."""
    counts: list[dict[str, int]] = [{} for _ in constraints]
    namespace = pod.namespace
    for info in nodes:
        node = info.node
        labels = node.labels
        if not has_all_keys(labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if not included(c, pod, node):
                continue
            value = labels[c.topology_key]
            domain = counts[i]
            domain[value] = domain.get(value, 0) + count_matching(info.pods, c.selector, namespace)
    paths = []
    for domain in counts:
        p = CriticalPaths()
        for value, count in domain.items():
            p.update(value, count)
        paths.append(p)
    self_match = tuple(int(selects(c.selector, pod.labels)) for c in constraints)
    return PreFilterState(constraints, self_match, counts, paths)


def update_with_pod(state: PreFilterState, changed: Pod, preemptor: Pod, node: Node, delta: int) -> None:
    """Adds (delta 1) or removes (delta -1) `changed` on `node` in the counts. Unlike PreFilter this does
    not look at whether the pod is terminating, nor at an empty selector: upstream does not either."""
    if changed.namespace != preemptor.namespace:
        return
    labels = node.labels
    if not has_all_keys(labels, state.constraints):
        return
    for i, c in enumerate(state.constraints):
        if not selects(c.selector, changed.labels) or not included(c, preemptor, node):
            continue
        value = labels[c.topology_key]
        domain = state.counts[i]
        count = domain.get(value, 0) + delta
        domain[value] = count
        state.paths[i].update(value, count)


def filter_node(state: PreFilterState, node: Node) -> Status | None:
    """'matching pods in the node's domain' + 'the pod itself if it matches' - 'global minimum' must not
    exceed maxSkew for every constraint; a node without a constraint's topology key never fits."""
    labels = node.labels
    for i, c in enumerate(state.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            return NODE_LABEL_NOT_MATCH
        skew = state.counts[i].get(value, 0) + state.self_match[i] - state.min_match(i)
        if skew > c.max_skew:
            return CONSTRAINTS_NOT_MATCH
    return None
