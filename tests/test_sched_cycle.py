"""The scheduling cycle against upstream's own tables, as data: schedule_one_test.go (TestSchedulerSchedulePod,
TestNumFeasibleNodesToFind, TestFindFit*, TestFairEvaluationForNodes, TestPreferNominatedNodeFilterCallCounts,
TestEvaluateNominatedNode, the Reserve rows of TestSchedulerScheduleOne), framework/types_test.go
(TestFitError_Error) and framework/runtime/framework_test.go (TestRunPreFilterPlugins, the PreFilter
extensions, TestFilterPlugins, TestPostFilterPlugins, TestFilterPluginsWithNominatedPods,
TestRunPreScorePlugins, TestRunScorePlugins, TestReservePlugins).

Upstream's test-only plugins are small fakes here, under their upstream names: `Injected` answers at
every point what a case injects (upstream's TestPlugin), the filters FalseFilter / TrueFilter /
MatchFilter / NoPodsFilter / FakeFilter and the scorers NumericMap / ReverseNumericMap /
EqualPrioritizerPlugin behave as upstream's. kubefit filters the nodes one after the other (upstream
with parallelism 1), so "which nodes were evaluated" is exact here where upstream's tests allow a set.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from kubefit.model.cluster import names
from kubefit.model.cluster.facts import Cluster, LabelSelector, Node, Pod, Requirement, SpreadConstraint
from kubefit.model.cluster.points import FILTER, POST_FILTER, PRE_FILTER, PRE_SCORE, RESERVE, SCORE
from kubefit.model.cluster.profile import PluginEntry, PluginSet, Profile
from kubefit.model.cluster.record import NodeScores
from kubefit.solver.cluster.cycle import Cycle, CycleResult, num_feasible_nodes_to_find
from kubefit.solver.cluster.fit_error import fit_error_message
from kubefit.solver.cluster.framework import Code, CycleState, Handle, NodeInfo, Plugin, Snapshot, Status
from kubefit.solver.cluster.runtime import Framework, FrameworkError

FAKE_REASON = "Nodes failed the fake plugin"
INJECTED = "injected status"
INJECTED_FILTER = "injected filter status"
LOW, MID, HIGH = 0, 100, 1000
S, E, U, UU, SKIP = Code.SUCCESS, Code.ERROR, Code.UNSCHEDULABLE, Code.UNRESOLVABLE, Code.SKIP


def injected(code: Code | None, reason: str = INJECTED) -> Status | None:
    return None if code is None else Status(code, (reason,))


# --- upstream's test plugins ------------------------------------------------------------------------


class Injected(Plugin):
    """Answers at every point what the case injected (upstream's TestPlugin); counts its Filter calls."""

    def __init__(
        self,
        name: str,
        points: Sequence[str],
        *,
        pre_filter: Code | None = None,
        result: set[str] | None = None,
        filter: Code | None = None,
        post_filter: Code | None = None,
        pre_score: Code | None = None,
        score: int = 0,
        normalize: Code | None = None,
        normalize_to: int | None = None,
        reserve: Code | None = None,
        log: list[str] | None = None,
    ) -> None:
        super().__init__(Handle(Cluster(()), Snapshot(())), None)
        self.name = name  # type: ignore[misc]
        self.points = frozenset(points)  # type: ignore[misc]
        self.normalizes = normalize is not None or normalize_to is not None  # type: ignore[misc]
        self.inject = {
            "pre_filter": pre_filter,
            "filter": filter,
            "post_filter": post_filter,
            "pre_score": pre_score,
            "normalize": normalize,
            "reserve": reserve,
        }
        self.result = result
        self.score_value = score
        self.normalize_to = normalize_to
        self.log = log if log is not None else []
        self.filter_calls = 0

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        return self.result, injected(self.inject["pre_filter"])

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        self.filter_calls += 1
        return injected(self.inject["filter"], INJECTED_FILTER)

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[str, Status | None]:
        return "", injected(self.inject["post_filter"])

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        return injected(self.inject["pre_score"])

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        return self.score_value

    def normalize(self, state: CycleState, pod: Pod, scores: dict[str, int]) -> Status | None:
        if self.normalize_to is not None:
            for node in scores:
                scores[node] = self.normalize_to
        return injected(self.inject["normalize"])

    def reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        self.log.append(f"reserve {self.name}")
        return injected(self.inject["reserve"])

    def unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        self.log.append(f"unreserve {self.name}")


class InjectedWithExtensions(Injected):
    """Injected with PreFilterExtensions: AddPod / RemovePod answer what was injected."""

    def __init__(
        self, name: str, points: Sequence[str], *, add: Code | None = None, remove: Code | None = None
    ) -> None:
        super().__init__(name, points)
        self.add, self.remove = add, remove
        self.calls: list[str] = []

    def add_pod(self, state: CycleState, pod: Pod, added: Pod, node: NodeInfo) -> Status | None:
        self.calls.append("add")
        return injected(self.add)

    def remove_pod(self, state: CycleState, pod: Pod, removed: Pod, node: NodeInfo) -> Status | None:
        self.calls.append("remove")
        return injected(self.remove)


class FilterFake(Plugin):
    points = frozenset({FILTER})

    def __init__(self, name: str, check: Callable[[Pod, NodeInfo], Status | None]) -> None:
        super().__init__(Handle(Cluster(()), Snapshot(())), None)
        self.name = name  # type: ignore[misc]
        self.check = check
        self.calls = 0

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        self.calls += 1
        return self.check(pod, node)


def false_filter() -> FilterFake:
    return FilterFake("FalseFilter", lambda p, n: Status(U, (FAKE_REASON,)))


def true_filter() -> FilterFake:
    return FilterFake("TrueFilter", lambda p, n: None)


def match_filter() -> FilterFake:
    return FilterFake("MatchFilter", lambda p, n: None if p.name == n.name else Status(U, (FAKE_REASON,)))


def no_pods_filter() -> FilterFake:
    return FilterFake("NoPodsFilter", lambda p, n: None if not n.pods else Status(U, (FAKE_REASON,)))


def fake_filter(codes: Mapping[str, Code] | None = None, name: str = "FakeFilter") -> FilterFake:
    """FakeFilterPlugin: the injected code on the nodes listed, success elsewhere."""
    table = dict(codes or {})

    def check(p: Pod, n: NodeInfo) -> Status | None:
        code = table.get(n.name)
        return None if code is None else Status(code, (f"injecting failure for pod {p.name}",))

    return FilterFake(name, check)


class ScoreFake(Plugin):
    points = frozenset({SCORE})

    def __init__(self, name: str, value: Callable[[NodeInfo], int], reverse: bool = False) -> None:
        super().__init__(Handle(Cluster(()), Snapshot(())), None)
        self.name = name  # type: ignore[misc]
        self.value = value
        self.normalizes = reverse  # type: ignore[misc]

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        return self.value(node)

    def normalize(self, state: CycleState, pod: Pod, scores: dict[str, int]) -> Status | None:
        # ReverseNumericMap: max + min - score.
        top, bottom = max(scores.values()), min(scores.values())
        for node, value in scores.items():
            scores[node] = top + bottom - value
        return None


def numeric_map() -> ScoreFake:
    return ScoreFake("NumericMap", lambda n: int(n.name))


def reverse_numeric_map() -> ScoreFake:
    return ScoreFake("ReverseNumericMap", lambda n: int(n.name), reverse=True)


def equal_prioritizer() -> ScoreFake:
    return ScoreFake("EqualPrioritizerPlugin", lambda n: 1)


class FakePreFilter(Plugin):
    points = frozenset({PRE_FILTER})

    def __init__(self, name: str, result: set[str] | None, status: Status | None) -> None:
        super().__init__(Handle(Cluster(()), Snapshot(())), None)
        self.name = name  # type: ignore[misc]
        self.result, self.status = result, status

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        return self.result, self.status


class SkippedPreFilterAndFailingFilter(Plugin):
    """PreFilter says Skip; its Filter would fail every node with an error if it ran."""

    points = frozenset({PRE_FILTER, FILTER})

    def __init__(self, name: str) -> None:
        super().__init__(Handle(Cluster(()), Snapshot(())), None)
        self.name = name  # type: ignore[misc]

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        return None, Status(SKIP)

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        return Status(E, ("must not run",))


# --- the world a cycle runs in ------------------------------------------------------------------------

Entry = str | tuple[str, int]


def make_pod(name: str, priority: int = LOW, **kw: Any) -> Pod:
    return Pod("default", name, name, priority=priority, **kw)


@dataclass
class World:
    framework: Framework
    nodes: list[NodeInfo]
    cycle: Cycle

    def run(self, pod: Pod, nominated: Mapping[str, list[Pod]] | None = None) -> CycleResult:
        return self.cycle.run(pod, self.nodes, dict(nominated or {}))

    def plugin(self, name: str) -> Any:
        return self.framework.plugin(name)


def world(
    points: Mapping[str, Sequence[Entry]],
    fakes: Sequence[Plugin] = (),
    nodes: Sequence[str | Node] = ("node1", "node2"),
    pods: Sequence[Pod] = (),
    *,
    global_percentage: int = 0,
    percentage: int | None = None,
    rng: random.Random | None = None,
) -> World:
    facts = [n if isinstance(n, Node) else Node(n, {"kubernetes.io/hostname": n}) for n in nodes]
    infos = [NodeInfo(n) for n in facts]
    by_name = {i.name: i for i in infos}
    for p in pods:
        by_name[p.node_name].add_pod(p)
    handle = Handle(Cluster(tuple(facts), tuple(pods)), Snapshot(infos))
    plugins = {
        point: PluginSet(tuple(PluginEntry(*e) if isinstance(e, tuple) else PluginEntry(e) for e in entries))
        for point, entries in points.items()
    }
    profile = Profile(plugins=plugins, percentage_of_nodes_to_score=percentage)
    factories: dict[str, Callable[[Handle, object], Plugin]] = {}
    for fake in fakes:
        factories[fake.name] = lambda h, a, fake=fake: fake  # type: ignore[misc]
    framework = Framework(profile, handle, factories=factories)
    return World(framework, infos, Cycle(framework, global_percentage, rng))


# --- TestNumFeasibleNodesToFind -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "global_pct", "profile_pct", "num_all", "want"),
    [
        ("not set percentageOfNodesToScore and nodes number not more than 50", 0, None, 10, 10),
        ("set profile percentageOfNodesToScore and nodes number not more than 50", 0, 40, 10, 10),
        ("not set percentageOfNodesToScore and nodes number more than 50", 0, None, 1000, 420),
        ("set profile percentageOfNodesToScore and nodes number more than 50", 0, 40, 1000, 400),
        ("set global and profile percentageOfNodesToScore and nodes number more than 50", 100, 40, 1000, 400),
        ("set global percentageOfNodesToScore and nodes number more than 50", 40, None, 1000, 400),
        ("not set profile percentageOfNodesToScore and nodes number more than 50*125", 0, None, 6000, 300),
        ("set profile percentageOfNodesToScore and nodes number more than 50*125", 0, 40, 6000, 2400),
        # kubefit's own: the adaptive percentage bottoms out at 5%, and 100 nodes is the floor.
        ("the adaptive percentage never goes below five percent", 0, None, 10000, 500),
        ("a small percentage still finds one hundred nodes", 10, None, 500, 100),
        ("exactly one hundred nodes are all wanted with the adaptive percentage", 0, None, 100, 100),
    ],
)
def test_num_feasible_nodes_to_find(
    name: str, global_pct: int, profile_pct: int | None, num_all: int, want: int
) -> None:
    assert num_feasible_nodes_to_find(profile_pct, global_pct, num_all) == want


