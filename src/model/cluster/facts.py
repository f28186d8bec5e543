"""Cluster facts: what kube-scheduler's plugins read about nodes and pods, as plain immutable data.

`kubefit.translate.sched` builds them from Kubernetes objects (label selectors parsed,
matchLabelKeys merged, priorities resolved from PriorityClasses, requests summed the
way the scheduler sums them); the plugins never see YAML. A `Cluster` rides on the DRA
`Problem` (`Problem.cluster`): pending pods are keyed by the id of the Unit that holds
their claims.

Amounts are in the scheduler's units: cpu in millicores, everything else in whole units
(bytes for memory), as `framework.Resource` counts them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..terms import NodeSelectorTerm, PreferredNodeTerm, Taint, Toleration
from .podgroup import Groups

if TYPE_CHECKING:
    from .profile import Configuration

# Well-known labels.
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
REGION_BETA = "failure-domain.beta.kubernetes.io/region"
NAMESPACE_NAME = "kubernetes.io/metadata.name"

CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"


@dataclass(frozen=True)
class Requirement:
    """One requirement of a label selector: In, NotIn, Exists or DoesNotExist."""

    key: str
    operator: str
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op == "In":
            return labels.get(self.key) in self.values if self.key in labels else False
        if op == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        return False


@dataclass(frozen=True)
class LabelSelector:
    """metav1.LabelSelector as a labels.Selector: requirements ANDed (matchLabels become `In` with one
    value). An empty selector selects everything; where the API has a nil selector the fact is None,
    which selects nothing."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r.matches(labels) for r in self.requirements)

    @property
    def empty(self) -> bool:
        return not self.requirements


