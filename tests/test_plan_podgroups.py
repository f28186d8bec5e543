"""The batch plan and PodGroups with topology constraints: every planned gang lies in one domain of its
key, reaches its minimum or places nothing, and the plan never places fewer pods than kube-scheduler's
PodGroup cycle (its baseline)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_plan import built_of, planned

from kubefit.model.solution import Status
from kubefit.solver.cluster.plan.planner import PlanResult
from kubefit.translate.dra.build import Built

Doc = dict[str, Any]


def node(name: str, zone: str, cpu: int) -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "zone": zone}},
        "status": {"allocatable": {"cpu": str(cpu), "memory": "64Gi", "pods": "110"}},
    }


def group(name: str, min_count: int, key: str = "zone") -> Doc:
    spec: Doc = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def member(name: str, group_name: str, cpu: int) -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "schedulingGroup": {"podGroupName": group_name},
            "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": str(cpu)}}}],
        },
    }


def zones_of(built: Built, result: PlanResult) -> dict[str, set[str]]:
    """PodGroup -> the zones its planned pods are in."""
    zone = {n.name: n.labels.get("zone", "") for n in built.problem.cluster.nodes}  # type: ignore[union-attr]
    out: dict[str, set[str]] = {}
    pending = built.problem.cluster.pending  # type: ignore[union-attr]
    for uid, placement in result.placements.items():
        pod = pending[uid]
        if pod.pod_group:
            out.setdefault(pod.pod_group, set()).add(zone[placement.node])
    return out


def test_the_issues_gang_is_planned_whole_in_the_zone_that_fits() -> None:
    docs = [
        node("a-1", "zone-a", 4),
        node("a-2", "zone-a", 4),
        node("b-1", "zone-b", 4),
        group("trainer", 4),
        *(member(f"worker-{i}", "trainer", 2) for i in range(4)),
    ]
    built = built_of(docs)
    for engine in ("greedy", "cpsat"):
        result = planned(built, engine)
        assert len(result.placements) == 4, engine
        assert zones_of(built, result) == {"trainer": {"zone-a"}}, engine


def test_a_gang_no_zone_holds_is_not_planned_across_zones() -> None:
    """Two zones of two 2-cpu pods each: without the constraint four 2-cpu pods would fit across them."""
    docs = [
        node("a-1", "zone-a", 4),
        node("b-1", "zone-b", 4),
        group("trainer", 4),
        *(member(f"worker-{i}", "trainer", 2) for i in range(4)),
    ]
    built = built_of(docs)
    result = planned(built, "cpsat")
    assert result.placements == {}
    free = [node("a-1", "zone-a", 4), node("b-1", "zone-b", 4), group("trainer", 4, key="")]
    unconstrained = built_of([*free, *(member(f"worker-{i}", "trainer", 2) for i in range(4))])
    assert len(planned(unconstrained, "cpsat").placements) == 4


def test_a_running_member_pins_the_gangs_zone() -> None:
    running = member("worker-0", "trainer", 2)
    running["spec"]["nodeName"] = "b-1"
    docs = [
        node("a-1", "zone-a", 8),
        node("b-1", "zone-b", 4),
        node("b-2", "zone-b", 2),
        group("trainer", 3),
        running,
        *(member(f"worker-{i}", "trainer", 2) for i in (1, 2)),
    ]
    built = built_of(docs)
    result = planned(built, "cpsat")
    assert zones_of(built, result) == {"trainer": {"zone-b"}}
    assert len(result.placements) == 2


@st.composite
def clusters(draw: st.DrawFn) -> list[Doc]:
    docs: list[Doc] = []
    for z in range(draw(st.integers(1, 3))):
        for n in range(draw(st.integers(1, 3))):
            docs.append(node(f"n{z}-{n}", f"zone-{z}", draw(st.sampled_from((2, 4, 6)))))
    for g in range(draw(st.integers(1, 2))):
        size = draw(st.integers(1, 4))
        docs.append(group(f"g{g}", draw(st.integers(1, size))))
        docs += [member(f"g{g}-p{i}", f"g{g}", draw(st.integers(1, 3))) for i in range(size)]
    for i in range(draw(st.integers(0, 2))):
        docs.append(
            {
                **member(f"loner-{i}", "", draw(st.integers(1, 2))),
                "spec": {
                    "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]
                },
            }
        )
    return docs


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_every_planned_gang_lies_in_one_domain_and_reaches_its_minimum(docs: list[Doc]) -> None:
    built = built_of(docs)
    minimum = {
        d["metadata"]["name"]: d["spec"]["schedulingPolicy"]["gang"]["minCount"]
        for d in docs
        if d["kind"] == "PodGroup"
    }
    pending = built.problem.cluster.pending  # type: ignore[union-attr]
    for engine in ("greedy", "cpsat"):
        result = planned(built, engine)
        for name, zones in zones_of(built, result).items():
            assert len(zones) == 1, (engine, name, zones)
        for name, need in minimum.items():
            placed = sum(1 for u in result.placements if pending[u].pod_group == name)
            assert placed == 0 or placed >= need, (engine, name, placed, need)
        if engine == "cpsat" and result.baseline is not None:
            baseline = sum(o.status == Status.ALLOCATED for o in result.baseline.units)
            assert len(result.placements) >= baseline