# --- TestFitError_Error -------------------------------------------------------------------------------

PRE = "Node(s) failed PreFilter plugin FalsePreFilter"
F1, F2 = "Node(s) failed Filter plugin FalseFilter-1", "Node(s) failed Filter plugin FalseFilter-2"
POST = "Error running PostFilter plugin FailedPostFilter"


def statuses(**by_node: str) -> dict[str, Status]:
    return {n: Status(U, (reason,)) for n, reason in by_node.items()}


@pytest.mark.parametrize(
    ("name", "num", "by_node", "absent", "pre_msg", "post_msg", "want"),
    [
        (
            "nodes failed Prefilter plugin",
            3,
            statuses(node1=PRE, node2=PRE, node3=PRE),
            None,
            PRE,
            "",
            f"0/3 nodes are available: {PRE}.",
        ),
        (
            "nodes failed Prefilter plugin and the preemption also failed",
            3,
            statuses(node1=PRE, node2=PRE, node3=PRE),
            None,
            PRE,
            POST,
            f"0/3 nodes are available: {PRE}. {POST}",
        ),
        (
            "nodes failed one Filter plugin with an empty PostFilterMsg",
            3,
            statuses(node1=F1, node2=F1, node3=F1),
            None,
            "",
            "",
            f"0/3 nodes are available: 3 {F1}.",
        ),
        (
            "nodes failed one Filter plugin with a non-empty PostFilterMsg",
            3,
            statuses(node1=F1, node2=F1, node3=F1),
            None,
            "",
            POST,
            f"0/3 nodes are available: 3 {F1}. {POST}",
        ),
        (
            "nodes failed two Filter plugins with an empty PostFilterMsg",
            3,
            statuses(node1=F1, node2=F1, node3=F2),
            None,
            "",
            "",
            f"0/3 nodes are available: 1 {F2}, 2 {F1}.",
        ),
        (
            "nodes failed two Filter plugins with a non-empty PostFilterMsg",
            3,
            statuses(node1=F1, node2=F1, node3=F2),
            None,
            "",
            POST,
            f"0/3 nodes are available: 1 {F2}, 2 {F1}. {POST}",
        ),
        (
            "failed to Permit on node",
            1,
            statuses(node1="Node failed Permit plugin Permit-1"),
            None,
            "",
            "",
            "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.",
        ),
        (
            "failed to Reserve on node",
            1,
            statuses(node1="Node failed Reserve plugin Reserve-1"),
            None,
            "",
            "",
            "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.",
        ),
        # kubefit's own, for what the table leaves implicit.
        (
            "nodes absent from the statuses count with the absent status",
            5,
            statuses(node1=F1),
            Status(UU, ("node(s) didn't satisfy plugin(s) [P]",)),
            "",
            "",
            f"0/5 nodes are available: 1 {F1}, 4 node(s) didn't satisfy plugin(s) [P].",
        ),
        (
            "absent nodes without a status add nothing",
            5,
            statuses(node1=F1),
            Status(UU),
            "",
            "",
            f"0/5 nodes are available: 1 {F1}.",
        ),
        (
            "a node with two reasons counts in both and counts sort as strings",
            12,
            {
                **{f"n{i}": Status(U, ("Insufficient cpu",)) for i in range(10)},
                "x": Status(U, ("Insufficient cpu", "Insufficient memory")),
                "y": Status(U, ("Insufficient memory",)),
            },
            None,
            "",
            "",
            "0/12 nodes are available: 11 Insufficient cpu, 2 Insufficient memory.",
        ),
        (
            "no reason at all leaves the histogram out",
            2,
            {},
            None,
            "",
            POST,
            f"0/2 nodes are available: {POST}",
        ),
    ],
)
def test_fit_error_message(
    name: str,
    num: int,
    by_node: dict[str, Status],
    absent: Status | None,
    pre_msg: str,
    post_msg: str,
    want: str,
) -> None:
    assert fit_error_message(num, by_node, absent, pre_msg, post_msg) == want


