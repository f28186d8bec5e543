"""Small valid clusters for kube-scheduler property tests: a model of nodes and pods that the tests' own
checker reads, the manifests it stands for, and hypothesis strategies that draw it.

The model keeps only what the scheduler's filters and preemption look at (labels, taints, allocatable,
requests by container kind, host ports, tolerations, node and pod affinity, topology spread, priority),
with values from small pools so that pods meet: the same label values, ports and topology keys recur.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
EXT = "example.com/widget"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
DRIVER = "gpu.example.com"
TEMPLATE = "one-gpu"
MI = 2**20

# PriorityClasses every generated cluster has: name -> (value, preemptionPolicy).
CLASSES = {
    "low": (10, "PreemptLowerPriority"),
    "mid": (100, "PreemptLowerPriority"),
    "high": (1000, "PreemptLowerPriority"),
    "high-never": (1000, "Never"),
}
# Namespaces and their labels (the API server adds kubernetes.io/metadata.name).
NAMESPACES = {"default": {}, "team": {"team": "yes"}}
POD_LABELS = {"app": ("web", "db", "cache"), "tier": ("front", "back")}
TAINT_KEYS = ("dedicated", "flaky")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def quick(examples: int) -> settings:
    """Derandomized and without deadlines: the suite's cluster properties."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@dataclass(frozen=True)
class Req:
    """A requirement of a label or node selector: In, NotIn, Exists, DoesNotExist, Gt, Lt."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        return out


@dataclass(frozen=True)
class Selector:
    """A metav1.LabelSelector: matchLabels and matchExpressions."""

    labels: tuple[tuple[str, str], ...] = ()
    exprs: tuple[Req, ...] = ()

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.labels:
            out["matchLabels"] = dict(self.labels)
        if self.exprs:
            out["matchExpressions"] = [e.manifest() for e in self.exprs]
        return out


@dataclass(frozen=True)
class NodeTerm:
    """A NodeSelectorTerm: matchExpressions on labels and matchFields on metadata.name."""

    exprs: tuple[Req, ...] = ()
    fields: tuple[Req, ...] = ()

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.exprs:
            out["matchExpressions"] = [e.manifest() for e in self.exprs]
        if self.fields:
            out["matchFields"] = [f.manifest() for f in self.fields]
        return out


@dataclass(frozen=True)
class PodTerm:
    """A PodAffinityTerm; `namespaces` None and `namespace_selector` None: the pod's own namespace."""

    selector: Selector
    topology_key: str
    namespaces: tuple[str, ...] | None = None
    namespace_selector: Selector | None = None

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {"labelSelector": self.selector.manifest(), "topologyKey": self.topology_key}
        if self.namespaces is not None:
            out["namespaces"] = list(self.namespaces)
        if self.namespace_selector is not None:
            out["namespaceSelector"] = self.namespace_selector.manifest()
        return out


@dataclass(frozen=True)
class Spread:
    max_skew: int
    topology_key: str
    hard: bool
    selector: Selector
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "maxSkew": self.max_skew,
            "topologyKey": self.topology_key,
            "whenUnsatisfiable": "DoNotSchedule" if self.hard else "ScheduleAnyway",
            "labelSelector": self.selector.manifest(),
        }
        if self.min_domains is not None:
            out["minDomains"] = self.min_domains
        if self.node_affinity_policy is not None:
            out["nodeAffinityPolicy"] = self.node_affinity_policy
        if self.node_taints_policy is not None:
            out["nodeTaintsPolicy"] = self.node_taints_policy
        return out


@dataclass(frozen=True)
class Port:
    host_port: int
    protocol: str = "TCP"
    host_ip: str = ""

    def manifest(self, index: int) -> dict[str, Any]:
        out: dict[str, Any] = {"containerPort": 7000 + index, "hostPort": self.host_port}
        out["protocol"] = self.protocol
        if self.host_ip:
            out["hostIP"] = self.host_ip
        return out


