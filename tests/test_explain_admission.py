"""`kubefit explain --node N` for pods the kubelet refuses at admission: golden text per kind of reason,
the JSON contract shared with DRA explain, exit codes, and the two promises behind every answer — the
verdict is the kubelet's (greedy's), and the reasons are minimal (together they refute the pod, without
any one of them the model admits it), checked on our fixtures and on every rejected node scenario.

Regenerate the golden files after an intended change with `KUBEFIT_UPDATE_GOLDEN=1 python -m pytest
tests/test_explain_admission.py` and review the diff.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from gate_support import EVERY_GATE
from golden import check_golden

from kubefit.app.explain_node import device_names
from kubefit.cli import main
from kubefit.model.features import ALL_ON
from kubefit.model.node.problem import NodeProblem
from kubefit.solver.explain.admission import (
    Kubelet,
    Rules,
    explain_node,
    explain_rejection,
    is_minimal,
    rejections,
)
from kubefit.solver.explain.admission_model import Devices
from kubefit.solver.node.greedy import GreedyNodeEngine
from kubefit.solver.node.view import view
from kubefit.translate.loader import load
from kubefit.translate.node.build import StateFiles, build

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "explain-admission"
GOLDEN = HERE / "data" / "golden"
FIXTURES = sorted(p.stem for p in DATA.glob("*.yaml"))
SCENARIO_SUITES = [HERE / "scenarios" / "node", HERE.parents[1] / "shared" / "scenarios" / "node"]
NODE_PATHS: dict[str, Path] = {}  # case id -> objects.yaml, with its case.yaml beside it


def run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    assert code in (0, 1), err.getvalue()
    return code, out.getvalue()


def explanation(name: str, *extra: str) -> tuple[int, dict[str, Any]]:
    code, text = run("explain", "-f", str(DATA / f"{name}.yaml"), "--node", "node-1", "-o", "json", *extra)
    return code, json.loads(text)


def _scenarios() -> Iterator[Path]:
    for suite in SCENARIO_SUITES:
        if suite.is_dir():
            yield from sorted(p for p in suite.iterdir() if (p / "case.yaml").is_file())


def _case(case_dir: Path) -> dict[str, Any]:
    case: dict[str, Any] = yaml.safe_load((case_dir / "case.yaml").read_text(encoding="utf-8"))
    return case


def _problem(case_dir: Path, tmp_path: Path) -> tuple[NodeProblem, Devices]:
    """The NodeProblem `kubefit admit` builds for a scenario, its checkpoints written as files."""
    case = _case(case_dir)
    files: dict[str, str] = {}
    for key in ("cpuManagerState", "memoryManagerState"):
        if case.get(key):
            path = tmp_path / f"{key}.json"
            path.write_text(json.dumps(case[key]), encoding="utf-8")
            files[key] = str(path)
    objects = load([str(case_dir / "objects.yaml")])
    state = StateFiles(files.get("cpuManagerState"), files.get("memoryManagerState"))
    node = case["node"]
    return build(objects, ALL_ON, node, case.get("pod"), state), device_names(objects, node)


def _fixture_problem(name: str) -> tuple[NodeProblem, Devices]:
    objects = load([str(DATA / f"{name}.yaml")])
    return build(objects, ALL_ON, "node-1", None, StateFiles()), device_names(objects, "node-1")


REJECTED = [
    pytest.param(d, id=f"{d.parents[1].name}/{d.name}")
    for d in _scenarios()
    if _case(d).get("command") == "admit" and _case(d)["expect"].get("admitted") is False
]
ALL_ADMIT = [
    pytest.param(d, id=f"{d.parents[1].name}/{d.name}")
    for d in _scenarios()
    if _case(d).get("command") == "admit"
]


# --- output ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_explain_admission_text_is_golden(name: str) -> None:
    code, text = run("explain", "-f", str(DATA / f"{name}.yaml"), "--node", "node-1", "-o", "table")
    got = f"# kubefit explain -f tests/data/explain-admission/{name}.yaml --node node-1 -o table\n# exit {code}\n{text}"
    golden = GOLDEN / f"explain-admission-{name}.txt"
    check_golden(golden, got)


def test_the_golden_inputs_cover_policy_cpu_memory_device_and_full_pcpus_reasons() -> None:
    kinds = set()
    for name in FIXTURES:
        _, doc = explanation(name)
        for item in doc["items"]:
            for node in item.get("nodes", []):
                kinds |= {r["kind"] for r in node["reasons"]}
    assert {"TopologyPolicy", "CPU", "Memory", "DeviceNUMA", "FullPCPUs", "KubeletOrder"} <= kinds


def test_json_has_the_keys_of_dra_explain_with_free_cpus_per_numa_node() -> None:
    code, doc = explanation("topology-cpu")
    assert code == 1
    assert doc["apiVersion"] == "kubefit.io/v1alpha1" and doc["kind"] == "Explanation"
    web, batch, app = doc["items"]
    assert web["unit"] == "pod default/web" and web["fits"] is True and web["status"] == "fits"
    assert web["admission"]["containers"][0]["cpus"] == "1,9"
    assert web["admission"]["numaAffinity"] == [0]
    assert batch["fits"] is True
    assert app["fits"] is False and app["status"] == "does-not-fit" and app["node"] == "node-1"
    assert app["reason"] == "TopologyAffinityError"
    assert app["summary"] == "Pod was rejected: Resources cannot be allocated with Topology locality"
    (node,) = app["nodes"]
    assert node["node"] == "node-1" and node["minimal"] is True
    by_id = {r["id"]: r for r in node["reasons"]}
    assert set(by_id) == {"topology/app", "cpu/app"}
    assert set(by_id["cpu/app"]) == {"id", "kind", "objects", "numbers", "message"}
    assert by_id["cpu/app"]["numbers"] == {"requested": 6, "free": {"0": 4, "1": 3}}
    assert by_id["topology/app"]["objects"]["policy"] == "single-numa-node"


def test_a_device_reason_names_the_claim_its_devices_and_their_numa_nodes() -> None:
    _, doc = explanation("device-numa", "--pod", "train")
    (item,) = doc["items"]
    device = next(r for r in item["nodes"][0]["reasons"] if r["kind"] == "DeviceNUMA")
    assert device["id"] == "device/default/gpu"
    assert device["objects"] == {"claim": "default/gpu", "devices": ["gpu.example.com/node-1/gpu-1"]}
    assert device["numbers"] == {"numaNodes": [1]}


def test_memory_reasons_give_what_is_requested_and_free_per_numa_node() -> None:
    _, doc = explanation("memory", "--pod", "default/analytics")
    (item,) = doc["items"]
    (reason,) = item["nodes"][0]["reasons"]
    assert reason["numbers"] == {
        "requested": {"memory": "40Gi"},
        "free": {"memory": {"0": "32Gi", "1": "30Gi"}},
    }


def test_pod_selects_one_bound_pod_and_exits_0_when_the_kubelet_admits_it() -> None:
    code, doc = explanation("topology-cpu", "--pod", "web")
    assert code == 0
    (item,) = doc["items"]
    assert item["unit"] == "pod default/web" and item["fits"] is True


def test_pending_pods_still_go_through_dra_explain_after_the_nodes_pods(tmp_path: Path) -> None:
    pending = """---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: default, uid: pending-uid}
