"""The DynamicResources plugin inside kube-scheduler's cycle: answers reused across identical pods give the
same placements as fresh searches, DRA scoring prefers higher firstAvailable alternatives, and devices
held by preempted pods are freed."""

from __future__ import annotations

from typing import Any

import pytest
from cluster_manifests import DRIVER, device_class
from cluster_manifests import gpus as base_gpus
from cluster_manifests import node as base_node

from kubefit.model.features import ALL_ON, FeatureGates
from kubefit.model.solution import Solution, Status
from kubefit.solver import engines
from kubefit.solver.cluster.dra import DraContext
from kubefit.solver.validate import validate
from kubefit.translate.dra.build import Built, build
from kubefit.translate.loader import load_text


def node(name: str, zone: str = "a") -> dict[str, Any]:
    labels = {"topology.kubernetes.io/zone": zone}
    return base_node(name, labels=labels, allocatable={"cpu": "16", "memory": "64Gi", "pods": "110"})


def gpus(node_name: str, count: int, model: str = "big") -> dict[str, Any]:
    return base_gpus(node_name, count, attributes={"model": {"string": model}})


DEVICE_CLASS = device_class("gpu")


def template(name: str, requests: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": requests}}},
    }


def pod(name: str, tmpl: str, priority: int = 0, node_name: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "priority": priority,
        "containers": [
            {
                "name": "c",
                "image": "busybox",
                "resources": {"requests": {"cpu": "1"}, "claims": [{"name": "d"}]},
            }
        ],
        "resourceClaims": [{"name": "d", "resourceClaimTemplateName": tmpl}],
    }
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def solve(docs: list[dict[str, Any]], gates: FeatureGates = ALL_ON) -> tuple[Built, Solution]:
    import yaml

    objects = load_text(yaml.safe_dump_all(docs), "test.yaml")
    built = build(objects, gates)
    solution = engines.get("greedy").solve(built.problem, engines.Budget())
    assert validate(built.problem, solution) == []
    return built, solution


def placements(built: Built, solution: Solution) -> list[tuple[str, str, tuple[str, ...]]]:
    out = []
    for outcome in solution.units:
        devices = tuple(built.problem.devices[r.device].ref for a in outcome.allocations for r in a.results)
        out.append((built.problem.units[outcome.unit].name, outcome.node, devices))
    return out


def test_reusing_answers_across_identical_pods_changes_no_placement(monkeypatch: pytest.MonkeyPatch) -> None:
    one = template("one", [{"name": "g", "exactly": {"deviceClassName": "gpu"}}])
    two = template("two", [{"name": "g", "exactly": {"deviceClassName": "gpu", "count": 2}}])
    docs: list[dict[str, Any]] = [DEVICE_CLASS, one, two]
    for i in range(4):
        docs += [node(f"n{i}", zone="ab"[i % 2]), gpus(f"n{i}", 3)]
    docs += [pod(f"p{i}", "one" if i % 3 else "two") for i in range(10)]
    cached = placements(*solve(docs))
    monkeypatch.setattr(DraContext, "signature", lambda self, unit, pending: None)
    fresh = placements(*solve(docs))
    assert cached == fresh
    # 12 GPUs for 14 asked: some pods wait, so answers were reused on nodes that changed and ones that did not.
    assert 0 < sum(1 for _, node_name, _ in cached if node_name) < 10


def test_dra_scoring_prefers_the_node_where_a_higher_alternative_fits() -> None:
    prioritized = template(
        "pick",
        [
            {
                "name": "g",
                "firstAvailable": [
                    {
                        "name": "big",
                        "deviceClassName": "gpu",
                        "selectors": [
                            {"cel": {"expression": 'device.attributes["gpu.example.com"].model == "big"'}}
                        ],
                    },
                    {"name": "any", "deviceClassName": "gpu"},
                ],
            }
        ],
    )
    docs = [DEVICE_CLASS, prioritized, node("a"), gpus("a", 1, "small"), node("b"), gpus("b", 1, "big")]
    _, solution = solve([*docs, pod("p", "pick")])
    (outcome,) = solution.units
    assert outcome.node == "b"
    assert outcome.record is not None
    assert outcome.record.scores["b"]["DynamicResources"] == 100
    assert outcome.record.scores["a"]["DynamicResources"] == 87  # (8 - 1) / 8 of the best


def test_a_preempted_pods_gpus_go_to_its_preemptor_with_dra_preemption() -> None:
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "low-gpu", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu"}}]}},
        "status": {
            "allocation": {
                "devices": {"results": [{"request": "g", "driver": DRIVER, "pool": "n0", "device": "gpu-0"}]}
            },
            "reservedFor": [{"resource": "pods", "name": "low", "uid": "1"}],
        },
    }
    low = pod("low", "one", priority=1, node_name="n0")
    low["metadata"]["uid"] = "1"
    low["spec"]["resourceClaims"] = [{"name": "d", "resourceClaimName": "low-gpu"}]
    one = template("one", [{"name": "g", "exactly": {"deviceClassName": "gpu"}}])
    docs = [DEVICE_CLASS, one, node("n0"), gpus("n0", 1), claim, low, pod("high", "one", priority=10)]
    built, solution = solve(docs, ALL_ON.with_values({"DRAPreemption": True}))
    (outcome,) = solution.units
    assert outcome.status == Status.ALLOCATED and outcome.node == "n0"
    assert [e.victim.key for e in solution.evictions] == ["default/low"]
    assert placements(built, solution) == [("default/high", "n0", (f"{DRIVER}/n0/gpu-0",))]
