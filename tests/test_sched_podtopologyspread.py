"""PodTopologySpread: upstream's filtering_test.go and scoring_test.go tables as data (PreFilter state,
AddPod / RemovePod, Filter with one and several constraints, PreScore state, scores after
NormalizeScore), plus the plugin inside the framework runtime with nominated pods.

Nodes and pods are written as short specs: a node is `name` plus `key=value` labels ("host" stands for
kubernetes.io/hostname, a bare key has the empty value); a pod is `name @node labels...`. Critical paths
are (value, count, value, count), compared as upstream does: paths with equal counts in either order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from kubefit.model.cluster.args import LIST_DEFAULTING, DefaultSpreadConstraint, PodTopologySpreadArgs
from kubefit.model.cluster.facts import (
    HOSTNAME,
    Cluster,
    LabelSelector,
    Node,
    Pod,
    Requirement,
    SpreadConstraint,
)
from kubefit.model.cluster.points import FILTER, PRE_FILTER
from kubefit.model.cluster.profile import PluginEntry, PluginSet, Profile
from kubefit.model.terms import NodeRequirement, NodeSelectorTerm, Taint, Toleration
from kubefit.solver.cluster.framework import Code, CycleState, Handle, NodeInfo, Snapshot, Status
from kubefit.solver.cluster.plugins.podtopologyspread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    MAX_INT32,
    CriticalPaths,
    PreFilterState,
)
from kubefit.solver.cluster.plugins.podtopologyspread.plugin import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    PodTopologySpread,
)
from kubefit.solver.cluster.plugins.podtopologyspread.scoring import (
    PreScoreState,
    round_half_away,
    topology_normalizing_weight,
)
from kubefit.solver.cluster.runtime import Framework

# --- builders -------------------------------------------------------------------------------------------

DNS, SA = "DoNotSchedule", "ScheduleAnyway"
HONOR, IGNORE = "Honor", "Ignore"
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
FOO = LabelSelector((Requirement("foo", "Exists"),))
BAR = LabelSelector((Requirement("bar", "Exists"),))
LIST = PodTopologySpreadArgs(defaulting_type=LIST_DEFAULTING)


def eq(**labels: str) -> LabelSelector:
    """matchLabels."""
    return LabelSelector(tuple(Requirement(k, "In", frozenset({v})) for k, v in labels.items()))


def label_map(tokens: Sequence[str]) -> dict[str, str]:
    out = {}
    for token in tokens:
        key, _, value = token.partition("=")
        out[HOSTNAME if key == "host" else key] = value
    return out


def node(spec: str, tainted: bool = False) -> Node:
    name, *tokens = spec.split()
    return Node(name, label_map(tokens), taints=(UNSCHEDULABLE_TAINT,) if tainted else ())


def pod(spec: str, namespace: str = "default", terminating: bool = False) -> Pod:
    name, where, *tokens = spec.split()
    return Pod(namespace, name, name, label_map(tokens), node_name=where[1:], terminating=terminating)


def pods(*specs: str) -> tuple[Pod, ...]:
    """Pods in the default namespace, several to a spec when separated by commas."""
    return tuple(pod(s.strip()) for spec in specs for s in spec.split(",") if s.strip())


def spread(
    action: str,
    max_skew: int,
    key: str,
    selector: LabelSelector | None,
    min_domains: int = 1,
    affinity: str = HONOR,
    taints: str = IGNORE,
) -> SpreadConstraint:
    return SpreadConstraint(max_skew, key, action, selector, min_domains, affinity, taints)


def hard(*args: object, **kw: object) -> SpreadConstraint:
    return spread(DNS, *args, **kw)  # type: ignore[arg-type]


def soft(*args: object, **kw: object) -> SpreadConstraint:
    return spread(SA, *args, **kw)  # type: ignore[arg-type]


def node_in(key: str, *values: str) -> tuple[NodeSelectorTerm, ...]:
    return (NodeSelectorTerm((NodeRequirement(key, "In", values),)),)


def node_not_in(key: str, *values: str) -> tuple[NodeSelectorTerm, ...]:
    return (NodeSelectorTerm((NodeRequirement(key, "NotIn", values),)),)


def incoming(
    labels: str,
    *constraints: SpreadConstraint,
    node_selector: dict[str, str] | None = None,
    affinity: tuple[NodeSelectorTerm, ...] | None = None,
    tolerate_unschedulable: bool = False,
    default_selector: LabelSelector | None = None,
    namespace: str = "default",
) -> Pod:
    tolerations = (Toleration(UNSCHEDULABLE_TAINT.key, "Exists"),) if tolerate_unschedulable else ()
    return Pod(
        namespace,
        "p",
        "p-uid",
        label_map(labels.split()),
        node_selector=node_selector or {},
        required_node_affinity=affinity,
        tolerations=tolerations,
        spread_constraints=constraints,
        default_spread_selector=default_selector,
    )


def make_handle(nodes: Sequence[Node], existing: Sequence[Pod]) -> Handle:
    infos = {n.name: NodeInfo(n) for n in nodes}
    for p in existing:
        infos[p.node_name].add_pod(p)
    return Handle(Cluster(tuple(nodes), tuple(existing)), Snapshot(infos.values()))


def nodes_of(*specs: str, tainted: Sequence[str] = ()) -> tuple[Node, ...]:
    return tuple(node(s, s.split()[0] in tainted) for s in specs)


# The usual four nodes in two zones, each with a "node" label too.
ABXY = nodes_of(
    "node-a zone=zone1 node=node-a",
    "node-b zone=zone1 node=node-b",
    "node-x zone=zone2 node=node-x",
    "node-y zone=zone2 node=node-y",
)

Paths = tuple[str, int, str, int]
EMPTY_PATHS: Paths = ("", MAX_INT32, "", MAX_INT32)


def normalized(p: Paths) -> Paths:
    """Paths with equal counts compare in either order (upstream's criticalPaths comparer)."""
    v0, n0, v1, n1 = p
    return (v1, n0, v0, n1) if n0 == n1 and v0 > v1 else p


def paths_of(p: CriticalPaths) -> Paths:
    return normalized((p.first_value, p.first_count, p.second_value, p.second_count))


def prefilter(
    pod_: Pod, nodes: Sequence[Node], existing: Sequence[Pod], args: object = LIST
) -> tuple[PodTopologySpread, Handle, CycleState, Status | None]:
    handle = make_handle(nodes, existing)
    plugin = PodTopologySpread(handle, args)
    state = CycleState()
    _, status = plugin.pre_filter(state, pod_, handle.snapshot.nodes)
    return plugin, handle, state, status


def prefilter_state(state: CycleState) -> PreFilterState:
    s = state.read(PRE_FILTER_STATE_KEY)
    assert isinstance(s, PreFilterState)
    return s


# --- PreFilter state (TestPreFilterState) ---------------------------------------------------------------


@dataclass(frozen=True)
class StateCase:
    name: str
    pod: Pod
    nodes: tuple[Node, ...] = ABXY
    existing: tuple[Pod, ...] = ()
    counts: tuple[dict[str, int], ...] = ()
    paths: tuple[Paths, ...] = ()
    defaults: tuple[DefaultSpreadConstraint, ...] = ()
    constraints: tuple[SpreadConstraint, ...] = ()  # checked when given
    skip: bool = False


ABY = nodes_of(
    "node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b", "node-y zone=zone2 node=node-y"
)
FIVE_FOO = pods("p-a1 @node-a foo, p-a2 @node-a foo, p-b1 @node-b foo, p-y1 @node-y foo, p-y2 @node-y foo")
SEVEN_FOO = FIVE_FOO + pods("p-y3 @node-y foo", "p-y4 @node-y foo")
FIVE_FOO_A = pods(
    "p-a1 @node-a foo=a, p-a2 @node-a foo=a, p-b1 @node-b foo=a, p-y1 @node-y foo=a,", "p-y2 @node-y foo=a"
)
ABC_FOO = nodes_of("node-a node=node-a foo", "node-b node=node-b foo", "node-c node=node-c bar")
ABC_BAR = pods("p-a @node-a bar, p-b @node-b bar, p-c @node-b bar, p-d @node-c")
ABC_TAINTED = nodes_of(
    "node-a node=node-a", "node-b node=node-b", "node-c node=node-c bar", tainted=["node-c"]
)
SERVICE_DEFAULTS = (
    DefaultSpreadConstraint(3, "node", DNS),
    DefaultSpreadConstraint(2, "node", SA),
    DefaultSpreadConstraint(5, "rack", DNS),
)

PREFILTER_STATE_CASES = [
    StateCase(
        "a clean cluster has every domain at zero",
        incoming("foo", hard(5, "zone", eq(foo="bar"))),
        counts=({"zone1": 0, "zone2": 0},),
        paths=(("zone1", 0, "zone2", 0),),
    ),
    StateCase(
        "one constraint counts matching pods per zone",
        incoming("foo", hard(1, "zone", FOO)),
        existing=FIVE_FOO,
        counts=({"zone1": 3, "zone2": 2},),
        paths=(("zone2", 2, "zone1", 3),),
    ),
    StateCase(
        "a null selector counts nothing",
        incoming("foo", hard(1, "zone", None)),
        existing=FIVE_FOO,
        counts=({"zone1": 0, "zone2": 0},),
        paths=(("zone1", 0, "zone2", 0),),
    ),
    StateCase(
        "an empty third zone is the minimum",
        incoming("foo", hard(1, "zone", FOO)),
        nodes=ABXY + nodes_of("node-o zone=zone3 node=node-o", "node-p zone=zone3 node=node-p"),
        existing=FIVE_FOO,
        counts=({"zone1": 3, "zone2": 2, "zone3": 0},),
        paths=(("zone3", 0, "zone2", 2),),
    ),
    StateCase(
        "pods of another namespace are not counted",
        incoming("foo", hard(1, "zone", FOO)),
        existing=(
            pod("p-a1 @node-a foo"),
            pod("p-a2 @node-a foo", "ns1"),
            pod("p-b1 @node-b foo"),
            pod("p-y1 @node-y foo", "ns2"),
            pod("p-y2 @node-y foo"),
        ),
        counts=({"zone1": 2, "zone2": 1},),
        paths=(("zone2", 1, "zone1", 2),),
    ),
    StateCase(
        "two constraints count by zone and by node",
        incoming("foo", hard(1, "zone", FOO), hard(1, "node", FOO)),
        existing=SEVEN_FOO,
        counts=({"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}),
        paths=(("zone1", 3, "zone2", 4), ("node-x", 0, "node-b", 1)),
    ),
    StateCase(
        "soft constraints are left to scoring",
        incoming(
            "foo", soft(1, "zone", FOO), hard(1, "zone", FOO), soft(1, "node", FOO), hard(1, "node", FOO)
        ),
        nodes=ABY,
        existing=SEVEN_FOO,
        counts=({"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}),
        paths=(("zone1", 3, "zone2", 4), ("node-b", 1, "node-a", 2)),
    ),
    StateCase(
        "constraints with different selectors count different pods",
        incoming("foo bar", hard(1, "zone", FOO), hard(1, "node", BAR)),
        nodes=ABY,
        existing=pods("p-a @node-a foo", "p-b @node-b bar"),
        counts=({"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}),
        paths=(("zone2", 0, "zone1", 1), ("node-a", 0, "node-y", 0)),
    ),
    StateCase(
        "constraints with different selectors over pods matching one or both",
        incoming("foo bar", hard(1, "zone", FOO), hard(1, "node", BAR)),
        nodes=ABY,
        existing=pods(
            "p-a1 @node-a foo, p-a2 @node-a foo bar, p-b1 @node-b foo, p-y1 @node-y foo,",
            "p-y2 @node-y foo bar, p-y3 @node-y foo, p-y4 @node-y foo bar",
        ),
        counts=({"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}),
        paths=(("zone1", 3, "zone2", 4), ("node-b", 0, "node-a", 1)),
    ),
    StateCase(
        "a node outside the pod's node affinity is no domain",
        incoming("foo", hard(1, "zone", FOO), hard(1, "node", FOO), affinity=node_not_in("node", "node-x")),
        existing=SEVEN_FOO,
        counts=({"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}),
        paths=(("zone1", 3, "zone2", 4), ("node-b", 1, "node-a", 2)),
    ),
    StateCase(
        "a pod without constraints gets the hard default constraints with its service's selector",
        incoming("foo=bar baz=kar", default_selector=eq(foo="bar")),
        nodes=(),
        defaults=SERVICE_DEFAULTS,
        constraints=(hard(3, "node", eq(foo="bar")), hard(5, "rack", eq(foo="bar"))),
        counts=({}, {}),
        paths=(EMPTY_PATHS, EMPTY_PATHS),
    ),
    StateCase(
        "default constraints need a service or controller selecting the pod",
        incoming("foo=bar"),
        nodes=(),
        defaults=(DefaultSpreadConstraint(3, "node", DNS),),
        skip=True,
    ),
    StateCase(
        "a pod with its own constraints gets no default ones",
        incoming("foo=bar baz=tar", hard(1, "zone", eq(baz="tar")), soft(2, "planet", eq(fot="rok"))),
        nodes=(),
        defaults=(DefaultSpreadConstraint(2, "node", DNS),),
        constraints=(hard(1, "zone", eq(baz="tar")),),
        counts=({},),
        paths=(EMPTY_PATHS,),
    ),
    StateCase(
        "soft default constraints leave nothing to filter",
        incoming("foo=bar", default_selector=eq(foo="bar")),
        nodes=(),
        defaults=(DefaultSpreadConstraint(2, "node", SA),),
        skip=True,
    ),
    StateCase(
        "every constraint knows its own number of domains",
        incoming("foo", hard(1, "zone", FOO), hard(1, "node", FOO)),
        existing=SEVEN_FOO,
        counts=({"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}),
        paths=(("zone1", 3, "zone2", 4), ("node-x", 0, "node-b", 1)),
    ),
    StateCase(
        "the honored node affinity policy drops nodes outside the node selector",
        incoming("foo", hard(1, "node", BAR), node_selector={"foo": ""}),
        nodes=ABC_FOO,
        existing=ABC_BAR,
        counts=({"node-a": 1, "node-b": 2},),
        paths=(("node-a", 1, "node-b", 2),),
    ),
    StateCase(
        "the ignored node affinity policy keeps nodes outside the node selector",
        incoming("foo", hard(1, "node", BAR, affinity=IGNORE), node_selector={"foo": ""}),
        nodes=ABC_FOO,
        existing=ABC_BAR,
        counts=({"node-a": 1, "node-b": 2, "node-c": 0},),
        paths=(("node-c", 0, "node-a", 1),),
    ),
    StateCase(
        "the honored node affinity policy drops nodes outside the required node affinity",
        incoming("foo", hard(1, "node", BAR), affinity=node_in("foo", "")),
        nodes=ABC_FOO,
        existing=pods("p-a @node-a bar, p-c @node-b bar, p-d @node-b bar, p-e @node-c"),
        counts=({"node-a": 1, "node-b": 2},),
        paths=(("node-a", 1, "node-b", 2),),
    ),
    StateCase(
        "the ignored node affinity policy keeps nodes outside the required node affinity",
        incoming("foo", hard(1, "node", BAR, affinity=IGNORE), affinity=node_in("foo", "")),
        nodes=ABC_FOO,
        existing=ABC_BAR,
        counts=({"node-a": 1, "node-b": 2, "node-c": 0},),
        paths=(("node-c", 0, "node-a", 1),),
    ),
    StateCase(
        "the ignored taints policy keeps a tainted node",
        incoming("foo", hard(1, "node", BAR)),
        nodes=ABC_TAINTED,
        existing=ABC_BAR,
        counts=({"node-a": 1, "node-b": 2, "node-c": 0},),
        paths=(("node-c", 0, "node-a", 1),),
    ),
    StateCase(
        "the honored taints policy drops a node with an untolerated taint",
        incoming("foo", hard(1, "node", BAR, taints=HONOR)),
        nodes=ABC_TAINTED,
        existing=ABC_BAR,
        counts=({"node-a": 1, "node-b": 2},),
        paths=(("node-a", 1, "node-b", 2),),
    ),
    StateCase(
        "the honored taints policy keeps a node whose taint the pod tolerates",
        incoming("foo", hard(1, "node", BAR, taints=HONOR), tolerate_unschedulable=True),
        nodes=ABC_TAINTED,
        existing=ABC_BAR,
        counts=({"node-a": 1, "node-b": 2, "node-c": 0},),
        paths=(("node-c", 0, "node-a", 1),),
    ),
    StateCase(
        "zone honors the node selector while node ignores it",
        incoming(
            "foo", hard(1, "zone", FOO), hard(1, "node", FOO, affinity=IGNORE), node_selector={"foo": ""}
        ),
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a foo",
            "node-b zone=zone1 node=node-b",
            "node-x zone=zone2 node=node-x foo",
        ),
        existing=pods("p-b1 @node-b foo, p-b2 @node-b foo, p-x1 @node-x foo"),
        counts=({"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}),
        paths=(("zone1", 0, "zone2", 1), ("node-a", 0, "node-x", 1)),
    ),
    StateCase(
        "zone honors taints while node ignores them",
        incoming("foo", hard(1, "zone", FOO, taints=HONOR), hard(1, "node", FOO)),
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a foo",
            "node-b zone=zone1 node=node-b",
            "node-x zone=zone2 node=node-x foo",
            tainted=["node-b"],
        ),
        existing=pods("p-b1 @node-b foo, p-b2 @node-b foo, p-x1 @node-x foo"),
        counts=({"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}),
        paths=(("zone1", 0, "zone2", 1), ("node-a", 0, "node-x", 1)),
    ),
    StateCase(
        "both constraints honor the node selector and ignore taints",
        incoming("foo", hard(1, "zone", FOO), hard(1, "node", FOO), node_selector={"foo": ""}),
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a",
            "node-b zone=zone1 node=node-b foo",
            "node-x zone=zone2 node=node-x foo",
            "node-y zone=zone2 node=node-y",
            tainted=["node-b"],
        ),
        existing=pods("p-a1 @node-a foo, p-a2 @node-a foo, p-x1 @node-x foo, p-y1 @node-y foo"),
        counts=({"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}),
        paths=(("zone1", 0, "zone2", 1), ("node-b", 0, "node-x", 1)),
    ),
    StateCase(
        "zone ignores both policies while node honors both",
        incoming(
            "foo",
            hard(1, "zone", FOO, affinity=IGNORE),
            hard(1, "node", FOO, taints=HONOR),
            node_selector={"foo": ""},
        ),
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a",
            "node-b zone=zone1 node=node-b foo",
            "node-x zone=zone2 node=node-x foo",
            "node-y zone=zone2 node=node-y foo",
            tainted=["node-b"],
        ),
        existing=pods(
            "p-a1 @node-a foo, p-a2 @node-a foo, p-x1 @node-x foo, p-x2 @node-x foo, p-y1 @node-y foo"
        ),
        counts=({"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}),
        paths=(("zone1", 2, "zone2", 3), ("node-y", 1, "node-x", 2)),
    ),
    StateCase(
        "match label keys are ANDed with a non-empty selector",
        incoming("foo bar=a", hard(1, "zone", LabelSelector(FOO.requirements + eq(bar="a").requirements))),
        existing=pods(
            "p-a1 @node-a foo, p-a2 @node-a foo bar=a, p-b1 @node-b foo, p-y1 @node-y foo bar=a,",
            "p-y2 @node-y bar",
        ),
        counts=({"zone1": 1, "zone2": 1},),
        paths=(("zone1", 1, "zone2", 1),),
    ),
    StateCase(
        "match label keys make an empty selector select the pod's own value",
        incoming("foo=a", hard(1, "zone", eq(foo="a"))),
        existing=FIVE_FOO_A,
        counts=({"zone1": 3, "zone2": 2},),
        paths=(("zone2", 2, "zone1", 3),),
    ),
    StateCase(
        "match label keys leave a null selector selecting nothing",
        incoming("foo", hard(1, "zone", None)),
        existing=FIVE_FOO_A,
        counts=({"zone1": 0, "zone2": 0},),
        paths=(("zone1", 0, "zone2", 0),),
    ),
    StateCase(
        "a match label key the pod does not have adds nothing",
        incoming("foo", hard(1, "zone", FOO)),
        existing=FIVE_FOO_A,
        counts=({"zone1": 3, "zone2": 2},),
        paths=(("zone2", 2, "zone1", 3),),
    ),
    StateCase(
        "two constraints on the same key keep separate counts",
        incoming("foo bar", hard(1, "zone", FOO), hard(1, "zone", BAR)),
        existing=pods(
            "p-a1 @node-a foo bar, p-b1 @node-b foo, p-x1 @node-x bar, p-y1 @node-y foo bar,",
            "p-y2 @node-y bar",
        ),
        counts=({"zone1": 2, "zone2": 1}, {"zone1": 1, "zone2": 3}),
        paths=(("zone2", 1, "zone1", 2), ("zone1", 1, "zone2", 3)),
    ),
    StateCase(
        "a pod without constraints and without defaults is skipped",
        incoming("foo"),
        nodes=ABXY[:1],
        skip=True,
    ),
]


@pytest.mark.parametrize("case", PREFILTER_STATE_CASES, ids=lambda c: c.name)
def test_prefilter_state(case: StateCase) -> None:
    args = PodTopologySpreadArgs(case.defaults, LIST_DEFAULTING)
    _, _, state, status = prefilter(case.pod, case.nodes, case.existing, args)
    if case.skip:
        assert status is not None and status.code == Code.SKIP
        assert state.read(PRE_FILTER_STATE_KEY) is None
        return
    assert status is None
    s = prefilter_state(state)
    if case.constraints:
        assert s.constraints == case.constraints
    assert tuple(s.counts) == case.counts
    assert tuple(paths_of(p) for p in s.paths) == tuple(normalized(p) for p in case.paths)


def test_system_defaults_are_soft_so_prefilter_skips() -> None:
    p = incoming("foo", default_selector=FOO)
    _, _, _, status = prefilter(p, ABXY, FIVE_FOO, None)
    assert status is not None and status.code == Code.SKIP


# --- AddPod / RemovePod (TestPreFilterStateAddPod, TestPreFilterStateRemovePod) -------------------------


@dataclass(frozen=True)
class UpdateCase:
    name: str
    preemptor: Pod
    changed: Pod
    node: str
    nodes: tuple[Node, ...]
    existing: tuple[Pod, ...]
    counts: tuple[dict[str, int], ...]
    paths: tuple[Paths, ...]


ONE_NODE = incoming("foo", hard(1, "node", FOO))
ZONE_AND_NODE = incoming("foo", hard(1, "zone", FOO), hard(1, "node", FOO))
ZONE_FOO_NODE_BAR = incoming("foo bar", hard(1, "zone", FOO), hard(1, "node", BAR))
ONE_ZONE = incoming("foo", hard(1, "zone", FOO))
AB_SAME_ZONE = nodes_of("node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b")
AX = nodes_of("node-a zone=zone1 node=node-a", "node-x zone=zone2 node=node-x")
ABX = nodes_of(
    "node-a zone=zone1 node=node-a", "node-b zone=zone1 node=node-b", "node-x zone=zone2 node=node-x"
)
AB_FOO_LABELS = nodes_of("node-a zone=zone1 node=node-a foo=bar", "node-b zone=zone2 node=node-b foo")
NOT_ON_FOO_BAR = incoming("foo", hard(1, "zone", FOO), affinity=node_not_in("foo", "bar"))

ADD_CASES = [
    UpdateCase(
        "adding to an empty cluster moves the minimum to the other node",
        ONE_NODE,
        pod("p-a1 @node-a foo"),
        "node-a",
        AB_SAME_ZONE,
        (),
        ({"node-a": 1, "node-b": 0},),
        (("node-b", 0, "node-a", 1),),
    ),
    UpdateCase(
        "adding to the only empty node raises the minimum",
        ONE_NODE,
        pod("p-a1 @node-a foo"),
        "node-a",
        AB_SAME_ZONE,
        pods("p-b1 @node-b foo"),
        ({"node-a": 1, "node-b": 1},),
        (("node-a", 1, "node-b", 1),),
    ),
    UpdateCase(
        "adding a pod of another namespace changes nothing",
        ONE_NODE,
        pod("p-a1 @node-a foo", "ns1"),
        "node-a",
        AB_SAME_ZONE,
        pods("p-b1 @node-b foo"),
        ({"node-a": 0, "node-b": 1},),
        (("node-a", 0, "node-b", 1),),
    ),
    UpdateCase(
        "adding to a node above the minimum keeps the minimum",
        ONE_NODE,
        pod("p-b2 @node-b foo"),
        "node-b",
        AB_SAME_ZONE,
        pods("p-b1 @node-b foo"),
        ({"node-a": 0, "node-b": 2},),
        (("node-a", 0, "node-b", 2),),
    ),
    UpdateCase(
        "adding to an empty cluster moves both minima",
        ZONE_AND_NODE,
        pod("p-a1 @node-a foo"),
        "node-a",
        AX,
        (),
        ({"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}),
        (("zone2", 0, "zone1", 1), ("node-x", 0, "node-a", 1)),
    ),
    UpdateCase(
        "adding to the empty node raises both minima",
        ZONE_AND_NODE,
        pod("p-a1 @node-a foo"),
        "node-a",
        AX,
        pods("p-x1 @node-x foo"),
        ({"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}),
        (("zone1", 1, "zone2", 1), ("node-a", 1, "node-x", 1)),
    ),
    UpdateCase(
        "adding raises the node minimum but not the zone one",
        ZONE_AND_NODE,
        pod("p-a1 @node-a foo"),
        "node-a",
        ABX,
        pods("p-b1 @node-b foo, p-b2 @node-b foo, p-x1 @node-x foo"),
        ({"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}),
        (("zone2", 1, "zone1", 3), ("node-a", 1, "node-x", 1)),
    ),
    UpdateCase(
        "an added pod counts only for the constraint whose selector it matches",
        ZONE_FOO_NODE_BAR,
        pod("p-a1 @node-a foo"),
        "node-a",
        ABX,
        pods("p-b1 @node-b foo bar, p-x1 @node-x foo bar, p-x2 @node-x bar"),
        ({"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}),
        (("zone2", 1, "zone1", 2), ("node-a", 0, "node-b", 1)),
    ),
    UpdateCase(
        "an added pod matching both selectors counts for both constraints",
        ZONE_FOO_NODE_BAR,
        pod("p-a1 @node-a foo bar"),
        "node-a",
        ABX,
        pods("p-b1 @node-b bar, p-x1 @node-x foo bar, p-x2 @node-x bar"),
        ({"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}),
        (("zone1", 1, "zone2", 1), ("node-a", 1, "node-b", 1)),
    ),
    UpdateCase(
        "adding on a node outside the preemptor's node affinity changes nothing",
        NOT_ON_FOO_BAR,
        pod("p-a1 @node-a foo zone=zone1"),
        "node-a",
        AB_FOO_LABELS,
        pods("p-a2 @node-a foo zone=zone1", "p-b1 @node-b foo zone=zone2"),
        ({"zone2": 1},),
        (("zone2", 1, "", MAX_INT32),),
    ),
    UpdateCase(
        "adding on a node inside the preemptor's node affinity counts",
        ONE_ZONE,
        pod("p-b1 @node-b foo zone=zone2"),
        "node-b",
        AB_FOO_LABELS,
        pods("p-a1 @node-a foo zone=zone1", "p-b2 @node-b foo zone=zone2"),
        ({"zone1": 1, "zone2": 2},),
        (("zone1", 1, "zone2", 2),),
    ),
    UpdateCase(
        "adding a pod the selector does not match changes nothing",
        ONE_ZONE,
        pod("p-b1 @node-b zone=zone2"),
        "node-b",
        AB_FOO_LABELS,
        pods("p-a1 @node-a foo zone=zone1", "p-b2 @node-b foo zone=zone2"),
        ({"zone1": 1, "zone2": 1},),
        (("zone1", 1, "zone2", 1),),
    ),
    UpdateCase(
        "adding counts although another node has a taint the preemptor tolerates",
        incoming("foo", hard(1, "zone", FOO), tolerate_unschedulable=True),
        pod("p-b1 @node-b foo zone=zone2"),
        "node-b",
        nodes_of("node-a zone=zone1 node=node-a", "node-b zone=zone2 node=node-b", tainted=["node-a"]),
        pods("p-a1 @node-a foo zone=zone1", "p-b2 @node-b foo zone=zone2"),
        ({"zone1": 1, "zone2": 2},),
        (("zone1", 1, "zone2", 2),),
    ),
]

ABXY_ONE_EACH = pods("p-a1 @node-a foo, p-b1 @node-b foo, p-x1 @node-x foo, p-y1 @node-y foo")

REMOVE_CASES = [
    UpdateCase(
        "removing from the fuller zone evens the zones",
        ONE_ZONE,
        pod("p-a1 @node-a foo"),
        "node-a",
        ABX,
        pods("p-a1 @node-a foo, p-b1 @node-b foo, p-x1 @node-x foo"),
        ({"zone1": 1, "zone2": 1},),
        (("zone1", 1, "zone2", 1),),
    ),
    UpdateCase(
        "removing makes the other zone the fuller one",
        ONE_ZONE,
        pod("p-a1 @node-a foo"),
        "node-a",
        ABXY,
        ABXY_ONE_EACH,
        ({"zone1": 1, "zone2": 2},),
        (("zone1", 1, "zone2", 2),),
    ),
    UpdateCase(
        "removing a pod the selector does not match changes nothing",
        ONE_ZONE,
        pod("p-a0 @node-a bar"),
        "node-a",
        ABXY,
        (pod("p-a0 @node-a bar"), *ABXY_ONE_EACH),
        ({"zone1": 2, "zone2": 2},),
        (("zone1", 2, "zone2", 2),),
    ),
    UpdateCase(
        "removing a pod that is not there and does not match changes nothing",
        ONE_ZONE,
        pod("p-a0 @node-a bar"),
        "node-a",
        ABXY,
        ABXY_ONE_EACH,
        ({"zone1": 2, "zone2": 2},),
        (("zone1", 2, "zone2", 2),),
    ),
    UpdateCase(
        "removing lowers both constraints' counts",
        ZONE_AND_NODE,
        pod("p-x1 @node-x foo"),
        "node-x",
        ABX,
        pods("p-a1 @node-a foo, p-a2 @node-a foo, p-b1 @node-b foo, p-x1 @node-x foo, p-x2 @node-x foo"),
        ({"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}),
        (("zone2", 1, "zone1", 3), ("node-b", 1, "node-x", 1)),
    ),
    UpdateCase(
        "removing on a node outside the preemptor's node affinity changes nothing",
        NOT_ON_FOO_BAR,
        pod("p-a1 @node-a foo zone=zone1"),
        "node-a",
        AB_FOO_LABELS,
        pods("p-a2 @node-a foo zone=zone1", "p-b1 @node-b foo zone=zone2"),
        ({"zone2": 1},),
        (("zone2", 1, "", MAX_INT32),),
    ),
    UpdateCase(
        "removing on a node inside the preemptor's node affinity counts, present or not",
        ONE_ZONE,
        pod("p-b1 @node-b foo zone=zone2"),
        "node-b",
        AB_FOO_LABELS,
        pods("p-a1 @node-a foo zone=zone1", "p-b2 @node-b foo zone=zone2"),
        ({"zone1": 1, "zone2": 0},),
        (("zone2", 0, "zone1", 1),),
    ),
]


def run_update(case: UpdateCase, delta: int) -> PreFilterState:
    plugin, handle, state, status = prefilter(case.preemptor, case.nodes, case.existing)
    assert status is None
    info = handle.snapshot.get(case.node)
    assert info is not None
    update = plugin.add_pod if delta > 0 else plugin.remove_pod
    assert update(state, case.preemptor, case.changed, info) is None
    return prefilter_state(state)


@pytest.mark.parametrize("case", ADD_CASES, ids=lambda c: c.name)
def test_add_pod(case: UpdateCase) -> None:
    s = run_update(case, 1)
    assert tuple(s.counts) == case.counts
    assert tuple(paths_of(p) for p in s.paths) == tuple(normalized(p) for p in case.paths)


@pytest.mark.parametrize("case", REMOVE_CASES, ids=lambda c: c.name)
def test_remove_pod(case: UpdateCase) -> None:
    s = run_update(case, -1)
    assert tuple(s.counts) == case.counts
    assert tuple(paths_of(p) for p in s.paths) == tuple(normalized(p) for p in case.paths)


def test_clone_keeps_counts_apart() -> None:
    plugin, handle, state, _ = prefilter(ONE_NODE, AB_SAME_ZONE, ())
    cloned = state.clone()
    info = handle.snapshot.get("node-a")
    assert info is not None
    plugin.add_pod(cloned, ONE_NODE, pod("p-a1 @node-a foo"), info)
    assert prefilter_state(state).counts == [{"node-a": 0, "node-b": 0}]
    assert prefilter_state(cloned).counts == [{"node-a": 1, "node-b": 0}]


def test_extensions_without_prefilter_state_fail() -> None:
    handle = make_handle(AB_SAME_ZONE, ())
    plugin = PodTopologySpread(handle, LIST)
    info = handle.snapshot.nodes[0]
    message = 'reading "PreFilterPodTopologySpread" from cycleState: not found'
    for status in (
        plugin.add_pod(CycleState(), ONE_NODE, pod("p-a1 @node-a foo"), info),
        plugin.filter(CycleState(), ONE_NODE, info),
    ):
        assert status is not None and status.code == Code.ERROR and status.message == message


# --- Filter (TestSingleConstraint, TestMultipleConstraints) ----------------------------------------------

OK, NO, LABEL = "ok", "unschedulable", "missing label"


@dataclass(frozen=True)
class FilterCase:
    name: str
    pod: Pod
    existing: tuple[Pod, ...] = ()
    nodes: tuple[Node, ...] = ABXY
    want: dict[str, str] = field(default_factory=dict)


def outcome(status: Status | None) -> str:
    if status is None:
        return OK
    if status.code == Code.UNSCHEDULABLE and status.reasons == (ERR_REASON_CONSTRAINTS_NOT_MATCH,):
        return NO
    if status.code == Code.UNRESOLVABLE and status.reasons == (ERR_REASON_NODE_LABEL_NOT_MATCH,):
        return LABEL
    return repr(status)


def codes(*values: str, names: str = "node-a node-b node-x node-y") -> dict[str, str]:
    return dict(zip(names.split(), values, strict=True))


SPREAD_2103 = pods(
    "p-a1 @node-a foo, p-a2 @node-a foo, p-b1 @node-b foo, p-y1 @node-y foo, p-y2 @node-y foo,",
    "p-y3 @node-y foo",
)
ABC_NODE = nodes_of("node-a node=node-a", "node-b node=node-b", "node-c node=node-c")
SPREAD_221 = pods("p-a1 @node-a foo, p-a2 @node-a foo, p-b1 @node-b foo, p-b2 @node-b foo, p-c1 @node-c foo")
ZONE_21 = pods("p-b1 @node-a foo, p-b2 @node-b foo, p-y1 @node-y foo")
ABX_FOO_Y_BARE = nodes_of(
    "node-a node=node-a foo", "node-b node=node-b foo", "node-x node=node-x foo", "node-y node=node-y"
)
ABX_Y_TAINTED = nodes_of(
    "node-a node=node-a foo",
    "node-b node=node-b foo",
    "node-x node=node-x foo",
    "node-y node=node-y",
    tainted=["node-y"],
)

SINGLE_CONSTRAINT_CASES = [
    FilterCase(
        "with no pods every node fits", incoming("foo", hard(1, "zone", FOO)), want=codes(OK, OK, OK, OK)
    ),
    FilterCase(
        "a pod its own selector does not match fits anywhere in an empty cluster",
        incoming("foo", hard(1, "zone", BAR)),
        want=codes(OK, OK, OK, OK),
    ),
    FilterCase(
        "pods of other namespaces do not count",
        incoming("foo", hard(1, "zone", FOO)),
        existing=(
            pod("p-a1 @node-a foo", "ns1"),
            pod("p-b1 @node-a foo", "ns2"),
            pod("p-x1 @node-x foo"),
            pod("p-y1 @node-y foo"),
        ),
        want=codes(OK, OK, NO, NO),
    ),
    FilterCase(
        "a null selector matches neither the pods nor the pod itself",
        incoming("foo", hard(1, "zone", None)),
        existing=pods("p-x1 @node-x foo", "p-y1 @node-y foo"),
        want=codes(OK, OK, OK, OK),
    ),
    FilterCase(
        "zones at 3/3 let every node fit",
        incoming("foo", hard(1, "zone", FOO)),
        existing=SPREAD_2103,
        want=codes(OK, OK, OK, OK),
    ),
    FilterCase(
        "a node without the zone label never fits and its pods do not count",
        incoming("foo", hard(1, "zone", FOO)),
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a",
            "node-b zon=zone1 node=node-b",
            "node-x zone=zone2 node=node-x",
            "node-y zone=zone2 node=node-y",
        ),
        existing=ABXY_ONE_EACH,
        want=codes(OK, LABEL, NO, NO),
    ),
    FilterCase(
        "no node has the rack label",
        incoming("foo", hard(1, "rack", FOO)),
        nodes=AX,
        want=codes(LABEL, LABEL, names="node-a node-x"),
    ),
    FilterCase(
        "nodes at 2/1/0/3 leave only the empty node",
        incoming("foo", hard(1, "node", FOO)),
        existing=SPREAD_2103,
        want=codes(NO, NO, OK, NO),
    ),
    FilterCase(
        "maxSkew 2 over nodes at 2/1/0/3 also admits the node with one",
        incoming("foo", hard(2, "node", FOO)),
        existing=SPREAD_2103,
        want=codes(NO, OK, OK, NO),
    ),
    FilterCase(
        "a pod that does not match itself adds nothing to the skew",
        incoming("bar", hard(1, "node", FOO)),
        existing=SPREAD_2103,
        want=codes(NO, OK, OK, NO),
    ),
    FilterCase(
        "node affinity narrows the domains to 2/3, so the node with two fits",
        incoming("foo", hard(1, "node", FOO), affinity=node_in("node", "node-a", "node-y")),
        existing=SPREAD_2103,
        want=codes(OK, OK, OK, NO),
    ),
    FilterCase(
        "terminating pods do not count",
        incoming("foo", hard(1, "node", FOO)),
        nodes=nodes_of("node-a node=node-a", "node-b node=node-b"),
        existing=(pod("p-a @node-a foo", terminating=True), pod("p-b @node-b foo")),
        want=codes(OK, NO, names="node-a node-b"),
    ),
    FilterCase(
        "node affinity leaves the pods of an excluded node out of its zone",
        incoming("foo", hard(1, "zone", FOO), affinity=node_not_in("node", "node-b")),
        existing=pods("p-b1 @node-b foo, p-b2 @node-b foo, p-y1 @node-y foo"),
        want=codes(OK, OK, NO, NO),
    ),
    FilterCase(
        "fewer domains than minDomains make the global minimum 0",
        incoming("foo", hard(2, "node", FOO, min_domains=4)),
        nodes=ABC_NODE,
        existing=SPREAD_221,
        want=codes(NO, NO, OK, names="node-a node-b node-c"),
    ),
    FilterCase(
        "as many domains as minDomains keep the real global minimum",
        incoming("foo", hard(2, "node", FOO, min_domains=2)),
        nodes=ABC_NODE,
        existing=SPREAD_221,
        want=codes(OK, OK, OK, names="node-a node-b node-c"),
    ),
    FilterCase(
        "two zones under minDomains 3 admit only the zone with one pod",
        incoming("foo", hard(2, "zone", FOO, min_domains=3)),
        existing=ZONE_21,
        want=codes(NO, NO, OK, OK),
    ),
    FilterCase(
        "two zones over minDomains 1 admit every node",
        incoming("foo", hard(2, "zone", FOO, min_domains=1)),
        existing=ZONE_21,
        want=codes(OK, OK, OK, OK),
    ),
    FilterCase(
        "the honored node affinity policy leaves the node outside the node selector out of the minimum",
        incoming("foo", hard(1, "node", FOO), node_selector={"foo": ""}),
        nodes=ABX_FOO_Y_BARE,
        existing=ZONE_21,
        want=codes(NO, NO, OK, OK),
    ),
    FilterCase(
        "the ignored node affinity policy counts the node outside the node selector",
        incoming("foo", hard(1, "node", FOO, affinity=IGNORE), node_selector={"foo": ""}),
        nodes=ABX_FOO_Y_BARE,
        existing=ZONE_21,
        want=codes(NO, NO, OK, NO),
    ),
    FilterCase(
        "the honored node affinity policy leaves the node outside the required affinity out",
        incoming("foo", hard(1, "node", FOO), affinity=node_in("foo", "")),
        nodes=ABX_FOO_Y_BARE,
        existing=ZONE_21,
        want=codes(NO, NO, OK, OK),
    ),
    FilterCase(
        "the ignored node affinity policy counts the node outside the required affinity",
        incoming("foo", hard(1, "node", FOO, affinity=IGNORE), affinity=node_in("foo", "")),
        nodes=ABX_FOO_Y_BARE,
        existing=ZONE_21,
        want=codes(NO, NO, OK, NO),
    ),
    FilterCase(
        "the honored taints policy leaves the tainted node out",
        incoming("foo", hard(1, "node", FOO, taints=HONOR)),
        nodes=ABX_Y_TAINTED,
        existing=ZONE_21,
        want=codes(NO, NO, OK, OK),
    ),
    FilterCase(
        "the ignored taints policy counts the tainted node",
        incoming("foo", hard(1, "node", FOO)),
        nodes=ABX_Y_TAINTED,
        existing=ZONE_21,
        want=codes(NO, NO, OK, NO),
    ),
]

SPREAD_2104 = SPREAD_2103 + pods("p-y4 @node-y foo")
ABXY_FOO_ONE_EACH_BUT_X = pods("p-a1 @node-a foo, p-b1 @node-b foo, p-y1 @node-y foo")
ZONE_BAR_ZONE_FOO = incoming("foo bar", hard(1, "zone", BAR), hard(1, "zone", FOO))

MULTIPLE_CONSTRAINTS_CASES = [
    FilterCase(
        "zones at 3/3 and nodes at 2/1/0/3 leave the empty node",
        ZONE_AND_NODE,
        existing=SPREAD_2103,
        want=codes(NO, NO, OK, NO),
    ),
    FilterCase(
        "zones at 3/4 and nodes at 2/1/0/4 leave no node",
        ZONE_AND_NODE,
        existing=SPREAD_2104,
        want=codes(NO, NO, NO, NO),
    ),
    FilterCase(
        "different selectors at 1/0 and 1/0/0/1 leave the second zone's empty node",
        ZONE_FOO_NODE_BAR,
        existing=pods("p-a1 @node-a foo", "p-y1 @node-y bar"),
        want=codes(NO, NO, OK, NO),
    ),
    FilterCase(
        "different selectors at 1/0 and 0/0/1/1 leave no node",
        ZONE_FOO_NODE_BAR,
        existing=pods("p-a1 @node-a foo, p-x1 @node-x bar, p-y1 @node-y bar"),
        want=codes(NO, NO, NO, NO),
    ),
    FilterCase(
        "different selectors at 2/3 and 1/0/0/1 leave the first zone's empty node",
        ZONE_FOO_NODE_BAR,
        existing=pods(
            "p-a1 @node-a foo, p-a2 @node-a foo bar, p-y1 @node-y foo, p-y2 @node-y foo bar,",
            "p-y3 @node-y foo",
        ),
        want=codes(NO, OK, NO, NO),
    ),
    FilterCase(
        "a pod not matching the zone selector is held by the node constraint only",
        incoming("bar", hard(1, "zone", FOO), hard(1, "node", BAR)),
        existing=pods("p-a1 @node-a foo, p-x1 @node-x bar, p-y1 @node-y bar"),
        want=codes(OK, OK, NO, NO),
    ),
    FilterCase(
        "a node missing the node label fails both ways",
        ZONE_AND_NODE,
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a",
            "node-b zone=zone1 node=node-b",
            "node-x zone=zone2",
            "node-y zone=zone2 node=node-y",
        ),
        existing=pods("p-a1 @node-a foo", "p-y3 @node-y foo"),
        want=codes(NO, OK, LABEL, NO),
    ),
    FilterCase(
        "zone honors the node selector while node ignores it",
        incoming(
            "foo", hard(1, "zone", FOO), hard(1, "node", FOO, affinity=IGNORE), node_selector={"foo": ""}
        ),
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a foo",
            "node-b zone=zone1 node=node-b foo",
            "node-x zone=zone2 node=node-x foo",
            "node-y zone=zone2 node=node-y",
        ),
        existing=ABXY_FOO_ONE_EACH_BUT_X,
        want=codes(NO, NO, OK, NO),
    ),
    FilterCase(
        "zone honors taints while node ignores them",
        incoming("foo", hard(1, "zone", FOO, taints=HONOR), hard(1, "node", FOO)),
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a foo",
            "node-b zone=zone1 node=node-b foo",
            "node-x zone=zone2 node=node-x foo",
            "node-y zone=zone2 node=node-y",
            tainted=["node-y"],
        ),
        existing=ABXY_FOO_ONE_EACH_BUT_X,
        want=codes(NO, NO, OK, NO),
    ),
    FilterCase(
        "both honor the node selector and ignore taints",
        incoming("foo", hard(1, "zone", FOO), hard(1, "node", FOO), node_selector={"foo": ""}),
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a foo",
            "node-b zone=zone1 node=node-b",
            "node-x zone=zone2 node=node-x foo",
            "node-y zone=zone2 node=node-y foo",
            tainted=["node-y"],
        ),
        existing=ABXY_FOO_ONE_EACH_BUT_X,
        want=codes(NO, OK, OK, NO),
    ),
    FilterCase(
        "zone honors both policies while node ignores both",
        incoming(
            "foo",
            hard(1, "zone", FOO, taints=HONOR),
            hard(1, "node", FOO, affinity=IGNORE),
            node_selector={"foo": ""},
        ),
        nodes=nodes_of(
            "node-a zone=zone1 node=node-a foo",
            "node-b zone=zone1 node=node-b",
            "node-x zone=zone2 node=node-x foo",
            "node-y zone=zone2 node=node-y foo",
            tainted=["node-y"],
        ),
        existing=ABXY_FOO_ONE_EACH_BUT_X,
        want=codes(NO, NO, OK, NO),
    ),
    FilterCase(
        "two zone constraints at 3/3 and 2/1 leave the second zone",
        ZONE_BAR_ZONE_FOO,
        existing=pods(
            "p-a1 @node-a foo bar, p-a2 @node-a foo, p-b1 @node-b foo bar, p-y1 @node-y foo,",
            "p-y2 @node-y foo bar, p-y3 @node-y foo",
        ),
        want=codes(NO, NO, OK, OK),
    ),
    FilterCase(
        "two zone constraints at 3/4 and 2/1 leave no node",
        ZONE_BAR_ZONE_FOO,
        existing=pods(
            "p-a1 @node-a foo bar, p-a2 @node-a foo, p-b1 @node-b foo bar, p-y1 @node-y foo,",
            "p-y2 @node-y foo bar, p-y3 @node-y foo, p-y4 @node-y foo",
        ),
        want=codes(NO, NO, NO, NO),
    ),
]


@pytest.mark.parametrize("case", SINGLE_CONSTRAINT_CASES + MULTIPLE_CONSTRAINTS_CASES, ids=lambda c: c.name)
def test_filter(case: FilterCase) -> None:
    plugin, handle, state, status = prefilter(case.pod, case.nodes, case.existing)
    assert status is None
    got = {info.name: outcome(plugin.filter(state, case.pod, info)) for info in handle.snapshot.nodes}
    assert got == case.want


# --- PreScore (TestPreScoreSkip, TestPreScoreStateEmptyNodes) --------------------------------------------


def prescore(
    pod_: Pod, candidates: Sequence[Node], failed: Sequence[Node], existing: Sequence[Pod], args: object
) -> tuple[PodTopologySpread, Handle, CycleState, Status | None]:
    handle = make_handle(tuple(candidates) + tuple(failed), existing)
    plugin = PodTopologySpread(handle, args)
    state = CycleState()
    filtered = [info for info in handle.snapshot.nodes if info.name in {n.name for n in candidates}]
    return plugin, handle, state, plugin.pre_score(state, pod_, filtered)


@pytest.mark.parametrize(
    "pod_, args",
    [
        pytest.param(incoming(""), LIST, id="a pod without soft constraints is not scored"),
        pytest.param(
            incoming("foo=bar baz=sup"),
            PodTopologySpreadArgs((DefaultSpreadConstraint(2, "planet", SA),), LIST_DEFAULTING),
            id="default constraints without a controller selecting the pod are not scored",
        ),
    ],
)
def test_prescore_skip(pod_: Pod, args: PodTopologySpreadArgs) -> None:
    _, _, _, status = prescore(pod_, nodes_of("node-a host=node-a planet=mars"), (), (), args)
    assert status is not None and status.code == Code.SKIP


def test_prescore_skips_an_empty_cluster() -> None:
    _, _, _, status = prescore(incoming("foo", soft(1, "zone", FOO)), (), (), (), LIST)
    assert status is not None and status.code == Code.SKIP


@dataclass(frozen=True)
class PreScoreCase:
    name: str
    pod: Pod
    nodes: tuple[Node, ...]
    constraints: tuple[SpreadConstraint, ...]
    counts: tuple[dict[str, int], ...]
    domains: tuple[int, ...]  # the size each weight is computed from
    ignored: frozenset[str] = frozenset()
    args: PodTopologySpreadArgs = LIST


ABX_HOST = nodes_of(
    "node-a zone=zone1 host=node-a", "node-b zone=zone1 host=node-b", "node-x zone=zone2 host=node-x"
)
ABX_FOO_HOST = nodes_of(
    "node-a zone=zone1 foo host=node-a", "node-b zone=zone1 foo host=node-b", "node-x zone=zone2 host=node-x"
)
ABX_X_TAINTED = nodes_of(
    "node-a zone=zone1 foo host=node-a",
    "node-b zone=zone1 foo host=node-b",
    "node-x zone=zone2 host=node-x",
    tainted=["node-x"],
)
TWO_ZONES = ({"zone1": 0, "zone2": 0},)


def zone_bar(**kw: str) -> SpreadConstraint:
    return soft(1, "zone", BAR, **kw)  # type: ignore[arg-type]


PRESCORE_STATE_CASES = [
    PreScoreCase(
        "zone domains are kept, hostname ones are counted per node",
        incoming("foo", soft(1, "zone", FOO), soft(1, HOSTNAME, FOO)),
        ABX_HOST,
        (soft(1, "zone", FOO), soft(1, HOSTNAME, FOO)),
        ({"zone1": 0, "zone2": 0}, {}),
        (2, 3),
    ),
    PreScoreCase(
        "a null selector still has its domains",
        incoming("foo", soft(1, "zone", None)),
        ABX_HOST,
        (soft(1, "zone", None),),
        TWO_ZONES,
        (2,),
    ),
    PreScoreCase(
        "a node without the zone label is ignored",
        incoming("foo", soft(1, "zone", FOO), soft(1, HOSTNAME, BAR)),
        nodes_of("node-a zone=zone1 host=node-a", "node-b zone=zone1 host=node-b", "node-x host=node-x"),
        (soft(1, "zone", FOO), soft(1, HOSTNAME, BAR)),
        ({"zone1": 0}, {}),
        (1, 2),
        frozenset({"node-x"}),
    ),
    PreScoreCase(
        "with the system defaults nodes without a zone form the empty zone",
        incoming("foo=tar baz=sup", default_selector=FOO),
        nodes_of(
            "node-a host=node-a topology.kubernetes.io/zone=mars",
            "node-b host=node-b topology.kubernetes.io/zone=mars",
            "node-c host=node-c",
            "node-d host=node-d",
        ),
        (soft(3, HOSTNAME, FOO), soft(5, "topology.kubernetes.io/zone", FOO)),
        ({}, {"mars": 0, "": 0}),
        (4, 2),
        args=PodTopologySpreadArgs(),
    ),
    PreScoreCase(
        "listed default constraints keep only the soft ones",
        incoming("foo=tar baz=sup", default_selector=FOO),
        nodes_of("node-a rack=rack1 host=node-a planet=mars"),
        (soft(1, HOSTNAME, FOO), soft(2, "planet", FOO)),
        ({}, {"mars": 0}),
        (1, 1),
        args=PodTopologySpreadArgs(
            (
                DefaultSpreadConstraint(1, HOSTNAME, SA),
                DefaultSpreadConstraint(2, "rack", DNS),
                DefaultSpreadConstraint(2, "planet", SA),
            ),
            LIST_DEFAULTING,
        ),
    ),
    PreScoreCase(
        "a pod with its own constraints gets no default ones",
        incoming(
            "foo=bar baz=sup", hard(1, "zone", BAR), soft(2, "planet", eq(baz="sup")), default_selector=FOO
        ),
        nodes_of("node-a planet=mars galaxy=andromeda"),
        (soft(2, "planet", eq(baz="sup")),),
        ({"mars": 0},),
        (1,),
        args=PodTopologySpreadArgs((DefaultSpreadConstraint(2, "galaxy", SA),), LIST_DEFAULTING),
    ),
    PreScoreCase(
        "the honored node affinity policy keeps every candidate's domain",
        incoming("foo", zone_bar(), node_selector={"foo": ""}),
        ABX_FOO_HOST,
        (zone_bar(),),
        TWO_ZONES,
        (2,),
    ),
    PreScoreCase(
        "the ignored node affinity policy keeps every candidate's domain",
        incoming("foo", zone_bar(affinity=IGNORE), node_selector={"foo": ""}),
        ABX_FOO_HOST,
        (zone_bar(affinity=IGNORE),),
        TWO_ZONES,
        (2,),
    ),
    PreScoreCase(
        "the honored node affinity policy with required affinity keeps every candidate's domain",
        incoming("foo", zone_bar(), affinity=node_in("foo", "")),
        ABX_FOO_HOST,
        (zone_bar(),),
        TWO_ZONES,
        (2,),
    ),
    PreScoreCase(
        "the ignored node affinity policy with required affinity keeps every candidate's domain",
        incoming("foo", zone_bar(affinity=IGNORE), affinity=node_in("foo", "")),
        ABX_FOO_HOST,
        (zone_bar(affinity=IGNORE),),
        TWO_ZONES,
        (2,),
    ),
    PreScoreCase(
        "the honored taints policy keeps every candidate's domain",
        incoming("foo", zone_bar(taints=HONOR)),
        ABX_X_TAINTED,
        (zone_bar(taints=HONOR),),
        TWO_ZONES,
        (2,),
    ),
    PreScoreCase(
        "the ignored taints policy keeps every candidate's domain",
        incoming("foo", zone_bar()),
        ABX_X_TAINTED,
        (zone_bar(),),
        TWO_ZONES,
        (2,),
    ),
]


@pytest.mark.parametrize("case", PRESCORE_STATE_CASES, ids=lambda c: c.name)
def test_prescore_state(case: PreScoreCase) -> None:
    _, _, state, status = prescore(case.pod, case.nodes, (), (), case.args)
    assert status is None
    s = state.read(PRE_SCORE_STATE_KEY)
    assert isinstance(s, PreScoreState)
    assert s.constraints == case.constraints
    assert s.ignored == case.ignored
    assert tuple(s.counts) == case.counts
    assert s.weights == [topology_normalizing_weight(size) for size in case.domains]


# --- Score and NormalizeScore (TestPodTopologySpreadScore) ----------------------------------------------


@dataclass(frozen=True)
class ScoreCase:
    name: str
    pod: Pod
    nodes: tuple[Node, ...]
    existing: tuple[Pod, ...]
    want: dict[str, int]
    failed: tuple[Node, ...] = ()


def hosts(*names: str, key: str = "host") -> tuple[Node, ...]:
    return nodes_of(*(f"{n} {key}={n}" for n in names))


HOST_1 = incoming("foo", soft(1, HOSTNAME, FOO))
SPREAD_2103_D = pods(
    "p-a1 @node-a foo, p-a2 @node-a foo, p-b1 @node-b foo, p-d1 @node-d foo, p-d2 @node-d foo,",
    "p-d3 @node-d foo",
)
SPREAD_4321 = pods(
    "p-a1 @node-a foo, p-a2 @node-a foo, p-a3 @node-a foo, p-a4 @node-a foo, p-b1 @node-b foo,",
    "p-b2 @node-b foo, p-b3 @node-b foo, p-c1 @node-c foo, p-c2 @node-c foo, p-d1 @node-d foo",
)
SPREAD_4213 = pods(
    "p-a1 @node-a foo, p-a2 @node-a foo, p-a3 @node-a foo, p-a4 @node-a foo, p-b1 @node-b foo,",
    "p-b2 @node-b foo, p-x1 @node-x foo, p-y1 @node-y foo, p-y2 @node-y foo, p-y3 @node-y foo",
)
ABCD = hosts("node-a", "node-b", "node-c", "node-d")
ZONE_HOST = nodes_of(
    "node-a zone=zone1 host=node-a",
    "node-b zone=zone1 host=node-b",
    "node-x zone=zone2 host=node-x",
    "node-y zone=zone2 host=node-y",
)
FOO_ZONE_BAR_HOST = incoming("foo bar", soft(1, "zone", FOO), soft(1, HOSTNAME, BAR))
SPREAD_MIXED = pods("p-a1 @node-a foo, p-b1 @node-b foo bar, p-y1 @node-y foo, p-y2 @node-y bar")
ABC_NODE_FOO = nodes_of("node-a node=node-a foo", "node-b node=node-b foo", "node-c node=node-c")
SPREAD_211 = pods("p-a1 @node-a foo, p-a2 @node-a foo, p-b1 @node-b foo, p-c1 @node-c foo")
ABCD_ZONES = nodes_of(
    "node-a zone=zone1 host=node-a",
    "node-b zone=zone1 host=node-b",
    "node-c zone=zone2 host=node-c",
    "node-d zone=zone2 host=node-d",
)


def scores(*values: int, names: str = "node-a node-b node-c node-d") -> dict[str, int]:
    return dict(zip(names.split(), values, strict=True))


SCORE_CASES = [
    ScoreCase(
        "with no pods both nodes score 100",
        HOST_1,
        hosts("node-a", "node-b"),
        (),
        scores(100, 100, names="node-a node-b"),
    ),
    ScoreCase(
        "a single candidate scores 100",
        HOST_1,
        hosts("node-a"),
        pods("p-a1 @node-a foo, p-a2 @node-a foo, p-b1 @node-b foo"),
        {"node-a": 100},
        failed=hosts("node-b"),
    ),
    ScoreCase(
        "nodes with as many matching pods score the same",
        HOST_1,
        hosts("node-a", "node-b"),
        pods("p-a1 @node-a foo", "p-b1 @node-b foo"),
        scores(100, 100, names="node-a node-b"),
    ),
    ScoreCase("nodes at 2/1/0/3 score by their counts", HOST_1, ABCD, SPREAD_2103_D, scores(20, 60, 100, 0)),
    ScoreCase(
        "a null selector counts nothing anywhere",
        incoming("foo", soft(1, HOSTNAME, None)),
        ABCD,
        SPREAD_2103_D,
        scores(100, 100, 100, 100),
    ),
    ScoreCase(
        "maxSkew 2 waters the differences down",
        incoming("foo", soft(2, HOSTNAME, FOO)),
        ABCD,
        SPREAD_2103_D,
        scores(33, 66, 100, 16),
    ),
    ScoreCase(
        "maxSkew 3 waters them down further",
        incoming("foo", soft(3, HOSTNAME, FOO)),
        ABCD,
        SPREAD_4321,
        scores(44, 66, 77, 100),
    ),
    ScoreCase(
        "the system defaults score nodes without a zone by hostname alone",
        incoming("foo", default_selector=eq(foo="")),
        ABCD,
        SPREAD_4321,
        scores(44, 66, 77, 100),
    ),
    ScoreCase(
        "a failed node's pods do not count for the candidates",
        HOST_1,
        hosts("node-a", "node-b", "node-x"),
        SPREAD_4213,
        scores(33, 83, 100, names="node-a node-b node-x"),
        failed=hosts("node-y"),
    ),
    ScoreCase(
        "a candidate without the hostname label scores 0",
        HOST_1,
        nodes_of("node-a host=node-a", "node-b n=node-b", "node-x host=node-x"),
        SPREAD_4213,
        scores(16, 0, 100, names="node-a node-b node-x"),
        failed=hosts("node-y"),
    ),
    ScoreCase(
        "a zone counts the pods of its failed nodes too",
        incoming("foo", soft(1, "zone", FOO)),
        ZONE_HOST[:3],
        SPREAD_4213,
        scores(75, 75, 100, names="node-a node-b node-x"),
        failed=ZONE_HOST[3:],
    ),
    ScoreCase(
        "zone and hostname constraints add up",
        incoming("foo", soft(1, "zone", FOO), soft(1, HOSTNAME, FOO)),
        nodes_of("node-a zone=zone1 host=node-a", "node-x zone=zone2 host=node-x"),
        pods(
            "p-a1 @node-a foo, p-a2 @node-a foo, p-b1 @node-b foo, p-x1 @node-x foo, p-x2 @node-x foo,",
            "p-y1 @node-y foo, p-y2 @node-y foo, p-y3 @node-y foo, p-y4 @node-y foo",
        ),
        scores(100, 63, names="node-a node-x"),
        failed=nodes_of("node-b zone=zone1 host=node-b", "node-y zone=zone2 host=node-y"),
    ),
    ScoreCase(
        "two zone constraints with different selectors add up",
        incoming("foo bar", soft(1, "zone", FOO), soft(1, "zone", BAR)),
        nodes_of("node-a zone=zone1", "node-x zone=zone2"),
        pods(
            "p-a1 @node-a foo bar, p-a2 @node-a foo, p-b1 @node-b foo bar, p-y1 @node-y foo,",
            "p-y2 @node-y foo bar, p-y3 @node-y foo",
        ),
        scores(85, 100, names="node-a node-x"),
        failed=nodes_of("node-b zone=zone1", "node-y zone=zone2"),
    ),
    ScoreCase(
        "zone and hostname constraints with different selectors",
        FOO_ZONE_BAR_HOST,
        ZONE_HOST,
        SPREAD_MIXED,
        scores(60, 20, 100, 60, names="node-a node-b node-x node-y"),
    ),
    ScoreCase(
        "zone and hostname constraints with different selectors and empty nodes",
        FOO_ZONE_BAR_HOST,
        ZONE_HOST,
        pods("p-b1 @node-b bar, p-x1 @node-x foo, p-y1 @node-y foo bar"),
        scores(100, 60, 40, 0, names="node-a node-b node-x node-y"),
    ),
    ScoreCase(
        "zone and hostname constraints with different selectors and a failed node",
        FOO_ZONE_BAR_HOST,
        ZONE_HOST[:3],
        SPREAD_MIXED,
        scores(50, 25, 100, names="node-a node-b node-x"),
        failed=ZONE_HOST[3:],
    ),
    ScoreCase(
        "pods of other namespaces do not count",
        HOST_1,
        hosts("node-a", "node-b"),
        (pod("p-a1 @node-a foo", "ns1"), *pods("p-a2 @node-a foo, p-b1 @node-b foo, p-b2 @node-b foo")),
        scores(100, 33, names="node-a node-b"),
    ),
    ScoreCase(
        "terminating pods do not count",
        HOST_1,
        hosts("node-a", "node-b"),
        (pod("p-a @node-a foo", terminating=True), pod("p-b @node-b foo")),
        scores(100, 0, names="node-a node-b"),
    ),
    ScoreCase(
        "minDomains does nothing to scoring",
        incoming("foo", soft(2, "node", FOO, min_domains=10)),
        hosts("node-a", "node-b", "node-c", key="node"),
        SPREAD_221,
        scores(75, 75, 100, names="node-a node-b node-c"),
    ),
    ScoreCase(
        "the honored node affinity policy leaves the node outside the node selector at zero",
        incoming("foo", soft(1, "node", FOO), node_selector={"foo": ""}),
        ABC_NODE_FOO,
        SPREAD_211,
        scores(0, 33, 100, names="node-a node-b node-c"),
    ),
    ScoreCase(
        "the ignored node affinity policy counts the node outside the node selector",
        incoming("foo", soft(1, "node", FOO, affinity=IGNORE), node_selector={"foo": ""}),
        ABC_NODE_FOO,
        SPREAD_211,
        scores(66, 100, 100, names="node-a node-b node-c"),
    ),
    ScoreCase(
        "the honored node affinity policy leaves the node outside the required affinity at zero",
        incoming("foo", soft(1, "node", FOO), affinity=node_in("foo", "")),
        ABC_NODE_FOO,
        SPREAD_211,
        scores(0, 33, 100, names="node-a node-b node-c"),
    ),
    ScoreCase(
        "the ignored node affinity policy counts the node outside the required affinity",
        incoming("foo", soft(1, "node", FOO, affinity=IGNORE), affinity=node_in("foo", "")),
        ABC_NODE_FOO,
        SPREAD_211,
        scores(66, 100, 100, names="node-a node-b node-c"),
    ),
    ScoreCase(
        "the honored taints policy leaves the tainted node at zero",
        incoming("foo", soft(1, "node", FOO, taints=HONOR)),
        nodes_of("node-a node=node-a", "node-b node=node-b", "node-c node=node-c", tainted=["node-c"]),
        SPREAD_211,
        scores(0, 33, 100, names="node-a node-b node-c"),
    ),
    ScoreCase(
        "the ignored taints policy counts the tainted node",
        incoming("foo", soft(1, "node", FOO)),
        nodes_of("node-a node=node-a", "node-b node=node-b", "node-c node=node-c", tainted=["node-c"]),
        SPREAD_211,
        scores(66, 100, 100, names="node-a node-b node-c"),
    ),
    ScoreCase(
        "match label keys on empty selectors select the pod's own values",
        incoming("foo bar", soft(1, "zone", eq(foo="")), soft(1, HOSTNAME, eq(bar=""))),
        ABCD_ZONES,
        pods("p-a1 @node-a foo, p-b1 @node-b foo bar, p-y1 @node-c foo, p-y2 @node-c bar"),
        scores(60, 20, 60, 100),
    ),
    ScoreCase(
        "match label keys are ANDed with a non-empty selector",
        incoming(
            "foo bar baz",
            soft(1, "zone", FOO),
            soft(1, HOSTNAME, LabelSelector(BAR.requirements + eq(baz="").requirements)),
        ),
        ABCD_ZONES,
        pods(
            "p-a1 @node-a foo, p-b1 @node-b foo bar baz, p-c1 @node-c foo, p-c2 @node-c bar,",
            "p-d3 @node-c bar baz",
        ),
        scores(60, 20, 60, 100),
    ),
]


@pytest.mark.parametrize("case", SCORE_CASES, ids=lambda c: c.name)
def test_score(case: ScoreCase) -> None:
    # Upstream runs these with the system defaults; only the one case without constraints uses them.
    plugin, handle, state, status = prescore(case.pod, case.nodes, case.failed, case.existing, None)
    assert status is None
    candidates = [info for info in handle.snapshot.nodes if info.name in case.want]
    got = {info.name: plugin.score(state, case.pod, info) for info in candidates}
    assert plugin.normalize(state, case.pod, got) is None
    assert got == case.want


@pytest.mark.parametrize(
    ("value", "rounded"), [(0.5, 1), (1.5, 2), (2.5, 3), (2.4999, 2), (5.545, 6), (0.0, 0)]
)
def test_rounding_is_half_away_from_zero(value: float, rounded: int) -> None:
    assert round_half_away(value) == rounded


def test_normalizing_weight_is_the_log_of_the_domains_plus_two() -> None:
    assert topology_normalizing_weight(3) == math.log(5)


# --- inside the framework ---------------------------------------------------------------------------------


def test_a_nominated_pod_counts_while_filtering_and_leaves_the_state_untouched() -> None:
    """RunFilterPluginsWithNominatedPods: a matching nominated pod on node-b raises node-b's domain to
    one above the empty node-a, so the incoming pod no longer fits there; without it, it does."""
    handle = make_handle(nodes_of("node-a node=node-a", "node-b node=node-b"), ())
    only = PluginSet((PluginEntry("PodTopologySpread"),))
    framework = Framework(Profile(plugins={PRE_FILTER: only, FILTER: only}), handle)
    state = CycleState()
    assert framework.run_pre_filter(state, ONE_NODE, handle.snapshot.nodes).status is None
    node_b = handle.snapshot.get("node-b")
    assert node_b is not None
    nominated = Pod("default", "n", "n-uid", {"foo": ""}, nominated_node="node-b")
    status = framework.run_filters_with_nominated(state, ONE_NODE, node_b, [nominated])
    assert status is not None and status.plugin == "PodTopologySpread"
    assert status.reasons == (ERR_REASON_CONSTRAINTS_NOT_MATCH,)
    assert framework.run_filters(state, ONE_NODE, node_b) is None
    assert prefilter_state(state).counts == [{"node-a": 0, "node-b": 0}]


def test_args_of_another_type_are_refused() -> None:
    with pytest.raises(TypeError, match="want args to be of type PodTopologySpreadArgs"):
        PodTopologySpread(make_handle((), ()), object())