# --- TestSchedulerSchedulePod -------------------------------------------------------------------------


@dataclass(frozen=True)
class ScheduleCase:
    name: str
    points: Mapping[str, Sequence[Entry]]
    fakes: Callable[[], Sequence[Plugin]]
    nodes: Sequence[str | Node]
    pod: Pod
    pods: Sequence[Pod] = ()
    want_node: str = ""
    want_message: str = ""
    want_evaluated: int | None = None  # default: every node
    want_error: str = ""


def spread_pod(name: str, skew: int, node: str = "") -> Pod:
    constraint = SpreadConstraint(
        skew, "kubernetes.io/hostname", "DoNotSchedule", LabelSelector((Requirement("foo", "Exists"),))
    )
    return make_pod(name, labels={"foo": ""}, spread_constraints=(constraint,), node_name=node)


def labelled(name: str, node: str) -> Pod:
    return make_pod(name, labels={"foo": ""}, node_name=node)


PTS = names.POD_TOPOLOGY_SPREAD
SCHEDULE_CASES = [
    ScheduleCase(
        "test 1: a filter failing every node",
        {FILTER: ["FalseFilter"]},
        lambda: [false_filter()],
        ["node1", "node2"],
        make_pod("2"),
        want_message=f"0/2 nodes are available: 2 {FAKE_REASON}.",
    ),
    ScheduleCase(
        "test 2: equal scores take the first node evaluated",
        {FILTER: ["TrueFilter"], SCORE: [("EqualPrioritizerPlugin", 1)]},
        lambda: [true_filter(), equal_prioritizer()],
        ["node1", "node2"],
        make_pod("ignore"),
        want_node="node1",
    ),
    ScheduleCase(
        "test 3: fits on the node named like the pod",
        {FILTER: ["MatchFilter"]},
        lambda: [match_filter()],
        ["node1", "node2"],
        make_pod("node2"),
        want_node="node2",
        # Without Score plugins the cycle stops at the first feasible node.
        want_evaluated=2,
    ),
    ScheduleCase(
        "test 4: the highest score wins",
        {FILTER: ["TrueFilter"], SCORE: [("NumericMap", 1)]},
        lambda: [true_filter(), numeric_map()],
        ["3", "2", "1"],
        make_pod("ignore"),
        want_node="3",
    ),
    ScheduleCase(
        "test 5: only the matching node is scored",
        {FILTER: ["MatchFilter"], SCORE: [("NumericMap", 1)]},
        lambda: [match_filter(), numeric_map()],
        ["3", "2", "1"],
        make_pod("2"),
        want_node="2",
    ),
    ScheduleCase(
        "test 6: weights decide between two scorers",
        {FILTER: ["TrueFilter"], SCORE: [("NumericMap", 1), ("ReverseNumericMap", 2)]},
        lambda: [true_filter(), numeric_map(), reverse_numeric_map()],
        ["3", "2", "1"],
        make_pod("2"),
        want_node="1",
    ),
    ScheduleCase(
        "test 7: a passing and a failing filter",
        {FILTER: ["TrueFilter", "FalseFilter"], SCORE: [("NumericMap", 1)]},
        lambda: [true_filter(), false_filter(), numeric_map()],
        ["3", "2", "1"],
        make_pod("2"),
        want_message=f"0/3 nodes are available: 3 {FAKE_REASON}.",
    ),
    ScheduleCase(
        "test 8: the first rejecting filter answers for each node",
        {FILTER: ["NoPodsFilter", "MatchFilter"], SCORE: [("NumericMap", 1)]},
        lambda: [no_pods_filter(), match_filter(), numeric_map()],
        ["1", "2"],
        make_pod("2"),
        pods=[make_pod("running", node_name="2")],
        want_message=f"0/2 nodes are available: 2 {FAKE_REASON}.",
    ),
    ScheduleCase(
        "test podtopologyspread plugin - 2 nodes with maxskew=1",
        {PRE_FILTER: [PTS], FILTER: [PTS]},
        lambda: [],
        ["node1", "node2"],
        spread_pod("p", 1),
        pods=[labelled("pod1", "node1")],
        want_node="node2",
    ),
    ScheduleCase(
        "test podtopologyspread plugin - 3 nodes with maxskew=2",
        {PRE_FILTER: [PTS], FILTER: [PTS], SCORE: [("EqualPrioritizerPlugin", 1)]},
        lambda: [equal_prioritizer()],
        ["node1", "node2", "node3"],
        spread_pod("p", 2),
        pods=[labelled("pod1a", "node1"), labelled("pod1b", "node1"), labelled("pod2", "node2")],
        want_node="node2",
    ),
    ScheduleCase(
        "test with filter plugin returning Unschedulable status",
        {FILTER: ["FakeFilter"], SCORE: [("NumericMap", 1)]},
        lambda: [fake_filter({"3": U}), numeric_map()],
        ["3"],
        make_pod("test-filter"),
        want_message="0/1 nodes are available: 1 injecting failure for pod test-filter.",
    ),
    ScheduleCase(
        "test with filter plugin returning UnschedulableAndUnresolvable status",
        {FILTER: ["FakeFilter"], SCORE: [("NumericMap", 1)]},
        lambda: [fake_filter({"3": UU}), numeric_map()],
        ["3"],
        make_pod("test-filter"),
        want_message="0/1 nodes are available: 1 injecting failure for pod test-filter.",
    ),
    ScheduleCase(
        "test with partial failed filter plugin",
        {FILTER: ["FakeFilter"], SCORE: [("NumericMap", 1)]},
        lambda: [fake_filter({"1": U}), numeric_map()],
        ["1", "2"],
        make_pod("test-filter"),
        want_node="2",
    ),
    ScheduleCase(
        "test prefilter plugin returning Unschedulable status",
        {PRE_FILTER: ["FakePreFilter"]},
        lambda: [FakePreFilter("FakePreFilter", None, Status(UU, ("injected unschedulable status",)))],
        ["1", "2"],
        make_pod("test-prefilter"),
        want_message="0/2 nodes are available: injected unschedulable status.",
    ),
    ScheduleCase(
        "test prefilter plugin returning error status",
        {PRE_FILTER: ["FakePreFilter"]},
        lambda: [FakePreFilter("FakePreFilter", None, Status(E, ("injected error status",)))],
        ["1", "2"],
        make_pod("test-prefilter"),
        want_error='running PreFilter plugin "FakePreFilter": injected error status',
    ),
    ScheduleCase(
        "test prefilter plugin returning node",
        {PRE_FILTER: ["FakePreFilter1", "FakePreFilter2", "FakePreFilter3"]},
        lambda: [
            FakePreFilter("FakePreFilter1", None, None),
            FakePreFilter("FakePreFilter2", {"node2"}, None),
            FakePreFilter("FakePreFilter3", {"node1", "node2"}, None),
        ],
        ["node1", "node2", "node3"],
        make_pod("test-prefilter"),
        want_node="node2",
        want_evaluated=1,
    ),
    ScheduleCase(
        "test prefilter plugin returning non-intersecting nodes",
        {PRE_FILTER: ["FakePreFilter1", "FakePreFilter2", "FakePreFilter3"]},
        lambda: [
            FakePreFilter("FakePreFilter1", None, None),
            FakePreFilter("FakePreFilter2", {"node2"}, None),
            FakePreFilter("FakePreFilter3", {"node1"}, None),
        ],
        ["node1", "node2", "node3"],
        make_pod("test-prefilter"),
        want_message=(
            "0/3 nodes are available: node(s) didn't satisfy plugin(s) "
            "[FakePreFilter2 FakePreFilter3] simultaneously."
        ),
    ),
    ScheduleCase(
        "test prefilter plugins narrowing to nothing are named sorted",
        {PRE_FILTER: ["Zeta", "Alpha"]},
        lambda: [FakePreFilter("Zeta", {"node2"}, None), FakePreFilter("Alpha", {"node1"}, None)],
        ["node1", "node2"],
        make_pod("test-prefilter"),
        want_message="0/2 nodes are available: node(s) didn't satisfy plugin(s) [Alpha Zeta] simultaneously.",
    ),
    ScheduleCase(
        "test prefilter plugin returning empty node set",
        {PRE_FILTER: ["FakePreFilter1", "FakePreFilter2"]},
        lambda: [FakePreFilter("FakePreFilter1", None, None), FakePreFilter("FakePreFilter2", set(), None)],
        ["node1"],
        make_pod("test-prefilter"),
        want_message="0/1 nodes are available: node(s) didn't satisfy plugin FakePreFilter2.",
    ),
    ScheduleCase(
        "test some nodes are filtered out by prefilter plugin and other are filtered out by filter plugin",
        {PRE_FILTER: ["FakePreFilter"], FILTER: ["FakeFilter"]},
        lambda: [FakePreFilter("FakePreFilter", {"node2"}, None), fake_filter({"node2": U})],
        ["node1", "node2"],
        make_pod("test-prefilter"),
        want_message=(
            "0/2 nodes are available: 1 injecting failure for pod test-prefilter, "
            "1 node(s) didn't satisfy plugin(s) [FakePreFilter]."
        ),
    ),
    ScheduleCase(
        "test prefilter plugin returning skip",
        {
            PRE_FILTER: ["FakePreFilter1", "FakeFilter2"],
            FILTER: ["FakeFilter1", "FakeFilter2"],
            SCORE: [("EqualPrioritizerPlugin", 1)],
        },
        lambda: [
            FakePreFilter("FakePreFilter1", None, None),
            fake_filter({"node1": U}, name="FakeFilter1"),
            SkippedPreFilterAndFailingFilter("FakeFilter2"),
            equal_prioritizer(),
        ],
        ["node1", "node2", "node3"],
        make_pod("test-prefilter"),
        want_node="node2",
        want_evaluated=3,
    ),
    ScheduleCase(
        "test all prescore plugins return skip",
        {
            FILTER: ["TrueFilter"],
            PRE_SCORE: ["FakePreScoreAndScorePlugin"],
            SCORE: ["FakePreScoreAndScorePlugin"],
        },
        lambda: [true_filter(), Injected("FakePreScoreAndScorePlugin", [PRE_SCORE, SCORE], pre_score=SKIP)],
        ["node1", "node2"],
        make_pod("ignore"),
        want_node="node1",
    ),
    ScheduleCase(
        "test without score plugin no extra nodes are evaluated",
        {FILTER: ["TrueFilter"]},
        lambda: [true_filter()],
        ["node1", "node2", "node3"],
        make_pod("pod1"),
        want_node="node1",
        want_evaluated=1,
    ),
    ScheduleCase(
        "test no score plugin, prefilter plugin returning 2 nodes",
        {PRE_FILTER: ["FakePreFilter"]},
        lambda: [FakePreFilter("FakePreFilter", {"node1", "node2"}, None)],
        ["node1", "node2", "node3"],
        make_pod("test-prefilter"),
        want_node="node1",
        want_evaluated=1,
    ),
    ScheduleCase(
        "test prefilter plugin returned an invalid node",
        {PRE_FILTER: ["FakePreFilter"], FILTER: ["TrueFilter"]},
        lambda: [FakePreFilter("FakePreFilter", {"invalid-node"}, None), true_filter()],
        ["1", "2"],
        make_pod("test-prefilter"),
        want_message="0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [FakePreFilter].",
    ),
]


