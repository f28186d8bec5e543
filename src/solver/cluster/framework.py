"""The scheduling framework's vocabulary: statuses, the cycle state, node snapshots and the plugin interface.

Extension points are methods of `Plugin`; a plugin declares which ones it implements in
`points` (the framework only calls those, and MultiPoint configuration enables a plugin at
exactly those points, as upstream checks which interfaces a plugin implements). Success is
`None` wherever a Status is returned: most calls succeed, and the hot paths stay cheap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any, ClassVar

from ...model.cluster.facts import Cluster, HostPort, Node, Pod

if TYPE_CHECKING:
    from ...model.problem import Problem

from ...model.cluster.points import MAX_NODE_SCORE


class Code(IntEnum):
    """framework.Code, with the same meanings."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2  # the pod does not fit now; preemption may help
    UNRESOLVABLE = 3  # UnschedulableAndUnresolvable: preemption cannot help on this node
    WAIT = 4
    SKIP = 5  # PreFilter / PreScore: this plugin has nothing to check or score for the pod
    PENDING = 6


@dataclass(frozen=True, slots=True)
class Status:
    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    @property
    def rejected(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNRESOLVABLE, Code.PENDING)

    def with_plugin(self, plugin: str) -> Status:
        return self if self.plugin == plugin else Status(self.code, self.reasons, plugin)


def unschedulable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNRESOLVABLE, reasons)


def error(message: str) -> Status:
    return Status(Code.ERROR, (message,))


SKIP = Status(Code.SKIP)


class NodeInfo:
    """One node and the pods on it, as the scheduler's snapshot holds them (framework.NodeInfo).

    `requested` sums the pods' `requests` (plus what their devices map to node resources),
    `score_requested` their `score_requests` (NonZeroRequested for cpu and memory); the pod slot
    is `len(pods)`. `generation` grows with every change, so that results computed for the node
    can be reused until it changes.
    """

    __slots__ = (
        "_lowest",
        "affinity_pods",
        "anti_affinity_pods",
        "extra",
        "generation",
        "name",
        "node",
        "pods",
        "ports",
        "requested",
        "score_requested",
    )

    # Grows whenever a pod with pod (anti-)affinity joins or leaves any node (Snapshot's lists of the nodes
    # that hold one stand until then).
    affinity_changes: ClassVar[int] = 0

    def __init__(self, node: Node) -> None:
        self.node = node
        self.name = node.name
        self.pods: list[Pod] = []
        self.requested: dict[str, int] = {}
        self.score_requested: dict[str, int] = {}
        self.ports: Counter[HostPort] = Counter()
        self.affinity_pods: list[Pod] = []  # pods with any pod (anti-)affinity
        self.anti_affinity_pods: list[Pod] = []  # pods with required anti-affinity
        self.extra: dict[str, Mapping[str, int]] = {}  # pod key -> mapped node resources
        self.generation = 0
        self._lowest: tuple[int, int | None] | None = None  # (generation, lowest priority of its pods)

    def add_pod(self, pod: Pod, mapped: Mapping[str, int] | None = None) -> None:
        self.pods.append(pod)
        _add(self.requested, pod.requests, 1)
        _add(self.score_requested, pod.score_requests, 1)
        if mapped:
            self.extra[pod.key] = dict(mapped)
            _add(self.requested, mapped, 1)
            _add(self.score_requested, mapped, 1)
        self.ports.update(pod.ports)
        if pod.has_affinity:
            self.affinity_pods.append(pod)
            NodeInfo.affinity_changes += 1
        if pod.required_anti_affinity:
            self.anti_affinity_pods.append(pod)
            NodeInfo.affinity_changes += 1
        self.generation += 1

    def remove_pod(self, pod: Pod) -> bool:
        """Takes the pod (by key) off the node; False when it is not there."""
        i = next((i for i, p in enumerate(self.pods) if p.key == pod.key), -1)
        if i < 0:
            return False
        p = self.pods.pop(i)
        _add(self.requested, p.requests, -1)
        _add(self.score_requested, p.score_requests, -1)
        mapped = self.extra.pop(p.key, None)
        if mapped:
            _add(self.requested, mapped, -1)
            _add(self.score_requested, mapped, -1)
        self.ports.subtract(p.ports)
        self.ports = +self.ports
        if p.has_affinity or p.required_anti_affinity:
            self.affinity_pods = [q for q in self.affinity_pods if q.key != p.key]
            self.anti_affinity_pods = [q for q in self.anti_affinity_pods if q.key != p.key]
            NodeInfo.affinity_changes += 1
        self.generation += 1
        return True

    def lowest_priority(self) -> int | None:
        """The lowest priority among the node's pods (None: no pod), worked out once per generation."""
        known = self._lowest
        if known is None or known[0] != self.generation:
            known = self._lowest = (self.generation, min((p.priority for p in self.pods), default=None))
        return known[1]

    def clone(self) -> NodeInfo:
        out = NodeInfo(self.node)
        out.pods = list(self.pods)
        out.requested = dict(self.requested)
        out.score_requested = dict(self.score_requested)
        out.ports = Counter(self.ports)
        out.affinity_pods = list(self.affinity_pods)
        out.anti_affinity_pods = list(self.anti_affinity_pods)
        out.extra = dict(self.extra)
        out.generation = self.generation
        return out

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, {len(self.pods)} pods)"