@dataclass(frozen=True)
class Container:
    """kind: main, init (runs to completion before the main ones) or sidecar (init, restartPolicy Always).
    Requests: cpu in millicores, memory in MiB, the extended resource in units."""

    kind: str = "main"
    cpu: int = 0
    memory: int = 0
    ext: int = 0
    ports: tuple[Port, ...] = ()

    def manifest(self, name: str, port_base: int, gpu: bool) -> dict[str, Any]:
        requests: dict[str, str] = {}
        if self.cpu:
            requests["cpu"] = f"{self.cpu}m"
        if self.memory:
            requests["memory"] = f"{self.memory}Mi"
        if self.ext:
            requests[EXT] = str(self.ext)
        resources: dict[str, Any] = {}
        if requests:
            resources["requests"] = requests
            if self.ext:
                resources["limits"] = {EXT: str(self.ext)}  # extended resources need limits == requests
        if gpu:
            resources["claims"] = [{"name": "gpu"}]
        out: dict[str, Any] = {"name": name, "image": "registry.example.com/app:1"}
        if resources:
            out["resources"] = resources
        if self.ports:
            out["ports"] = [p.manifest(port_base + i) for i, p in enumerate(self.ports)]
        if self.kind == "sidecar":
            out["restartPolicy"] = "Always"
        return out


@dataclass(frozen=True)
class Toleration:
    key: str
    operator: str  # Equal | Exists
    value: str = ""
    effect: str = ""

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {"operator": self.operator}
        if self.key:
            out["key"] = self.key
        if self.value:
            out["value"] = self.value
        if self.effect:
            out["effect"] = self.effect
        return out


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str

    def manifest(self) -> dict[str, Any]:
        out = {"key": self.key, "effect": self.effect}
        if self.value:
            out["value"] = self.value
        return out


@dataclass(frozen=True)
class NodeModel:
    name: str
    labels: tuple[tuple[str, str], ...]
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    # status.allocatable: cpu (millicores), memory (MiB), pods, the extended resource; None: not published.
    allocatable: tuple[tuple[str, int], ...] | None = None
    gpus: int = 0  # devices of its ResourceSlice (DRA part only)

    @property
    def label_map(self) -> dict[str, str]:
        return dict(self.labels)

    def manifest(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": self.name, "labels": dict(self.labels)},
        }
        spec: dict[str, Any] = {}
        if self.taints:
            spec["taints"] = [t.manifest() for t in self.taints]
        if self.unschedulable:
            spec["unschedulable"] = True
        if spec:
            doc["spec"] = spec
        if self.allocatable is not None:
            amounts = dict(self.allocatable)
            quantities = {
                "cpu": f"{amounts['cpu']}m",
                "memory": f"{amounts['memory']}Mi",
                "pods": str(amounts["pods"]),
            }
            if EXT in amounts:
                quantities[EXT] = str(amounts[EXT])
            doc["status"] = {"allocatable": quantities, "capacity": dict(quantities)}
        return doc


