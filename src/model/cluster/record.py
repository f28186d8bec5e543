"""What kube-scheduler decided for a pod, as kubefit reports it (in the spirit of kube-scheduler-simulator):
every filter verdict per node, every score before and after its weight, the node chosen, and what
preemption did."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .facts import Pod


@dataclass(frozen=True)
class Eviction:
    """A pod preempted to make room: the victim, its node, and the pod it made room for."""

    victim: Pod
    node: str
    preemptor: Pod
    unit: int  # the preemptor's unit
    scheduler: str = "default-scheduler"
    # Workload-aware preemption: the PodGroup (namespace/name, uid) that preempted; `preemptor` is then
    # its first pod.
    group: str = ""
    group_uid: str = ""


@dataclass(frozen=True)
class PlacementRecord:
    """One candidate placement of a PodGroup cycle: its nodes, whether the group fit there (or why not),
    its placement scores per plugin (before weight) and total, and whether it won."""

    name: str
    nodes: tuple[str, ...]
    feasible: bool
    status: str = ""  # why the group does not fit there ("" when it does)
    scores: Mapping[str, int] = field(default_factory=dict)
    total: int | None = None  # None: not scored (the only feasible one, or none was)
    selected: bool = False


@dataclass(frozen=True)
class GroupCondition:
    """The condition submitPodGroupResult patches on a PodGroup (or CompositePodGroup) after its cycle."""

    kind: str  # PodGroup | CompositePodGroup
    namespace: str
    name: str
    type: str  # PodGroupInitiallyScheduled | CompositePodGroupInitiallyScheduled
    status: str  # "True" | "False"
    reason: str  # Scheduled | Unschedulable | SchedulerError
    message: str


@dataclass(frozen=True)
class Record:
    filters: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # node -> plugin -> passed|reason
    pre_filter: Mapping[str, str] = field(default_factory=dict)  # plugin -> what it decided for all nodes
    # Each scored node's scores, in the order the cycle evaluated the nodes. The cycle's own NodeScores,
    # shared with other records (a node's are the same object while its scores stay): a run keeps a
    # record per pod, and three maps per pod of every scored node were most of its memory at scale.
    ranked: Sequence[NodeScores] = ()
    selected: str = ""
    nominated: str = ""  # status.nominatedNodeName after preemption
    victims: tuple[str, ...] = ()  # namespace/name of the pods preempted for this pod
    evaluated: int = 0  # nodes the last cycle filtered
    feasible: int = 0  # of which passed
    attempts: int = 1
    profile: str = "default-scheduler"
    message: str = ""  # the last FitError when the pod was not placed
    gated: str = ""  # a PreEnqueue plugin holds the pod out of the queue (its message); no cycle ran
    rejected_by: frozenset[str] | None = None  # the filters that turned a node away (None: not known)
    gated_by: str = ""  # the PreEnqueue plugin that holds the pod back
    pod_group: str = ""  # namespace/name of the PodGroup whose cycle placed (or failed) the pod
    # That cycle's candidate placements, by group (its PodGroup and the CompositePodGroups above it).
    placements: Mapping[str, tuple[PlacementRecord, ...]] = field(default_factory=dict)
    # The InitiallyScheduled condition that cycle wrote on each group of the tree.
    group_conditions: tuple[GroupCondition, ...] = ()

    @property
    def scores(self) -> dict[str, Mapping[str, int]]:
        """node -> plugin -> its score, 0..100 (after NormalizeScore, before the weight)"""
        return {s.node: s.plugin for s in self.ranked}

    @property
    def weighted(self) -> dict[str, Mapping[str, int]]:
        """node -> plugin -> score * weight"""
        return {s.node: s.weighted for s in self.ranked}

    @property
    def totals(self) -> dict[str, int]:
        """node -> the sum of its weighted scores"""
        return {s.node: s.total for s in self.ranked}

    def ranking(self) -> list[tuple[str, int]]:
        """Scored nodes, best first (ties in the order the cycle evaluated them)."""
        order = sorted(range(len(self.ranked)), key=lambda i: -self.ranked[i].total)
        return [(self.ranked[i].node, self.ranked[i].total) for i in order]


@dataclass
class NodeScores:
    """One node's scores: per plugin after NormalizeScore (before weight), weighted, and the total. The
    maps may be shared with other nodes' (and other cycles'): read them, never change them."""

    node: str
    plugin: dict[str, int] = field(default_factory=dict)
    weighted: dict[str, int] = field(default_factory=dict)
    total: int = 0
