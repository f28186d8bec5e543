"""InterPodAffinity: upstream's filtering_test.go and scoring_test.go tables as data, plus kubefit's own cases.

Terms are built as the translation hands them over: namespaces resolved (the owner's own when neither
`namespaces` nor `namespaceSelector` is set), matchLabelKeys already merged. Upstream cases that test
label-syntax errors are not ported: kubefit rejects those when it reads the objects.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pytest

from kubefit.model.cluster.args import InterPodAffinityArgs
from kubefit.model.cluster.facts import (
    NAMESPACE_NAME,
    AffinityTerm,
    Cluster,
    LabelSelector,
    Node,
    Pod,
    Requirement,
    WeightedAffinityTerm,
)
from kubefit.model.cluster.profile import MULTI_POINT, PluginEntry, PluginSet, Profile
from kubefit.solver.cluster.framework import SKIP, Code, CycleState, Handle, NodeInfo, Snapshot, Status
from kubefit.solver.cluster.plugins.interpodaffinity import filtering, scoring
from kubefit.solver.cluster.plugins.interpodaffinity.plugin import InterPodAffinity
from kubefit.solver.cluster.runtime import Framework, FrameworkError

# --- builders ---------------------------------------------------------------------------------------


def In(key: str, *values: str) -> Requirement:
    return Requirement(key, "In", frozenset(values))


def NotIn(key: str, *values: str) -> Requirement:
    return Requirement(key, "NotIn", frozenset(values))


def Exists(key: str) -> Requirement:
    return Requirement(key, "Exists")


def Absent(key: str) -> Requirement:
    return Requirement(key, "DoesNotExist")


@dataclass(frozen=True)
class T:
    """A PodAffinityTerm before its namespaces are resolved against the pod that owns it."""

    topology_key: str
    requirements: tuple[Requirement, ...]
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    weight: int = 0

    def resolve(self, owner_namespace: str) -> AffinityTerm:
        own = not self.namespaces and self.namespace_selector is None
        names = frozenset({owner_namespace}) if own else frozenset(self.namespaces)
        return AffinityTerm(
            LabelSelector(self.requirements), self.topology_key, names, self.namespace_selector
        )


def t(
    key: str,
    *reqs: Requirement,
    weight: int = 0,
    namespaces: tuple[str, ...] = (),
    ns: LabelSelector | None = None,
) -> T:
    return T(key, reqs, namespaces, ns, weight)


@dataclass(frozen=True)
class Aff:
    """spec.affinity's pod parts: required and preferred (anti-)affinity terms."""

    required: tuple[T, ...] = ()
    anti: tuple[T, ...] = ()
    preferred: tuple[T, ...] = ()
    preferred_anti: tuple[T, ...] = ()


_names = itertools.count()


def pod(
    node: str = "",
    *,
    labels: Mapping[str, str] | None = None,
    ns: str = "",
    aff: Aff = Aff(),
    affinity: Sequence[T] = (),
    anti: Sequence[T] = (),
    name: str = "",
    terminating: bool = False,
) -> Pod:
    name = name or f"pod-{next(_names)}"
    return Pod(
        namespace=ns,
        name=name,
        uid=name,
        labels=dict(labels or {}),
        node_name=node,
        required_affinity=tuple(s.resolve(ns) for s in (*aff.required, *affinity)),
        required_anti_affinity=tuple(s.resolve(ns) for s in (*aff.anti, *anti)),
        preferred_affinity=tuple(WeightedAffinityTerm(s.resolve(ns), s.weight) for s in aff.preferred),
        preferred_anti_affinity=tuple(
            WeightedAffinityTerm(s.resolve(ns), s.weight) for s in aff.preferred_anti
        ),
        terminating=terminating,
    )


def node(name: str, labels: Mapping[str, str] | None = None) -> Node:
    return Node(name, dict(labels or {}))


def _namespace(name: str, team: str) -> tuple[str, dict[str, str]]:
    return name, {"team": team, NAMESPACE_NAME: name}


NAMESPACES = dict(
    [
        _namespace("subteam1.team1", "team1"),
        _namespace("subteam2.team1", "team1"),
        _namespace("subteam1.team2", "team2"),
        _namespace("subteam2.team2", "team2"),
    ]
)
TEAM1 = LabelSelector((In("team", "team1"),))


def setup(
    nodes: Sequence[Node], pods: Sequence[Pod], args: InterPodAffinityArgs | None = None
) -> tuple[InterPodAffinity, list[NodeInfo]]:
    infos = {n.name: NodeInfo(n) for n in nodes}
    for p in pods:
        infos[p.node_name].add_pod(p)
    snapshot = Snapshot(infos.values())
    handle = Handle(Cluster(nodes=tuple(nodes), bound=tuple(pods), namespaces=NAMESPACES), snapshot)
    return InterPodAffinity(handle, args or InterPodAffinityArgs()), snapshot.nodes


AFF = Status(Code.UNRESOLVABLE, ("node(s) didn't match pod affinity rules",))
ANTI = Status(Code.UNSCHEDULABLE, ("node(s) didn't match pod anti-affinity rules",))
EXIST = Status(Code.UNSCHEDULABLE, ("node(s) didn't satisfy existing pods anti-affinity rules",))


# --- filtering_test.go ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterCase:
    name: str
    pod: Pod
    nodes: tuple[Node, ...]
    want: tuple[Status | None, ...] = ()  # per node; unused when PreFilter skips
    pods: tuple[Pod, ...] = ()
    skip: bool = False


SECURITYSCAN = {"service": "securityscan"}
S1_SECURITY = {"security": "S1"}
NODE1 = node("node1", {"region": "r1", "zone": "z11"})
IN_SCAN = In("service", "securityscan", "value2")
IN_ANTIVIRUS = In("service", "antivirusscan", "value2")