@pytest.mark.parametrize("case", SCHEDULE_CASES, ids=lambda c: c.name)
def test_schedule_pod(case: ScheduleCase) -> None:
    w = world(case.points, case.fakes(), case.nodes, case.pods)
    if case.want_error:
        with pytest.raises(FrameworkError) as failed:
            w.run(case.pod)
        assert failed.value.status.message == case.want_error
        return
    got = w.run(case.pod)
    assert (got.node, got.message) == (case.want_node, case.want_message)
    if case.want_node:
        want = case.want_evaluated if case.want_evaluated is not None else len(case.nodes)
        assert got.evaluated == want


def test_find_fit_all_error() -> None:
    """TestFindFitAllError: every node's status is MatchFilter's, the first filter to reject it."""
    w = world({FILTER: ["TrueFilter", "MatchFilter"]}, [true_filter(), match_filter()], ["3", "2", "1"])
    got = w.run(make_pod("no-match"))
    assert {n: (s.code, s.reasons, s.plugin) for n, s in got.statuses.items()} == {
        n: (U, (FAKE_REASON,), "MatchFilter") for n in ("3", "2", "1")
    }
    assert got.filters["1"] == {"TrueFilter": "passed", "MatchFilter": FAKE_REASON}


def test_find_fit_some_error() -> None:
    """TestFindFitSomeError: the node named like the pod passes, the others fail MatchFilter."""
    points = {FILTER: ["TrueFilter", "MatchFilter"], SCORE: [("EqualPrioritizerPlugin", 1)]}
    w = world(points, [true_filter(), match_filter(), equal_prioritizer()], ["3", "2", "1"])
    got = w.run(make_pod("1"))
    assert got.node == "1"
    assert sorted(got.statuses) == ["2", "3"]
    assert all(s.reasons == (FAKE_REASON,) and s.plugin == "MatchFilter" for s in got.statuses.values())


@pytest.mark.parametrize(
    ("name", "priority", "want_calls"),
    [
        ("nominated pods have lower priority, predicate is called once", HIGH, 1),
        ("nominated pods have higher priority, predicate is called twice", LOW, 2),
    ],
)
def test_find_fit_predicate_call_counts(name: str, priority: int, want_calls: int) -> None:
    counting = fake_filter()
    w = world({FILTER: ["FakeFilter"]}, [counting], ["1"])
    nominated = make_pod("nominated", MID, nominated_node="1")
    assert w.run(make_pod("1", priority), {"1": [nominated]}).node == "1"
    assert counting.calls == want_calls


