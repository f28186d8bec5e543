"""The simple kube-scheduler plugins (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
NodePorts, ImageLocality, PrioritySort, SchedulingGates), with upstream's unit-test tables ported as
data: reasons are upstream's exact strings, scores exact integers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from kubefit.model.cluster import names
from kubefit.model.cluster.args import NodeAffinityArgs
from kubefit.model.cluster.facts import Cluster, HostPort, ImageState, Node, Pod
from kubefit.model.cluster.profile import MULTI_POINT, PluginEntry, PluginSet, Profile
from kubefit.model.terms import NodeRequirement, NodeSelectorTerm, PreferredNodeTerm, Taint, Toleration
from kubefit.solver.cluster.framework import (
    Code,
    CycleState,
    Handle,
    NodeInfo,
    QueuedPod,
    Snapshot,
    Status,
)
from kubefit.solver.cluster.plugins.image_locality import MB, ImageLocality
from kubefit.solver.cluster.plugins.node_affinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
    RequiredNodeAffinity,
    compile_preferred,
    go_int,
)
from kubefit.solver.cluster.plugins.node_name import NodeName
from kubefit.solver.cluster.plugins.node_ports import NodePorts, fits, pre_filter_state
from kubefit.solver.cluster.plugins.node_unschedulable import NodeUnschedulable
from kubefit.solver.cluster.plugins.queue_sort import PrioritySort
from kubefit.solver.cluster.plugins.scheduling_gates import SchedulingGates
from kubefit.solver.cluster.plugins.taint_toleration import TaintToleration
from kubefit.solver.cluster.runtime import Framework

UNRESOLVABLE = Code.UNRESOLVABLE
UNSCHEDULABLE = Code.UNSCHEDULABLE
Outcome = tuple[Code, tuple[str, ...]] | None


def make_pod(name: str = "p", **fields: Any) -> Pod:
    return Pod("default", name, f"uid-{name}", **fields)


def make_node(name: str = "node", **fields: Any) -> Node:
    return Node(name, **fields)


def info(node: Node, *pods: Pod) -> NodeInfo:
    out = NodeInfo(node)
    for p in pods:
        out.add_pod(p)
    return out


def handle_for(nodes: Sequence[Node], images: Mapping[str, ImageState] | None = None) -> Handle:
    return Handle(Cluster(tuple(nodes), images=images or {}), Snapshot(NodeInfo(n) for n in nodes))


def outcome(status: Status | None) -> Outcome:
    if status is None or status.code == Code.SUCCESS:
        return None
    return status.code, status.reasons


def expr(key: str, operator: str, *values: str) -> NodeRequirement:
    return NodeRequirement(key, operator, values)


def name_in(*values: str) -> NodeRequirement:
    return NodeRequirement("metadata.name", "In", values)


def term(*expressions: NodeRequirement, fields: Sequence[NodeRequirement] = ()) -> NodeSelectorTerm:
    return NodeSelectorTerm(tuple(expressions), tuple(fields))


# --- NodeUnschedulable ----------------------------------------------------------------------------------

UNSCHEDULABLE_TOLERATION = Toleration("node.kubernetes.io/unschedulable", effect="NoSchedule")


@pytest.mark.parametrize(
    ("pod", "unschedulable", "want"),
    [
        pytest.param(
            make_pod(),
            True,
            (UNRESOLVABLE, ("node(s) were unschedulable",)),
            id="a pod is not scheduled to an unschedulable node",
        ),
        pytest.param(make_pod(), False, None, id="a pod is scheduled to a normal node"),
        pytest.param(
            make_pod(tolerations=(UNSCHEDULABLE_TOLERATION,)),
            True,
            None,
            id="a pod tolerating the unschedulable taint is scheduled to an unschedulable node",
        ),
    ],
)
def test_node_unschedulable(pod: Pod, unschedulable: bool, want: Outcome) -> None:
    node = make_node(unschedulable=unschedulable)
    plugin = NodeUnschedulable(handle_for([node]))
    assert outcome(plugin.filter(CycleState(), pod, info(node))) == want


# --- NodeName -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("node_name", "want"),
    [
        pytest.param("", None, id="a pod without a node name fits any node"),
        pytest.param("foo", None, id="a pod naming the node fits it"),
        pytest.param(
            "bar",
            (UNRESOLVABLE, ("node(s) didn't match the requested node name",)),
            id="a pod naming another node does not fit",
        ),
    ],
)
def test_node_name(node_name: str, want: Outcome) -> None:
    node = make_node("foo")
    plugin = NodeName(handle_for([node]))
    assert outcome(plugin.filter(CycleState(), make_pod(node_name=node_name), info(node))) == want


# --- TaintToleration ------------------------------------------------------------------------------------

UNTOLERATED = (UNRESOLVABLE, ("node(s) had untolerated taint(s)",))


def taint(key: str, value: str, effect: str) -> Taint:
    return Taint(key, value, effect)


FILTER_CASES = [
    pytest.param(
        (),
        (taint("dedicated", "user1", "NoSchedule"),),
        UNTOLERATED,
        id="a pod without tolerations does not fit a tainted node",
    ),
    pytest.param(
        (Toleration("dedicated", value="user1", effect="NoSchedule"),),
        (taint("dedicated", "user1", "NoSchedule"),),
        None,
        id="a pod tolerating the dedicated taint of user1 fits",
    ),
    pytest.param(
        (Toleration("dedicated", "Equal", "user2", "NoSchedule"),),
        (taint("dedicated", "user1", "NoSchedule"),),
        UNTOLERATED,
        id="a pod tolerating another value of the taint does not fit",
    ),
    pytest.param(
        (Toleration("foo", "Exists", effect="NoSchedule"),),
        (taint("foo", "bar", "NoSchedule"),),
        None,
        id="an Exists toleration tolerates any value of its key",
    ),
    pytest.param(
        (
            Toleration("dedicated", "Equal", "user2", "NoSchedule"),
            Toleration("foo", "Exists", effect="NoSchedule"),
        ),
        (taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")),
        None,
        id="every taint tolerated by one of several tolerations fits",
    ),
    pytest.param(
        (Toleration("foo", "Equal", "bar", "PreferNoSchedule"),),
        (taint("foo", "bar", "NoSchedule"),),
        UNTOLERATED,
        id="a toleration of another effect does not tolerate the taint",
    ),
    pytest.param(
        (Toleration("foo", "Equal", "bar"),),
        (taint("foo", "bar", "NoSchedule"),),
        None,
        id="a toleration without an effect tolerates every effect",
    ),
    pytest.param(
        (Toleration("dedicated", "Equal", "user2", "NoSchedule"),),
        (taint("dedicated", "user1", "PreferNoSchedule"),),
        None,
        id="an untolerated PreferNoSchedule taint does not filter",
    ),
    pytest.param(
        (),
        (taint("dedicated", "user1", "PreferNoSchedule"),),
        None,
        id="a pod without tolerations fits a node with only PreferNoSchedule taints",
    ),
    # TaintTolerationComparisonOperators is off: Gt / Lt tolerations tolerate nothing.
    pytest.param(
        (Toleration("node.kubernetes.io/sla", "Gt", "750", "NoSchedule"),),
        (taint("node.kubernetes.io/sla", "950", "NoSchedule"),),
        UNTOLERATED,
        id="a Gt toleration does not tolerate while comparison operators are off",
    ),
    pytest.param(
        (Toleration("node.kubernetes.io/sla", "Lt", "950", "NoSchedule"),),
        (taint("node.kubernetes.io/sla", "800", "NoSchedule"),),
        UNTOLERATED,
        id="an Lt toleration does not tolerate while comparison operators are off",
    ),
    pytest.param(
        (
            Toleration("dedicated", "Equal", "user1", "NoSchedule"),
            Toleration("node.kubernetes.io/sla", "Gt", "750", "NoSchedule"),
        ),
        (taint("dedicated", "user1", "NoSchedule"),),
        None,
        id="with mixed tolerations the Equal one still tolerates its taint",
    ),
    pytest.param(
        (
            Toleration("dedicated", "Equal", "user1", "NoSchedule"),
            Toleration("node.kubernetes.io/sla", "Gt", "750", "NoSchedule"),
        ),
        (taint("dedicated", "user1", "NoSchedule"), taint("node.kubernetes.io/sla", "950", "NoSchedule")),
        UNTOLERATED,
        id="with mixed tolerations a taint only the Gt one would tolerate is untolerated",
    ),
    pytest.param(
        (), (taint("k", "v", "NoExecute"),), UNTOLERATED, id="an untolerated NoExecute taint filters too"
    ),
]


@pytest.mark.parametrize(("tolerations", "taints", "want"), FILTER_CASES)
def test_taint_toleration_filter(
    tolerations: tuple[Toleration, ...], taints: tuple[Taint, ...], want: Outcome
) -> None:
    node = make_node("nodeA", taints=taints)
    plugin = TaintToleration(handle_for([node]))
    assert outcome(plugin.filter(CycleState(), make_pod(tolerations=tolerations), info(node))) == want


PREFER = "PreferNoSchedule"
CPU_ARM = taint("cpu-type", "arm64", PREFER)
DISK_SSD = taint("disk-type", "ssd", PREFER)


@pytest.mark.parametrize(
    ("tolerations", "taints", "want"),
    [
        pytest.param(
            (Toleration("foo", "Equal", "bar", PREFER),),
            [(taint("foo", "bar", PREFER),), (taint("foo", "blah", PREFER),)],
            [100, 0],
            id="a node whose taints are tolerated scores higher than one with an intolerable taint",
        ),
        pytest.param(
            (
                Toleration("cpu-type", "Equal", "arm64", PREFER),
                Toleration("disk-type", "Equal", "ssd", PREFER),
            ),
            [(), (CPU_ARM,), (CPU_ARM, DISK_SSD)],
            [100, 100, 100],
            id="nodes whose taints are all tolerated score the same however many taints they have",
        ),
        pytest.param(
            (Toleration("foo", "Equal", "bar", PREFER),),
            [(), (CPU_ARM,), (CPU_ARM, DISK_SSD)],
            [100, 50, 0],
            id="the more intolerable taints a node has the lower it scores",
        ),
        pytest.param(
            (
                Toleration("cpu-type", "Equal", "arm64", "NoSchedule"),
                Toleration("disk-type", "Equal", "ssd", "NoSchedule"),
            ),
            [(), (taint("cpu-type", "arm64", "NoSchedule"),), (CPU_ARM, DISK_SSD)],
            [100, 100, 0],
            id="only PreferNoSchedule taints and the tolerations that can tolerate them count",
        ),
        pytest.param(
            (), [(), (CPU_ARM,)], [100, 0], id="without tolerations the node without taints scores highest"
        ),
    ],
)
def test_taint_toleration_score(
    tolerations: tuple[Toleration, ...], taints: list[tuple[Taint, ...]], want: list[int]
) -> None:
    nodes = [make_node(f"node{i}", taints=t) for i, t in enumerate(taints)]
    plugin = TaintToleration(handle_for(nodes))
    pod = make_pod(tolerations=tolerations)
    state = CycleState()
    infos = [info(n) for n in nodes]
    assert plugin.pre_score(state, pod, infos) is None
    scores = {n.name: plugin.score(state, pod, n) for n in infos}
    plugin.normalize(state, pod, scores)
    assert list(scores.values()) == want


def test_taint_toleration_score_without_pre_score_fails_as_upstream() -> None:
    node = make_node(taints=(CPU_ARM,))
    plugin = TaintToleration(handle_for([node]))
    with pytest.raises(
        LookupError, match='failed to read "PreScoreTaintToleration" from cycleState: not found'
    ):
        plugin.score(CycleState(), make_pod(), info(node))


# --- NodeAffinity: PreFilter and Filter -------------------------------------------------------------------

POD_MISMATCH = (UNRESOLVABLE, (ERR_REASON_POD,))
SKIPPED = (Code.SKIP, ())


def required(*terms: NodeSelectorTerm, **fields: Any) -> Pod:
    return make_pod(required_node_affinity=terms, **fields)


ADDED_NODE2 = NodeAffinityArgs(added_required=(term(fields=[name_in("node2")]),))

# (pod, node labels, node name, want PreFilter status, want PreFilter result, want Filter, args, run PreFilter)
AFFINITY_CASES = [
    pytest.param(make_pod(node_selector={"foo": "bar"}), {}, "node", None, None, POD_MISMATCH, None, True, id="a node missing the selected labels does not match"),
    pytest.param(make_pod(node_selector={"foo": "bar"}), {"foo": "bar"}, "node", None, None, None, None, True, id="a node with the same labels matches"),
    pytest.param(make_pod(node_selector={"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "node", None, None, None, None, True, id="a node whose labels are a superset matches"),
    pytest.param(make_pod(node_selector={"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "node", None, None, POD_MISMATCH, None, True, id="a node whose labels are a subset does not match"),
    pytest.param(required(term(expr("foo", "In", "bar", "value2"))), {"foo": "bar"}, "node", None, None, None, None, True, id="an In expression matching the node's label matches"),
    pytest.param(required(term(expr("kernel-version", "Gt", "0204"))), {"kernel-version": "0206"}, "node", None, None, None, None, True, id="a Gt expression compares as integers"),
    pytest.param(required(term(expr("mem-type", "NotIn", "DDR", "DDR2"))), {"mem-type": "DDR3"}, "node", None, None, None, None, True, id="a NotIn expression excluding other values matches"),
    pytest.param(required(term(expr("GPU", "Exists"))), {"GPU": "NVIDIA-GRID-K1"}, "node", None, None, None, None, True, id="an Exists expression matches a node with the label"),
    pytest.param(required(term(expr("foo", "In", "value1", "value2"))), {"foo": "bar"}, "node", None, None, POD_MISMATCH, None, True, id="an In expression not matching the node's label does not match"),
    pytest.param(required(term()), {"foo": "bar"}, "node", None, None, POD_MISMATCH, None, True, id="an empty term matches no node"),
    pytest.param(make_pod(), {"foo": "bar"}, "node", SKIPPED, None, None, None, True, id="a pod without affinity skips the filter and fits"),
    pytest.param(make_pod(required_node_affinity=None), {"foo": "bar"}, "node", SKIPPED, None, None, None, True, id="a pod with no required node selector skips the filter and fits"),
    pytest.param(required(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))), {"GPU": "NVIDIA-GRID-K1"}, "node", None, None, None, None, True, id="ANDed expressions that all hold match"),
    pytest.param(required(term(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER"))), {"GPU": "NVIDIA-GRID-K1"}, "node", None, None, POD_MISMATCH, None, True, id="ANDed expressions one of which fails do not match"),
    pytest.param(required(term(expr("foo", "In", "bar", "value2")), term(expr("diffkey", "In", "wrong", "value2"))), {"foo": "bar"}, "node", None, None, None, None, True, id="ORed terms match when one of them does"),
    pytest.param(required(term(expr("foo", "Exists")), node_selector={"foo": "bar"}), {"foo": "bar"}, "node", None, None, None, None, True, id="affinity and nodeSelector both satisfied match"),
    pytest.param(required(term(expr("foo", "Exists")), node_selector={"foo": "bar"}), {"foo": "barrrrrr"}, "node", None, None, POD_MISMATCH, None, True, id="affinity satisfied but nodeSelector not does not match"),
    pytest.param(required(term(expr("foo", "NotIn", "invalid value: ___@#$%^"))), {"foo": "bar"}, "node", None, None, POD_MISMATCH, None, True, id="a term with an invalid label value never matches"),
    pytest.param(required(term(fields=[name_in("node1")])), {}, "node1", None, {"node1"}, None, None, True, id="a metadata.name In field narrows PreFilter to that node, which matches"),
    pytest.param(required(term(fields=[name_in("node1")])), {}, "node2", None, {"node1"}, POD_MISMATCH, None, True, id="a metadata.name In field does not match another node"),
    pytest.param(required(term(fields=[name_in("node1"), name_in("node2")]), term(expr("foo", "In", "bar"))), {"foo": "bar"}, "node2", None, None, None, None, True, id="a term without name fields leaves PreFilter unnarrowed and can match"),
    pytest.param(required(term(expr("foo", "In", "bar"), fields=[name_in("node1")])), {"foo": "bar"}, "node2", None, {"node1"}, POD_MISMATCH, None, True, id="a term whose field fails does not match although its expression holds"),
    pytest.param(required(term(expr("foo", "In", "bar"), fields=[name_in("node1")])), {"foo": "bar"}, "node1", None, {"node1"}, None, None, True, id="a term whose field and expression hold matches"),
    pytest.param(required(term(fields=[name_in("node1")]), term(expr("foo", "In", "not-match-to-bar"))), {"foo": "bar"}, "node2", None, None, POD_MISMATCH, None, True, id="two terms neither of which holds do not match"),
    pytest.param(required(term(fields=[name_in("node1")]), term(fields=[name_in("node2")])), {}, "node2", None, {"node1", "node2"}, None, None, True, id="terms naming nodes narrow PreFilter to their union"),
    pytest.param(required(term(fields=[name_in("node1"), name_in("node2")])), {"foo": "bar"}, "node2", (UNRESOLVABLE, (ERR_REASON_CONFLICT,)), None, POD_MISMATCH, None, True, id="conflicting name fields in one term reject every node at PreFilter"),
    pytest.param(required(term(expr("zone", "In", "foo"))), {"zone": "foo"}, "node2", None, None, None, ADDED_NODE2, True, id="a node matching the added affinity and the pod's affinity fits"),
    pytest.param(required(term(expr("zone", "In", "bar"))), {"zone": "foo"}, "node2", None, None, POD_MISMATCH, ADDED_NODE2, True, id="a node matching the added affinity but not the pod's does not fit"),
    pytest.param(
        make_pod(), {"zone": "foo"}, "node2", None, None, (UNRESOLVABLE, (ERR_REASON_ENFORCED,)),
        NodeAffinityArgs(added_required=(term(expr("zone", "In", "bar")),)), True,
        id="a node not matching the added affinity is rejected as scheduler-enforced",
    ),
    pytest.param(make_pod(node_selector={"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "node", None, None, None, None, False, id="the node selector matches even without PreFilter"),
    pytest.param(required(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))), {"GPU": "NVIDIA-GRID-K1"}, "node", None, None, None, None, False, id="the node affinity matches even without PreFilter"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pod", "labels", "node_name", "want_pre", "want_result", "want", "args", "run_pre_filter"),
    AFFINITY_CASES,
)
def test_node_affinity_filter(
    pod: Pod,
    labels: dict[str, str],
    node_name: str,
    want_pre: Outcome,
    want_result: set[str] | None,
    want: Outcome,
    args: NodeAffinityArgs | None,
    run_pre_filter: bool,
) -> None:
    node = make_node(node_name, labels=labels)
    plugin = NodeAffinity(handle_for([node]), args)
    state = CycleState()
    if run_pre_filter:
        result, status = plugin.pre_filter(state, pod, [info(node)])
        assert outcome(status) == want_pre
        assert result == want_result
    assert outcome(plugin.filter(state, pod, info(node))) == want


# --- NodeAffinity: PreScore and Score ----------------------------------------------------------------------

FOO_BAR = expr("foo", "In", "bar")
KEY_VALUE = expr("key", "In", "value")
AFFINITY1 = (PreferredNodeTerm(2, term(FOO_BAR)),)
AFFINITY2 = (
    PreferredNodeTerm(2, term(FOO_BAR)),
    PreferredNodeTerm(4, term(KEY_VALUE)),
    PreferredNodeTerm(5, term(FOO_BAR, KEY_VALUE, expr("az", "In", "az1"))),
)
LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}


@pytest.mark.parametrize(
    ("preferred", "nodes", "want", "args", "run_pre_score"),
    [
        pytest.param((), [LABEL1, LABEL2, LABEL3], [0, 0, 0], None, True, id="all nodes score the same without node affinity"),
        pytest.param(AFFINITY1, [LABEL4, LABEL2, LABEL3], [0, 0, 0], None, True, id="no node matching the preferred terms scores all zero"),
        pytest.param(AFFINITY1, [LABEL1, LABEL2, LABEL3], [100, 0, 0], None, True, id="only the node matching the preferred term scores"),
        pytest.param(AFFINITY2, [LABEL1, LABEL5, LABEL2], [18, 100, 36], None, True, id="nodes score by the summed weights of the terms they match"),
        pytest.param((), [LABEL1, LABEL2], [100, 0], NodeAffinityArgs(added_preferred=AFFINITY1), True, id="the added preferred terms score a pod without affinity"),
        pytest.param(
            AFFINITY1, [LABEL1, LABEL2, LABEL5], [40, 60, 100],
            NodeAffinityArgs(added_preferred=(PreferredNodeTerm(3, term(KEY_VALUE)),)), True,
            id="the added preferred terms add to the pod's",
        ),
        pytest.param(AFFINITY2, [LABEL1, LABEL5, LABEL2], [18, 100, 36], None, False, id="the scores are right even without PreScore"),
    ],
)  # fmt: skip
def test_node_affinity_score(
    preferred: tuple[PreferredNodeTerm, ...],
    nodes: list[dict[str, str]],
    want: list[int],
    args: NodeAffinityArgs | None,
    run_pre_score: bool,
) -> None:
    made = [make_node(f"node{i}", labels=labels) for i, labels in enumerate(nodes)]
    plugin = NodeAffinity(handle_for(made), args)
    pod = make_pod(preferred_node_affinity=preferred)
    state = CycleState()
    infos = [info(n) for n in made]
    if run_pre_score:
        assert outcome(plugin.pre_score(state, pod, infos)) in (None, SKIPPED)
    scores = {n.name: plugin.score(state, pod, n) for n in infos}
    plugin.normalize(state, pod, scores)
    assert list(scores.values()) == want


@pytest.mark.parametrize(
    ("preferred", "args", "want"),
    [
        pytest.param(
            (), None, SKIPPED, id="PreScore skips a pod without preferred terms when none are added"
        ),
        pytest.param(AFFINITY1, None, None, id="PreScore runs for a pod with preferred terms"),
        pytest.param(
            (),
            NodeAffinityArgs(added_preferred=AFFINITY1),
            None,
            id="PreScore runs when preferred terms are added",
        ),
        pytest.param(
            (PreferredNodeTerm(1, term(expr("foo", "Gt", "x"))),),
            None,
            (Code.ERROR, ("values[0]: for 'Gt', 'Lt' operators, the value must be an integer",)),
            id="PreScore fails on a preferred term that does not parse",
        ),
    ],
)
def test_node_affinity_pre_score(
    preferred: tuple[PreferredNodeTerm, ...], args: NodeAffinityArgs | None, want: Outcome
) -> None:
    node = make_node()
    plugin = NodeAffinity(handle_for([node]), args)
    assert (
        outcome(plugin.pre_score(CycleState(), make_pod(preferred_node_affinity=preferred), [info(node)]))
        == want
    )


@pytest.mark.parametrize(
    ("terms", "node_name", "labels", "want"),
    [
        pytest.param(
            [term(expr("v", "Gt", "5"))],
            "n",
            {"v": "+6"},
            True,
            id="Gt reads a node label with a plus sign as Go does",
        ),
        pytest.param(
            [term(expr("v", "Gt", "5"))],
            "n",
            {"v": "6 "},
            False,
            id="Gt does not read a node label with spaces",
        ),
        pytest.param(
            [term(expr("v", "Lt", "5"))],
            "n",
            {"v": "9223372036854775808"},
            False,
            id="Lt does not read a node label beyond int64",
        ),
        pytest.param(
            [term(expr("v", "Gt", "5"))], "n", {}, False, id="Gt does not match a node without the label"
        ),
        pytest.param(
            [term(expr("v", "Gt", "5", "6"))], "n", {"v": "9"}, False, id="Gt with two values never matches"
        ),
        pytest.param([term(expr("v", "NotIn"))], "n", {}, False, id="NotIn without values never matches"),
        pytest.param(
            [term(expr("v", "Exists", "x"))], "n", {"v": "x"}, False, id="Exists with values never matches"
        ),
        pytest.param(
            [term(expr("bad key!", "DoesNotExist"))], "n", {}, False, id="an invalid label key never matches"
        ),
        pytest.param(
            [term(expr("v", "Like", "x"))], "n", {"v": "x"}, False, id="an unknown operator never matches"
        ),
        pytest.param(
            [term(expr("example.com/v", "In", "x"))],
            "n",
            {"example.com/v": "x"},
            True,
            id="a prefixed label key matches",
        ),
        pytest.param(
            [term(fields=[name_in("n", "m")])],
            "n",
            {},
            False,
            id="a name field with two values never matches",
        ),
        pytest.param(
            [term(fields=[expr("metadata.name", "NotIn", "m")])],
            "n",
            {},
            True,
            id="a NotIn name field matches other nodes",
        ),
        pytest.param(
            [term(fields=[expr("spec.other", "NotIn", "m")])],
            "n",
            {},
            True,
            id="a field other than the name reads as empty",
        ),
        pytest.param(
            [term(expr("v", "In", "x", "y!")), term(expr("w", "Exists"))],
            "n",
            {"w": ""},
            True,
            id="a term that does not parse leaves the other terms matching",
        ),
        pytest.param([], "n", {}, False, id="a required selector without terms matches no node"),
    ],
)
def test_node_affinity_term_parsing(
    terms: list[NodeSelectorTerm], node_name: str, labels: dict[str, str], want: bool
) -> None:
    pod = make_pod(required_node_affinity=tuple(terms))
    assert RequiredNodeAffinity(pod).matches(make_node(node_name, labels=labels)) is want


def test_go_int_reads_as_strconv_parse_int() -> None:
    assert [go_int(s) for s in ("0204", "-3", "+7", "1_0", "", "٣", str(2**63 - 1))] == [
        204,
        -3,
        7,
        None,
        None,
        None,
        2**63 - 1,
    ]


def test_added_affinity_that_does_not_parse_fails_plugin_creation() -> None:
    args = NodeAffinityArgs(added_required=(term(expr("zone", "In")),))
    with pytest.raises(
        ValueError, match=r"parsing addedAffinity\.requiredDuringSchedulingIgnoredDuringExecution"
    ):
        NodeAffinity(handle_for([]), args)


def test_preferred_terms_of_weight_zero_or_empty_are_dropped() -> None:
    kept = compile_preferred(
        (
            PreferredNodeTerm(0, term(FOO_BAR)),
            PreferredNodeTerm(3, term()),
            PreferredNodeTerm(1, term(FOO_BAR)),
        )
    )
    assert [w for w, _ in kept] == [1]


# --- NodePorts --------------------------------------------------------------------------------------------

PORTS_CONFLICT = (UNSCHEDULABLE, ("node(s) didn't have free ports for the requested pod ports",))


def ports(*specs: str) -> tuple[HostPort, ...]:
    """ "PROTOCOL/IP/PORT" specs, as upstream's test helper writes them."""
    out = []
    for spec in specs:
        protocol, ip, port = spec.split("/")
        out.append(HostPort(int(port), protocol, ip))
    return tuple(out)