@dataclass(frozen=True)
class PodModel:
    name: str
    namespace: str = "default"
    labels: tuple[tuple[str, str], ...] = ()
    containers: tuple[Container, ...] = (Container(),)
    overhead_cpu: int = 0  # from a RuntimeClass, millicores
    priority_class: str = ""
    node_name: str = ""  # bound pods
    tolerations: tuple[Toleration, ...] = ()
    node_selector: tuple[tuple[str, str], ...] = ()
    required_node_terms: tuple[NodeTerm, ...] = ()
    preferred_node_terms: tuple[tuple[int, NodeTerm], ...] = ()
    affinity: tuple[PodTerm, ...] = ()
    anti_affinity: tuple[PodTerm, ...] = ()
    preferred_affinity: tuple[tuple[int, PodTerm], ...] = ()
    preferred_anti_affinity: tuple[tuple[int, PodTerm], ...] = ()
    spread: tuple[Spread, ...] = ()
    gpu: bool = False  # one claim from the template
    # spec.nodeName of a pending pod: one with claims still to allocate (kubefit schedules it, NodeName
    # keeping it to that node).
    fixed_node: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def label_map(self) -> dict[str, str]:
        return dict(self.labels)

    @property
    def priority(self) -> int:
        return CLASSES[self.priority_class][0] if self.priority_class else 0

    @property
    def preemption_policy(self) -> str:
        return CLASSES[self.priority_class][1] if self.priority_class else "PreemptLowerPriority"

    def manifest(self) -> dict[str, Any]:
        containers: list[dict[str, Any]] = []
        inits: list[dict[str, Any]] = []
        port_base = 0
        for i, c in enumerate(self.containers):
            doc = c.manifest(f"{c.kind}-{i}", port_base, self.gpu and c.kind == "main" and not containers)
            port_base += len(c.ports)
            (containers if c.kind == "main" else inits).append(doc)
        spec: dict[str, Any] = {"containers": containers}
        if inits:
            spec["initContainers"] = inits
        if self.overhead_cpu:
            spec["runtimeClassName"] = "sandboxed"
            spec["overhead"] = {"cpu": f"{self.overhead_cpu}m"}
        if self.priority_class:
            spec["priorityClassName"] = self.priority_class
            if self.node_name:
                # Stored pods carry the value admission resolved.
                spec["priority"] = self.priority
                spec["preemptionPolicy"] = self.preemption_policy
        if self.node_name or self.fixed_node:
            spec["nodeName"] = self.node_name or self.fixed_node
        if self.tolerations:
            spec["tolerations"] = [t.manifest() for t in self.tolerations]
        if self.node_selector:
            spec["nodeSelector"] = dict(self.node_selector)
        affinity = self._affinity()
        if affinity:
            spec["affinity"] = affinity
        if self.spread:
            spec["topologySpreadConstraints"] = [s.manifest() for s in self.spread]
        if self.gpu:
            spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": TEMPLATE}]
        meta: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if self.labels:
            meta["labels"] = dict(self.labels)
        doc = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
        if self.node_name:
            doc["status"] = {"phase": "Running"}
        return doc

    def _affinity(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        node: dict[str, Any] = {}
        if self.required_node_terms:
            node["requiredDuringSchedulingIgnoredDuringExecution"] = {
                "nodeSelectorTerms": [t.manifest() for t in self.required_node_terms]
            }
        if self.preferred_node_terms:
            node["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": w, "preference": t.manifest()} for w, t in self.preferred_node_terms
            ]
        if node:
            out["nodeAffinity"] = node
        for kind, required, preferred in (
            ("podAffinity", self.affinity, self.preferred_affinity),
            ("podAntiAffinity", self.anti_affinity, self.preferred_anti_affinity),
        ):
            section: dict[str, Any] = {}
            if required:
                section["requiredDuringSchedulingIgnoredDuringExecution"] = [t.manifest() for t in required]
            if preferred:
                section["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": w, "podAffinityTerm": t.manifest()} for w, t in preferred
                ]
            if section:
                out[kind] = section
        return out


@dataclass(frozen=True)
class ClusterModel:
    nodes: tuple[NodeModel, ...]
    bound: tuple[PodModel, ...] = ()
    pending: tuple[PodModel, ...] = ()
    dra: bool = False

    @cached_property
    def pods(self) -> dict[str, PodModel]:
        return {p.key: p for p in (*self.bound, *self.pending)}

    def node(self, name: str) -> NodeModel:
        return next(n for n in self.nodes if n.name == name)

    def docs(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": ns, "labels": {**labels, "kubernetes.io/metadata.name": ns}},
            }
            for ns, labels in NAMESPACES.items()
        ]
        out += [
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
                "preemptionPolicy": policy,
            }
            for name, (value, policy) in CLASSES.items()
        ]
        if any(p.overhead_cpu for p in self.pods.values()):
            out.append(
                {
                    "apiVersion": "node.k8s.io/v1",
                    "kind": "RuntimeClass",
                    "metadata": {"name": "sandboxed"},
                    "handler": "kata",
                }
            )
        out += [n.manifest() for n in self.nodes]
        if self.dra:
            out += _dra_docs(self.nodes)
        out += [p.manifest() for p in (*self.bound, *self.pending)]
        return out


def _dra_docs(nodes: tuple[NodeModel, ...]) -> list[dict[str, Any]]:
    request = {"name": "gpu", "exactly": {"deviceClassName": DRIVER}}
    out: list[dict[str, Any]] = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": DRIVER},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
        }
    ]
    out += [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": TEMPLATE, "namespace": ns},
            "spec": {"spec": {"devices": {"requests": [request]}}},
        }
        for ns in NAMESPACES
    ]
    out += [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"{n.name}-gpus"},
            "spec": {
                "driver": DRIVER,
                "nodeName": n.name,
                "pool": {"name": n.name, "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": f"gpu-{i}", "attributes": {"index": {"int": i}}} for i in range(n.gpus)],
            },
        }
        for n in nodes
        if n.gpus
    ]
    return out