def test_fair_evaluation_for_nodes() -> None:
    """TestFairEvaluationForNodes: with 30% of 500 nodes each cycle finds 150, and the next cycle starts
    where this one stopped, wrapping around."""
    nodes = [str(i) for i in range(500)]
    points = {FILTER: ["TrueFilter"], SCORE: [("EqualPrioritizerPlugin", 1)]}
    w = world(points, [true_filter(), equal_prioritizer()], nodes, global_percentage=30)
    to_find = num_feasible_nodes_to_find(None, 30, 500)
    assert to_find == 150
    for i in range(2 * (500 // to_find + 1)):
        got = w.run(make_pod("p"))
        assert got.feasible == to_find
        assert w.cycle.next_start == (i + 1) * to_find % 500
        # The first node evaluated, the one chosen (equal scores), is where the cycle started.
        assert got.node == nodes[i * to_find % 500]


def test_start_index_advances_by_every_node_processed() -> None:
    """nextStartNodeIndex = (start + feasible + rejected) % all nodes, rejected nodes included."""
    nodes = [f"n{i:03d}" for i in range(200)]
    rejected = {n: U for n in nodes[:30]}
    points = {FILTER: ["FakeFilter"], SCORE: [("EqualPrioritizerPlugin", 1)]}
    w = world(points, [fake_filter(rejected), equal_prioritizer()], nodes, percentage=50)
    got = w.run(make_pod("p"))
    assert (got.feasible, len(got.statuses), got.evaluated) == (100, 30, 130)
    assert w.cycle.next_start == 130
    got = w.run(make_pod("q"))
    # From n130 on: 70 feasible to n199, then n000..n029 rejected, then n030..n059 feasible.
    assert (got.feasible, len(got.statuses), w.cycle.next_start) == (100, 30, 60)
    assert got.node == "n130"


def test_narrowed_nodes_rotate_over_the_narrowed_list() -> None:
    """The start index indexes the nodes PreFilter left, modulo their number; it advances modulo all."""
    nodes = [f"n{i:03d}" for i in range(150)]
    allowed = set(nodes[::2])  # 75 nodes
    points = {PRE_FILTER: ["FakePreFilter"], FILTER: ["TrueFilter"], SCORE: [("EqualPrioritizerPlugin", 1)]}
    fakes = [FakePreFilter("FakePreFilter", allowed, None), true_filter(), equal_prioritizer()]
    w = world(points, fakes, nodes)
    w.cycle.next_start = 140
    got = w.run(make_pod("p"))
    assert got.node == sorted(allowed)[140 % 75]
    assert got.feasible == 75
    assert w.cycle.next_start == (140 + 75) % 150


@pytest.mark.parametrize(
    ("name", "nominated_node", "codes", "want_calls"),
    [
        ("pod has the nominated node set, filter is called only once", "node1", {}, 1),
        ("pod without the nominated pod, filter is called for each node", "", {}, 3),
        ("nominated pod cannot pass the filter, filter is called for each node", "node1", {"node1": U}, 4),
    ],
)
def test_prefer_nominated_node_filter_call_counts(
    name: str, nominated_node: str, codes: dict[str, Code], want_calls: int
) -> None:
    counting = fake_filter(codes)
    points = {FILTER: ["FakeFilter"], SCORE: [("EqualPrioritizerPlugin", 1)]}
    w = world(points, [counting, equal_prioritizer()], ["node1", "node2", "node3"])
    got = w.run(make_pod("p", HIGH, nominated_node=nominated_node))
    assert counting.calls == want_calls
    assert got.node == ("node2" if codes else "node1")
    assert got.evaluated == (1 if nominated_node and not codes else 3)


def test_nominated_node_missing_from_the_snapshot_falls_back_to_every_node() -> None:
    """TestEvaluateNominatedNode: a nominated node that is not in the snapshot is no candidate."""
    counting = fake_filter()
    w = world(
        {FILTER: ["FakeFilter"], SCORE: [("EqualPrioritizerPlugin", 1)]}, [counting, equal_prioritizer()]
    )
    got = w.run(make_pod("p", nominated_node="n3"))
    assert (got.node, counting.calls) == ("node1", 2)


def test_nominated_node_is_tried_even_where_prefilter_narrowed_it_out() -> None:
    """evaluateNominatedNode runs before the PreFilter result narrows the nodes."""
    points = {PRE_FILTER: ["FakePreFilter"], FILTER: ["TrueFilter"]}
    fakes = [FakePreFilter("FakePreFilter", {"node1"}, None), true_filter()]
    w = world(points, fakes, ["node1", "node2"])
    got = w.run(make_pod("p", nominated_node="node2"))
    assert (got.node, got.evaluated) == ("node2", 1)


def test_a_failed_nominated_node_stays_in_the_diagnosis() -> None:
    """The nominated node failed and PreFilter narrowed it out: its status still counts in the message,
    the others count as the narrowing's absent status."""
    points = {PRE_FILTER: ["FakePreFilter"], FILTER: ["FakeFilter"]}
    fakes = [FakePreFilter("FakePreFilter", {"node1"}, None), fake_filter({"node1": U, "node3": U})]
    w = world(points, fakes, ["node1", "node2", "node3"])
    got = w.run(make_pod("p", nominated_node="node3"))
    assert got.message == (
        "0/3 nodes are available: 1 node(s) didn't satisfy plugin(s) [FakePreFilter], "
        "2 injecting failure for pod p."
    )
    assert w.cycle.next_start == 2


# --- host selection -----------------------------------------------------------------------------------


def scored(*totals: tuple[str, int]) -> list[NodeScores]:
    return [NodeScores(n, total=t) for n, t in totals]


@pytest.mark.parametrize(
    ("name", "totals", "want"),
    [
        ("unique properly ordered scores", [("node1", 1), ("node2", 2)], "node2"),
        ("out of order scores", [("node3.1", 3), ("node2.1", 2), ("node1.1", 1), ("node3.2", 3)], "node3.1"),
        (
            "equal scores take the first evaluated",
            [("node2.2", 2), ("node2.1", 2), ("node2.3", 2)],
            "node2.2",
        ),
    ],
)
def test_select_host_without_a_seed(name: str, totals: list[tuple[str, int]], want: str) -> None:
    w = world({}, [], ["n"])
    assert w.cycle._select(scored(*totals)) == want


def test_select_host_with_a_seed_is_uniform_among_the_tied() -> None:
    w = world({}, [], ["n"], rng=random.Random(3))
    tied = scored(("a", 5), ("b", 9), ("c", 9), ("d", 9), ("e", 1))
    runs = 6000
    counts = Counter(w.cycle._select(tied) for _ in range(runs))
    assert set(counts) == {"b", "c", "d"}
    expected = runs / 3
    chi2 = sum((counts[n] - expected) ** 2 / expected for n in "bcd")
    assert chi2 < 13.8  # p = 0.001 with 2 degrees of freedom


def test_select_host_with_a_seed_is_reproducible() -> None:
    tied = scored(*((f"n{i}", 7) for i in range(10)))
    a, b = (world({}, [], ["n"], rng=random.Random(11)).cycle for _ in range(2))
    assert [a._select(tied) for _ in range(50)] == [b._select(tied) for _ in range(50)]
    # A lone top score needs no draw: the random source is left as it was.
    c = world({}, [], ["n"], rng=random.Random(5)).cycle
    assert c.rng is not None
    before = c.rng.getstate()
    assert c._select(scored(("a", 1), ("b", 2))) == "b"
    assert c.rng.getstate() == before


def test_select_host_with_a_seed_through_cycles() -> None:
    """Over many seeds, a cycle over three equal nodes picks each about as often."""
    counts: Counter[str] = Counter()
    for seed in range(900):
        points = {FILTER: ["TrueFilter"], SCORE: [("EqualPrioritizerPlugin", 1)]}
        w = world(points, [true_filter(), equal_prioritizer()], ["a", "b", "c"], rng=random.Random(seed))
        counts[w.run(make_pod("p")).node] += 1
    assert all(240 < counts[n] < 360 for n in "abc"), counts


# --- Reserve in the cycle (TestSchedulerScheduleOne) --------------------------------------------------


def test_reserve_rejection_is_a_one_node_fit_error() -> None:
    log: list[str] = []
    fakes = [
        true_filter(),
        Injected("Other", [RESERVE], log=log),
        Injected("FakeReserve", [RESERVE], reserve=UU, log=log),
    ]
    w = world({FILTER: ["TrueFilter"], RESERVE: ["Other", "FakeReserve"]}, fakes, ["node1", "node2"])
    got = w.run(make_pod("foo"))
    assert (got.node, got.message) == ("", f"0/1 nodes are available: 1 {INJECTED}.")
    # RunReservePluginsUnreserve: every reserve plugin, in reverse order.
    assert log == ["reserve Other", "reserve FakeReserve", "unreserve FakeReserve", "unreserve Other"]


def test_reserve_error_fails_the_cycle() -> None:
    fakes = [true_filter(), Injected("FakeReserve", [RESERVE], reserve=E)]
    w = world({FILTER: ["TrueFilter"], RESERVE: ["FakeReserve"]}, fakes, ["node1"])
    with pytest.raises(FrameworkError) as failed:
        w.run(make_pod("foo"))
    assert failed.value.status.message == f'running Reserve plugin "FakeReserve": {INJECTED}'


# --- PostFilter in the cycle --------------------------------------------------------------------------


def test_post_filter_message_joins_the_fit_error_as_it_is() -> None:
    fakes = [false_filter(), Injected("P1", [POST_FILTER], post_filter=U)]
    w = world({FILTER: ["FalseFilter"], POST_FILTER: ["P1"]}, fakes, ["node1"])
    got = w.run(make_pod("p"))
    assert got.message == f"0/1 nodes are available: 1 {FAKE_REASON}. {INJECTED}"


def test_post_filter_sees_every_node_rejected_by_prefilter() -> None:
    seen: list[dict[str, Code]] = []

    class Recorder(Plugin):
        name = "Recorder"
        points = frozenset({POST_FILTER})

        def post_filter(
            self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
        ) -> tuple[str, Status | None]:
            seen.append({n: s.code for n, s in statuses.items()})
            return "", Status(U, ("nothing to do",))

    points = {PRE_FILTER: ["FakePreFilter"], FILTER: ["FakeFilter"], POST_FILTER: ["Recorder"]}
    fakes = [
        FakePreFilter("FakePreFilter", {"node2"}, None),
        fake_filter({"node2": U}),
        Recorder(Handle(Cluster(()), Snapshot(()))),
    ]
    w = world(points, fakes, ["node1", "node2"])
    got = w.run(make_pod("p"))
    assert seen == [{"node1": UU, "node2": U}]
    assert got.message.endswith(". nothing to do")


# --- TestRunPreFilterPlugins --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "plugins", "want_code", "want_skipped", "want_allowed"),
    [
        (
            "all PreFilter returned success",
            [("success1", None, None), ("success2", None, None)],
            None,
            set(),
            None,
        ),
        (
            "one PreFilter plugin returned success, but another PreFilter plugin returned non-success",
            [("success", None, None), ("error", E, None)],
            E,
            set(),
            None,
        ),
        (
            "one PreFilter plugin returned skip, but another PreFilter plugin returned non-success",
            [("skip", SKIP, None), ("error", E, None)],
            E,
            {"skip"},
            None,
        ),
        (
            "all PreFilter plugins returned skip",
            [("skip1", SKIP, None), ("skip2", SKIP, None), ("skip3", SKIP, None)],
            None,
            {"skip1", "skip2", "skip3"},
            None,
        ),
        (
            "some PreFilter plugins returned skip",
            [
                ("skip1", SKIP, None),
                ("success1", None, None),
                ("skip2", SKIP, None),
                ("success2", None, None),
            ],
            None,
            {"skip1", "skip2"},
            None,
        ),
        (
            "one PreFilter plugin returned Unschedulable, but another PreFilter plugin should be executed",
            [("unschedulable", U, None), ("skip", SKIP, None)],
            U,
            {"skip"},
            None,
        ),
        (
            "one PreFilter plugin returned UnschedulableAndUnresolvable, and all other plugins aren't executed",
            [("unresolvable", UU, None), ("skip", SKIP, None)],
            UU,
            set(),
            None,
        ),
        (
            "all nodes are filtered out by prefilter result, but other plugins aren't executed",
            [("reject-all-nodes", None, set()), ("skip", SKIP, None)],
            UU,
            set(),
            set(),
        ),
        # kubefit's own.
        (
            "results of several plugins intersect",
            [("a", None, {"n1", "n2"}), ("b", None, None), ("c", None, {"n2", "n3"})],
            None,
            set(),
            {"n2"},
        ),
        (
            "an unresolvable rejection after an unschedulable one wins",
            [("unschedulable", U, None), ("unresolvable", UU, None)],
            UU,
            set(),
            None,
        ),
    ],
)
def test_run_pre_filter_plugins(
    name: str,
    plugins: list[tuple[str, Code | None, set[str] | None]],
    want_code: Code | None,
    want_skipped: set[str],
    want_allowed: set[str] | None,
) -> None:
    fakes = [Injected(n, [PRE_FILTER], pre_filter=code, result=result) for n, code, result in plugins]
    w = world({PRE_FILTER: [n for n, _, _ in plugins]}, fakes, ["n1", "n2", "n3"])
    state = CycleState()
    if want_code == E:
        with pytest.raises(FrameworkError) as failed:
            w.framework.run_pre_filter(state, make_pod("p"), w.nodes)
        assert failed.value.status.message == f'running PreFilter plugin "error": {INJECTED}'
    else:
        got = w.framework.run_pre_filter(state, make_pod("p"), w.nodes)
        assert (got.status.code if got.status else None) == want_code
        assert got.allowed == want_allowed
    assert state.skip_filter == want_skipped


def test_unschedulable_prefilter_rejection_names_its_plugin_and_message() -> None:
    fakes = [Injected("first", [PRE_FILTER], pre_filter=U), Injected("second", [PRE_FILTER], pre_filter=U)]
    w = world({PRE_FILTER: ["first", "second"], POST_FILTER: []}, fakes, ["n1", "n2"])
    got = w.run(make_pod("p"))
    # The last Unschedulable rejection stands, as the pod's PreFilter message.
    assert got.pre_filter == {"second": INJECTED}
    assert got.message == f"0/2 nodes are available: {INJECTED}."


@pytest.mark.parametrize("extension", ["add", "remove"])
@pytest.mark.parametrize(
    ("name", "codes", "skipped", "want_error"),
    [
        (
            "no plugins are skipped and all of them returned success",
            {"success1": None, "success2": None},
            set(),
            "",
        ),
        ("one returned error", {"success1": None, "error1": E}, set(), "error1"),
        ("one is skipped", {"success1": None, "skipped": E}, {"skipped"}, ""),
    ],
)
def test_run_pre_filter_extensions(
    extension: str, name: str, codes: dict[str, Code | None], skipped: set[str], want_error: str
) -> None:
    fakes = [InjectedWithExtensions(n, [PRE_FILTER], **{extension: c}) for n, c in codes.items()]
    w = world({PRE_FILTER: list(codes)}, fakes, ["n1"])
    state = CycleState()
    state.skip_filter |= skipped
    other = make_pod("other", node_name="n1")
    call = w.framework.add_pod if extension == "add" else w.framework.remove_pod
    if want_error:
        with pytest.raises(FrameworkError) as failed:
            call(state, make_pod("p"), other, w.nodes[0])
        verb = "AddPod" if extension == "add" else "RemovePod"
        assert failed.value.status.message == f'running {verb} on PreFilter plugin "{want_error}": {INJECTED}'
    else:
        call(state, make_pod("p"), other, w.nodes[0])
    for fake in fakes:
        assert fake.calls == ([] if fake.name in skipped else [extension])


# --- TestFilterPlugins --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "codes", "skipped", "want"),
    [
        ("SuccessFilter", {"TestPlugin": S}, set(), None),
        (
            "ErrorFilter",
            {"TestPlugin": E},
            set(),
            (E, 'running "TestPlugin" filter plugin: injected filter status'),
        ),
        ("UnschedulableFilter", {"TestPlugin": U}, set(), (U, INJECTED_FILTER, "TestPlugin")),
        (
            "UnschedulableAndUnresolvableFilter",
            {"TestPlugin": UU},
            set(),
            (UU, INJECTED_FILTER, "TestPlugin"),
        ),
        (
            "ErrorAndErrorFilters",
            {"TestPlugin1": E, "TestPlugin2": E},
            set(),
            (E, 'running "TestPlugin1" filter plugin: injected filter status'),
        ),
        (
            "UnschedulableAndUnschedulableFilters",
            {"TestPlugin1": U, "TestPlugin2": U},
            set(),
            (U, INJECTED_FILTER, "TestPlugin1"),
        ),
        (
            "UnschedulableAndUnschedulableAndUnresolvableFilters",
            {"TestPlugin1": UU, "TestPlugin2": U},
            set(),
            (UU, INJECTED_FILTER, "TestPlugin1"),
        ),
        ("SuccessAndSuccessFilters", {"TestPlugin1": S, "TestPlugin2": S}, set(), None),
        ("SuccessAndSkipFilters", {"TestPlugin1": S, "TestPlugin2": E}, {"TestPlugin2"}, None),
        (
            "ErrorAndSuccessFilters",
            {"TestPlugin1": E, "TestPlugin2": S},
            set(),
            (E, 'running "TestPlugin1" filter plugin: injected filter status'),
        ),
        (
            "SuccessAndErrorFilters",
            {"TestPlugin1": S, "TestPlugin2": E},
            set(),
            (E, 'running "TestPlugin2" filter plugin: injected filter status'),
        ),
        (
            "SuccessAndUnschedulableFilters",
            {"TestPlugin1": S, "TestPlugin2": U},
            set(),
            (U, INJECTED_FILTER, "TestPlugin2"),
        ),
    ],
)
def test_filter_plugins(
    name: str,
    codes: dict[str, Code],
    skipped: set[str],
    want: tuple[Code, str, str] | tuple[Code, str] | None,
) -> None:
    fakes = [Injected(n, [FILTER], filter=c) for n, c in codes.items()]
    w = world({FILTER: list(codes)}, fakes, ["n1"])
    state = CycleState()
    state.skip_filter |= skipped
    record: dict[str, str] = {}
    if want is not None and want[0] == E:
        with pytest.raises(FrameworkError) as failed:
            w.framework.run_filters(state, make_pod("p"), w.nodes[0], record)
        assert failed.value.status.message == want[1]
        return
    got = w.framework.run_filters(state, make_pod("p"), w.nodes[0], record)
    assert (None if got is None else (got.code, got.message, got.plugin)) == want
    # Plugins after the first rejection are not evaluated; skipped ones are not either.
    evaluated = [n for n in codes if n not in skipped]
    if want is not None:
        evaluated = evaluated[: evaluated.index(want[2]) + 1]  # type: ignore[misc]
    assert list(record) == evaluated


