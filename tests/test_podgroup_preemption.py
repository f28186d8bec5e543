"""Workload-aware preemption against upstream's table tests (pkg/scheduler/framework/preemption
podgrouppreemption_test.go: TestDefaultPreemptionManager_GenerateVictims' grouping, priority and PDB cases,
TestGetPreemptionPolicy): which pods form one victim, with which priority, in which order they are
reprieved, which violate a budget, and the preemptor's policy; and validatePodGroup's checks."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kubefit.model.cluster.facts import DisruptionBudget, LabelSelector, Node, Pod, Requirement
from kubefit.model.cluster.podgroup import (
    COMPOSITE,
    COMPOSITE_GATE,
    GENERIC_WORKLOAD,
    POD_GROUP,
    PREEMPTION_POLICY_GATE,
    GroupFact,
    Groups,
)
from kubefit.solver.cluster.framework import NodeInfo, Snapshot
from kubefit.solver.cluster.podgroup.info import GroupInfo
from kubefit.solver.cluster.podgroup.preemption import (
    NO_VICTIMS,
    Assignment,
    Evaluator,
    Victim,
    all_victims,
    preemptor_policy,
)
from kubefit.solver.cluster.podgroup.validation import validate

NS = "default"
LOW, MID, HIGH = 0, 100, 1000
PROTECTED = {"app": "protected"}


def pod(
    name: str, priority: int, group: str = "", node: str = "node1", labels: dict[str, str] | None = None
) -> Pod:
    return Pod(NS, name, name, labels=labels or {}, priority=priority, node_name=node, pod_group=group)


def pg(name: str, priority: int, whole: bool = False, parent: str = "") -> GroupFact:
    return GroupFact(POD_GROUP, NS, name, None, "", parent, priority, "", whole, name)


def cpg(name: str, priority: int, whole: bool = False) -> GroupFact:
    return GroupFact(COMPOSITE, NS, name, None, "", "", priority, "", whole, name)


def groups(facts: Sequence[GroupFact], composite: bool = True) -> Groups:
    gates = {GENERIC_WORKLOAD} | ({COMPOSITE_GATE} if composite else set())
    return Groups(
        {g.key: g for g in facts if g.kind == POD_GROUP},
        {g.key: g for g in facts if g.kind == COMPOSITE},
        frozenset(gates),
    )


def snapshot(pods: Sequence[Pod]) -> Snapshot:
    snap = Snapshot(NodeInfo(Node(n, allocatable={"pods": 110})) for n in ("node1", "node2"))
    for p in pods:
        snap.by_name[p.node_name].add_pod(p)
    return snap


def pdb(name: str, allowed: int) -> DisruptionBudget:
    selector = LabelSelector((Requirement("app", "In", frozenset({"protected"})),))
    return DisruptionBudget(NS, name, selector, allowed)


def reprieve_order(
    victims: Sequence[Victim], budgets: Sequence[DisruptionBudget]
) -> list[tuple[set[str], bool]]:
    """The victims most important first, budget-violating ones first: the order they are reprieved in."""
    ordered = sorted(victims, key=Victim.importance)
    violating, fine = Evaluator(Snapshot(()), budgets)._split(ordered)
    return [({p.name for p in v.pods}, True) for v in violating] + [
        ({p.name for p in v.pods}, False) for v in fine
    ]


CASES = [
    (
        "standalone pods and DisruptionModeSingle pod groups form individual victims",
        [pod("standalone", LOW), pod("single-1", LOW, "pg-single"), pod("single-2", LOW, "pg-single")],
        [pg("pg-single", LOW)],
        True,
        [],
        [({"single-1"}, False), ({"single-2"}, False), ({"standalone"}, False)],
    ),
    (
        "PodGroup with DisruptionModeAll groups all pods across nodes into one atomic victim",
        [pod("all-1", LOW, "pg-all", "node1"), pod("all-2", LOW, "pg-all", "node2")],
        [pg("pg-all", LOW, whole=True)],
        True,
        [],
        [({"all-1", "all-2"}, False)],
    ),
    (
        "CompositePodGroup with DisruptionModeAll groups all leaf PodGroup pods into one atomic victim",
        [pod("child1-p1", LOW, "pg-child1"), pod("child2-p1", LOW, "pg-child2")],
        [
            pg("pg-child1", LOW, parent="cpg-all"),
            pg("pg-child2", LOW, parent="cpg-all"),
            cpg("cpg-all", LOW, True),
        ],
        True,
        [],
        [({"child1-p1", "child2-p1"}, False)],
    ),
    (
        "CompositePodGroup with DisruptionModeSingle delegates grouping to each child PodGroup",
        [pod("all-1", LOW, "pg-all"), pod("all-2", LOW, "pg-all"), pod("single-1", LOW, "pg-single")],
        [
            pg("pg-all", LOW, True, "cpg-single"),
            pg("pg-single", LOW, parent="cpg-single"),
            cpg("cpg-single", LOW),
        ],
        True,
        [],
        [({"all-1", "all-2"}, False), ({"single-1"}, False)],
    ),
    (
        "filters equal or higher priority victims and orders the rest by priority",
        [pod("low-pod", LOW), pod("mid-pod", MID), pod("high-pod", HIGH)],
        [],
        True,
        [],
        [({"mid-pod"}, False), ({"low-pod"}, False)],
    ),
    (
        "group hierarchy root priority overrides individual pod priority",
        [pod("low-pod-in-mid-pg", LOW, "pg-mid"), pod("standalone-low", LOW)],
        [pg("pg-mid", MID)],
        True,
        [],
        [({"low-pod-in-mid-pg"}, False), ({"standalone-low"}, False)],
    ),
    (
        "CompositePodGroup root priority overrides child PodGroup and pod priority",
        [pod("pod-in-cpg", LOW, "pg-low"), pod("standalone-low", LOW)],
        [pg("pg-low", LOW, parent="cpg-mid"), cpg("cpg-mid", MID)],
        True,
        [],
        [({"pod-in-cpg"}, False), ({"standalone-low"}, False)],
    ),
    (
        "a budget with no disruptions left marks its pod violating, whatever its priority",
        [pod("mid-unprotected", MID), pod("low-protected", LOW, labels=PROTECTED)],
        [],
        True,
        [pdb("pdb-zero", 0)],
        [({"low-protected"}, True), ({"mid-unprotected"}, False)],
    ),
    (
        "budget consumption across victims marks the excess victims violating",
        [pod("mid-protected", MID, labels=PROTECTED), pod("low-protected", LOW, labels=PROTECTED)],
        [],
        True,
        [pdb("pdb-one", 1)],
        [({"low-protected"}, True), ({"mid-protected"}, False)],
    ),
    (
        "an atomic group victim violates when any member pod violates",
        [
            pod("all-protected", LOW, "pg-all", labels=PROTECTED),
            pod("all-unprotected", LOW, "pg-all"),
            pod("mid-unprotected", MID),
        ],
        [pg("pg-all", LOW, whole=True)],
        True,
        [pdb("pdb-zero", 0)],
        [({"all-protected", "all-unprotected"}, True), ({"mid-unprotected"}, False)],
    ),
    (
        "CompositePodGroup disabled ignores the parent's disruption mode and priority",
        [pod("p1", LOW, "pg-child"), pod("p2", LOW, "pg-child")],
        [pg("pg-child", LOW, parent="cpg-root"), cpg("cpg-root", HIGH, True)],
        False,
        [],
        [({"p1"}, False), ({"p2"}, False)],
    ),
]


@pytest.mark.parametrize(
    ("pods", "facts", "composite", "budgets", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_victims(
    pods: list[Pod],
    facts: list[GroupFact],
    composite: bool,
    budgets: list[DisruptionBudget],
    want: list[tuple[set[str], bool]],
) -> None:
    found = [v for v in all_victims(snapshot(pods), groups(facts, composite)) if v.priority < HIGH]
    assert reprieve_order(found, budgets) == want


def test_groups_before_pods_and_bigger_groups_first() -> None:
    """moreImportantVictim: at one priority a group outranks a pod, a bigger group a smaller one, then the
    earlier start."""
    big = Victim([pod("b1", LOW), pod("b2", LOW)], LOW, "ns/big")
    small = Victim([pod("s1", LOW)], LOW, "ns/small")
    early = Victim([Pod(NS, "early", "early", start_time="2024-01-01T00:00:00Z")], LOW)
    late = Victim([Pod(NS, "late", "late", start_time="2024-01-02T00:00:00Z")], LOW)
    ordered = sorted([late, small, early, big], key=Victim.importance)
    assert ordered == [big, small, early, late]


def test_no_victims_is_unresolvable() -> None:
    snap = snapshot([pod("high", HIGH)])
    outcome = Evaluator(snap, ()).select(
        HIGH, all_victims(snap, groups([])), lambda: (None, []), lambda a: True
    )
    assert outcome.status is not None and outcome.status.message == NO_VICTIMS


def test_reprieve_keeps_what_the_group_does_not_need_and_restores_the_snapshot() -> None:
    """All victims leave, the rerun places the group; a victim put back that still lets every placed pod
    pass stays; the others are the victims; the snapshot ends as it began."""
    snap = snapshot([pod("a", LOW), pod("b", MID), pod("c", LOW, node="node2")])
    before = {n.name: [p.name for p in n.pods] for n in snap.nodes}

    def fits(assignments: Sequence[Assignment]) -> bool:
        # The group needs node1 free of "b" (the most important, tried first) and nothing else.
        return all(p.name != "b" for p in snap.by_name["node1"].pods)

    outcome = Evaluator(snap, ()).select(
        HIGH, all_victims(snap, groups([])), lambda: (None, [Assignment(0, "node1")]), fits
    )
    assert outcome.status is None
    assert [p.name for v in outcome.victims for p in v.pods] == ["b"]
    assert outcome.nominations == {0: "node1"}
    assert {n.name: [p.name for p in n.pods] for n in snap.nodes} == before


@pytest.mark.parametrize(
    ("group_policy", "pod_policies", "gate", "want"),
    [
        ("Never", ["PreemptLowerPriority"], True, "Never"),
        ("PreemptLowerPriority", ["Never", "PreemptLowerPriority"], True, "PreemptLowerPriority"),
        ("Never", ["PreemptLowerPriority"], False, "PreemptLowerPriority"),
        ("", ["PreemptLowerPriority", "Never"], False, "Never"),
        ("", ["PreemptLowerPriority"], True, "PreemptLowerPriority"),
    ],
)
def test_preemption_policy(group_policy: str, pod_policies: list[str], gate: bool, want: str) -> None:
    """TestGetPreemptionPolicy: the group's own policy with PodGroupPreemptionPolicy, else Never when a pod
    says Never."""
    fact = GroupFact(POD_GROUP, NS, "pg", None, "", "", HIGH, group_policy)
    pods = [Pod(NS, f"p{i}", f"p{i}", preemption_policy=p) for i, p in enumerate(pod_policies)]
    assert preemptor_policy(fact, groups([fact]), pods, gate) == want


def _tree(root: GroupFact, *children: GroupFact) -> GroupInfo:
    info = GroupInfo(root)
    info.children = [GroupInfo(c) for c in children]
    return info


@pytest.mark.parametrize(
    ("gate", "group_policy", "pods", "want"),
    [
        (False, "", [("a", HIGH, "PreemptLowerPriority"), ("b", HIGH, "PreemptLowerPriority")], ""),
        (
            False,
            "",
            [("a", HIGH, "PreemptLowerPriority"), ("b", MID, "PreemptLowerPriority")],
            "all pods in a pod group hierarchy should have the same priority as the root pod group's priority, "
            'got 100 ("b") and 1000 ("podgroup/default/pg")',
        ),
        (
            False,
            "",
            [("a", HIGH, "PreemptLowerPriority"), ("b", HIGH, "Never")],
            'all pods in a pod group hierarchy should have the same preemption policy, got Never ("b") and '
            'PreemptLowerPriority ("a")',
        ),
        (
            True,
            "Never",
            [("a", HIGH, "PreemptLowerPriority")],
            "all pods in a pod group hierarchy should have the same preemption policy as the root pod group's "
            'preemption policy, got PreemptLowerPriority ("a") and Never ("podgroup/default/pg")',
        ),
    ],
)
def test_validate_pod_group(
    gate: bool, group_policy: str, pods: list[tuple[str, int, str]], want: str
) -> None:
    """validatePodGroup's priority and preemption-policy checks, with upstream's messages."""
    fact = GroupFact(POD_GROUP, NS, "pg", None, "", "", HIGH, group_policy if gate else "")
    info = GroupInfo(fact)
    by_unit = {i: Pod(NS, n, n, priority=p, preemption_policy=pol) for i, (n, p, pol) in enumerate(pods)}
    info.queued = list(by_unit)
    gates = frozenset({GENERIC_WORKLOAD} | ({PREEMPTION_POLICY_GATE} if gate else set()))
    assert validate(info, by_unit, Groups({fact.key: fact}, {}, gates)) == want


def test_validate_group_priorities_in_a_tree() -> None:
    root = cpg("root", HIGH)
    child = pg("child", MID, parent="root")
    info = _tree(root, child)
    info.children[0].queued = [0]
    pods = {0: Pod(NS, "p", "p", priority=HIGH)}
    want = (
        "all pod groups in a hierarchy should have the same priority as the root pod group's priority, "
        'got 100 ("podgroup/default/child") and 1000 ("compositepodgroup/default/root")'
    )
    assert validate(info, pods, groups([root, child])) == want