def single(
    name: str, incoming: Pod, pods: Sequence[Pod] = (), want: Status | None = None, skip: bool = False
) -> FilterCase:
    return FilterCase(name, incoming, (NODE1,), (want,), tuple(pods), skip)


SINGLE_NODE = [
    single(
        "A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
        pod(),
        skip=True,
    ),
    single(
        "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
        pod(labels=S1_SECURITY, affinity=[t("region", IN_SCAN)]),
        [pod("node1", labels=SECURITYSCAN)],
    ),
    single(
        "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
        pod(labels=S1_SECURITY, affinity=[t("region", NotIn("service", "securityscan3", "value3"))]),
        [pod("node1", labels=SECURITYSCAN)],
    ),
    single(
        "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
        pod(labels=S1_SECURITY, affinity=[t("", IN_SCAN, namespaces=("DiffNameSpace",))]),
        [pod("node1", ns="ns", labels=SECURITYSCAN)],
        AFF,
    ),
    single(
        "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
        pod(labels=SECURITYSCAN, affinity=[t("", IN_ANTIVIRUS)]),
        [pod("node1", labels=SECURITYSCAN)],
        AFF,
    ),
    single(
        "satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution",
        pod(
            labels=S1_SECURITY,
            affinity=[
                t("region", Exists("service"), Absent("wrongkey")),
                t("region", In("service", "securityscan"), NotIn("service", "WrongValue")),
            ],
        ),
        [pod("node1", labels=SECURITYSCAN)],
    ),
    single(
        "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
        pod(
            labels=S1_SECURITY,
            affinity=[
                t("region", Exists("service"), Absent("wrongkey")),
                t("region", In("service", "securityscan2"), NotIn("service", "WrongValue")),
            ],
        ),
        [pod("node1", labels=SECURITYSCAN)],
        AFF,
    ),
    single(
        "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
        pod(labels=S1_SECURITY, affinity=[t("region", IN_SCAN)], anti=[t("node", IN_ANTIVIRUS)]),
        [pod("node1", labels=SECURITYSCAN)],
    ),
    single(
        "satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
        pod(labels=S1_SECURITY, affinity=[t("region", IN_SCAN)], anti=[t("node", IN_ANTIVIRUS)]),
        [pod("node1", labels=SECURITYSCAN, anti=[t("node", IN_ANTIVIRUS)])],
    ),
    single(
        "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
        pod(labels=S1_SECURITY, affinity=[t("region", IN_SCAN)], anti=[t("zone", IN_SCAN)]),
        [pod("node1", labels=SECURITYSCAN)],
        ANTI,
    ),
    single(
        "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
        pod(labels=SECURITYSCAN, affinity=[t("region", IN_SCAN)], anti=[t("node", IN_ANTIVIRUS)]),
        [pod("node1", labels=SECURITYSCAN, anti=[t("zone", IN_SCAN)])],
        EXIST,
    ),
    FilterCase(
        "pod matches its own Label in PodAffinity and that matches the existing pod Labels",
        pod(labels=SECURITYSCAN, affinity=[t("region", NotIn("service", "securityscan", "value2"))]),
        (NODE1, node("node2")),
        (AFF, AFF),
        (pod("node2", labels=SECURITYSCAN),),
    ),
    single(
        "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
        pod(labels=SECURITYSCAN),
        [pod("node1", labels=SECURITYSCAN, anti=[t("zone", IN_SCAN)])],
        EXIST,
    ),
    single(
        "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
        pod(labels=SECURITYSCAN),
        [pod("node1", labels=SECURITYSCAN, anti=[t("zone", NotIn("service", "securityscan", "value2"))])],
        skip=True,
    ),
    single(
        "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
        pod(labels=SECURITYSCAN, anti=[t("region", Exists("service")), t("region", Exists("security"))]),
        [pod("node1", labels=S1_SECURITY, anti=[t("zone", Exists("security"))])],
        ANTI,
    ),
    single(
        "PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
        pod(labels=SECURITYSCAN, anti=[t("zone", Exists("service")), t("zone", Exists("security"))]),
        [pod("node1", labels=S1_SECURITY, anti=[t("zone", Exists("security"))])],
        ANTI,
    ),
    single(
        "PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
        pod(labels=S1_SECURITY, anti=[t("zone", Exists("security"))]),
        [
            pod(
                "node1",
                labels=SECURITYSCAN,
                anti=[t("zone", Exists("service")), t("zone", Exists("security"))],
            )
        ],
        EXIST,
    ),
    single(
        "PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
        pod(labels={"abc": "", "xyz": ""}, anti=[t("zone", Exists("abc")), t("zone", Exists("def"))]),
        [
            pod(
                "node1",
                labels={"def": "", "xyz": ""},
                anti=[t("zone", Exists("abc")), t("zone", Exists("def"))],
            )
        ],
        ANTI,
    ),
    single(
        "PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
        pod(labels={"def": "", "xyz": ""}, anti=[t("zone", Exists("abc")), t("zone", Exists("def"))]),
        [
            pod(
                "node1",
                labels={"abc": "", "xyz": ""},
                anti=[t("zone", Exists("abc")), t("zone", Exists("def"))],
            )
        ],
        ANTI,
    ),
    single(
        "affinity with NamespaceSelector",
        pod(labels=S1_SECURITY, affinity=[t("region", IN_SCAN, ns=TEAM1)]),
        [pod("node1", ns="subteam1.team1", labels=SECURITYSCAN)],
    ),
    single(
        "affinity with non-matching NamespaceSelector",
        pod(labels=S1_SECURITY, affinity=[t("region", IN_SCAN, ns=TEAM1)]),
        [pod("node1", ns="subteam1.team2", labels=SECURITYSCAN)],
        AFF,
    ),
    single(
        "anti-affinity with matching NamespaceSelector",
        pod(ns="subteam1.team1", labels=S1_SECURITY, anti=[t("zone", IN_SCAN, ns=TEAM1)]),
        [pod("node1", ns="subteam2.team1", labels=SECURITYSCAN)],
        ANTI,
    ),
    single(
        "anti-affinity with matching all NamespaceSelector",
        pod(ns="subteam1.team1", labels=S1_SECURITY, anti=[t("zone", IN_SCAN, ns=LabelSelector())]),
        [pod("node1", ns="subteam2.team1", labels=SECURITYSCAN)],
        ANTI,
    ),
    single(
        "anti-affinity with non-matching NamespaceSelector",
        pod(ns="subteam1.team1", labels=S1_SECURITY, anti=[t("zone", IN_SCAN, ns=TEAM1)]),
        [pod("node1", ns="subteam1.team2", labels=SECURITYSCAN)],
    ),
]