def selects(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """A nil selector selects nothing (labels.Nothing), an empty one everything."""
    return selector is not None and selector.matches(labels)


@dataclass(frozen=True)
class AffinityTerm:
    """A PodAffinityTerm, ready to match: the label selector with matchLabelKeys / mismatchLabelKeys
    merged in (as the API server does at admission), the namespaces it looks at (the pod's own when
    neither `namespaces` nor `namespaceSelector` is set) and the namespace selector (None when unset)."""

    selector: LabelSelector | None
    topology_key: str
    namespaces: frozenset[str] = frozenset()
    namespace_selector: LabelSelector | None = None

    def matches_namespace(self, namespace: str, namespace_labels: Mapping[str, Mapping[str, str]]) -> bool:
        if namespace in self.namespaces:
            return True
        if self.namespace_selector is None:
            return False
        labels = namespace_labels.get(namespace, {NAMESPACE_NAME: namespace})
        return self.namespace_selector.matches(labels)

    def matches(
        self, namespace: str, labels: Mapping[str, str], namespace_labels: Mapping[str, Mapping[str, str]]
    ) -> bool:
        """This term selects a pod in `namespace` with `labels` (framework.AffinityTerm.Matches)."""
        return self.matches_namespace(namespace, namespace_labels) and selects(self.selector, labels)


@dataclass(frozen=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


@dataclass(frozen=True)
class SpreadConstraint:
    """A TopologySpreadConstraint with matchLabelKeys merged into its selector (None: selects nothing)."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule | ScheduleAnyway
    selector: LabelSelector | None
    min_domains: int = 1
    node_affinity_policy: str = "Honor"  # Honor | Ignore
    node_taints_policy: str = "Ignore"  # Honor | Ignore


@dataclass(frozen=True)
class HostPort:
    """A container port bound to the host (hostPort > 0)."""

    port: int
    protocol: str = "TCP"
    ip: str = "0.0.0.0"


@dataclass(frozen=True)
class Pod:
    """A pod as the scheduler's plugins read it (framework.PodInfo)."""

    namespace: str
    name: str
    uid: str
    labels: Mapping[str, str] = field(default_factory=dict)
    priority: int = 0
    preemption_policy: str = "PreemptLowerPriority"  # | Never
    scheduler_name: str = "default-scheduler"
    node_name: str = ""  # spec.nodeName: the node of a bound pod, or a pending pod's fixed node
    nominated_node: str = ""  # status.nominatedNodeName
    # What NodeResourcesFit's filter counts (PodRequests: init containers, sidecars, overhead,
    # pod-level resources), without the pod slot itself.
    requests: Mapping[str, int] = field(default_factory=dict)
    # What scoring counts: the same with containers that request no cpu / memory counted as
    # 100m / 200Mi (NonMissingContainerRequests).
    score_requests: Mapping[str, int] = field(default_factory=dict)
    ports: tuple[HostPort, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    # requiredDuringSchedulingIgnoredDuringExecution: None when unset (every node matches).
    required_node_affinity: tuple[NodeSelectorTerm, ...] | None = None
    preferred_node_affinity: tuple[PreferredNodeTerm, ...] = ()
    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedAffinityTerm, ...] = ()
    spread_constraints: tuple[SpreadConstraint, ...] = ()
    # The selector the system default spreading uses: the union of what the Services,
    # ReplicationControllers, ReplicaSets and StatefulSets selecting the pod select (None: none do).
    default_spread_selector: LabelSelector | None = None
    images: tuple[str, ...] = ()  # normalized container image names (init containers too)
    # For preemption: when the pod started (RFC 3339, "" when unknown: counted as now), terminating.
    start_time: str = ""
    terminating: bool = False
    # The reason of a DisruptionTarget condition whose status is True ("" when none): a terminating pod
    # with "PreemptionByScheduler" is a victim of an earlier preemption.
    disruption_target: str = ""
    # Claims (namespace/name) the pod uses, for DRA-aware preemption.
    claims: tuple[str, ...] = ()
    # spec.schedulingGates names, in order: the pod waits (PreEnqueue) while any remain.
    scheduling_gates: tuple[str, ...] = ()
    pod_group: str = ""  # spec.schedulingGroup.podGroupName: the PodGroup the pod belongs to

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def has_affinity(self) -> bool:
        return bool(
            self.required_affinity
            or self.required_anti_affinity
            or self.preferred_affinity
            or self.preferred_anti_affinity
        )


@dataclass(frozen=True)
class ImageState:
    size: int  # bytes
    num_nodes: int  # nodes of the cluster that have the image


@dataclass(frozen=True)
class Node:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    # status.allocatable in the scheduler's units (pods included); empty when the node publishes none.
    allocatable: Mapping[str, int] = field(default_factory=dict)
    images: Mapping[str, int] = field(default_factory=dict)  # normalized image name -> size in bytes
    declared_features: frozenset[str] = frozenset()


@dataclass(frozen=True)
class DisruptionBudget:
    """A PodDisruptionBudget as preemption reads it: status.disruptionsAllowed (computed from the spec
    where the input has no status) and the pods already being disrupted."""

    namespace: str
    name: str
    selector: LabelSelector | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str] = frozenset()


def zone_key(labels: Mapping[str, str]) -> str:
    """utilnode.GetZoneKey: region and zone (GA labels first, then the beta ones); "" for none."""
    region = labels.get(REGION) or labels.get(REGION_BETA) or ""
    zone = labels.get(ZONE) or labels.get(ZONE_BETA) or ""
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def tree_order(nodes: list[Node]) -> list[Node]:
    """The scheduler snapshot's node order (nodeTree.list): zones in the order their first node
    appears, nodes within a zone in input order, taken round-robin across zones."""
    zones: dict[str, list[Node]] = {}
    for node in nodes:
        zones.setdefault(zone_key(node.labels), []).append(node)
    out: list[Node] = []
    lists = list(zones.values())
    for i in range(max((len(z) for z in lists), default=0)):
        out += [z[i] for z in lists if i < len(z)]
    return out


@dataclass(frozen=True)
class Cluster:
    """Everything kube-scheduler knows beyond the DRA facts.

    `nodes` are in the snapshot's order (tree_order over nodes by name, as the informer lists them);
    `bound` are the pods already on nodes; `pending` the pods to schedule, keyed by Unit id.
    `candidates` restricts where pending pods may go (allocate --node), None for every node.
    """

    nodes: tuple[Node, ...]
    bound: tuple[Pod, ...] = ()
    pending: Mapping[int, Pod] = field(default_factory=dict)
    namespaces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    budgets: tuple[DisruptionBudget, ...] = ()
    images: Mapping[str, ImageState] = field(default_factory=dict)
    candidates: tuple[str, ...] | None = None
    seed: int | None = None  # reproduce upstream's random tie-break (None: deterministic)
    configuration: Configuration | None = None  # None: the v1 defaults
    # Every pending pod is scheduled by this profile (None: each by the profile its schedulerName names).
    scheduler_name: str | None = None
    # PodGroups and CompositePodGroups (None: the Workload API is off, every pod is scheduled alone).
    groups: Groups | None = None