# --- TestPostFilterPlugins ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "codes", "want"),
    [
        ("a single plugin makes a Pod schedulable", [S], (S, INJECTED, "")),
        (
            "plugin1 failed to make a Pod schedulable, followed by plugin2 which makes the Pod schedulable",
            [U, S],
            (S, INJECTED, ""),
        ),
        (
            "plugin1 makes a Pod schedulable, followed by plugin2 which cannot make the Pod schedulable",
            [S, U],
            (S, INJECTED, ""),
        ),
        (
            "plugin1 fails with an error before plugin2 could make the Pod schedulable",
            [E, S],
            (E, INJECTED, "TestPlugin1"),
        ),
        (
            "plugin1 failed to make a Pod schedulable, followed by plugin2 which makes the Pod unresolvable",
            [U, UU],
            (UU, INJECTED, "TestPlugin2"),
        ),
        (
            "both plugins failed to make a Pod schedulable",
            [U, U],
            (U, f"{INJECTED}, {INJECTED}", "TestPlugin1"),
        ),
    ],
)
def test_post_filter_plugins(name: str, codes: list[Code], want: tuple[Code, str, str]) -> None:
    names_ = [f"TestPlugin{i + 1}" for i in range(len(codes))]
    fakes = [Injected(n, [POST_FILTER], post_filter=c) for n, c in zip(names_, codes, strict=True)]
    w = world({POST_FILTER: names_}, fakes, ["n1"])
    _, got = w.framework.run_post_filter(CycleState(), make_pod("p"), {})
    assert got is not None
    assert (got.code, got.message, got.plugin) == want


