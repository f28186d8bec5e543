"""The planner's kubelet check (solver/cluster/plan/kubelet.py): nodes whose kubelet the input describes
admit the pods the plan puts there, and the plan moves or leaves pending what a kubelet rejects.

Each node's NodeProblem is built from the plan's placements and facts read from the input once; it must be
the NodeProblem `kubefit admit` builds for the plan written out (pods bound, claims allocated) and read back,
which is what the check did before, so this holds them equal on generated clusters."""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubefit.app.render import render_list
from kubefit.cli import main
from kubefit.model.errors import InputError
from kubefit.model.features import ALL_ON
from kubefit.model.solution import Solution, Status, UnitOutcome
from kubefit.output import to_yaml
from kubefit.solver import registry
from kubefit.solver.cluster.plan.decode import Placement
from kubefit.solver.cluster.plan.kubelet import _allocations, node_problem
from kubefit.solver.cluster.plan.planner import PlanOptions, plan
from kubefit.translate.dra.build import Built, build
from kubefit.translate.kube.objects import ObjectSet
from kubefit.translate.loader import load_text
from kubefit.translate.node.build import StateFiles
from kubefit.translate.node.build import build as node_build
from kubefit.translate.node.planned import kubelet_facts

EXAMPLE = Path(__file__).parent.parent / "examples" / "numa-node"
Doc = dict[str, Any]


def _plan(files: list[str]) -> tuple[int, Doc, str]:
    out, err = io.StringIO(), io.StringIO()
    args = ["plan", *(a for f in files for a in ("-f", f)), "-o", "json", "--time-limit", "30"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, (json.loads(out.getvalue()) if out.getvalue().strip() else {}), err.getvalue()


def _numa_nodes(tmp_path: Path, second: str = "") -> list[str]:
    """Two copies of the example's node (static CPUs, whole cores, single-numa-node), its pods pending."""
    node = (EXAMPLE / "node.yaml").read_text() + "\n---\n" + (EXAMPLE / "topology.yaml").read_text()
    pods = (EXAMPLE / "pods.yaml").read_text().replace("  nodeName: numa-node-1\n", "")
    (tmp_path / "node-1.yaml").write_text(node)
    (tmp_path / "node-2.yaml").write_text(second or node.replace("numa-node-1", "numa-node-2"))
    (tmp_path / "pods.yaml").write_text(pods + "\n---\n" + yaml.safe_dump(_guaranteed("odd", 11)))
    return [str(tmp_path / n) for n in ("node-1.yaml", "node-2.yaml", "pods.yaml")]


def _guaranteed(name: str, cpus: int) -> Doc:
    resources = {"cpu": str(cpus), "memory": "1Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "containers": [
                {"name": "c", "image": "x", "resources": {"requests": resources, "limits": resources}}
            ]
        },
    }


def test_every_kubelet_admits_the_pods_the_plan_puts_on_its_node(tmp_path: Path) -> None:
    files = _numa_nodes(tmp_path)
    code, out, _ = _plan(files)
    assert code == 1
    placed = {i["metadata"]["name"]: i["spec"].get("nodeName") for i in out["items"] if i["kind"] == "Pod"}
    # Two nodes of 62 CPUs on two NUMA nodes hold the 16, 16.5 and 20 CPU pods, none two on one NUMA node.
    assert all(placed[n] for n in ("packet-processor", "trading-engine", "risk-batch")), placed
    # 11 CPUs are not whole cores of two threads: every kubelet with full-pcpus-only refuses them.
    assert placed["odd"] is None
    text = "".join(Path(f).read_text() + "\n---\n" for f in files[:2]) + yaml.safe_dump_all(
        [i for i in out["items"] if i["kind"] == "Pod"]
    )
    objects = load_text(text, "<plan>")
    for node in ("numa-node-1", "numa-node-2"):
        solution = registry.node("greedy").admit(node_build(objects, ALL_ON, node, None, StateFiles()))
        assert [a.pod.name for a in solution.reported if not a.admitted] == []
        assert {a.pod.name for a in solution.reported} == {n for n, at in placed.items() if at == node}


def test_bad_kubelet_settings_are_said_when_the_plan_puts_a_pod_there(tmp_path: Path) -> None:
    node = (EXAMPLE / "node.yaml").read_text() + "\n---\n" + (EXAMPLE / "topology.yaml").read_text()
    bad = node.replace("numa-node-1", "numa-node-2").replace(
        'reservedSystemCPUs: "0,32"', 'reservedSystemCPUs: "0,99"'
    )
    code, _, err = _plan(_numa_nodes(tmp_path, bad))
    assert code == 2
    assert "node-2.yaml:30: KubeletConfiguration/numa-node-2: reservedSystemCPUs: Invalid value: " in err
    # A node the plan cannot use: its kubelet is never asked.
    tainted = bad.replace("status:\n", "spec:\n  taints:\n  - {key: k, effect: NoSchedule}\nstatus:\n", 1)
    code, _, err = _plan(_numa_nodes(tmp_path, tainted))
    assert code == 1, err


