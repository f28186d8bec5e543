"""DefaultPreemption: upstream's default_preemption_test.go tables as data (TestPostFilter,
TestDryRunPreemption, TestSelectBestCandidate, TestPodEligibleToPreemptOthers, TestPreempt), plus
kubefit's own cases for what those tables leave implicit (budget accounting as current upstream
does it, candidate choice criteria, nominated pods, random offsets, the API effects on victims).

The filters are the real plugins where upstream uses them (NodeResourcesFit, InterPodAffinity,
PodTopologySpread); upstream's test-only plugins (the PreFilter extension that fails on nodes
labelled error=true, the counting FakeFilter, True / False / Match filters) are small fakes here,
registered under their upstream names. Nodes are named as upstream names them, "name/zone/region"
giving the labels hostname, zone and region; every node has 500m cpu, 500 memory and 32 pods
unless a case says otherwise. Start times are seconds after the epoch.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from kubefit.model.cluster import names
from kubefit.model.cluster.args import DefaultPreemptionArgs
from kubefit.model.cluster.facts import (
    AffinityTerm,
    Cluster,
    DisruptionBudget,
    LabelSelector,
    Node,
    Pod,
    Requirement,
    SpreadConstraint,
)
from kubefit.model.cluster.points import FILTER, POST_FILTER, PRE_FILTER
from kubefit.model.cluster.profile import MULTI_POINT, PluginEntry, PluginSet, Profile
from kubefit.solver.cluster.framework import (
    Code,
    CycleState,
    Handle,
    NodeInfo,
    Plugin,
    Snapshot,
    Status,
    error,
)
from kubefit.solver.cluster.plugins.default_preemption import DefaultPreemption
from kubefit.solver.cluster.preemption import (
    Candidate,
    candidate_count,
    dry_run,
    ineligibility,
    pick_one,
    select_victims,
    victim_events,
)
from kubefit.solver.cluster.preemption.budgets import split_by_budget
from kubefit.solver.cluster.preemption.candidates import aggregate
from kubefit.solver.cluster.runtime import Framework

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": 100, "memory": 100}
MEDIUM = {"cpu": 200, "memory": 200}
LARGE = {"cpu": 300, "memory": 300}
VERY_LARGE = {"cpu": 500, "memory": 500}
FIT, IPA, PTS = names.NODE_RESOURCES_FIT, names.INTER_POD_AFFINITY, names.POD_TOPOLOGY_SPREAD
FOO = LabelSelector((Requirement("foo", "Exists"),))
APP_FOO = LabelSelector((Requirement("app", "In", frozenset({"foo"})),))
FAKE_REASON = "Nodes failed the fake plugin"


def t(seconds: int) -> str:
    return f"1970-01-01T00:00:{seconds:02d}Z"


def pod(
    name: str,
    priority: int = LOW,
    node: str = "",
    req: Mapping[str, int] | None = None,
    start: str = "",
    labels: Mapping[str, str] | None = None,
    uid: str = "",
    **more: Any,
) -> Pod:
    return Pod(
        namespace="default",
        name=name,
        uid=uid or name,
        labels=dict(labels or {}),
        priority=priority,
        node_name=node,
        requests=dict(req or {}),
        start_time=start,
        **more,
    )


def node(spec: str, allocatable: Mapping[str, int] | None = None, **labels: str) -> Node:
    parts = spec.split("/")
    tags = dict(zip(("hostname", "zone", "region"), parts, strict=False))
    resources = {"pods": 32, **(VERY_LARGE if allocatable is None else allocatable)}
    return Node(parts[0], labels={**tags, **labels}, allocatable=resources)


# --- upstream's test-only plugins ---------------------------------------------------------------------


class ErrorOnLabel(Plugin):
    """TestPlugin: its PreFilter extensions fail on nodes labelled error=true."""

    name = "test-plugin"
    points = frozenset({PRE_FILTER})

    def add_pod(self, state: CycleState, pod: Pod, added: Pod, node: NodeInfo) -> Status | None:
        return error(f"failed to add pod: {pod.name}") if node.node.labels.get("error") == "true" else None

    def remove_pod(self, state: CycleState, pod: Pod, removed: Pod, node: NodeInfo) -> Status | None:
        return error(f"failed to remove pod: {pod.name}") if node.node.labels.get("error") == "true" else None


class CountingFilter(Plugin):
    """FakeFilterPlugin: counts its calls and returns the configured code."""

    name = "FakeFilter"
    points = frozenset({FILTER})
    code = Code.SUCCESS

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        self.calls = 0

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        self.calls += 1
        return None if self.code == Code.SUCCESS else Status(self.code, (FAKE_REASON,))


class RejectingFilter(CountingFilter):
    code = Code.UNSCHEDULABLE


class TrueFilter(Plugin):
    name = "TrueFilter"
    points = frozenset({FILTER})


class FalseFilter(Plugin):
    name = "FalseFilter"
    points = frozenset({FILTER})

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        return Status(Code.UNSCHEDULABLE, (FAKE_REASON,))


class MatchFilter(Plugin):
    """Passes only the node named as the pod."""

    name = "MatchFilter"
    points = frozenset({FILTER})

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        return None if node.name == pod.name else Status(Code.UNSCHEDULABLE, (FAKE_REASON,))


FAKES: dict[str, type[Plugin]] = {
    "test-plugin": ErrorOnLabel,
    "FakeFilter": CountingFilter,
    "TrueFilter": TrueFilter,
    "FalseFilter": FalseFilter,
    "MatchFilter": MatchFilter,
}


@pytest.fixture(autouse=True)
def fake_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(names, "KNOWN", names.KNOWN | set(FAKES))


# --- the world a cycle runs in ------------------------------------------------------------------------


@dataclass
class World:
    handle: Handle
    framework: Framework
    preempted: list[tuple[str, str, list[str], list[str]]] = field(default_factory=list)

    @property
    def snapshot(self) -> Snapshot:
        return self.handle.snapshot

    def cycle(self, preemptor: Pod) -> CycleState:
        state = CycleState()
        assert self.framework.run_pre_filter(state, preemptor, self.snapshot.nodes).status is None
        return state

    def post_filter(self, preemptor: Pod, statuses: Mapping[str, Status]) -> tuple[str | None, Status | None]:
        plugin = self.framework.plugin(names.DEFAULT_PREEMPTION)
        assert isinstance(plugin, DefaultPreemption)
        return plugin.post_filter(self.cycle(preemptor), preemptor, statuses)

    def filter_calls(self) -> int:
        fake = self.framework.plugin("FakeFilter")
        assert isinstance(fake, CountingFilter)
        return fake.calls


def world(
    nodes: Sequence[Node],
    pods: Sequence[Pod],
    plugins: Sequence[str],
    *,
    fakes: Mapping[str, type[Plugin]] | None = None,
    budgets: Sequence[DisruptionBudget] = (),
    nominated: Mapping[str, list[Pod]] | None = None,
    rng: random.Random | None = None,
    args: DefaultPreemptionArgs | None = None,
) -> World:
    infos = {n.name: NodeInfo(n) for n in nodes}
    for p in pods:
        infos[p.node_name].add_pod(p)
    handle = Handle(Cluster(tuple(nodes), tuple(pods), budgets=tuple(budgets)), Snapshot(infos.values()))
    entries = tuple(PluginEntry(n) for n in plugins)
    # MultiPoint puts each plugin at the points it implements, as upstream's test registry does.
    profile = Profile(
        plugins={
            MULTI_POINT: PluginSet(entries),
            POST_FILTER: PluginSet((PluginEntry(names.DEFAULT_PREEMPTION),)),
        },
        args={names.DEFAULT_PREEMPTION: args} if args is not None else {},
    )
    factories = {n: c for n, c in {**FAKES, **(fakes or {})}.items() if n in plugins}
    framework = Framework(profile, handle, factories=factories)
    out = World(handle, framework)
    waiting = nominated or {}

    def preempt(preemptor: Pod, where: str, victims: list[Pod], cleared: list[Pod]) -> None:
        out.preempted.append((preemptor.name, where, [v.name for v in victims], [c.name for c in cleared]))

    handle.services.update(
        framework=framework, nominated=lambda n: list(waiting.get(n, [])), rng=rng, preempt=preempt
    )
    return out


def unschedulable(*node_names: str) -> dict[str, Status]:
    return {n: Status(Code.UNSCHEDULABLE) for n in node_names}


# --- TestPodEligibleToPreemptOthers -------------------------------------------------------------------

NOMINATED_HIGH = pod("p_with_nominated_node", HIGH, nominated_node="node1")


@pytest.mark.parametrize(
    ("name", "preemptor", "pods", "nominated_code", "want"),
    [
        (
            "a pod whose nominated node the filters found unresolvable may preempt again",
            NOMINATED_HIGH,
            [pod("p1", LOW, "node1", terminating=True, disruption_target="PreemptionByScheduler")],
            Code.UNRESOLVABLE,
            "",
        ),
        ("a pod without a nominated node may preempt", pod("p", HIGH), [], Code.UNRESOLVABLE, ""),
        (
            "a pod with preemptionPolicy Never may not preempt",
            pod("p", HIGH, preemption_policy="Never"),
            [],
            Code.UNRESOLVABLE,
            "not eligible due to preemptionPolicy=Never.",
        ),
        (
            "a victim of the pod's preemption still terminating on its nominated node holds it back",
            NOMINATED_HIGH,
            [pod("p1", LOW, "node1", terminating=True, disruption_target="PreemptionByScheduler")],
            Code.UNSCHEDULABLE,
            "not eligible due to a terminating pod on the nominated node.",
        ),
        (
            "pods terminating for another reason do not hold it back",
            NOMINATED_HIGH,
            [pod("p1", LOW, "node1", terminating=True)],
            Code.UNSCHEDULABLE,
            "",
        ),
        (
            "a terminating victim of equal priority is not the pod's to wait for",
            NOMINATED_HIGH,
            [pod("p1", HIGH, "node1", terminating=True, disruption_target="PreemptionByScheduler")],
            Code.UNSCHEDULABLE,
            "",
        ),
    ],
)
def test_pod_eligible_to_preempt_others(
    name: str, preemptor: Pod, pods: list[Pod], nominated_code: Code, want: str
) -> None:
    w = world([node("node1")], pods, [])
    assert ineligibility(preemptor, w.snapshot, nominated_code) == want


# --- TestPostFilter -----------------------------------------------------------------------------------

ONE_POD = {"pods": 1}
NODE_RES = {"cpu": 200, "memory": 400}


@dataclass(frozen=True)
class PostFilterCase:
    name: str
    preemptor: Pod
    pods: list[Pod]
    nodes: list[Node]
    statuses: dict[str, Status]
    want_node: str | None  # the nomination from now on: None unchanged, "" cleared
    want_status: Status | None = None
    want_victims: list[str] = field(default_factory=list)


POST_FILTER_CASES = [
    PostFilterCase(
        "a pod with higher priority can be made schedulable",
        pod("p", HIGH),
        [pod("p1", node="node1")],
        [node("node1", ONE_POD)],
        unschedulable("node1"),
        "node1",
        want_victims=["p1"],
    ),
    PostFilterCase(
        "a pod with tied priority is still unschedulable",
        pod("p"),
        [pod("p1", node="node1")],
        [node("node1", ONE_POD)],
        unschedulable("node1"),
        "",
        Status(
            Code.UNSCHEDULABLE,
            ("preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",),
        ),
    ),
    PostFilterCase(
        "preemption respects the statuses the filters gave",
        pod("p", HIGH),
        [pod("p1", node="node1")],
        [node("node1", ONE_POD)],
        {"node1": Status(Code.UNRESOLVABLE)},
        "",
        Status(
            Code.UNSCHEDULABLE,
            ("preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",),
        ),
    ),
    PostFilterCase(
        "a pod can be made schedulable on one node",
        pod("p", MID),
        [pod("p1", HIGH, "node1"), pod("p2", LOW, "node2")],
        [node("node1", ONE_POD), node("node2", ONE_POD)],
        unschedulable("node1", "node2"),
        "node2",
        want_victims=["p2"],
    ),
    PostFilterCase(
        "no candidate when removing the lower-priority pods leaves too little cpu",
        pod("p", HIGH, req=LARGE),
        [pod("p1", node="node1"), pod("p2", node="node2")],
        [node("node1", NODE_RES), node("node2", NODE_RES)],
        unschedulable("node1", "node2"),
        "",
        Status(Code.UNSCHEDULABLE, ("preemption: 0/2 nodes are available: 2 Insufficient cpu.",)),
    ),
    PostFilterCase(
        "no candidate for mixed reasons: no lower-priority pod, too little cpu",
        pod("p", HIGH, req=LARGE),
        [pod("p1", HIGH, "node1"), pod("p2", node="node2"), pod("p3", HIGH, "node3")],
        [node("node1", ONE_POD), node("node2", NODE_RES), node("node3", ONE_POD)],
        unschedulable("node1", "node2", "node3"),
        "",
        Status(
            Code.UNSCHEDULABLE,
            (
                "preemption: 0/3 nodes are available: 1 Insufficient cpu, "
                "2 No preemption victims found for incoming pod.",
            ),
        ),
    ),
    PostFilterCase(
        "no candidate: two nodes lack cpu, one is unresolvable and one was never evaluated",
        pod("p", HIGH, req=LARGE),
        [pod("p1", node="node1"), pod("p2", node="node2")],
        [node(f"node{i}", NODE_RES) for i in range(1, 5)],
        {**unschedulable("node1", "node2"), "node4": Status(Code.UNRESOLVABLE)},
        "",
        Status(
            Code.UNSCHEDULABLE,
            (
                "preemption: 0/4 nodes are available: 2 Insufficient cpu, "
                "2 Preemption is not helpful for scheduling.",
            ),
        ),
    ),
    PostFilterCase(
        "a PreFilter extension failing on the only node is an error",
        pod("p", HIGH, req=LARGE),
        [pod("p1", node="node1")],
        [node("node1", LARGE, error="true")],
        unschedulable("node1"),
        None,
        Status(
            Code.ERROR,
            ('preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p',),
        ),
    ),
    PostFilterCase(
        "a node failing with an error does not stop another from being nominated",
        pod("p", HIGH, req=LARGE),
        [pod("p1", node="node1"), pod("p2", node="node2", req=MEDIUM)],
        [node("node1", LARGE, error="true"), node("node2", LARGE)],
        unschedulable("node1", "node2"),
        "node2",
        want_victims=["p2"],
    ),
    PostFilterCase(
        "a pod with preemptionPolicy Never is not eligible",
        pod("p", HIGH, preemption_policy="Never"),
        [pod("p1", node="node1")],
        [node("node1", ONE_POD)],
        unschedulable("node1"),
        None,  # not tried: the pod's nomination stays as it is
        Status(Code.UNSCHEDULABLE, ("preemption: not eligible due to preemptionPolicy=Never.",)),
    ),
    PostFilterCase(
        "a pod waiting for its victims to terminate is not eligible",
        pod("p", HIGH, nominated_node="node1"),
        [pod("p1", node="node1", terminating=True, disruption_target="PreemptionByScheduler")],
        [node("node1", ONE_POD)],
        unschedulable("node1"),
        None,
        Status(
            Code.UNSCHEDULABLE,
            ("preemption: not eligible due to a terminating pod on the nominated node.",),
        ),
    ),
]


@pytest.mark.parametrize("case", POST_FILTER_CASES, ids=lambda c: c.name)
def test_post_filter(case: PostFilterCase) -> None:
    w = world(case.nodes, case.pods, [FIT, "test-plugin"])
    nominated, status = w.post_filter(case.preemptor, case.statuses)
    assert (nominated, status) == (case.want_node, case.want_status)
    want = [(case.preemptor.name, case.want_node, case.want_victims, [])] if case.want_node else []
    assert w.preempted == want


def test_post_filter_through_the_runtime_joins_the_reasons() -> None:
    w = world([node("node1", ONE_POD)], [pod("p1", node="node1")], [FIT])
    preemptor = pod("p")
    nominated, status = w.framework.run_post_filter(w.cycle(preemptor), preemptor, unschedulable("node1"))
    assert nominated == ""
    assert status is not None and status.message == (
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


# --- TestDryRunPreemption -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DryRunCase:
    name: str
    plugins: list[str]
    nodes: list[str]
    preemptors: list[Pod]
    pods: list[Pod]
    # Per preemptor (scheduling cycle): (node, victims by name, budget violations), by node name.
    want: list[list[tuple[str, list[str], int]]]
    calls: list[int]  # FakeFilter calls per cycle
    budgets: list[DisruptionBudget] = field(default_factory=list)
    args: DefaultPreemptionArgs = field(default_factory=DefaultPreemptionArgs)
    offsets: list[int] = field(default_factory=lambda: [0])
    rejecting: bool = False  # FakeFilter rejects every node


def mid_on(*node_names: str, req: Mapping[str, int] = LARGE, **labels: str) -> list[Pod]:
    return [pod(f"p{n[-1]}", MID, n, req, labels=labels) for n in node_names]


FOO_BUDGET = DisruptionBudget("default", "pdb", APP_FOO, 1)
SPREAD = (
    SpreadConstraint(1, "zone", "DoNotSchedule", FOO),
    SpreadConstraint(1, "hostname", "DoNotSchedule", FOO),
)
ANTI_FOO = AffinityTerm(FOO, "hostname", frozenset({"default"}))
FIVE = [f"node{i}" for i in range(1, 6)]
FORTY_PERCENT = DefaultPreemptionArgs(40, 1)

DRY_RUN_CASES = [
    DryRunCase(
        "a pod that fits on no node",
        ["FalseFilter"],
        ["node1", "node2"],
        [pod("p", HIGH)],
        [pod("p1", MID, "node1"), pod("p2", MID, "node2")],
        [[]],
        [2],
    ),
    DryRunCase(
        "a pod that fits with no preemption",
        ["TrueFilter"],
        ["node1", "node2"],
        [pod("p", HIGH)],
        [pod("p1", MID, "node1"), pod("p2", MID, "node2")],
        [[]],
        [2],
        rejecting=True,
    ),
    DryRunCase(
        "a pod that fits on one node with no preemption",
        ["MatchFilter"],
        ["node1", "node2"],
        [pod("node1", HIGH)],
        [pod("p1", MID, "node1"), pod("p2", MID, "node2")],
        [[]],
        [2],
        rejecting=True,
    ),
    DryRunCase(
        "a pod that fits on both nodes when lower-priority pods are preempted",
        [FIT],
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        mid_on("node1", "node2"),
        [[("node1", ["p1"], 0), ("node2", ["p2"], 0)]],
        [4],
    ),
    DryRunCase(
        "no preemption when the pods running have higher priority",
        [FIT],
        ["node1", "node2"],
        [pod("p", LOW, req=LARGE)],
        mid_on("node1", "node2"),
        [[]],
        [0],
    ),
    DryRunCase(
        "the medium-priority pod is preempted, the small lower-priority one stays",
        [FIT],
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        [pod("p1.1", LOW, "node1", SMALL), pod("p1.2", MID, "node1", LARGE), pod("p2", MID, "node2", LARGE)],
        [[("node1", ["p1.2"], 0), ("node2", ["p2"], 0)]],
        [5],
    ),
    DryRunCase(
        "pods of mixed priorities are preempted",
        [FIT],
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        [
            pod("p1.1", MID, "node1", SMALL),
            pod("p1.2", LOW, "node1", SMALL),
            pod("p1.3", MID, "node1", MEDIUM),
            pod("p1.4", HIGH, "node1", SMALL),
            pod("p2", HIGH, "node2", LARGE),
        ],
        [[("node1", ["p1.2", "p1.3"], 0)]],
        [4],
    ),
    DryRunCase(
        "of equal priorities the pod started later is preempted",
        [FIT],
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        [
            pod("p1.1", LOW, "node1", SMALL, t(5)),
            pod("p1.2", LOW, "node1", SMALL, t(4)),
            pod("p1.3", MID, "node1", MEDIUM, t(3)),
            pod("p1.4", HIGH, "node1", SMALL, t(2)),
            pod("p2", HIGH, "node2", LARGE, t(1)),
        ],
        [[("node1", ["p1.1", "p1.3"], 0)]],
        [4],
    ),
    DryRunCase(
        "a pod with anti-affinity to the preemptor is preempted",
        [FIT, IPA],
        ["node1", "node2"],
        [pod("p", HIGH, req=SMALL, labels={"foo": ""})],
        [
            pod("p1.1", LOW, "node1", SMALL, labels={"foo": ""}, required_anti_affinity=(ANTI_FOO,)),
            pod("p1.2", MID, "node1", SMALL),
            pod("p1.3", HIGH, "node1", SMALL),
            pod("p2", HIGH, "node2", SMALL),
        ],
        [[("node1", ["p1.1"], 0)]],
        [3],
    ),
    DryRunCase(
        "preemption resolves a pod topology spread failure",
        [PTS],
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        [pod("p", HIGH, labels={"foo": ""}, spread_constraints=SPREAD)],
        [
            pod("pod-a1", MID, "node-a", labels={"foo": ""}),
            pod("pod-a2", LOW, "node-a", labels={"foo": ""}),
            pod("pod-b1", LOW, "node-b", labels={"foo": ""}),
            pod("pod-x1", HIGH, "node-x", labels={"foo": ""}),
            pod("pod-x2", HIGH, "node-x", labels={"foo": ""}),
        ],
        [[("node-a", ["pod-a2"], 0), ("node-b", ["pod-b1"], 0)]],
        [5],
    ),
    DryRunCase(
        "a filter rejecting the nodes in the preemption phase leaves no candidate",
        [FIT],
        ["node1", "node2"],
        [pod("p", HIGH, req=LARGE)],
        mid_on("node1", "node2"),
        [[]],
        [2],
        rejecting=True,
    ),
    DryRunCase(
        "preempting two pods of the same budget violates it once",
        [FIT],
        ["node1"],
        [pod("p", HIGH, req=VERY_LARGE)],
        [pod(f"p1.{i}", MID, "node1", MEDIUM, labels={"app": "foo"}) for i in (1, 2)],
        [[("node1", ["p1.1", "p1.2"], 1)]],
        [3],
        budgets=[FOO_BUDGET],
    ),
    DryRunCase(
        "a budget's disrupted pod that is no victim does not change the count",
        [FIT],
        ["node1"],
        [pod("p", HIGH, req=VERY_LARGE)],
        [pod(f"p1.{i}", MID, "node1", MEDIUM, labels={"app": "foo"}) for i in (1, 2)],
        [[("node1", ["p1.1", "p1.2"], 1)]],
        [3],
        budgets=[DisruptionBudget("default", "pdb", APP_FOO, 1, frozenset({"p2"}))],
    ),
    DryRunCase(
        "a victim the budget already counts as disrupted does not violate it",
        [FIT],
        ["node1"],
        [pod("p", HIGH, req=VERY_LARGE)],
        [pod(f"p1.{i}", MID, "node1", MEDIUM, labels={"app": "foo"}) for i in (1, 2)],
        [[("node1", ["p1.1", "p1.2"], 0)]],
        [3],
        budgets=[DisruptionBudget("default", "pdb", APP_FOO, 1, frozenset({"p1.2"}))],
    ),
    DryRunCase(
        "a victim the budget counts as disrupted is non-violating, the others are not",
        [FIT],
        ["node1"],
        [pod("p", HIGH, req=VERY_LARGE)],
        [pod(f"p1.{i}", MID, "node1", MEDIUM, labels={"app": "foo"}) for i in (1, 2, 3)],
        [[("node1", ["p1.1", "p1.2", "p1.3"], 1)]],
        [4],
        budgets=[DisruptionBudget("default", "pdb", APP_FOO, 1, frozenset({"p1.3"}))],
    ),
    DryRunCase(
        "every node could do, the arguments limit the candidates to two",
        [FIT],
        FIVE,
        [pod("p", HIGH, req=LARGE)],
        mid_on(*FIVE),
        [[("node1", ["p1"], 0), ("node5", ["p5"], 0)]],
        [4],
        args=FORTY_PERCENT,
        offsets=[4],
    ),
    DryRunCase(
        "some nodes cannot do, the arguments limit the candidates to two",
        [FIT],
        FIVE,
        [pod("p", HIGH, req=LARGE)],
        [pod(f"p{i}", VERY_HIGH if i in (2, 5) else MID, f"node{i}", LARGE) for i in range(1, 6)],
        [[("node1", ["p1"], 0), ("node3", ["p3"], 0)]],
        [4],
        args=FORTY_PERCENT,
        offsets=[4],
    ),
    DryRunCase(
        "the offset moves across cycles and wraps around",
        [FIT],
        FIVE,
        [pod(f"tp{i}", HIGH, req=LARGE) for i in (1, 2, 3)],
        mid_on(*FIVE),
        [
            [("node1", ["p1"], 0), ("node5", ["p5"], 0)],
            [("node2", ["p2"], 0), ("node3", ["p3"], 0)],
            [("node4", ["p4"], 0), ("node5", ["p5"], 0)],
        ],
        [4, 4, 4],
        args=FORTY_PERCENT,
        offsets=[4, 1, 3],
    ),
    DryRunCase(
        "the search goes past the wanted count until a node violating no budget is found",
        [FIT],
        FIVE,
        [pod("p", HIGH, req=LARGE)],
        [
            pod(f"p{i}", MID, f"node{i}", LARGE, labels={"app": "foo"} if i in (1, 2, 5) else {})
            for i in range(1, 6)
        ],
        [[("node1", ["p1"], 1), ("node3", ["p3"], 0), ("node5", ["p5"], 1)]],
        [8],
        budgets=[DisruptionBudget("default", "pdb", APP_FOO, 0)],
        args=DefaultPreemptionArgs(40, 2),
        offsets=[4],
    ),
]


@pytest.mark.parametrize("case", DRY_RUN_CASES, ids=lambda c: c.name)
def test_dry_run_preemption(case: DryRunCase) -> None:
    counter = RejectingFilter if case.rejecting else CountingFilter
    w = world(
        [node(n) for n in case.nodes],
        case.pods,
        ["FakeFilter", *case.plugins],
        fakes={"FakeFilter": counter},
        budgets=case.budgets,
    )
    infos = sorted(w.snapshot.nodes, key=lambda n: n.name)
    wanted = candidate_count(case.args, len(infos))
    before = 0
    for cycle, preemptor in enumerate(case.preemptors):
        found = dry_run(
            w.framework,
            w.cycle(preemptor),
            preemptor,
            infos,
            case.budgets,
            case.offsets[cycle],
            wanted,
            lambda _: [],
        )
        got = sorted((c.node, sorted(v.name for v in c.victims), c.pdb_violations) for c in found.candidates)
        assert got == case.want[cycle]
        assert w.filter_calls() - before == case.calls[cycle]
        before = w.filter_calls()


# --- TestSelectBestCandidate ----------------------------------------------------------------------------


def on(node_name: str, specs: Sequence[tuple[int, Mapping[str, int], int]]) -> list[Pod]:
    """Pods p<node>.<i> with (priority, requests, start second)."""
    idx = node_name[-1]
    return [pod(f"p{idx}.{i}", prio, node_name, req, t(s)) for i, (prio, req, s) in enumerate(specs, 1)]


SELECT_CASES = [
    (
        "a pod that fits on both nodes when lower-priority pods are preempted",
        HIGH,
        LARGE,
        on("node1", [(MID, LARGE, 0)]) + on("node2", [(MID, LARGE, 0)]),
        {"node1", "node2"},
    ),
    (
        "the node whose highest-priority victim is lowest is picked",
        HIGH,
        VERY_LARGE,
        on("node1", [(MID, MEDIUM, 0), (MID, LARGE, 0)])
        + on("node2", [(MID, MEDIUM, 0), (LOW, MEDIUM, 0)])
        + on("node3", [(LOW, MEDIUM, 0), (LOW, MEDIUM, 0)]),
        {"node3"},
    ),
    (
        "with the same highest priority, the smallest sum of priorities is picked",
        HIGH,
        VERY_LARGE,
        on("node1", [(MID, MEDIUM, 0), (MID, LARGE, 0)])
        + on("node2", [(MID, LARGE, 0), (LOW, MEDIUM, 0)])
        + on("node3", [(MID, MEDIUM, 0), (MID, MEDIUM, 0)]),
        {"node2"},
    ),
    (
        "with the same highest priority and sum, the fewest victims are picked",
        HIGH,
        VERY_LARGE,
        on("node1", [(MID, SMALL, 0), (NEG, SMALL, 0), (MID, SMALL, 0), (NEG, SMALL, 0)])
        + on("node2", [(MID, LARGE, 0), (NEG, MEDIUM, 0)])
        + on("node3", [(MID, MEDIUM, 0), (NEG, SMALL, 0), (LOW, SMALL, 0)]),
        {"node2"},
    ),
    (
        "the sum counts priorities shifted to be positive",
        HIGH,
        VERY_LARGE,
        on("node1", [(MID, SMALL, 0), (NEG, SMALL, 0), (NEG, SMALL, 0)])
        + on("node2", [(MID, LARGE, 0), (NEG, MEDIUM, 0)])
        + on("node3", [(MID, MEDIUM, 0), (NEG, SMALL, 0), (LOW, SMALL, 0)]),
        {"node2"},
    ),
    (
        "lowest highest priority, sum of priorities and number of victims do not agree",
        VERY_HIGH,
        VERY_LARGE,
        on("node1", [(MID, SMALL, 0), (LOW, SMALL, 0), (LOW, SMALL, 0)])
        + on("node2", [(HIGH, LARGE, 0)])
        + on("node3", [(MID, MEDIUM, 0), (LOW, SMALL, 0), (LOW, SMALL, 0), (LOW, MEDIUM, 0)])
        + on("node4", [(MID, MEDIUM, 0), (MID, SMALL, 0), (MID, SMALL, 0), (NEG, SMALL, 0)]),
        {"node1"},
    ),
    (
        "same priorities and counts: the node whose victims started last is picked",
        HIGH,
        VERY_LARGE,
        on("node1", [(MID, MEDIUM, 2), (MID, MEDIUM, 2)])
        + on("node2", [(MID, MEDIUM, 3), (MID, MEDIUM, 3)])
        + on("node3", [(MID, MEDIUM, 1), (MID, MEDIUM, 1)]),
        {"node2"},
    ),
    (
        "same priorities and counts, every pod started at another time",
        HIGH,
        VERY_LARGE,
        on("node1", [(MID, MEDIUM, 4), (MID, MEDIUM, 2)])
        + on("node2", [(MID, MEDIUM, 5), (MID, MEDIUM, 1)])
        + on("node3", [(MID, MEDIUM, 3), (MID, MEDIUM, 6)]),
        {"node3"},
    ),
    (
        "different priorities, only the highest-priority victims' start times count",
        HIGH,
        VERY_LARGE,
        on("node1", [(LOW, MEDIUM, 4), (MID, MEDIUM, 2)])
        + on("node2", [(MID, MEDIUM, 6), (LOW, MEDIUM, 1)])
        + on("node3", [(LOW, MEDIUM, 3), (MID, MEDIUM, 5)]),
        {"node2"},
    ),
]


@pytest.mark.parametrize(
    ("name", "priority", "req", "pods", "want"), SELECT_CASES, ids=[c[0] for c in SELECT_CASES]
)
def test_select_best_candidate(
    name: str, priority: int, req: Mapping[str, int], pods: list[Pod], want: set[str]
) -> None:
    node_names = sorted({p.node_name for p in pods})
    w = world([node(n) for n in node_names], pods, [FIT])
    preemptor = pod("p", priority, req=req)
    infos = w.snapshot.nodes
    wanted = candidate_count(DefaultPreemptionArgs(), len(infos))
    found = dry_run(w.framework, w.cycle(preemptor), preemptor, infos, (), 0, wanted, lambda _: [])
    assert pick_one(found.candidates, None).node in want


# --- TestPreempt ----------------------------------------------------------------------------------------

PREEMPT_CASES = [
    (
        "basic preemption",
        pod("p", HIGH, req=VERY_LARGE, preemption_policy="PreemptLowerPriority"),
        [
            pod("p1.1", LOW, "node1", SMALL),
            pod("p1.2", LOW, "node1", SMALL),
            pod("p2.1", HIGH, "node2", LARGE),
            pod("p3.1", MID, "node3", MEDIUM),
        ],
        ["node1", "node2", "node3"],
        [FIT],
        "node1",
        ["p1.1", "p1.2"],
    ),
    (
        "preemption for topology spread constraints",
        pod("p", HIGH, labels={"foo": ""}, spread_constraints=SPREAD),
        [
            pod("p-a1", HIGH, "node-a", labels={"foo": ""}),
            pod("p-a2", HIGH, "node-a", labels={"foo": ""}),
            pod("p-b1", LOW, "node-b", labels={"foo": ""}),
            pod("p-x1", HIGH, "node-x", labels={"foo": ""}),
            pod("p-x2", HIGH, "node-x", labels={"foo": ""}),
        ],
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        [PTS],
        "node-b",
        ["p-b1"],
    ),
    (
        "a pod that never preempts preempts nothing",
        pod("p", HIGH, req=VERY_LARGE, preemption_policy="Never"),
        [
            pod("p1.1", LOW, "node1", SMALL),
            pod("p1.2", LOW, "node1", SMALL),
            pod("p2.1", HIGH, "node2", LARGE),
        ],
        ["node1", "node2", "node3"],
        [FIT],
        None,
        [],
    ),
    (
        "the default preemption policy preempts lower priorities",
        pod("p", HIGH, req=VERY_LARGE),
        [
            pod("p1.1", LOW, "node1", SMALL),
            pod("p1.2", LOW, "node1", SMALL),
            pod("p2.1", HIGH, "node2", LARGE),
            pod("p3.1", MID, "node3", MEDIUM),
        ],
        ["node1", "node2", "node3"],
        [FIT],
        "node1",
        ["p1.1", "p1.2"],
    ),
]


@pytest.mark.parametrize(
    ("name", "preemptor", "pods", "nodes", "plugins", "want_node", "want_victims"),
    PREEMPT_CASES,
    ids=[c[0] for c in PREEMPT_CASES],
)
def test_preempt(
    name: str,
    preemptor: Pod,
    pods: list[Pod],
    nodes: list[str],
    plugins: list[str],
    want_node: str | None,
    want_victims: list[str],
) -> None:
    w = world([node(n) for n in nodes], pods, plugins)
    got, _ = w.post_filter(preemptor, unschedulable(*(n.split("/")[0] for n in nodes)))
    assert got == want_node
    assert w.preempted == ([("p", want_node, want_victims, [])] if want_node else [])


def test_victims_already_terminating_stop_a_second_preemption() -> None:
    """After the victims got their DisruptionTarget condition and started terminating, the nominated
    preemptor waits for them instead of preempting more."""
    victims = [
        pod("p1.1", LOW, "node1", SMALL, terminating=True, disruption_target="PreemptionByScheduler"),
        pod("p1.2", LOW, "node1", SMALL, terminating=True, disruption_target="PreemptionByScheduler"),
    ]
    others = [pod("p2.1", HIGH, "node2", LARGE), pod("p3.1", MID, "node3", MEDIUM)]
    w = world([node(n) for n in ("node1", "node2", "node3")], victims + others, [FIT])
    preemptor = pod("p", HIGH, req=VERY_LARGE, nominated_node="node1")
    got, status = w.post_filter(preemptor, unschedulable("node1", "node2", "node3"))
    assert got is None and w.preempted == []
    assert status == Status(
        Code.UNSCHEDULABLE, ("preemption: not eligible due to a terminating pod on the nominated node.",)
    )


# --- which nodes preemption may help (NodesForStatusCode) -----------------------------------------------


@pytest.mark.parametrize(
    ("name", "statuses", "want"),
    [
        (
            "nodes the filters found Unschedulable are tried",
            unschedulable("node1", "node2"),
            {"node1", "node2"},
        ),
        (
            "UnschedulableAndUnresolvable nodes are not",
            {"node1": Status(Code.UNRESOLVABLE, ("node(s) didn't match Pod's node affinity/selector",))},
            set(),
        ),
        ("nodes the cycle never evaluated are not", unschedulable("node2"), {"node2"}),
        (
            "a pending status is not Unschedulable",
            {"node1": Status(Code.PENDING), **unschedulable("node3")},
            {"node3"},
        ),
    ],
)
def test_nodes_where_preemption_might_help(name: str, statuses: dict[str, Status], want: set[str]) -> None:
    pods = [pod(f"p{i}", LOW, f"node{i}", LARGE) for i in (1, 2, 3)]
    w = world([node(f"node{i}") for i in (1, 2, 3)], pods, ["FakeFilter", FIT])
    nominated, _ = w.post_filter(pod("p", HIGH, req=LARGE), statuses)
    # Every node tried needs two filter runs here: without its pod, then with it back.
    assert w.filter_calls() == 2 * len(want)
    assert nominated == min(want, default="")


# --- kubefit's own cases --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "num_nodes", "want"),
    [
        ("the absolute minimum beats a small percentage", DefaultPreemptionArgs(10, 100), 500, 100),
        ("the percentage beats a small absolute minimum", DefaultPreemptionArgs(40, 1), 5, 2),
        ("never more candidates than nodes", DefaultPreemptionArgs(10, 100), 7, 7),
        ("the percentage rounds down", DefaultPreemptionArgs(33, 0), 10, 3),
    ],
)
def test_candidate_count(name: str, args: DefaultPreemptionArgs, num_nodes: int, want: int) -> None:
    assert candidate_count(args, num_nodes) == want


EVERYTHING = LabelSelector()


def budget(allowed: int, selector: LabelSelector | None = APP_FOO, **kw: Any) -> DisruptionBudget:
    return DisruptionBudget(kw.pop("namespace", "default"), kw.pop("name", "pdb"), selector, allowed, **kw)


@pytest.mark.parametrize(
    ("name", "victims", "budgets", "want_violating"),
    [
        (
            "each budget is spent in victim order, the pods past it violate",
            [
                pod("a", labels={"app": "foo"}),
                pod("b", labels={"app": "foo"}),
                pod("c", labels={"app": "foo"}),
            ],
            [budget(1)],
            ["b", "c"],
        ),
        (
            "an empty selector selects every pod of the namespace, unlabelled ones too",
            [pod("a"), pod("b", labels={"x": "y"})],
            [budget(1, EVERYTHING)],
            ["b"],
        ),
        ("a nil selector selects nothing", [pod("a"), pod("b")], [budget(0, None)], []),
        (
            "budgets of other namespaces do not count",
            [pod("a", labels={"app": "foo"})],
            [budget(0, namespace="other")],
            [],
        ),
        (
            "pods the budget already counts as disrupted do not spend it",
            [pod("a", labels={"app": "foo"}), pod("b", labels={"app": "foo"})],
            [budget(0, disrupted_pods=frozenset({"a", "b"}))],
            [],
        ),
        (
            "the first budget a pod violates decides: later budgets are not spent by it",
            [pod("a", labels={"app": "foo"}), pod("b", labels={"app": "foo", "x": "y"})],
            [budget(0), budget(1, LabelSelector((Requirement("x", "Exists"),)), name="pdb2")],
            ["a", "b"],
        ),
        (
            "a pod violating the first budget leaves the second one's allowance",
            [pod("a", labels={"app": "foo", "x": "y"}), pod("b", labels={"x": "y"})],
            [budget(0), budget(1, LabelSelector((Requirement("x", "Exists"),)), name="pdb2")],
            ["a"],
        ),
    ],
)
def test_split_by_budget(
    name: str, victims: list[Pod], budgets: list[DisruptionBudget], want_violating: list[str]
) -> None:
    violating, fine = split_by_budget(victims, budgets)
    assert [p.name for p in violating] == want_violating
    assert [p.name for p in fine] == [p.name for p in victims if p.name not in want_violating]


def cand(name: str, *victims: tuple[int, int | None], violations: int = 0) -> Candidate:
    """A candidate with victims given as (priority, start second or None), most important first."""
    return Candidate(
        name,
        tuple(
            pod(f"{name}-{i}", p, name, start=t(s) if s is not None else "")
            for i, (p, s) in enumerate(victims)
        ),
        violations,
    )


@pytest.mark.parametrize(
    ("name", "candidates", "want"),
    [
        ("fewest budget violations first", [cand("a", (LOW, 0), violations=1), cand("b", (MID, 0))], "b"),
        (
            "then the lowest highest-priority victim",
            [cand("a", (MID, 0)), cand("b", (LOW, 0), (LOW, 0))],
            "b",
        ),
        (
            "then the smallest sum of shifted priorities: two negative victims outweigh one",
            [cand("a", (MID, 0), (NEG, 0), (NEG, 0)), cand("b", (MID, 0), (NEG, 0))],
            "b",
        ),
        ("then the fewest victims", [cand("a", (MID, 0), (LOW, 0)), cand("b", (MID, 0), (LOW, 0))], "a"),
        (
            "then the latest start among the highest-priority victims",
            [cand("a", (MID, 5), (LOW, 1)), cand("b", (MID, 6), (LOW, 0))],
            "b",
        ),
        ("a victim never started counts as started last", [cand("a", (MID, 9)), cand("b", (MID, None))], "b"),
        ("finally the first candidate found", [cand("a", (MID, 0)), cand("b", (MID, 0))], "a"),
    ],
)
def test_pick_one(name: str, candidates: list[Candidate], want: str) -> None:
    assert pick_one(candidates, None).node == want


def test_pick_one_breaks_the_final_tie_with_the_random_source() -> None:
    tied = [cand(n, (MID, 0)) for n in "abcdef"]
    picks = {pick_one(tied, random.Random(seed)).node for seed in range(40)}
    assert len(picks) > 1
    assert pick_one(tied, random.Random(7)).node == pick_one(tied, random.Random(7)).node


def test_victims_are_reprieved_most_important_first_with_uid_as_last_tie_breaker() -> None:
    """Equal priorities and start times: the smaller UID is more important, so it stays."""
    pods = [pod(n, LOW, "node1", MEDIUM) for n in ("b", "a", "c")]
    w = world([node("node1")], pods, [FIT])
    preemptor = pod("p", HIGH, req=LARGE)
    found = dry_run(w.framework, w.cycle(preemptor), preemptor, w.snapshot.nodes, (), 0, 1, lambda _: [])
    assert [v.name for v in found.candidates[0].victims] == ["b", "c"]


def test_nominated_pods_of_higher_priority_take_their_room_in_the_dry_run() -> None:
    """RunFilterPluginsWithNominatedPods: a nominated pod of at least the preemptor's priority is
    counted on the node, so more victims are needed; lower-priority nominations are cleared."""
    pods = [pod("p1.1", LOW, "node1", MEDIUM), pod("p1.2", LOW, "node1", MEDIUM)]
    waiting = {"node1": [pod("n-high", VERY_HIGH, req=MEDIUM), pod("n-low", LOW, req=SMALL)]}
    w = world([node("node1")], pods, [FIT], nominated=waiting)
    got, status = w.post_filter(pod("p", HIGH, req=LARGE), unschedulable("node1"))
    assert (got, status) == ("node1", None)
    assert w.preempted == [("p", "node1", ["p1.1", "p1.2"], ["n-low"])]


def test_a_reprieved_pod_gets_back_the_node_resources_its_devices_map_to() -> None:
    """The dry run works on a copy of the node: the snapshot is untouched, and a pod put back carries
    the resources it was added with."""
    keep = pod("keep", LOW, "node1", SMALL)
    info = NodeInfo(node("node1", {"cpu": 500, "memory": 500, "example.com/gpu": 1}))
    info.add_pod(keep, {"example.com/gpu": 1})
    info.add_pod(pod("big", LOW, "node1", LARGE))
    handle = Handle(Cluster((info.node,), tuple(info.pods)), Snapshot([info]))
    profile = Profile(
        plugins={PRE_FILTER: PluginSet((PluginEntry(FIT),)), FILTER: PluginSet((PluginEntry(FIT),))}
    )
    framework = Framework(profile, handle)
    preemptor = pod("p", HIGH, req={"cpu": 300, "memory": 300})
    state = CycleState()
    framework.run_pre_filter(state, preemptor, handle.snapshot.nodes)
    copy = info.clone()
    chosen = select_victims(framework, state, preemptor, copy, (), ())
    assert [v.name for v in chosen.victims] == ["big"]
    assert copy.extra == {keep.key: {"example.com/gpu": 1}}
    assert copy.requested["example.com/gpu"] == 1
    assert [p.name for p in info.pods] == ["keep", "big"]


def test_the_random_source_sets_the_offset_and_the_order_of_the_nodes() -> None:
    nodes = [node(f"node{i}") for i in range(1, 6)]
    pods = [pod(f"p{i}", MID, f"node{i}", LARGE) for i in range(1, 6)]
    preemptor = pod("p", HIGH, req=LARGE)
    statuses = unschedulable(*(n.name for n in nodes))
    args = DefaultPreemptionArgs(20, 1)
    picks = []
    for seed in (1, 1, 2, 3, 4, 5):
        w = world(nodes, pods, [FIT], rng=random.Random(seed), args=args)
        picks.append(w.post_filter(preemptor, statuses)[0])
    assert picks[0] == picks[1]
    assert len(set(picks)) > 1
    deterministic = world(nodes, pods, [FIT], args=args)
    assert deterministic.post_filter(preemptor, statuses)[0] == "node1"


def test_errors_are_aggregated_as_upstream_does() -> None:
    assert aggregate(["x"]) == "x"
    assert aggregate(["x", "x"]) == "x"
    assert aggregate(["x", "y", "x"]) == "[x, y]"


def test_victim_events() -> None:
    preemptor = pod("p", HIGH, uid="1234-abcd", scheduler_name="my-scheduler")
    victims = [pod("v1", LOW, "node1"), pod("v2", LOW, "node1", terminating=True), pod("v3", LOW, "node1")]
    got = victim_events(preemptor, "node1", victims)
    assert [e.victim.name for e in got] == ["v1", "v3"]
    first = got[0]
    assert (
        first.condition.type,
        first.condition.status,
        first.condition.reason,
        first.condition.message,
    ) == (
        "DisruptionTarget",
        "True",
        "PreemptionByScheduler",
        "my-scheduler: preempting to accommodate a higher priority pod",
    )
    event = first.event
    assert (event.regarding.name, event.related.name, event.type, event.reason, event.action, event.note) == (
        "v1",
        "p",
        "Normal",
        "Preempted",
        "Preempting",
        "Preempted by pod 1234-abcd on node node1",
    )