def _add(into: dict[str, int], amounts: Mapping[str, int], sign: int) -> None:
    for name, value in amounts.items():
        into[name] = into.get(name, 0) + sign * value


class Snapshot:
    """Every node in the scheduler's order, with lookups (framework.SharedLister)."""

    def __init__(self, nodes: Iterable[NodeInfo]) -> None:
        self.nodes: list[NodeInfo] = list(nodes)
        self.by_name: dict[str, NodeInfo] = {n.name: n for n in self.nodes}
        self._affinity: dict[str, tuple[int, list[NodeInfo]]] = {}

    def get(self, name: str) -> NodeInfo | None:
        return self.by_name.get(name)

    def with_affinity(self) -> list[NodeInfo]:
        """Nodes with at least one pod that has pod (anti-)affinity (HavePodsWithAffinityList)."""
        return self._holding("affinity_pods")

    def with_required_anti_affinity(self) -> list[NodeInfo]:
        return self._holding("anti_affinity_pods")

    def _holding(self, pods: str) -> list[NodeInfo]:
        """The nodes whose list `pods` is not empty, found again only after such pods came or went."""
        known = self._affinity.get(pods)
        if known is None or known[0] != NodeInfo.affinity_changes:
            known = self._affinity[pods] = (
                NodeInfo.affinity_changes,
                [n for n in self.nodes if getattr(n, pods)],
            )
        return list(known[1])


class StateData:
    """What a plugin keeps in the CycleState; cloned when preemption simulates removing pods."""

    def clone(self) -> StateData:
        return self


class CycleState:
    """Per-cycle data shared between a plugin's extension points (framework.CycleState)."""

    __slots__ = ("data", "skip_filter", "skip_score")

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.skip_filter: set[str] = set()  # plugins whose PreFilter returned Skip
        self.skip_score: set[str] = set()  # plugins whose PreScore returned Skip

    def read(self, key: str) -> Any:
        return self.data.get(key)

    def write(self, key: str, value: Any) -> None:
        self.data[key] = value

    def clone(self) -> CycleState:
        out = CycleState()
        out.data = {k: (v.clone() if isinstance(v, StateData) else v) for k, v in self.data.items()}
        out.skip_filter = set(self.skip_filter)
        out.skip_score = set(self.skip_score)
        return out


class Handle:
    """What plugins may read beyond the pod and the node: the cluster facts, the snapshot, the DRA
    problem and the node-level engine's search (set by the scheduler that owns them)."""

    def __init__(self, cluster: Cluster, snapshot: Snapshot, problem: Problem | None = None) -> None:
        self.cluster = cluster
        self.snapshot = snapshot
        self.problem = problem
        # Filled by the scheduler: services the DynamicResources plugin needs (engine search, DRA state).
        self.services: dict[str, Any] = {}

    @property
    def namespaces(self) -> Mapping[str, Mapping[str, str]]:
        return self.cluster.namespaces