@pytest.mark.parametrize(
    ("wanted", "used", "want_pre", "want"),
    [
        pytest.param((), (), SKIPPED, None, id="a pod without host ports skips the filter"),
        pytest.param(ports("UDP/127.0.0.1/8080"), ports("UDP/127.0.0.1/9090"), None, None, id="another port fits"),
        pytest.param(ports("UDP/127.0.0.1/8080"), ports("UDP/127.0.0.1/8080"), None, PORTS_CONFLICT, id="the same UDP port conflicts"),
        pytest.param(ports("TCP/127.0.0.1/8080"), ports("TCP/127.0.0.1/8080"), None, PORTS_CONFLICT, id="the same TCP port conflicts"),
        pytest.param(ports("TCP/127.0.0.1/8080"), ports("TCP/127.0.0.2/8080"), None, None, id="another host IP fits"),
        pytest.param(ports("UDP/127.0.0.1/8080"), ports("TCP/127.0.0.1/8080"), None, None, id="another protocol fits"),
        pytest.param(ports("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), ports("UDP/127.0.0.1/8080"), None, PORTS_CONFLICT, id="a conflict on the second UDP port"),
        pytest.param(ports("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"), ports("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"), None, PORTS_CONFLICT, id="a conflict on the first TCP port"),
        pytest.param(ports("TCP/0.0.0.0/8001"), ports("TCP/127.0.0.1/8001"), None, PORTS_CONFLICT, id="a wildcard port conflicts with the port on a specific IP"),
        pytest.param(ports("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"), ports("TCP/127.0.0.1/8001"), None, PORTS_CONFLICT, id="a wildcard port among others conflicts with the port on a specific IP"),
        pytest.param(ports("TCP/127.0.0.1/8001"), ports("TCP/0.0.0.0/8001"), None, PORTS_CONFLICT, id="a specific IP conflicts with the port in use on the wildcard IP"),
        pytest.param(ports("UDP/127.0.0.1/8001"), ports("TCP/0.0.0.0/8001"), None, None, id="another protocol on the wildcard IP fits"),
        pytest.param(ports("UDP/127.0.0.1/8001"), ports("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"), None, PORTS_CONFLICT, id="the same protocol on the wildcard IP conflicts"),
        # Translation leaves out the host ports of ordinary init containers and keeps those of sidecars.
        pytest.param((), ports("TCP/0.0.0.0/8001"), SKIPPED, None, id="an ordinary init container's host port is not counted"),
        pytest.param(ports("TCP/0.0.0.0/8001"), ports("TCP/0.0.0.0/8001"), None, PORTS_CONFLICT, id="a sidecar init container's host port conflicts"),
        pytest.param(ports("/127.0.0.1/8001"), ports("TCP/0.0.0.0/8001"), None, PORTS_CONFLICT, id="an unset protocol means TCP"),
        pytest.param(ports("TCP//8001"), ports("TCP/127.0.0.1/8001"), None, PORTS_CONFLICT, id="an unset host IP means the wildcard IP"),
    ],
)  # fmt: skip
def test_node_ports(
    wanted: tuple[HostPort, ...], used: tuple[HostPort, ...], want_pre: Outcome, want: Outcome
) -> None:
    node = info(make_node(), make_pod("existing", ports=used))
    plugin = NodePorts(handle_for([node.node]))
    pod = make_pod(ports=wanted)
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, [node])
    assert (result, outcome(status)) == (None, want_pre)
    if status is None:
        assert outcome(plugin.filter(state, pod, node)) == want


def test_node_ports_filter_without_pre_filter_is_an_error() -> None:
    node = info(make_node())
    status = NodePorts(handle_for([node.node])).filter(CycleState(), make_pod(), node)
    assert outcome(status) == (Code.ERROR, ('reading "PreFilterNodePorts" from cycleState: not found',))


@pytest.mark.parametrize(
    ("wanted", "used", "want"),
    [
        pytest.param(
            ports("TCP/127.0.0.1/80"), ports("TCP/127.0.0.1/9090"), True, id="non-conflicting ports fit"
        ),
        pytest.param(
            ports("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
            ports("TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"),
            True,
            id="several non-conflicting ports fit",
        ),
        pytest.param(
            ports("TCP/127.0.0.1/80"),
            ports("UDP/127.0.0.1/80"),
            True,
            id="the same port on another protocol fits",
        ),
        pytest.param(
            ports("TCP/127.0.0.1/80"), ports("TCP/127.0.0.1/80"), False, id="conflicting ports do not fit"
        ),
        pytest.param(
            ports("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
            ports("TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"),
            False,
            id="several ports one of which conflicts do not fit",
        ),
    ],
)
def test_node_ports_fits(wanted: tuple[HostPort, ...], used: tuple[HostPort, ...], want: bool) -> None:
    assert fits(pre_filter_state(wanted), info(make_node(), make_pod(ports=used)).ports) is want


# --- ImageLocality ----------------------------------------------------------------------------------------

NODE_40_300_2000 = {
    "gcr.io/40:latest": 40 * MB,
    "gcr.io/40:v1": 40 * MB,
    "gcr.io/300:latest": 300 * MB,
    "gcr.io/300:v1": 300 * MB,
    "gcr.io/2000:latest": 2000 * MB,
}
NODE_250_10 = {"gcr.io/250:latest": 250 * MB, "gcr.io/10:latest": 10 * MB, "gcr.io/10:v1": 10 * MB}
NODE_600_40_900 = {"gcr.io/600:latest": 600 * MB, "gcr.io/40:latest": 40 * MB, "gcr.io/900:latest": 900 * MB}
NODE_300_600_900 = {
    "gcr.io/300:latest": 300 * MB,
    "gcr.io/600:latest": 600 * MB,
    "gcr.io/900:latest": 900 * MB,
}
NODE_4000_30 = {"gcr.io/4000:latest": 4000 * MB, "gcr.io/30:latest": 30 * MB}
NODE_20_30_40 = {"gcr.io/20:latest": 20 * MB, "gcr.io/30:latest": 30 * MB, "gcr.io/40:latest": 40 * MB}  # fmt: skip


def images(*names: str) -> tuple[str, ...]:
    return tuple(f"gcr.io/{n}:latest" for n in names)


@pytest.mark.parametrize(
    ("pod_images", "nodes", "want"),
    [
        pytest.param(images("40", "250"), [NODE_40_300_2000, NODE_250_10], [0, 5], id="two images spread on two nodes prefer the larger image one"),
        pytest.param(images("40", "300"), [NODE_40_300_2000, NODE_250_10], [7, 0], id="two images on one node prefer that node"),
        pytest.param(images("10", "4000"), [NODE_4000_30, NODE_250_10], [100, 0], id="a sum beyond the limit counts as the limit"),
        pytest.param(images("10", "4000"), [NODE_4000_30, NODE_250_10, {}], [66, 0, 0], id="a sum beyond the limit with a node without images"),
        pytest.param(images("300", "600", "900"), [NODE_600_40_900, NODE_300_600_900, {}], [32, 36, 0], id="with several large images the node having all of them is preferred"),
        pytest.param(images("30", "40"), [NODE_20_30_40, NODE_4000_30], [1, 0], id="several small images score little"),
        pytest.param(images("300", "30"), [NODE_40_300_2000, NODE_20_30_40], [6, 0], id="an init container's image counts too"),
    ],
)  # fmt: skip
def test_image_locality(pod_images: tuple[str, ...], nodes: list[dict[str, int]], want: list[int]) -> None:
    made = [make_node(f"node{i}", images=imgs) for i, imgs in enumerate(nodes)]
    # As the scheduler's cache keeps them: an image's size, and how many nodes hold it.
    states: dict[str, ImageState] = {}
    for n in made:
        for name, size in n.images.items():
            known = states.get(name)
            states[name] = ImageState(known.size if known else size, (known.num_nodes if known else 0) + 1)
    plugin = ImageLocality(handle_for(made, states))
    pod = make_pod(images=pod_images)
    assert [plugin.score(CycleState(), pod, info(n)) for n in made] == want


# --- PrioritySort and SchedulingGates ---------------------------------------------------------------------

T1 = (0, "2024-01-01T00:00:00Z", 0)
T2 = (0, "2024-01-01T00:00:01Z", 1)


@pytest.mark.parametrize(
    ("p1", "t1", "p2", "t2", "want"),
    [
        pytest.param(10, T1, 100, T1, False, id="a lower priority goes after a higher one"),
        pytest.param(100, T1, 10, T1, True, id="a higher priority goes before a lower one"),
        pytest.param(100, T1, 100, T2, True, id="with equal priorities the earlier queued goes first"),
        pytest.param(100, T2, 100, T1, False, id="with equal priorities the later queued goes after"),
    ],
)
def test_priority_sort_less(
    p1: int, t1: tuple[int, str, int], p2: int, t2: tuple[int, str, int], want: bool
) -> None:
    plugin = PrioritySort(handle_for([]))
    a = QueuedPod(make_pod("a", priority=p1), 1, t1)
    b = QueuedPod(make_pod("b", priority=p2), 2, t2)
    assert plugin.less(a, b) is want


@pytest.mark.parametrize(
    ("gates", "want"),
    [
        pytest.param((), None, id="a pod without scheduling gates is enqueued"),
        pytest.param(("foo", "bar"), (UNRESOLVABLE, ("waiting for scheduling gates: [foo bar]",)), id="a pod with scheduling gates waits for them"),
    ],
)  # fmt: skip
def test_scheduling_gates(gates: tuple[str, ...], want: Outcome) -> None:
    assert outcome(SchedulingGates(handle_for([])).pre_enqueue(make_pod(scheduling_gates=gates))) == want


# --- in a framework -----------------------------------------------------------------------------------------


def test_the_plugins_run_at_their_extension_points_in_a_framework() -> None:
    entries = (
        PluginEntry(names.SCHEDULING_GATES),
        PluginEntry(names.PRIORITY_SORT),
        PluginEntry(names.NODE_UNSCHEDULABLE),
        PluginEntry(names.NODE_NAME),
        PluginEntry(names.TAINT_TOLERATION, 3),
        PluginEntry(names.NODE_AFFINITY, 2),
        PluginEntry(names.NODE_PORTS),
        PluginEntry(names.IMAGE_LOCALITY, 1),
    )
    nodes = [
        make_node("a", labels={"zone": "z1"}, taints=(CPU_ARM,)),
        make_node("b", labels={"zone": "z1"}, images={"img:latest": 500 * MB}),
        make_node("c", labels={"zone": "z2"}),
        make_node("d", labels={"zone": "z1"}, unschedulable=True),
    ]
    handle = handle_for(nodes, {"img:latest": ImageState(500 * MB, 1)})
    framework = Framework(Profile(plugins={MULTI_POINT: PluginSet(entries)}), handle)
    assert [p.name for p in framework.filter] == [
        names.NODE_UNSCHEDULABLE,
        names.NODE_NAME,
        names.TAINT_TOLERATION,
        names.NODE_AFFINITY,
        names.NODE_PORTS,
    ]
    pod = make_pod(node_selector={"zone": "z1"}, images=("img:latest",), ports=ports("TCP/0.0.0.0/80"))
    state = CycleState()
    assert framework.run_pre_filter(state, pod, handle.snapshot.nodes).status is None
    reasons = {}
    for n in handle.snapshot.nodes:
        status = framework.run_filters(state, pod, n)
        reasons[n.name] = None if status is None else (status.plugin, status.message)
    assert reasons == {
        "a": None,
        "b": None,
        "c": (names.NODE_AFFINITY, ERR_REASON_POD),
        "d": (names.NODE_UNSCHEDULABLE, "node(s) were unschedulable"),
    }
    fit = [n for n in handle.snapshot.nodes if reasons[n.name] is None]
    scores = framework.run_scores(state, pod, fit)
    # NodeAffinity is skipped (no preferred terms); TaintToleration prefers b; only b has the image:
    # 500 MiB on 1 of 4 nodes counts 125 MiB, 100 * (125 - 23) // (1000 - 23) = 10.
    assert [(s.node, s.weighted) for s in scores] == [
        ("a", {names.TAINT_TOLERATION: 0, names.IMAGE_LOCALITY: 0}),
        ("b", {names.TAINT_TOLERATION: 300, names.IMAGE_LOCALITY: 10}),
    ]
