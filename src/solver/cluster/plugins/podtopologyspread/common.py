"""What filtering and scoring share: which constraints a pod spreads by, which nodes a constraint counts
on (its node inclusion policies) and which pods it counts (common.go)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .....model.cluster.args import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    SYSTEM_DEFAULTING,
    DefaultSpreadConstraint,
    PodTopologySpreadArgs,
)
from .....model.cluster.facts import LabelSelector, Node, Pod, SpreadConstraint
from .....model.node_selector import terms_match

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"

# Only these effects keep a pod off a node; PreferNoSchedule does not exclude it from a domain.
_HARD_TAINT_EFFECTS = frozenset({"NoSchedule", "NoExecute"})


@dataclass(frozen=True)
class Defaults:
    """The default constraints for pods without their own, and whether they are the system's (which
    relaxes scoring: nodes missing a topology key still score on the keys they have)."""

    constraints: tuple[DefaultSpreadConstraint, ...]
    system: bool


def defaults_of(args: Any) -> Defaults:
    if args is None:
        args = PodTopologySpreadArgs()
    if not isinstance(args, PodTopologySpreadArgs):
        raise TypeError(f"want args to be of type PodTopologySpreadArgs, got {type(args).__name__}")
    if args.defaulting_type == SYSTEM_DEFAULTING:
        return Defaults(SYSTEM_DEFAULT_CONSTRAINTS, True)
    return Defaults(args.default_constraints, False)


def constraints_for(pod: Pod, action: str, defaults: Defaults) -> tuple[SpreadConstraint, ...]:
    """The pod's constraints with `action`; a pod with no constraints at all (of either kind) gets the
    default ones with `action`, selecting what its Services and controllers select."""
    if pod.spread_constraints:
        return tuple(c for c in pod.spread_constraints if c.when_unsatisfiable == action)
    selector = pod.default_spread_selector
    if selector is None or selector.empty:
        return ()
    return tuple(
        SpreadConstraint(d.max_skew, d.topology_key, d.when_unsatisfiable, selector)
        for d in defaults.constraints
        if d.when_unsatisfiable == action
    )


def has_all_keys(labels: Mapping[str, str], constraints: Iterable[SpreadConstraint]) -> bool:
    return all(c.topology_key in labels for c in constraints)


def matches_required_affinity(pod: Pod, node: Node) -> bool:
    """nodeSelector and required node affinity together (nodeaffinity.GetRequiredNodeAffinity)."""
    labels = node.labels
    for key, value in pod.node_selector.items():
        if labels.get(key) != value:
            return False
    terms = pod.required_node_affinity
    return terms is None or terms_match(terms, node.name, labels)


def tolerates_hard_taints(pod: Pod, node: Node) -> bool:
    """No NoSchedule / NoExecute taint of the node goes untolerated by the pod."""
    tolerations = pod.tolerations
    return all(
        any(t.tolerates(taint) for t in tolerations)
        for taint in node.taints
        if taint.effect in _HARD_TAINT_EFFECTS
    )


def included(constraint: SpreadConstraint, pod: Pod, node: Node) -> bool:
    """The node counts toward the constraint's domains under its nodeAffinityPolicy / nodeTaintsPolicy."""
    if constraint.node_affinity_policy == HONOR and not matches_required_affinity(pod, node):
        return False
    return constraint.node_taints_policy != HONOR or tolerates_hard_taints(pod, node)


def count_matching(pods: Iterable[Pod], selector: LabelSelector | None, namespace: str) -> int:
    """Pods in `namespace` that the selector selects, terminating ones left out. Upstream counts nothing
    for an empty selector (labels.Selector.Empty), although such a selector matches every pod elsewhere."""
    if selector is None or not selector.requirements:
        return 0
    count = 0
    for p in pods:
        if p.terminating or p.namespace != namespace:
            continue
        if selector.matches(p.labels):
            count += 1
    return count
