"""The PodGroup cycle's plugins against upstream's table tests: GangScheduling (TestPreEnqueue,
TestPlacementFeasible), TopologyPlacement (TestGeneratePlacements), PodGroupPodsCount's normalizing and
NodeResourcesFit's placement score, and the profile's placement points and weights."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kubefit.model.cluster.facts import Cluster, Node, Pod
from kubefit.model.cluster.podgroup import (
    COMPOSITE,
    COMPOSITE_GATE,
    GENERIC_WORKLOAD,
    POD_GROUP,
    TOPOLOGY_AWARE,
    GroupFact,
    Groups,
)
from kubefit.model.cluster.profile import expand
from kubefit.model.features import ALL_ON
from kubefit.solver.cluster.framework import Code, Handle, NodeInfo, Snapshot
from kubefit.solver.cluster.plugins.gang_scheduling import WAITING_FOR_GANG, GangScheduling
from kubefit.solver.cluster.plugins.noderesources.fit import Fit
from kubefit.solver.cluster.plugins.podgroup_pods_count import PodGroupPodsCount
from kubefit.solver.cluster.plugins.topology_placement import TopologyPlacement
from kubefit.solver.cluster.podgroup.info import GroupInfo, Placement, Proposed
from kubefit.translate.kube.objects import ObjectSet
from kubefit.translate.sched.config import configuration

NS = "ns1"


def pg(name: str, min_count: int | None = None, parent: str = "", key: str = "") -> GroupFact:
    return GroupFact(POD_GROUP, NS, name, min_count, key, parent)


def cpg(name: str, min_groups: int | None = None, parent: str = "") -> GroupFact:
    return GroupFact(COMPOSITE, NS, name, min_groups, "", parent)


def member(name: str, group: str = "", node: str = "") -> Pod:
    return Pod(NS, name, name, pod_group=group, node_name=node, requests={"cpu": 1000})


def handle(
    groups: Sequence[GroupFact], pods: Sequence[Pod], composite: bool, nodes: Sequence[Node] = ()
) -> Handle:
    gates = {GENERIC_WORKLOAD} | ({TOPOLOGY_AWARE, COMPOSITE_GATE} if composite else set())
    facts = Groups(
        {g.key: g for g in groups if g.kind == POD_GROUP},
        {g.key: g for g in groups if g.kind == COMPOSITE} if composite else {},
        frozenset(gates),
    )
    bound = tuple(p for p in pods if p.node_name)
    pending = {i: p for i, p in enumerate(p for p in pods if not p.node_name)}
    cluster = Cluster(tuple(nodes), bound, pending, groups=facts)
    return Handle(cluster, Snapshot(NodeInfo(n) for n in nodes))


# --- GangScheduling: PreEnqueue -------------------------------------------------------------------

GANG1, GANG2, BASIC = pg("pg1", 3), pg("pg2", 4), pg("pg3")
CPG_TREE = [
    cpg("cpg-root", 2),
    cpg("cpg-sub1", 2, "cpg-root"),
    cpg("cpg-sub2", None, "cpg-root"),
    cpg("cpg-sub3", 2, "cpg-root"),
    pg("pg1-cpg", 1, "cpg-sub1"),
    pg("pg2-cpg", 1, "cpg-sub1"),
    pg("pg3-cpg", 1, "cpg-sub1"),
    pg("pg4-cpg", None, "cpg-sub2"),
    pg("pg5-cpg", 1, "cpg-sub2"),
    pg("pg6-cpg", 1, "cpg-sub3"),
    pg("pg7-cpg", 1, "cpg-sub3"),
]
BASIC_TREE = [
    cpg("cpg-basic-root"),
    pg("pg-basic-1", 2, "cpg-basic-root"),
    pg("pg-basic-2", 2, "cpg-basic-root"),
]
TREE_NOT_READY = 'waiting for composite pod group "cpg-root" tree to meet quorum'

PRE_ENQUEUE: list[tuple[str, Any, list[str], list[GroupFact], list[bool], str | None]] = [
    # (name, pod, other pods "name:group", groups, CompositePodGroup on?, want)
    ("non-gang pod succeeds immediately", member("non-gang"), [], [GANG1, GANG2, BASIC], [True, False], None),
    (
        "basic policy pod succeeds immediately",
        member("basic-pod", "pg3"),
        [],
        [GANG1, BASIC],
        [True, False],
        None,
    ),
    (
        "gang pod fails PreEnqueue when pod group is not yet created",
        member("p1", "pg1"),
        ["p2:pg1", "p3:pg1", "p4:pg2", "p5:pg2"],
        [],
        [False],
        'waiting for pod\'s pod group "pg1" to appear in scheduling queue',
    ),
    (
        "gang pod fails PreEnqueue when quorum is not met",
        member("p1", "pg1"),
        ["p2:pg1", "p4:pg2", "p5:pg2"],
        [GANG1, GANG2],
        [True, False],
        WAITING_FOR_GANG,
    ),
    (
        "gang pod passes PreEnqueue",
        member("p1", "pg1"),
        ["p2:pg1", "p3:pg1", "p4:pg2"],
        [GANG1, GANG2],
        [True, False],
        None,
    ),
    (
        "CPG Hierarchical Stage 1: No pods, tree not ready",
        member("p1-cpg", "pg1-cpg"),
        [],
        CPG_TREE,
        [True],
        TREE_NOT_READY,
    ),
    (
        "CPG Hierarchical Stage 1: No pods, ready, as CPGs are ignored",
        member("p1-cpg", "pg1-cpg"),
        [],
        CPG_TREE,
        [False],
        None,
    ),
    (
        "CPG Hierarchical Stage 2: Add p6, cpg-sub1 ready but root not ready",
        member("p6-cpg", "pg6-cpg"),
        ["p1-cpg:pg1-cpg", "p2-cpg:pg2-cpg"],
        CPG_TREE,
        [True],
        TREE_NOT_READY,
    ),
    (
        "CPG Hierarchical Stage 3: Add p4, root becomes ready",
        member("p4-cpg", "pg4-cpg"),
        ["p1-cpg:pg1-cpg", "p2-cpg:pg2-cpg", "p6-cpg:pg6-cpg"],
        CPG_TREE,
        [True, False],
        None,
    ),
    (
        "CPG Basic With Gang Stage 1: pg1 ready, root ready",
        member("p2_1", "pg-basic-2"),
        ["p1_1:pg-basic-1", "p1_2:pg-basic-1"],
        BASIC_TREE,
        [True],
        None,
    ),
    (
        "CPG Basic With Gang Stage 1: pg1 ready, root ready, pg2 not ready",
        member("p2_1", "pg-basic-2"),
        ["p1_1:pg-basic-1", "p1_2:pg-basic-1"],
        BASIC_TREE,
        [False],
        WAITING_FOR_GANG,
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "others", "groups", "composite", "want"),
    [pytest.param(*c, id=c[0]) for c in PRE_ENQUEUE],
)
def test_pre_enqueue(
    name: str, pod: Pod, others: list[str], groups: list[GroupFact], composite: list[bool], want: str | None
) -> None:
    pods = [pod, *(member(*o.split(":")) for o in others)]
    for on in composite:
        status = GangScheduling(handle(groups, pods, on)).pre_enqueue(pod)
        if want is None:
            assert status is None, (on, status)
        else:
            assert status is not None and status.code == Code.UNRESOLVABLE and status.message == want, on


# --- GangScheduling: PlacementFeasible --------------------------------------------------------------

W, S, U = Code.WAIT, Code.SUCCESS, Code.UNSCHEDULABLE
PLACEMENT_FEASIBLE = [
    # (name, minCount (0: basic), children, pod outcomes, wanted verdicts, already scheduled)
    ("All pods succeed, minCount met at end", 2, 2, [S, S], [W, S], 0),
    ("First pod fails, minCount not satisfiable", 3, 3, [U], [U], 0),
    ("Second pod fails, minCount not satisfiable", 2, 2, [S, U], [W, U], 0),
    ("Non-gang pod group with 0 scheduled pods fails", 0, 1, [U], [U], 0),
    ("Non-gang pod group with succeeds once 1 pod is scheduled", 0, 1, [S], [S], 0),
    ("Non-gang pod group with 1 initially scheduled pod succeeds", 0, 1, [U], [S], 1),
    ("More than minCount pods, all succeed", 2, 3, [S, S, S], [W, S, S], 0),
    ("More than minCount pods, first fails", 2, 3, [U, S, S], [W, W, S], 0),
    ("More than minCount pods, minCount not satisfiable", 2, 3, [U, U], [W, U], 0),
    ("1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met", 3, 2, [S, S], [W, S], 1),
    ("minCount already met by scheduled pods", 2, 1, [U], [S], 2),
    ("1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining", 3, 2, [U], [U], 1),
    ("1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining", 4, 2, [S], [U], 1),
]


@pytest.mark.parametrize(
    ("name", "min_count", "children", "outcomes", "wanted", "scheduled"),
    [pytest.param(*c, id=c[0]) for c in PLACEMENT_FEASIBLE],
)
@pytest.mark.parametrize("kind", [POD_GROUP, COMPOSITE])
def test_placement_feasible(
    name: str,
    min_count: int,
    children: int,
    outcomes: list[Code],
    wanted: list[Code],
    scheduled: int,
    kind: str,
) -> None:
    group = GroupFact(kind, NS, "test-pg", min_count or None)
    plugin = GangScheduling(handle([group], [], True))
    for i, outcome in enumerate(outcomes):
        scheduled += outcome == S
        status = plugin.placement_feasible(group, scheduled, children - (i + 1))
        assert (status.code if status is not None else S) == wanted[i], i


def test_placement_feasible_says_what_is_missing() -> None:
    plugin = GangScheduling(handle([], [], False))
    group = pg("pg1", 4)
    waiting = plugin.placement_feasible(group, 2, 2)
    assert (
        waiting is not None
        and waiting.message == "minCount (4) is not yet satisfied: 2 scheduled, 2 remaining"
    )
    failed = plugin.placement_feasible(group, 2, 1)
    assert (
        failed is not None and failed.message == "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining"
    )


# --- TopologyPlacement ------------------------------------------------------------------------------


def labelled(name: str, **labels: str) -> Node:
    return Node(name, labels, allocatable={"cpu": 2000, "pods": 110})


GENERATE: list[tuple[str, str, dict[str, str], list[Node], list[Node], dict[str, list[str]] | None]] = [
    (
        "without constraint returns placement matching all nodes",
        "",
        {},
        [labelled("node1"), labelled("node2", foo="bar")],
        [labelled("node3")],
        {"test-placement": ["node1", "node2"]},
    ),
    (
        "with topology key constraint, returns placement for each topology domain",
        "topology1",
        {},
        [
            labelled("node0", topology2="d1"),
            labelled("node1", topology2="d4"),
            labelled("node2", topology1="d1"),
            labelled("node3", topology1="d2"),
            labelled("node4", topology1="d1"),
            labelled("node5", topology1="d3"),
        ],
        [],
        {"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]},
    ),
    (
        "without matching topology label, returns empty",
        "topology3",
        {},
        [labelled("node0", topology2="d1"), labelled("node2", topology1="d1")],
        [],
        {},
    ),
    (
        "with pods already scheduled in a single domain, returns that domain",
        "topology",
        {"pod1": "node2", "pod2": "node3"},
        [labelled("node0", topology="d2"), labelled("node1", topology="d1")],
        [labelled("node2", topology="d1"), labelled("node3", topology="d1")],
        {"d1": ["node1"]},
    ),
    (
        "with pods already scheduled in a single domain not present in current placement, returns empty",
        "topology",
        {"pod1": "node2", "pod2": "node3"},
        [labelled("node0", topology="d2")],
        [labelled("node2", topology="d1"), labelled("node3", topology="d1")],
        {},
    ),
    (
        "with pods already scheduled in conflicting domains, returns error",
        "topology",
        {"pod1": "node2", "pod2": "node3"},
        [labelled("node0", topology="d2"), labelled("node1", topology="d1")],
        [labelled("node2", topology="d0"), labelled("node3", topology="d1")],
        None,
    ),
    (
        "with already scheduled pod on node outside of snapshot, returns error",
        "topology",
        {"pod1": "node2", "pod2": "node4"},
        [labelled("node0", topology="d2"), labelled("node1", topology="d1")],
        [labelled("node2", topology="d1"), labelled("node3", topology="d1")],
        None,
    ),
    (
        "with already scheduled pod on node without topology label, returns error",
        "topology",
        {"pod1": "node2"},
        [labelled("node1", topology="d2")],
        [labelled("node2", foo="bar")],
        None,
    ),
]


@pytest.mark.parametrize(
    ("name", "key", "scheduled", "placement_nodes", "other_nodes", "want"),
    [pytest.param(*c, id=c[0]) for c in GENERATE],
)
def test_generate_placements(
    name: str,
    key: str,
    scheduled: dict[str, str],
    placement_nodes: list[Node],
    other_nodes: list[Node],
    want: dict[str, list[str]] | None,
) -> None:
    group = pg("pg1", key=key)
    pods = [member(p, "pg1", n) for p, n in scheduled.items()]
    h = handle([group], pods, False, [*placement_nodes, *other_nodes])
    info = GroupInfo(group, scheduled=pods)
    parent = Placement("test-placement", tuple(h.snapshot.by_name[n.name] for n in placement_nodes))
    placements, status = TopologyPlacement(h).generate_placements(info, parent)
    if want is None:
        assert status is not None and status.code == Code.ERROR
        assert status.message.startswith("cannot determine domain for already scheduled pods: ")
        return
    assert status is None
    assert {p.name: [n.name for n in p.nodes] for p in placements} == want


# --- placement scores -------------------------------------------------------------------------------


def test_pod_group_pods_count_counts_scheduled_and_proposed_pods_and_normalizes_to_the_best() -> None:
    plugin = PodGroupPodsCount(handle([], [], False))
    group = GroupInfo(pg("pg1", 2), scheduled=[member("running", "pg1", "n1")])
    empty = Placement("d", ())
    raw = [
        plugin.score_placement(group, empty, [Proposed(member("a"), "n1")]),
        plugin.score_placement(group, empty, [Proposed(member("a"), "n1"), Proposed(member("b"), "n1")]),
    ]
    assert raw == [2, 3]
    assert plugin.normalize_placement_scores(group, raw) is None
    assert raw == [66, 100]
    zero = [0, 0]
    failed = plugin.normalize_placement_scores(group, zero)
    assert failed is not None and failed.code == Code.ERROR


@pytest.mark.parametrize(
    ("nodes", "running", "want"),
    [
        # tas_test.go: three 1-cpu pods on racks of 2-cpu nodes.
        (2, 0, 75),  # rack1: 3/4
        (3, 0, 50),  # rack2: 3/6
        (3, 2, 83),  # rack2 with a 2-cpu pod running: (2+3)/6
        (3, 1, 66),  # rack3 with a 1-cpu pod running: (1+3)/6
    ],
)
def test_node_resources_fit_scores_a_placement_most_allocated(nodes: int, running: int, want: int) -> None:
    names = [f"n{i}" for i in range(nodes)]
    h = handle([], [], False, [labelled(n) for n in names])
    if running:
        cpu = {"cpu": running * 1000}
        h.snapshot.by_name["n0"].add_pod(Pod(NS, "existing", "existing", requests=cpu, score_requests=cpu))
    placement = Placement("rack", tuple(h.snapshot.nodes))
    proposed = [Proposed(Pod(NS, f"p{i}", f"p{i}", score_requests={"cpu": 1000}), "n0") for i in range(3)]
    # The default strategy is LeastAllocated: the placement score is MostAllocated all the same.
    assert Fit(h).score_placement(GroupInfo(pg("pg1", 3)), placement, proposed) == want


def test_the_placement_score_weights_come_from_the_placement_score_set() -> None:
    """The documented example: NodeResourcesFit weight 2, PodGroupPodsCount 5 at placementScore."""
    from kubefit.translate.loader import load_text

    text = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    placementScore:
      enabled:
      - {name: NodeResourcesFit, weight: 2}
      - {name: PodGroupPodsCount, weight: 5}
"""
    objects: ObjectSet = load_text(text)
    (profile,) = configuration(objects, ALL_ON).profiles
    expanded = expand(profile)
    assert expanded.at("placementScore") == ("NodeResourcesFit", "PodGroupPodsCount")
    assert dict(expanded.placement_weights) == {"NodeResourcesFit": 2, "PodGroupPodsCount": 5}
    assert expanded.weights["NodeResourcesFit"] == 1  # the node score keeps its own weight