# --- strategies ---------------------------------------------------------------------------------------
# Strategies are built once, at import: building them inside draws costs more than the scheduler's run.

ZONES = ("a", "b", "c")
TOPOLOGY_KEYS = (HOSTNAME, ZONE)
_BOOLS = st.booleans()
_CHANCE = st.integers(0, 4)  # 0: one time in five


def _one_of(*values: Any) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


def _subsets(values: tuple[str, ...]) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(st.sampled_from(values), min_size=1, max_size=2, unique=True).map(tuple)


def _some(strategy: st.SearchStrategy[Any], one_in: int) -> st.SearchStrategy[tuple[Any, ...]]:
    """Nothing, or (one time in `one_in`) one or two of `strategy`."""
    many = st.lists(strategy, min_size=1, max_size=2).map(tuple)
    return st.one_of(*([st.just(())] * (one_in - 1)), many)


_LABEL_REQS = st.one_of(
    *(st.builds(Req, st.just(k), _one_of("In", "NotIn"), _subsets(v)) for k, v in POD_LABELS.items()),
    st.builds(Req, _one_of(*POD_LABELS), _one_of("Exists", "DoesNotExist")),
)
SELECTORS = st.one_of(
    _one_of(*(Selector(labels=(("app", v),)) for v in POD_LABELS["app"])),
    st.builds(Selector, exprs=st.lists(_LABEL_REQS, min_size=1, max_size=2).map(tuple)),
)
POD_TERMS = st.builds(
    PodTerm,
    SELECTORS,
    _one_of(*TOPOLOGY_KEYS),
    _one_of(None, None, ("default",), ("team",), ("default", "team")),
    _one_of(None, None, None, Selector(), Selector((("team", "yes"),))),
)
WEIGHTED_POD_TERMS = st.tuples(st.integers(1, 100), POD_TERMS)
_NODE_REQS = st.one_of(
    st.builds(Req, st.just(ZONE), _one_of("In", "NotIn"), _subsets(ZONES)),
    st.builds(Req, st.just("disk"), _one_of("Exists", "DoesNotExist")),
    st.builds(Req, st.just("disk"), st.just("In"), _subsets(("ssd", "hdd"))),
    st.builds(Req, st.just("gen"), _one_of("Gt", "Lt"), _one_of(("1",), ("2",), ("3",))),
)
_NODE_NAMES = tuple(f"node-{i}" for i in range(6))


@st.composite
def node_terms(draw: st.DrawFn, names: tuple[str, ...]) -> NodeTerm:
    exprs = draw(st.lists(_NODE_REQS, max_size=2))
    if draw(_CHANCE) == 0:
        exprs.append(Req(HOSTNAME, draw(_one_of("In", "NotIn")), draw(_subsets(names))))
    fields: tuple[Req, ...] = ()
    if not exprs or draw(_CHANCE) == 0:
        fields = (Req("metadata.name", draw(_one_of("In", "NotIn")), (draw(st.sampled_from(names)),)),)
    return NodeTerm(tuple(exprs), fields)


TOLERATIONS = st.one_of(
    st.builds(Toleration, _one_of(*TAINT_KEYS), st.just("Equal"), _one_of("x", "y"), _one_of("", *EFFECTS)),
    st.builds(Toleration, _one_of(*TAINT_KEYS), st.just("Exists"), st.just(""), _one_of("", *EFFECTS)),
    st.just(Toleration(UNSCHEDULABLE_TAINT, "Exists", "", "NoSchedule")),
    st.just(Toleration("", "Exists")),
)
TAINTS = st.builds(Taint, _one_of(*TAINT_KEYS), _one_of("x", "y", ""), _one_of(*EFFECTS))
_TAINT_LISTS = {
    n: st.lists(TAINTS, min_size=n, max_size=n, unique_by=lambda t: (t.key, t.effect)) for n in (0, 1, 2)
}


_ZONE_LABELS = _one_of(None, *ZONES, *ZONES)  # a node without a zone one time in seven