# --- TestFilterPluginsWithNominatedPods ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "add", "filter_code", "priority", "nominated_priority", "want"),
    [
        ("node has no nominated pod", None, None, LOW, None, None),
        ("node has a high-priority nominated pod and all filters succeed", S, S, LOW, HIGH, None),
        (
            "node has a high-priority nominated pod and pre filters fail",
            E,
            None,
            LOW,
            HIGH,
            (E, f'running AddPod on PreFilter plugin "TestPlugin1": {INJECTED}'),
        ),
        (
            "node has a high-priority nominated pod and filters fail",
            S,
            E,
            LOW,
            HIGH,
            (E, f'running "TestPlugin2" filter plugin: {INJECTED_FILTER}'),
        ),
        ("node has a low-priority nominated pod and pre filters return unschedulable", U, S, HIGH, LOW, None),
    ],
)
def test_filter_plugins_with_nominated_pods(
    name: str,
    add: Code | None,
    filter_code: Code | None,
    priority: int,
    nominated_priority: int | None,
    want: tuple[Code, str] | None,
) -> None:
    fakes: list[Plugin] = []
    points: dict[str, list[Entry]] = {}
    if add is not None:
        fakes.append(InjectedWithExtensions("TestPlugin1", [PRE_FILTER], add=add))
        points[PRE_FILTER] = ["TestPlugin1"]
    if filter_code is not None:
        fakes.append(Injected("TestPlugin2", [FILTER], filter=filter_code))
        points[FILTER] = ["TestPlugin2"]
    w = world(points, fakes, ["testNode"])
    nominated = [] if nominated_priority is None else [make_pod("nominated", nominated_priority)]
    call = w.framework.run_filters_with_nominated
    if want is not None:
        with pytest.raises(FrameworkError) as failed:
            call(CycleState(), make_pod("p", priority), w.nodes[0], nominated)
        assert failed.value.status.message == want[1]
        return
    assert call(CycleState(), make_pod("p", priority), w.nodes[0], nominated) is None


def test_nominated_pods_are_on_the_node_in_the_first_pass_only() -> None:
    """Filters run with the nominated pods of at least the pod's priority, then without them."""
    seen: list[int] = []

    def check(p: Pod, n: NodeInfo) -> Status | None:
        seen.append(len(n.pods))
        return None

    w = world({FILTER: ["Counter"]}, [FilterFake("Counter", check)], ["n1"])
    nominated = [make_pod("same", MID), make_pod("higher", HIGH), make_pod("lower", LOW), make_pod("p", HIGH)]
    assert (
        w.framework.run_filters_with_nominated(CycleState(), make_pod("p", MID), w.nodes[0], nominated)
        is None
    )
    # The pod itself and the lower-priority one are not added.
    assert seen == [2, 0]


# --- TestRunPreScorePlugins ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "codes", "want_error", "want_skipped"),
    [
        ("all PreScorePlugins returned success", {"success1": None, "success2": None}, "", set()),
        (
            "one PreScore plugin returned success, but another returned non-success",
            {"success": None, "error": E},
            "error",
            set(),
        ),
        (
            "one PreScore plugin returned skip, but another returned non-success",
            {"skip": SKIP, "error": E},
            "error",
            {"skip"},
        ),
        (
            "all PreScore plugins returned skip",
            {"skip1": SKIP, "skip2": SKIP, "skip3": SKIP},
            "",
            {"skip1", "skip2", "skip3"},
        ),
        (
            "some PreScore plugins returned skip",
            {"skip1": SKIP, "success1": None, "skip2": SKIP, "success2": None},
            "",
            {"skip1", "skip2"},
        ),
    ],
)
def test_run_pre_score_plugins(
    name: str, codes: dict[str, Code | None], want_error: str, want_skipped: set[str]
) -> None:
    fakes = [Injected(n, [PRE_SCORE], pre_score=c) for n, c in codes.items()]
    w = world({PRE_SCORE: list(codes)}, fakes, ["n1", "n2"])
    state = CycleState()
    if want_error:
        with pytest.raises(FrameworkError) as failed:
            w.framework.run_scores(state, make_pod("p"), w.nodes)
        assert failed.value.status.message == f'running PreScore plugin "{want_error}": {INJECTED}'
    else:
        w.framework.run_scores(state, make_pod("p"), w.nodes)
    assert state.skip_score == want_skipped