CHINA = {"region": "China"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
INDIA = {"region": "India"}
FOO = {"foo": ""}
FOO_BAR = {"foo": "", "bar": ""}


def rz(name: str, region: str, zone: str) -> Node:
    return node(name, {"region": region, "zone": zone, "hostname": name})


AB_SAME_ZONE = (rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z1"))
AB = (rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2"))

MULTIPLE_NODES = [
    FilterCase(
        "A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
        pod(affinity=[t("region", In("foo", "bar"))]),
        (node("node1", CHINA), node("node2", CHINA_AZ1), node("node3", INDIA)),
        (None, None, AFF),
        (pod("node1", labels={"foo": "bar"}),),
    ),
    FilterCase(
        "The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
        pod(
            labels={"foo": "bar", "service": "securityscan"},
            affinity=[t("zone", In("foo", "bar")), t("zone", In("service", "securityscan"))],
        ),
        (node("nodeA", {"zone": "az1", "hostname": "h1"}), node("nodeB", {"zone": "az2", "hostname": "h2"})),
        (None, None),
        (pod("nodeA", labels={"foo": "bar"}),),
    ),
    FilterCase(
        "The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
        pod(
            labels={"foo": "bar", "service": "securityscan"},
            affinity=[t("zone", In("foo", "bar")), t("zone", In("service", "securityscan"))],
        ),
        (
            node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
            node("nodeB", {"zoneLabel": "az2", "hostname": "h2"}),
        ),
        (AFF, AFF),
        (pod("nodeA", labels={"foo": "bar"}),),
    ),
    FilterCase(
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
        pod(anti=[t("region", In("foo", "abc"))]),
        (
            node("nodeA", {"region": "r1", "hostname": "nodeA"}),
            node("nodeB", {"region": "r1", "hostname": "nodeB"}),
        ),
        (ANTI, ANTI),
        (pod("nodeA", labels={"foo": "abc"}),),
    ),
    FilterCase(
        "This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
        pod(anti=[t("region", In("foo", "abc")), t("zone", In("service", "securityscan"))]),
        (rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")),
        (ANTI, ANTI),
        (pod("nodeA", labels={"foo": "abc", "service": "securityscan"}),),
    ),
    FilterCase(
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
        pod(anti=[t("region", In("foo", "abc"))]),
        (node("nodeA", CHINA), node("nodeB", CHINA_AZ1), node("nodeC", INDIA)),
        (ANTI, ANTI, None),
        (pod("nodeA", labels={"foo": "abc"}),),
    ),
    FilterCase(
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
        pod(ns="NS1", labels={"foo": "123"}, anti=[t("region", In("foo", "bar"))]),
        (node("nodeA", CHINA), node("nodeB", CHINA_AZ1), node("nodeC", INDIA)),
        (ANTI, ANTI, None),
        (
            pod("nodeA", ns="NS1", labels={"foo": "bar"}),
            pod("nodeC", ns="NS2", anti=[t("region", In("foo", "123"))]),
        ),
    ),
    FilterCase(
        "Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
        pod(labels=FOO),
        AB_SAME_ZONE,
        pods=(pod("nodeA", anti=[t("invalid-node-label", Exists("foo"))]),),
        skip=True,
    ),
    FilterCase(
        "Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
        pod("nodeA", anti=[t("invalid-node-label", Exists("foo"))]),
        AB_SAME_ZONE,
        (None, None),
        (pod("nodeA", labels=FOO),),
    ),
    FilterCase(
        "Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
        pod(labels=FOO_BAR),
        AB,
        (EXIST, EXIST),
        (pod("nodeA", anti=[t("zone", Exists("foo"))]), pod("nodeA", anti=[t("region", Exists("bar"))])),
    ),
    FilterCase(
        "Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
        pod(anti=[t("zone", Exists("foo")), t("region", Exists("bar"))]),
        AB,
        (ANTI, ANTI),
        (pod("nodeA", labels=FOO), pod("nodeB", labels={"bar": ""})),
    ),
    FilterCase(
        "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
        pod(labels=FOO_BAR),
        AB,
        (EXIST, None),
        (pod("nodeA", anti=[t("invalid-node-label", Exists("foo")), t("zone", Exists("bar"))]),),
    ),
    FilterCase(
        "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
        pod(anti=[t("invalid-node-label", Exists("foo")), t("zone", Exists("bar"))]),
        AB,
        (ANTI, None),
        (pod("nodeA", labels=FOO_BAR, name="podA"),),
    ),
    FilterCase(
        "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
        pod(labels=FOO_BAR),
        AB,
        (EXIST, EXIST),
        (pod("nodeA", anti=[t("region", Exists("foo")), t("zone", Exists("bar"))]),),
    ),
    FilterCase(
        "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
        pod(anti=[t("region", Exists("foo")), t("zone", Exists("bar"))]),
        AB,
        (ANTI, ANTI),
        (pod("nodeA", labels=FOO_BAR),),
    ),
    FilterCase(
        "Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
        pod(labels=FOO_BAR),
        (*AB, rz("nodeC", "r1", "z3")),
        (EXIST, EXIST, None),
        (
            pod("nodeA", anti=[t("zone", Exists("foo")), t("zone", Exists("labelA"))]),
            pod("nodeB", anti=[t("zone", Exists("bar")), t("zone", Exists("labelB"))]),
        ),
    ),
    FilterCase(
        "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
        pod(affinity=[t("region", Exists("foo")), t("zone", Exists("bar"))]),
        AB_SAME_ZONE,
        (None, None),
        (pod("nodeA", labels=FOO_BAR, name="pod1"),),
    ),
    FilterCase(
        "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
        pod(affinity=[t("region", Exists("foo")), t("zone", Exists("bar"))]),
        AB,
        (AFF, AFF),
        (pod("nodeA", labels=FOO, name="pod1"), pod("nodeB", labels={"bar": ""}, name="pod2")),
    ),
]

KUBEFIT_FILTER = [
    FilterCase(
        "A terminating pod's required anti-affinity still keeps the incoming pod away",
        pod(labels=FOO),
        AB,
        (EXIST, None),
        (pod("nodeA", anti=[t("zone", Exists("foo"))], terminating=True),),
    ),
    FilterCase(
        "A pod whose affinity matches only itself may start its group on any node with the topology key",
        pod(labels={"app": "db"}, affinity=[t("zone", In("app", "db"))]),
        (*AB, node("nodeC", {"region": "r1"})),
        (None, None, AFF),
    ),
    FilterCase(
        "A pod that does not match its own affinity cannot start a group",
        pod(labels={"app": "web"}, affinity=[t("zone", In("app", "db"))]),
        AB,
        (AFF, AFF),
    ),
    FilterCase(
        "Once one pod matches anywhere the self-affinity exception no longer applies elsewhere",
        pod(labels={"app": "db"}, affinity=[t("zone", In("app", "db"))]),
        AB,
        (None, AFF),
        (pod("nodeA", labels={"app": "db"}),),
    ),
    FilterCase(
        "A matching pod on a node without the topology key counts nowhere, so the pod may start its group",
        pod(labels={"app": "db"}, affinity=[t("zone", In("app", "db"))]),
        (node("nodeA", {"region": "r1"}), rz("nodeB", "r1", "z2")),
        (AFF, None),
        (pod("nodeA", labels={"app": "db"}),),
    ),
    FilterCase(
        "Affinity is checked before anti-affinity, so a node failing both reports the affinity reason",
        pod(labels=FOO, affinity=[t("zone", Exists("bar"))], anti=[t("region", Exists("foo"))]),
        AB,
        (AFF, ANTI),
        (pod("nodeA", labels=FOO), pod("nodeB", labels={"bar": ""})),
    ),
]


@pytest.mark.parametrize("case", SINGLE_NODE + MULTIPLE_NODES + KUBEFIT_FILTER, ids=lambda c: c.name)
def test_filter(case: FilterCase) -> None:
    plugin, infos = setup(case.nodes, case.pods)
    state = CycleState()
    _, status = plugin.pre_filter(state, case.pod, infos)
    if case.skip:
        assert status == SKIP
        return
    assert status is None
    assert tuple(plugin.filter(state, case.pod, n) for n in infos) == case.want


def test_pods_on_nodes_outside_the_candidates_still_count() -> None:
    incoming = pod(labels={"app": "web"}, affinity=[t("zone", In("app", "db"))])
    plugin, infos = setup(AB_SAME_ZONE, [pod("nodeA", labels={"app": "db"})])
    state = CycleState()
    assert plugin.pre_filter(state, incoming, infos[1:]) == (None, None)
    assert plugin.filter(state, incoming, infos[1]) is None


def test_filter_without_pre_filter_state_is_an_error() -> None:
    plugin, infos = setup([node("node1")], [])
    status = plugin.filter(CycleState(), pod(), infos[0])
    assert status == Status(
        Code.ERROR, ('error reading "PreFilterInterPodAffinity" from cycleState: not found',)
    )
    assert plugin.add_pod(CycleState(), pod(), pod(), infos[0]) == status


# --- TestGetTPMapMatchingIncomingAffinityAntiAffinity ------------------------------------------------

HOST_A = node("nodeA", {"hostname": "nodeA"})
NORMAL_A, NORMAL_B, NORMAL_AB = ({k: "" for k in keys} for keys in (["aaa"], ["bbb"], ["aaa", "bbb"]))


def hx(*keys: str) -> list[T]:
    return [t("hostname", Exists(k)) for k in keys]


INCOMING_COUNTS = [
    ("nil test", None, pod(name="aaa-normal"), None, None),
    ("incoming pod without affinity/anti-affinity causes a no-op", NORMAL_A, pod(), None, None),
    (
        "no pod has label that violates incoming pod's affinity and anti-affinity",
        NORMAL_B,
        pod(affinity=hx("aaa"), anti=hx("aaa")),
        {},
        {},
    ),
    (
        "existing pod matches incoming pod's affinity and anti-affinity - single term case",
        NORMAL_A,
        pod(affinity=hx("aaa"), anti=hx("aaa")),
        {("hostname", "nodeA"): 1},
        {("hostname", "nodeA"): 1},
    ),
    (
        "existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
        NORMAL_AB,
        pod(affinity=hx("aaa", "bbb"), anti=hx("aaa")),
        {("hostname", "nodeA"): 2},
        {("hostname", "nodeA"): 1},
    ),
    (
        "existing pod not match incoming pod's affinity but matches anti-affinity",
        NORMAL_A,
        pod(affinity=hx("aaa", "bbb"), anti=hx("aaa", "bbb")),
        {},
        {("hostname", "nodeA"): 1},
    ),
    (
        "incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 1",
        NORMAL_AB,
        pod(affinity=hx("aaa", "ccc"), anti=hx("aaa", "ccc")),
        {},
        {("hostname", "nodeA"): 1},
    ),
    (
        "incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 2",
        NORMAL_B,
        pod(affinity=hx("aaa", "bbb"), anti=hx("aaa", "bbb")),
        {},
        {("hostname", "nodeA"): 1},
    ),
]


@pytest.mark.parametrize(
    ("name", "existing", "incoming", "affinity", "anti"), INCOMING_COUNTS, ids=[c[0] for c in INCOMING_COUNTS]
)
def test_incoming_pod_counts(
    name: str,
    existing: dict[str, str] | None,
    incoming: Pod,
    affinity: dict[tuple[str, str], int] | None,
    anti: dict[tuple[str, str], int] | None,
) -> None:
    pods = [] if existing is None else [pod("nodeA", labels=existing, name="normal")]
    plugin, infos = setup([HOST_A], pods)
    state = CycleState()
    _, status = plugin.pre_filter(state, incoming, infos)
    if affinity is None:
        # Nothing to count and nothing to check: the plugin skips Filter.
        assert status == SKIP
        return
    computed = state.read(filtering.PRE_FILTER_KEY)
    assert computed.affinity.pairs() == affinity
    assert computed.anti_affinity.pairs() == anti


# --- TestPreFilterStateAddRemovePod -----------------------------------------------------------------

SELECTOR1 = {"foo": "bar"}
ANTI_FOO_BAR = [t("region", In("foo", "bar"))]
COMPLEX = [t("region", In("foo", "bar", "buzz")), t("zone", NotIn("service", "bar", "security", "test"))]
THREE_NODES = (
    node("nodeA", {"region": "r1", "zone": "z11"}),
    node("nodeB", {"region": "r1", "zone": "z12"}),
    node("nodeC", {"region": "r2", "zone": "z21"}),
)


@dataclass(frozen=True)
class AddRemoveCase:
    name: str
    pending: Pod
    existing: tuple[Pod, ...]
    added: Pod
    want_anti: dict[tuple[str, str], int]
    want_affinity: dict[tuple[str, str], int] = field(default_factory=dict)


ADD_REMOVE = [
    AddRemoveCase(
        "preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
        pod(labels=SELECTOR1, anti=ANTI_FOO_BAR, name="pending"),
        (pod("nodeA", labels=SELECTOR1, name="p1"), pod("nodeC", anti=ANTI_FOO_BAR, name="p2")),
        pod("nodeB", labels=SELECTOR1, anti=ANTI_FOO_BAR, name="addedPod"),
        {("region", "r1"): 2},
    ),
    AddRemoveCase(
        "preFilterState anti-affinity terms with several topology keys are updated correctly after adding and removing a pod",
        pod(labels=SELECTOR1, anti=COMPLEX, name="pending"),
        (pod("nodeA", labels=SELECTOR1, name="p1"), pod("nodeC", anti=ANTI_FOO_BAR, name="p2")),
        pod("nodeA", labels=SELECTOR1, anti=COMPLEX, name="addedPod"),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1},
    ),
    AddRemoveCase(
        "preFilterState matching pod affinity and anti-affinity are updated correctly after adding and removing a pod",
        pod(labels=SELECTOR1, affinity=COMPLEX, name="pending"),
        (
            pod("nodeA", labels=SELECTOR1, name="p1"),
            pod("nodeC", anti=ANTI_FOO_BAR, affinity=COMPLEX, name="p2"),
        ),
        pod("nodeA", labels=SELECTOR1, anti=COMPLEX, name="addedPod"),
        {},
        {("region", "r1"): 2, ("zone", "z11"): 2},
    ),
]


def _counts(state: filtering.PreFilterState) -> tuple[dict[tuple[str, str], int], ...]:
    return state.existing_anti_affinity.pairs(), state.affinity.pairs(), state.anti_affinity.pairs()


@pytest.mark.parametrize("case", ADD_REMOVE, ids=lambda c: c.name)
def test_add_and_remove_pod_update_the_counts(case: AddRemoveCase) -> None:
    def computed(pods: Sequence[Pod]) -> tuple[InterPodAffinity, CycleState, list[NodeInfo]]:
        plugin, infos = setup(THREE_NODES, pods)
        state = CycleState()
        assert plugin.pre_filter(state, case.pending, infos) == (None, None)
        return plugin, state, infos

    _, with_all, _ = computed([*case.existing, case.added])
    plugin, state, infos = computed(case.existing)
    before = _counts(state.read(filtering.PRE_FILTER_KEY).clone())
    target = next(n for n in infos if n.name == case.added.node_name)

    assert plugin.add_pod(state, case.pending, case.added, target) is None
    after = state.read(filtering.PRE_FILTER_KEY)
    assert after.anti_affinity.pairs() == case.want_anti
    assert after.affinity.pairs() == case.want_affinity
    assert _counts(after) == _counts(with_all.read(filtering.PRE_FILTER_KEY))

    assert plugin.remove_pod(state, case.pending, case.added, target) is None
    assert _counts(state.read(filtering.PRE_FILTER_KEY)) == before


def test_removing_the_only_partner_lets_a_self_matching_pod_start_its_group() -> None:
    incoming = pod(labels={"app": "db"}, affinity=[t("zone", In("app", "db"))])
    partner = pod("nodeA", labels={"app": "db"})
    plugin, infos = setup(AB, [partner])
    state = CycleState()
    plugin.pre_filter(state, incoming, infos)
    assert plugin.filter(state, incoming, infos[1]) == AFF
    simulated = state.clone()
    plugin.remove_pod(simulated, incoming, partner, infos[0])
    assert plugin.filter(simulated, incoming, infos[1]) is None
    # The clone owns its counts: the cycle's state is untouched.
    assert plugin.filter(state, incoming, infos[1]) == AFF


def test_adding_a_pod_on_a_node_without_the_topology_key_counts_nothing() -> None:
    incoming = pod(labels=FOO)
    bare = node("bare", {"region": "r1"})
    plugin, infos = setup((bare, *AB), [pod("nodeA", anti=[t("zone", Exists("foo"))])])
    state = CycleState()
    plugin.pre_filter(state, incoming, infos)
    plugin.add_pod(state, incoming, pod("bare", anti=[t("zone", Exists("foo"))]), infos[0])
    assert state.read(filtering.PRE_FILTER_KEY).existing_anti_affinity.pairs() == {("zone", "z1"): 1}


def test_nominated_pod_with_anti_affinity_rejects_the_node_through_the_framework() -> None:
    profile = Profile(plugins={MULTI_POINT: PluginSet((PluginEntry("InterPodAffinity", 2),))})
    incoming = pod(labels=FOO, anti=[t("zone", Exists("bar"))])
    infos = [NodeInfo(n) for n in AB]
    handle = Handle(Cluster(nodes=AB, namespaces=NAMESPACES), Snapshot(infos))
    framework = Framework(profile, handle)
    state = CycleState()
    assert framework.run_pre_filter(state, incoming, infos).status is None
    nominated = pod("nodeB", anti=[t("zone", Exists("foo"))], name="nominated")
    rejected = framework.run_filters_with_nominated(state, incoming, infos[1], [nominated])
    assert rejected == EXIST.with_plugin("InterPodAffinity")
    # The nominated pod goes to nodeB only: nodeA (another zone) stays open.
    assert framework.run_filters_with_nominated(state, incoming, infos[0], []) is None
    assert not state.read(filtering.PRE_FILTER_KEY).existing_anti_affinity


# --- scoring_test.go --------------------------------------------------------------------------------

S1 = {"security": "S1"}
S2 = {"security": "S2"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
STAY_WITH_S1_IN_REGION = Aff(preferred=(t("region", In("security", "S1"), weight=5),))
STAY_WITH_S2_IN_REGION = Aff(preferred=(t("region", In("security", "S2"), weight=6),))
AFFINITY3 = Aff(
    preferred=(
        t("region", NotIn("security", "S1"), In("security", "S2"), weight=8),
        t("region", Exists("security"), Absent("wrongkey"), weight=2),
    )
)
HARD_AFFINITY = Aff(
    required=(
        t("region", In("security", "S1", "value2")),
        t("region", Exists("security"), Absent("wrongkey")),
    )
)
AWAY_FROM_S1_IN_AZ = Aff(preferred_anti=(t("az", In("security", "S1"), weight=5),))
AWAY_FROM_S2_IN_AZ = Aff(preferred_anti=(t("az", In("security", "S2"), weight=5),))
WITH_S1_AWAY_FROM_S2 = Aff(
    preferred=(t("region", In("security", "S1"), weight=8),),
    preferred_anti=(t("az", In("security", "S2"), weight=5),),
)
_NS_TERM = t("region", In("security", "S1"), weight=5, namespaces=("subteam2.team2",), ns=TEAM1)
AFFINITY_NS_SELECTOR = Aff(preferred=(_NS_TERM,))
ANTI_AFFINITY_NS_SELECTOR = Aff(preferred_anti=(_NS_TERM,))


@dataclass(frozen=True)
class ScoreCase:
    name: str
    pod: Pod
    nodes: tuple[Node, ...]
    want: tuple[int, ...] | None  # None: PreScore skips
    pods: tuple[Pod, ...] = ()
    args: InterPodAffinityArgs = field(default_factory=InterPodAffinityArgs)


def nodes(*labels: Mapping[str, str]) -> tuple[Node, ...]:
    return tuple(node(f"node{i}", lab) for i, lab in enumerate(labels, 1))


NS_PODS = (
    pod("node1", ns="subteam1.team1", labels=S1),
    pod("node1", ns="subteam1.team1", labels=S1),
)

PREFERRED = [
    ScoreCase(
        "all nodes are same priority as Affinity is nil", pod(labels=S1), nodes(CHINA, INDIA, AZ1), None
    ),
    ScoreCase(
        "Affinity: pod that matches topology key & pods in nodes will get high score comparing to others which doesn't match either pods in nodes or in topology key",
        pod(aff=STAY_WITH_S1_IN_REGION, labels=S1),
        nodes(CHINA, INDIA, AZ1),
        (100, 0, 0),
        (pod("node1", labels=S1), pod("node2", labels=S2), pod("node3", labels=S1)),
    ),
    ScoreCase(
        "All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
        pod(aff=STAY_WITH_S1_IN_REGION),
        nodes(CHINA, CHINA_AZ1, INDIA),
        (100, 100, 0),
        (pod("node1", labels=S1),),
    ),
    ScoreCase(
        "Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
        pod(aff=STAY_WITH_S2_IN_REGION, labels=S1),
        nodes(CHINA, INDIA, CHINA, CHINA, INDIA),
        (100, 0, 100, 100, 0),
        tuple(pod(n, labels=S2) for n in ("node1", "node1", "node2", "node3", "node4", "node5")),
    ),
    ScoreCase(
        "Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures",
        pod(aff=AFFINITY3, labels=S1),
        nodes(CHINA, INDIA, AZ1),
        (20, 100, 0),
        (pod("node1", labels=S1), pod("node2", labels=S2), pod("node3", labels=S1)),
    ),
    ScoreCase(
        "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
        pod(labels=S2),
        nodes(CHINA, INDIA, AZ1),
        (0, 100, 0),
        (
            pod("node1", aff=STAY_WITH_S1_IN_REGION, labels=S1),
            pod("node2", aff=STAY_WITH_S2_IN_REGION, labels=S2),
        ),
    ),
    ScoreCase(
        "Affinity symmetry with namespace selector",
        pod(ns="subteam1.team1", labels=S1),
        nodes(CHINA, INDIA, AZ1),
        (100, 0, 0),
        (
            pod("node1", aff=AFFINITY_NS_SELECTOR, labels=S1),
            pod("node2", aff=STAY_WITH_S2_IN_REGION, labels=S2),
        ),
    ),
    ScoreCase(
        "AntiAffinity symmetry with namespace selector",
        pod(ns="subteam1.team1", labels=S1),
        nodes(CHINA, INDIA, AZ1),
        (0, 100, 100),
        (
            pod("node1", aff=ANTI_AFFINITY_NS_SELECTOR, labels=S1),
            pod("node2", aff=STAY_WITH_S2_IN_REGION, labels=S2),
        ),
    ),
    ScoreCase(
        "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
        pod(labels=S1),
        nodes(CHINA, INDIA, AZ1),
        (100, 100, 0),
        (pod("node1", aff=HARD_AFFINITY, labels=S1), pod("node2", aff=HARD_AFFINITY, labels=S2)),
    ),
    ScoreCase(
        "Anti Affinity: pod that does not match existing pods in node will get high score",
        pod(aff=AWAY_FROM_S1_IN_AZ, labels=S1),
        nodes(AZ1, CHINA),
        (0, 100),
        (pod("node1", labels=S1), pod("node2", labels=S2)),
    ),
    ScoreCase(
        "Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others",
        pod(aff=AWAY_FROM_S1_IN_AZ, labels=S1),
        nodes(AZ1, CHINA),
        (0, 100),
        (pod("node1", labels=S1), pod("node2", labels=S1)),
    ),
    ScoreCase(
        "Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
        pod(aff=AWAY_FROM_S1_IN_AZ, labels=S1),
        nodes(AZ1, INDIA),
        (0, 100),
        (pod("node1", labels=S1), pod("node1", labels=S1), pod("node2", labels=S2)),
    ),
    ScoreCase(
        "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
        pod(labels=S2),
        nodes(AZ1, AZ2),
        (0, 100),
        (pod("node1", aff=AWAY_FROM_S2_IN_AZ, labels=S1), pod("node2", aff=AWAY_FROM_S1_IN_AZ, labels=S2)),
    ),
    ScoreCase(
        "Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
        pod(aff=WITH_S1_AWAY_FROM_S2, labels=S1),
        nodes(CHINA, AZ1),
        (100, 0),
        (pod("node1", labels=S1), pod("node2", labels=S1)),
    ),
    ScoreCase(
        "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
        pod(aff=WITH_S1_AWAY_FROM_S2, labels=S1),
        nodes(CHINA_AZ1, INDIA, CHINA, CHINA, INDIA),
        (100, 0, 100, 100, 0),
        tuple(pod(n, labels=S1) for n in ("node1", "node1", "node2", "node3", "node3", "node4", "node5")),
    ),
    ScoreCase(
        "Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
        pod(aff=WITH_S1_AWAY_FROM_S2, labels=S1),
        nodes(CHINA, AZ1, INDIA, AZ2),
        (100, 0, 100, 0),
        (
            pod("node1", labels=S1),
            pod("node2", labels=S2),
            pod("node3", aff=WITH_S1_AWAY_FROM_S2),
            pod("node4", aff=AWAY_FROM_S1_IN_AZ),
        ),
    ),
    ScoreCase(
        "Avoid panic when partial nodes in a topology don't have pods with affinity",
        pod(labels=S1),
        nodes(CHINA, CHINA),
        (0, 0),
        (pod("node1", labels=S1), pod("node2", aff=WITH_S1_AWAY_FROM_S2)),
    ),
    ScoreCase(
        "Affinity with pods matching NamespaceSelector",
        pod(aff=AFFINITY_NS_SELECTOR, ns="subteam1.team1", labels=S1),
        nodes(CHINA, INDIA),
        (100, 0),
        (
            *NS_PODS,
            pod("node1", ns="subteam1.team2", labels=S1),
            pod("node2", ns="subteam2.team1", labels=S1),
        ),
    ),
    ScoreCase(
        "Affinity with pods matching both NamespaceSelector and Namespaces fields",
        pod(aff=AFFINITY_NS_SELECTOR, ns="subteam1.team1", labels=S1),
        nodes(CHINA, INDIA),
        (100, 0),
        (
            *NS_PODS,
            pod("node1", ns="subteam2.team2", labels=S1),
            pod("node2", ns="subteam2.team1", labels=S1),
        ),
    ),
    ScoreCase(
        "Anti-affinity with pods matching NamespaceSelector",
        pod(aff=ANTI_AFFINITY_NS_SELECTOR, ns="subteam1.team1", labels=S1),
        nodes(CHINA, INDIA),
        (0, 100),
        (
            *NS_PODS,
            pod("node1", ns="subteam1.team2", labels=S1),
            pod("node2", ns="subteam2.team1", labels=S1),
        ),
    ),
    ScoreCase(
        "Anti-affinity with pods matching both NamespaceSelector and Namespaces fields",
        pod(aff=ANTI_AFFINITY_NS_SELECTOR, ns="subteam1.team1", labels=S1),
        nodes(CHINA, INDIA),
        (0, 100),
        (
            *NS_PODS,
            pod("node1", ns="subteam2.team2", labels=S1),
            pod("node2", ns="subteam2.team1", labels=S1),
        ),
    ),
    ScoreCase(
        "Ignore preferred terms of existing pods",
        pod(labels=S2),
        nodes(CHINA, INDIA),
        None,
        (
            pod("node1", aff=WITH_S1_AWAY_FROM_S2, labels=S1),
            pod("node2", aff=STAY_WITH_S2_IN_REGION, labels=S2),
        ),
        InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=True),
    ),
    ScoreCase(
        "Do not ignore preferred terms of existing pods",
        pod(labels=S2),
        nodes(CHINA, INDIA),
        (0, 100),
        (
            pod("node1", aff=WITH_S1_AWAY_FROM_S2, labels=S1),
            pod("node2", aff=STAY_WITH_S2_IN_REGION, labels=S2),
        ),
    ),
    ScoreCase("No nodes to score", pod(labels=S2), (), None),
]

HARD_POD_AFFINITY = Aff(
    required=(t("region", In("service", "S1"), namespaces=("", "subteam2.team2"), ns=TEAM1),)
)
HARD_PODS = (pod("node1", aff=HARD_POD_AFFINITY), pod("node2", aff=HARD_POD_AFFINITY))
SERVICE_S1 = {"service": "S1"}

HARD_WEIGHT = [
    ScoreCase(
        "with default weight", pod(labels=SERVICE_S1), nodes(CHINA, INDIA, AZ1), (100, 100, 0), HARD_PODS
    ),
    ScoreCase(
        "with zero weight",
        pod(labels=SERVICE_S1),
        nodes(CHINA, INDIA, AZ1),
        None,
        HARD_PODS,
        InterPodAffinityArgs(hard_pod_affinity_weight=0),
    ),
    ScoreCase(
        "with no matching namespace",
        pod(ns="subteam1.team2", labels=SERVICE_S1),
        nodes(CHINA, INDIA, AZ1),
        None,
        HARD_PODS,
    ),
    ScoreCase(
        "with matching NamespaceSelector",
        pod(ns="subteam1.team1", labels=SERVICE_S1),
        nodes(CHINA, INDIA, AZ1),
        (100, 100, 0),
        HARD_PODS,
    ),
    ScoreCase(
        "with matching Namespaces",
        pod(ns="subteam2.team2", labels=SERVICE_S1),
        nodes(CHINA, INDIA, AZ1),
        (100, 100, 0),
        HARD_PODS,
    ),
]

KUBEFIT_SCORE = [
    ScoreCase(
        "The hard pod affinity weight multiplies what existing pods' required affinity adds",
        pod(labels=S1, aff=AWAY_FROM_S2_IN_AZ),
        nodes(CHINA, INDIA, {"region": "India", "az": "az1"}),
        (100, 21, 0),
        (pod("node1", aff=HARD_AFFINITY), pod("node3", labels=S2)),
        InterPodAffinityArgs(hard_pod_affinity_weight=9),
    ),
    ScoreCase(
        "Ignoring existing pods' preferences still counts them when the pod has preferences of its own",
        pod(labels=S2, aff=AWAY_FROM_S1_IN_AZ),
        nodes(CHINA_AZ1, INDIA),
        (100, 0),
        (pod("node1", aff=STAY_WITH_S2_IN_REGION, labels=S1),),
        InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=True),
    ),
    ScoreCase(
        "Weights that cancel out still make PreScore score, and every node gets zero",
        pod(labels=S2, aff=Aff(preferred_anti=(t("region", In("security", "S2"), weight=6),))),
        nodes(CHINA, INDIA),
        (0, 0),
        (pod("node1", aff=STAY_WITH_S2_IN_REGION, labels=S2),),
    ),
    ScoreCase(
        "Terminating pods count like any other",
        pod(aff=STAY_WITH_S1_IN_REGION),
        nodes(CHINA, INDIA),
        (100, 0),
        (pod("node1", labels=S1, terminating=True),),
    ),
]


@pytest.mark.parametrize("case", PREFERRED + HARD_WEIGHT + KUBEFIT_SCORE, ids=lambda c: c.name)
def test_score(case: ScoreCase) -> None:
    plugin, infos = setup(case.nodes, case.pods, case.args)
    state = CycleState()
    status = plugin.pre_score(state, case.pod, infos)
    if case.want is None:
        assert status == SKIP
        return
    assert status is None
    scores = {n.name: plugin.score(state, case.pod, n) for n in infos}
    assert plugin.normalize(state, case.pod, scores) is None
    assert tuple(scores[n.name] for n in infos) == case.want


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ({"a": 0, "b": 29, "c": 100}, {"a": 0, "b": 28, "c": 100}),  # 100 * 0.29 is 28.999999999999996
        ({"a": -5, "b": 0, "c": 10}, {"a": 0, "b": 33, "c": 100}),
        ({"a": 7, "b": 7}, {"a": 0, "b": 0}),
        ({"a": -3, "b": -1}, {"a": 0, "b": 100}),
    ],
    ids=[
        "Scaling truncates the float64 product as upstream does",
        "Negative raw scores shift to zero",
        "Equal raw scores all become zero",
        "All-negative raw scores still spread from zero to the maximum",
    ],
)
def test_normalize(raw: dict[str, int], want: dict[str, int]) -> None:
    scoring.normalize(raw)
    assert raw == want


def test_score_without_pre_score_state_stops_the_cycle() -> None:
    plugin, infos = setup([node("node1")], [])
    with pytest.raises(FrameworkError, match="PreScoreInterPodAffinity"):
        plugin.score(CycleState(), pod(), infos[0])