@st.composite
def allocatables(draw: st.DrawFn, crowded: bool) -> tuple[tuple[str, int], ...] | None:
    if not crowded and draw(st.integers(0, 6)) == 0:
        return None
    amounts = {
        "cpu": draw(_one_of(1000, 2000, 4000, 8000)),
        "memory": draw(_one_of(1024, 4096, 8192)),
        "pods": draw(st.integers(2, 3) if crowded else st.integers(2, 8)),
    }
    if draw(_BOOLS):
        amounts[EXT] = draw(st.integers(0, 3))
    return tuple(sorted(amounts.items()))


@st.composite
def nodes(draw: st.DrawFn, dra: bool, crowded: bool = False) -> tuple[NodeModel, ...]:
    """Sometimes (one time in five) the nodes are alike but for their names and zones, so that scores
    tie."""
    count = draw(st.integers(2, 3) if crowded else st.integers(2, 6))
    alike = draw(_CHANCE) == 0
    out: list[NodeModel] = []
    for name in _NODE_NAMES[:count]:
        labels = {HOSTNAME: name}
        zone = draw(_ZONE_LABELS)
        if zone is not None:
            labels[ZONE] = zone
        if alike and out:
            first = out[0]
            shared = {k: v for k, v in first.labels if k not in (HOSTNAME, ZONE)}
            out.append(NodeModel(name, tuple(sorted({**shared, **labels}.items())), *_rest(first)))
            continue
        if draw(_BOOLS):
            labels["disk"] = draw(_one_of("ssd", "hdd"))
        if draw(_BOOLS):
            labels["gen"] = draw(_one_of("1", "2", "3", "4"))
        taints = () if crowded else draw(_TAINT_LISTS[draw(_one_of(0, 0, 0, 0, 0, 0, 1, 1, 2))])
        allocatable = draw(allocatables(crowded))
        unschedulable = not crowded and draw(st.integers(0, 9)) == 0
        gpus = draw(st.integers(0, 3)) if dra else 0
        out.append(
            NodeModel(name, tuple(sorted(labels.items())), tuple(taints), unschedulable, allocatable, gpus)
        )
    return tuple(out)


def _rest(node: NodeModel) -> tuple[Any, ...]:
    return (node.taints, node.unschedulable, node.allocatable, node.gpus)


PORTS = st.builds(Port, _one_of(8080, 8081), _one_of("TCP", "UDP"), _one_of("", "127.0.0.1"))
_PORT_LISTS = _some(PORTS, 4).map(lambda found: found[:1])


def _containers(kind: str) -> st.SearchStrategy[Container]:
    return st.builds(
        Container,
        st.just(kind),
        _one_of(0, 100, 250, 500, 1000),
        _one_of(0, 64, 256, 512),
        _one_of(*([0] * 10), 1, 2),
        _PORT_LISTS,
    )


_MAINS = st.lists(_containers("main"), min_size=1, max_size=2)
_INITS = st.lists(st.one_of(_containers("init"), _containers("sidecar")), max_size=2)


@st.composite
def pod_containers(draw: st.DrawFn, rich: bool) -> tuple[Container, ...]:
    out = (draw(_INITS) if rich else []) + draw(_MAINS)
    # The API refuses two container ports with the same host port and protocol in one pod.
    seen: set[tuple[int, str]] = set()
    kept = []
    for c in out:
        ports = tuple(p for p in c.ports if (p.host_port, p.protocol) not in seen)
        seen.update((p.host_port, p.protocol) for p in ports)
        kept.append(Container(c.kind, c.cpu, c.memory, c.ext, ports))
    return tuple(kept)


POD_LABEL_SETS = st.fixed_dictionaries(
    {}, optional={k: st.sampled_from(v) for k, v in POD_LABELS.items()}
).map(lambda d: tuple(sorted(d.items())))
_NAMESPACE = _one_of(*NAMESPACES)
_BOUND_CLASSES = _one_of("", "low", "mid", "high")
_CROWDED_BOUND_CLASSES = _one_of("", "low", "low", "mid")
_ANTI_OF_BOUND = _some(POD_TERMS, 5)