# --- TestRunScorePlugins ------------------------------------------------------------------------------

N1, N2, SP1 = "score-with-normalize-plugin-1", "score-with-normalize-plugin-2", "score-plugin-1"
WEIGHTS = {N1: 1, N2: 2, SP1: 1}


@dataclass(frozen=True)
class ScoreCase:
    name: str
    plugins: Mapping[str, Mapping[str, Any]]  # name -> Injected keyword arguments
    want: Mapping[str, int] | None = None  # plugin -> weighted score on every node; None: an error
    want_error: str = ""
    skipped: frozenset[str] = frozenset()
    weights: Mapping[str, int] | None = None


SCORE_CASES = [
    ScoreCase("no Score plugins", {}, {}),
    ScoreCase("single Score plugin", {SP1: {"score": 1}}, {SP1: 1}),
    ScoreCase("single ScoreWithNormalize plugin", {N1: {"score": 10, "normalize_to": 5}}, {N1: 5}),
    ScoreCase(
        "3 Score plugins, 2 NormalizeScore plugins",
        {SP1: {"score": 1}, N1: {"score": 3, "normalize_to": 4}, N2: {"score": 4, "normalize_to": 5}},
        {SP1: 1, N1: 4, N2: 10},
    ),
    ScoreCase(
        "normalize fails",
        {SP1: {"score": 1}, N1: {"normalize": E}},
        want_error=f'running Normalize on Score plugins: plugin "{N1}" failed with: {INJECTED}',
    ),
    ScoreCase(
        "Score plugin return score greater than MaxNodeScore",
        {SP1: {"score": 101}},
        want_error=(
            f'applying score defaultWeights on Score plugins: plugin "{SP1}" returns an invalid score 101, '
            "it should in the range of [0, 100] after normalizing"
        ),
    ),
    ScoreCase(
        "Score plugin return score less than MinNodeScore",
        {SP1: {"score": -1}},
        want_error=(
            f'applying score defaultWeights on Score plugins: plugin "{SP1}" returns an invalid score -1, '
            "it should in the range of [0, 100] after normalizing"
        ),
    ),
    ScoreCase(
        "ScoreWithNormalize plugin return score greater than MaxNodeScore",
        {N1: {"normalize_to": 101}},
        want_error=(
            f'applying score defaultWeights on Score plugins: plugin "{N1}" returns an invalid score 101, '
            "it should in the range of [0, 100] after normalizing"
        ),
    ),
    ScoreCase(
        "ScoreWithNormalize plugin return score less than MinNodeScore",
        {N1: {"normalize_to": -1}},
        want_error=(
            f'applying score defaultWeights on Score plugins: plugin "{N1}" returns an invalid score -1, '
            "it should in the range of [0, 100] after normalizing"
        ),
    ),
    ScoreCase("single Score plugin with weight 3", {SP1: {"score": 1}}, {SP1: 3}, weights={SP1: 3}),
    ScoreCase(
        "one success plugin, one skip plugin",
        {SP1: {"score": 1}, N1: {"normalize": E}},
        {SP1: 1},
        skipped=frozenset({N1}),
    ),
    ScoreCase("all plugins are skipped in prescore", {SP1: {"score": 101}}, {}, skipped=frozenset({SP1})),
    ScoreCase(
        "skipped prescore plugin number greater than the number of score plugins",
        {SP1: {"score": 1}},
        {},
        skipped=frozenset({SP1, "score-plugin-unknown"}),
    ),
    # kubefit's own: a normalize failure is reported before an out-of-range score of an earlier plugin.
    ScoreCase(
        "every plugin normalizes before any score is checked",
        {SP1: {"score": 101}, N1: {"normalize": E}},
        want_error=f'running Normalize on Score plugins: plugin "{N1}" failed with: {INJECTED}',
    ),
]


@pytest.mark.parametrize("case", SCORE_CASES, ids=lambda c: c.name)
def test_run_score_plugins(case: ScoreCase) -> None:
    weights = {**WEIGHTS, **(case.weights or {})}
    fakes = [Injected(n, [SCORE], **kw) for n, kw in case.plugins.items()]
    w = world({SCORE: [(n, weights[n]) for n in case.plugins]}, fakes, ["node1", "node2"])
    state = CycleState()
    state.skip_score |= case.skipped
    if case.want_error:
        with pytest.raises(FrameworkError) as failed:
            w.framework.run_scores(state, make_pod("p"), w.nodes)
        assert failed.value.status.message == case.want_error
        return
    got = w.framework.run_scores(state, make_pod("p"), w.nodes)
    want = dict(case.want or {})
    assert [(s.node, s.weighted, s.total) for s in got] == [
        (n, want, sum(want.values())) for n in ("node1", "node2")
    ]


# --- TestReservePlugins -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "codes", "want"),
    [
        ("NoReservePlugin", {}, None),
        ("SuccessReservePlugins", {"TestPlugin": None}, None),
        ("UnschedulableReservePlugin", {"TestPlugin": U}, (U, INJECTED, "TestPlugin")),
        (
            "ErrorReservePlugin",
            {"TestPlugin": E},
            (E, f'running Reserve plugin "TestPlugin": {INJECTED}', ""),
        ),
        ("UnschedulableAndUnresolvableReservePlugin", {"TestPlugin": UU}, (UU, INJECTED, "TestPlugin")),
        ("SuccessSuccessReservePlugins", {"TestPlugin": None, "TestPlugin 1": None}, None),
        (
            "ErrorErrorReservePlugins",
            {"TestPlugin": E, "TestPlugin 1": E},
            (E, f'running Reserve plugin "TestPlugin": {INJECTED}', ""),
        ),
        (
            "SuccessErrorReservePlugins",
            {"TestPlugin": None, "TestPlugin 1": E},
            (E, f'running Reserve plugin "TestPlugin 1": {INJECTED}', ""),
        ),
        (
            "ErrorSuccessReservePlugin",
            {"TestPlugin": E, "TestPlugin 1": None},
            (E, f'running Reserve plugin "TestPlugin": {INJECTED}', ""),
        ),
        (
            "UnschedulableAndSuccessReservePlugin",
            {"TestPlugin": U, "TestPlugin 1": None},
            (U, INJECTED, "TestPlugin"),
        ),
    ],
)
def test_reserve_plugins(
    name: str, codes: dict[str, Code | None], want: tuple[Code, str, str] | None
) -> None:
    log: list[str] = []
    fakes = [Injected(n, [RESERVE], reserve=c, log=log) for n, c in codes.items()]
    w = world({RESERVE: list(codes)}, fakes, ["n1"])
    if want is not None and want[0] == E:
        with pytest.raises(FrameworkError) as failed:
            w.framework.run_reserve(CycleState(), make_pod("p"), "n1")
        assert failed.value.status.message == want[1]
    else:
        got = w.framework.run_reserve(CycleState(), make_pod("p"), "n1")
        assert (None if got is None else (got.code, got.message, got.plugin)) == want
    failed_at = next((i for i, c in enumerate(codes.values()) if c is not None), None)
    reserved = [f"reserve {n}" for n in list(codes)[: len(codes) if failed_at is None else failed_at + 1]]
    unreserved = [] if failed_at is None else [f"unreserve {n}" for n in reversed(list(codes))]
    assert log == reserved + unreserved