class Plugin:
    """A scheduler plugin. Subclasses set `name` and `points` and override the methods of those points."""

    name: ClassVar[str] = ""
    points: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, handle: Handle, args: Any = None) -> None:
        self.handle = handle
        self.args = args

    # PreFilter: the node names the pod may use (None: all) and a status (SKIP: Filter is skipped).
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        return None, None

    # PreFilterExtensions: keep what PreFilter computed right when a pod is added to / removed from a
    # node in a simulation (nominated pods, preemption victims).
    def add_pod(self, state: CycleState, pod: Pod, added: Pod, node: NodeInfo) -> Status | None:
        return None

    def remove_pod(self, state: CycleState, pod: Pod, removed: Pod, node: NodeInfo) -> Status | None:
        return None

    @property
    def has_extensions(self) -> bool:
        cls = type(self)
        return cls.add_pod is not Plugin.add_pod or cls.remove_pod is not Plugin.remove_pod

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        return None

    # PostFilter: the pod's nominated node from now on (None: unchanged, "": cleared) and a status whose
    # message joins the FitError.
    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[str | None, Status | None]:
        return None, None

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        return None

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        return 0

    # NormalizeScore, when the plugin has one (`normalizes`): rewrite the scores in place.
    normalizes: ClassVar[bool] = False

    def normalize(self, state: CycleState, pod: Pod, scores: dict[str, int]) -> Status | None:
        return None

    def reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        return None

    # Memoization across cycles (kubefit's own; the verdicts are upstream's): a plugin whose Filter (or
    # Score) on a node depends only on the node's state and on what `memo_key` returns for the pod says
    # so, and its verdict is reused while the node's NodeInfo.generation and `memo_versions` stand.
    # None (the default): computed every time.
    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        return None

    # What a node's state means to the plugin beyond its NodeInfo (DRA: the devices in use it sees), as a
    # version per node name that grows with every change (absent: 0); None: nothing beyond NodeInfo.
    def memo_versions(self) -> Mapping[str, int] | None:
        return None

    # A Filter that leaves per-node data in the cycle state: what it left for `node` on its last call
    # (ok False: that verdict cannot be reused), and what leaves it again in a cycle's state.
    def memo_save(self, state: CycleState, node: NodeInfo) -> tuple[bool, Any]:
        return True, None

    def memo_loader(self, state: CycleState) -> Callable[[Any], None] | None:
        return None

    # The same for the nodes of a stretch at once (memo_save's values, in the cycle's order).
    def memo_load_many(self, state: CycleState) -> Callable[[list[Any]], None] | None:
        load = self.memo_loader(state)
        if load is None:
            return None

        def many(lefts: list[Any]) -> None:
            for left in lefts:
                load(left)

        return many

    def unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        return None

    # QueueSort: less(a, b) is True when a goes before b.
    def less(self, a: QueuedPod, b: QueuedPod) -> bool:
        return False


@dataclass(frozen=True)
class QueuedPod:
    """A pod in the scheduling queue: the pod, and when it entered the queue (creation order)."""

    pod: Pod
    unit: int
    timestamp: tuple[int, str, int]  # (created later than every stored pod?, creationTimestamp, input order)


PluginFactory = Callable[[Handle, Any], Plugin]


def default_normalize(scores: dict[str, int], reverse: bool = False) -> None:
    """helper.DefaultNormalizeScore: scale to [0, 100] by the highest score (reversed: 100 - that)."""
    highest = max(scores.values(), default=0)
    if highest == 0:
        if reverse:
            for name in scores:
                scores[name] = MAX_NODE_SCORE
        return
    for name, value in scores.items():
        scaled = MAX_NODE_SCORE * value // highest
        scores[name] = MAX_NODE_SCORE - scaled if reverse else scaled