@st.composite
def bound_pods(draw: st.DrawFn, names: tuple[str, ...], crowded: bool = False) -> tuple[PodModel, ...]:
    out = []
    where = st.sampled_from(names)
    for i in range(draw(st.integers(2 if crowded else 0, 6))):
        out.append(
            PodModel(
                f"run-{i}",
                draw(_NAMESPACE),
                draw(POD_LABEL_SETS),
                draw(pod_containers(False)),
                priority_class=draw(_CROWDED_BOUND_CLASSES if crowded else _BOUND_CLASSES),
                node_name=draw(where),
                anti_affinity=draw(_ANTI_OF_BOUND),
            )
        )
    return tuple(out)


_SPREAD_KEYS = st.tuples(_one_of(*TOPOLOGY_KEYS), _BOOLS)
_POLICIES = _one_of(None, "Honor", "Ignore")


@st.composite
def spreads(draw: st.DrawFn) -> tuple[Spread, ...]:
    out: dict[tuple[str, bool], Spread] = {}
    for _ in range(draw(_one_of(0, 0, 1, 1, 2))):
        key, hard = draw(_SPREAD_KEYS)
        # The API refuses two constraints with the same topologyKey and whenUnsatisfiable.
        out[(key, hard)] = Spread(
            draw(st.integers(1, 2)),
            key,
            hard,
            draw(SELECTORS),
            draw(_one_of(None, None, 2, 3)) if hard else None,
            draw(_POLICIES),
            draw(_POLICIES),
        )
    return tuple(out.values())


_CLASSES = _one_of("", "low", "mid", "high", "high-never")
_CROWDED_CLASSES = _one_of("mid", "high", "high", "high-never")
_NODE_SELECTORS = _one_of(*([()] * 12), ((ZONE, "a"),), (("disk", "ssd"),), (("gen", "2"),))
_OVERHEADS = _one_of(0, 0, 0, 50, 200)
_TOLERATION_SETS = _some(TOLERATIONS, 2)
_AFFINITY = _some(POD_TERMS, 5)
_ANTI_AFFINITY = _some(POD_TERMS, 4)
_PREFERRED = _some(WEIGHTED_POD_TERMS, 4)


@st.composite
def pending_pods(
    draw: st.DrawFn, names: tuple[str, ...], dra: bool, crowded: bool = False
) -> tuple[PodModel, ...]:
    out = []
    required_nodes = st.just(()) if crowded else _some(node_terms(names), 6)
    preferred_nodes = _some(st.tuples(st.integers(1, 100), node_terms(names)), 4)
    for i in range(draw(st.integers(1, 8))):
        out.append(
            PodModel(
                f"pod-{i}",
                draw(_one_of("default", "default", "team")),
                draw(POD_LABEL_SETS),
                draw(pod_containers(True)),
                overhead_cpu=draw(_OVERHEADS),
                priority_class=draw(_CROWDED_CLASSES if crowded else _CLASSES),
                tolerations=draw(_TOLERATION_SETS),
                node_selector=() if crowded else draw(_NODE_SELECTORS),
                required_node_terms=draw(required_nodes),
                preferred_node_terms=draw(preferred_nodes),
                affinity=draw(_AFFINITY),
                anti_affinity=draw(_ANTI_AFFINITY),
                preferred_affinity=draw(_PREFERRED),
                preferred_anti_affinity=draw(_PREFERRED),
                spread=draw(spreads()),
                gpu=(gpu := dra and draw(_BOOLS)),
                fixed_node=draw(st.sampled_from(names)) if gpu and draw(_CHANCE) == 0 else "",
            )
        )
    return tuple(out)


@st.composite
def clusters(draw: st.DrawFn, dra: bool | None = None, crowded: bool = False) -> ClusterModel:
    """`dra`: with a DRA part (True), without (False), or either (None). `crowded`: two or three small
    nodes, untainted and schedulable, already holding lower-priority pods, and pending pods of higher
    priority without node selection (preemption)."""
    with_dra = draw(st.integers(0, 2)) == 0 if dra is None else dra
    ns = draw(nodes(with_dra, crowded))
    names = tuple(n.name for n in ns)
    bound = draw(bound_pods(names, crowded))
    return ClusterModel(ns, bound, draw(pending_pods(names, with_dra, crowded)), with_dra)