spec:
  containers:
  - name: c
    image: pause
    resources:
      claims:
      - name: gpus
  resourceClaims:
  - name: gpus
    resourceClaimTemplateName: gpus
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpus, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 2}
"""
    path = tmp_path / "mixed.yaml"
    path.write_text((DATA / "device-numa.yaml").read_text(encoding="utf-8") + pending, encoding="utf-8")
    code, text = run("explain", "-f", str(path), "--node", "node-1", "-o", "json")
    assert code == 1
    units = [i["unit"] for i in json.loads(text)["items"]]
    assert units == ["pod default/batch", "pod default/train", "pod default/pending"]
    code, text = run("explain", "-f", str(path), "--node", "node-1", "--pod", "pending", "-o", "json")
    (item,) = json.loads(text)["items"]
    assert item["summary"].startswith("0/1 nodes can run pod default/pending")


def test_checkpoint_files_give_the_state_the_pod_meets(tmp_path: Path) -> None:
    case_dir = HERE / "scenarios" / "node" / "tm-single-numa-node-device-and-cpus-apart-rejected"
    state = tmp_path / "cpu_manager_state"
    state.write_text(json.dumps(_case(case_dir)["cpuManagerState"]), encoding="utf-8")
    args = ["explain", "-f", str(case_dir / "objects.yaml"), "--node", "node-1", "--pod", "test-pod"]
    code, text = run(*args, "--cpu-manager-state", str(state), "-o", "json")
    assert code == 1
    (item,) = json.loads(text)["items"]
    assert [r["id"] for r in item["nodes"][0]["reasons"]] == [
        "topology/test",
        "cpu/test",
        "device/default/gpu",
    ]
    code, _ = run(*args, "-o", "json")
    assert code == 0  # without the state the node is empty and the pod fits


def test_a_pod_level_pod_with_an_empty_shared_pool_gets_the_kubelets_reason(tmp_path: Path) -> None:
    pod = """---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, uid: p-uid}
spec:
  nodeName: node-1
  resources:
    requests: {cpu: '2', memory: 200Mi}
    limits: {cpu: '2', memory: 200Mi}
  containers:
  - name: exclusive
    image: pause
    resources:
      requests: {cpu: '2', memory: 100Mi}
      limits: {cpu: '2', memory: 100Mi}
  - name: shared
    image: pause