# --- the NodeProblems, against the plan written out and read back -------------------------------------------


def _cluster(seed: int) -> list[Doc]:
    r = random.Random(seed)
    docs: list[Doc] = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu.example.com"},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "two", "namespace": "default"},
            "spec": {
                "spec": {
                    "devices": {
                        "requests": [
                            {"name": q, "exactly": {"deviceClassName": "gpu.example.com"}} for q in ("a", "b")
                        ]
                    }
                }
            },
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "shared", "namespace": "default"},
            "spec": {
                "devices": {"requests": [{"name": "a", "exactly": {"deviceClassName": "gpu.example.com"}}]}
            },
        },
    ]
    nodes = [f"n{i}" for i in range(r.randint(1, 3))]
    for name in nodes:
        cpus = r.choice([4, 8, 16])
        topology = [
            {"id": i, "core": i, "socket": 0, "numa": i * 2 // cpus, "uncoreCache": 0} for i in range(cpus)
        ]
        devices = [
            {"name": f"gpu-{k}", "attributes": {"resource.kubernetes.io/numaNode": {"int": k % 2}}}
            for k in range(r.randint(1, 4))
        ]
        docs += [
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                "status": {"allocatable": {"cpu": str(cpus), "memory": "64Gi", "pods": "110"}},
            },
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-gpus"},
                "spec": {
                    "driver": "gpu.example.com",
                    "nodeName": name,
                    "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                    "devices": devices,
                },
            },
        ]
        if r.random() < 0.8:
            docs.append(
                {
                    "apiVersion": "kubefit.io/v1alpha1",
                    "kind": "NodeTopology",
                    "metadata": {"name": name},
                    "spec": {"cpus": topology},
                }
            )
            docs.append(
                {
                    "apiVersion": "kubelet.config.k8s.io/v1beta1",
                    "kind": "KubeletConfiguration",
                    "metadata": {"name": name},
                    "cpuManagerPolicy": "static",
                    "topologyManagerPolicy": r.choice(["single-numa-node", "restricted", "best-effort"]),
                    "topologyManagerScope": r.choice(["pod", "container"]),
                    "reservedSystemCPUs": "0",
                    "featureGates": {"PodLevelResources": r.random() < 0.7},
                }
            )
    for i in range(r.randint(2, 10)):
        pod = _guaranteed(f"p{i}", r.choice([1, 2, 3]))
        spec, container = pod["spec"], pod["spec"]["containers"][0]
        if r.random() < 0.5:
            claim = (
                {"name": "g", "resourceClaimTemplateName": "two"}
                if r.random() < 0.7
                else {"name": "g", "resourceClaimName": "shared"}
            )
            spec["resourceClaims"] = [claim]
            container["resources"]["claims"] = [
                {"name": "g", **({"request": "b"} if r.random() < 0.3 else {})}
            ]
        if r.random() < 0.2:
            spec["nodeName"] = r.choice(nodes)
        if r.random() < 0.2:
            spec["resources"] = {
                "requests": {"cpu": "4", "memory": "2Gi"},
                "limits": {"cpu": "4", "memory": "2Gi"},
            }
        docs.append(pod)
    return docs


def _written_back(built: Built, placements: dict[int, Placement]) -> ObjectSet:
    """The input with its pods and claims replaced by the plan's, written out and read back."""
    outcomes = tuple(
        UnitOutcome(u.id, Status.ALLOCATED, placements[u.id].node, placements[u.id].allocations)
        if u.id in placements
        else UnitOutcome(u.id, Status.UNSATISFIABLE)
        for u in built.problem.units
    )
    rendered = load_text(to_yaml(render_list(built, Solution("plan", outcomes))), "<plan>")
    kinds = ("Pod", "ResourceClaim")
    replaced = {(o.kind, o.namespace, o.name) for o in rendered if o.kind in kinds}
    kept = [o for o in built.objects if (o.kind, o.namespace, o.name) not in replaced]
    return ObjectSet([*kept, *(o for o in rendered if o.kind in kinds)])


@pytest.mark.parametrize("seed", range(12))
def test_each_node_problem_is_the_plan_written_out_and_read_back(seed: int) -> None:
    built = build(load_text(yaml.safe_dump_all(_cluster(seed)), "<test>"))
    facts = kubelet_facts(built)
    if facts is None:
        return
    result = plan(built.problem, PlanOptions("greedy", time_limit=30))
    placements = {
        o.unit: Placement(o.unit, o.node or "", o.allocations)
        for o in result.solution.units
        if o.status == Status.ALLOCATED
    }
    objects = _written_back(built, placements)
    allocated = _allocations(built.problem, placements)
    for node in sorted(facts.nodes):
        try:
            want: Any = node_build(objects, built.gates, node, None, StateFiles())
        except InputError as e:
            want = str(e)
        try:
            got: Any = node_problem(facts, built.problem, placements, allocated, node)
        except InputError as e:
            got = str(e)
        assert got == want