"""
    config = (
        "---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
        "cpuManagerPolicy: static\ntopologyManagerPolicy: best-effort\ntopologyManagerScope: pod\n"
    )
    topology = (HERE / "data" / "topologies" / "topoDualSocketHT.yaml").read_text(encoding="utf-8")
    path = tmp_path / "objects.yaml"
    path.write_text(topology + config + pod, encoding="utf-8")
    code, text = run("explain", "-f", str(path), "--node", "node-1", "-o", "json", *EVERY_GATE)
    assert code == 1
    (item,) = json.loads(text)["items"]
    assert item["reason"] == "EmptyPodSharedPoolError"
    (reason,) = item["nodes"][0]["reasons"]
    assert reason["kind"] == "PodSharedPool" and "shared" in reason["message"]


def test_a_time_limit_that_stops_the_search_says_the_reasons_are_not_minimal() -> None:
    problem, devices = _fixture_problem("device-numa")
    (_, train) = explain_node(problem, devices, time_limit=0.0)
    assert not train.admitted and not train.minimal and train.reasons


# --- the promises: the kubelet's verdict, minimal reasons ----------------------------------------------


def _check_minimal(problem: NodeProblem, devices: Devices) -> int:
    """Explain every refused pod and check its reasons by the definition; how many were checked."""
    checked = 0
    for _, rejection in rejections(problem):
        if rejection is None:
            continue
        got = explain_rejection(problem.node, rejection, devices, None)
        if rejection.admission.reason == "EmptyPodSharedPoolError":
            continue
        assert got.minimal and got.groups, (rejection.pod.ref, got.reasons)
        assert all(r.kind != "AdmissionError" for r in got.reasons), got.reasons
        rules = rejection.rules(with_order=any(g[0] == "kubelet" for g in got.groups))
        assert is_minimal(rules, got.groups), (rejection.pod.ref, got.groups)
        checked += 1
    return checked


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_reasons_are_minimal_dropping_any_one_admits_the_pod(name: str) -> None:
    assert _check_minimal(*_fixture_problem(name)) >= 1


@pytest.mark.parametrize("case_dir", REJECTED)
def test_scenario_reasons_are_minimal_dropping_any_one_admits_the_pod(case_dir: Path, tmp_path: Path) -> None:
    assert _check_minimal(*_problem(case_dir, tmp_path)) == 1


@pytest.mark.parametrize("case_dir", ALL_ADMIT)
def test_the_verdict_is_the_kubelets_on_every_node_scenario(case_dir: Path, tmp_path: Path) -> None:
    problem, devices = _problem(case_dir, tmp_path)
    kubelet = GreedyNodeEngine().admit(problem)
    explained = explain_node(problem, devices)
    assert [(e.pod, e.admitted) for e in explained] == [(a.pod.ref, a.admitted) for a in kubelet.reported]
    assert explained[-1].admitted == _case(case_dir)["expect"]["admitted"]
    for e in explained:
        if not e.admitted:
            assert e.admission.reason == _case(case_dir)["expect"].get("reason", e.admission.reason)


@pytest.mark.parametrize("name", FIXTURES)
def test_the_verdict_is_the_kubelets_on_every_fixture(name: str) -> None:
    problem, devices = _fixture_problem(name)
    kubelet = GreedyNodeEngine().admit(problem)
    explained = explain_node(problem, devices)
    assert [(e.pod, e.admitted) for e in explained] == [(a.pod.ref, a.admitted) for a in kubelet.reported]


def test_the_kubelets_container_order_is_a_reason_only_where_the_model_would_admit_otherwise() -> None:
    problem, devices = _fixture_problem("container-order")
    for _, rejection in rejections(problem):
        if rejection is None:
            continue
        rules = rejection.rules(with_order=False)
        # Jointly, a on NUMA node 1 and b on NUMA node 0 fit: only the kubelet's first fit refuses the pod.
        assert not is_minimal(rules, list(rules.literals))
        got = explain_rejection(problem.node, rejection, devices, None)
        assert [g[0] for g in got.groups] == ["policy", "cpu", "kubelet"]


def test_with_every_group_enforced_the_rules_are_the_ones_admit_solves() -> None:
    # The explanation's program is the admission's: what it admits with nothing relaxed, admit --engine asp
    # admits too, on the same state.
    problem, _ = _fixture_problem("device-numa")
    kubelet = Kubelet(problem)
    for pod in problem.pods:
        rules = Rules.of(kubelet, view(kubelet, pod), None)
        admitted = kubelet.admit(pod).admitted
        assert rules.solve(list(rules.literals), None)[0] is admitted
