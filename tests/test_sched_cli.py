"""kube-scheduler at the command line: what `allocate` and `explain` say about a pod's node, the flags that
steer the cycle, and bad scheduler configurations."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import yaml

from kubefit.cli import main

ROOT = Path(__file__).resolve().parent.parent
SPREAD = ROOT / "tests/scenarios/sched/spread-filter-pods-spread-across-nodes-as-2-1-0-3-only-node-x-fits"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, docs: list[dict[str, Any]], name: str = "objects.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    return str(path)


def pod_item(text: str, name: str) -> dict[str, Any]:
    items = json.loads(text)["items"]
    found: dict[str, Any] = next(i for i in items if i["kind"] == "Pod" and i["metadata"]["name"] == name)
    return found


def node(name: str, zone: str) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}
    allocatable = {"cpu": "4", "memory": "8Gi", "pods": "10"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": allocatable},
    }


def pod(name: str, **spec: Any) -> dict[str, Any]:
    containers = [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": containers, **spec},
    }


def test_allocate_on_one_node_still_counts_the_pods_on_the_others() -> None:
    # Topology spread with --node node-b: the zone minimum is node-x's 0 pods, so node-b (1 pod) is too skewed.
    code, out, _ = run("allocate", "-f", str(SPREAD / "objects.yaml"), "--node", "node-b", "-o", "json")
    verdicts = json.loads(pod_item(out, "p")["metadata"]["annotations"]["kubefit.io/filter-result"])
    assert code == 1
    assert verdicts["node-b"]["PodTopologySpread"] == "node(s) didn't match pod topology spread constraints"


def test_equal_scores_go_to_the_first_node_evaluated_unless_a_seed_is_given(tmp_path: Path) -> None:
    docs = [node(f"n{i}", "a") for i in range(6)] + [pod("p")]
    path = write(tmp_path, docs)
    chosen = {
        pod_item(run("allocate", "-f", path, "-o", "json")[1], "p")["spec"]["nodeName"] for _ in range(3)
    }
    assert chosen == {"n0"}
    seeded = [
        pod_item(run("allocate", "-f", path, "--seed", str(s), "-o", "json")[1], "p")["spec"]["nodeName"]
        for s in range(12)
    ]
    assert len(set(seeded)) > 1  # the seed picks among the tied nodes
    again = [
        pod_item(run("allocate", "-f", path, "--seed", str(s), "-o", "json")[1], "p")["spec"]["nodeName"]
        for s in range(12)
    ]
    assert seeded == again  # and the same seed picks the same


def test_wide_output_ranks_nodes_and_names_the_filter_that_turned_one_away(tmp_path: Path) -> None:
    tainted = node("n1", "a")
    tainted["spec"] = {"taints": [{"key": "gpu", "value": "only", "effect": "NoSchedule"}]}
    busy = pod("busy", nodeName="n2")
    busy["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3"
    path = write(tmp_path, [node("n0", "a"), tainted, node("n2", "b"), busy, pod("p")])
    code, out, _ = run("allocate", "-f", path, "-o", "wide")
    assert code == 0
    assert "default/p: scheduled on n0" in out
    assert "filtered out: n1 (TaintToleration: node(s) had untolerated taint(s))" in out
    ranked = [line.split()[0] for line in out.splitlines() if line.startswith("  n")]
    assert ranked == ["n0*", "n2"]  # LeastAllocated prefers the emptier node


def test_explain_names_the_scheduler_filter_that_rejects_each_node(tmp_path: Path) -> None:
    tainted = node("n1", "a")
    tainted["spec"] = {"taints": [{"key": "gpu", "value": "only", "effect": "NoSchedule"}]}
    path = write(tmp_path, [node("n0", "a"), tainted, pod("p", nodeSelector={"disk": "ssd"})])
    code, out, _ = run("explain", "-f", path, "-o", "json")
    assert code == 1
    (item,) = json.loads(out)["items"]
    reasons = {n["node"]: n["reasons"][0]["message"] for n in item["nodes"]}
    assert reasons == {
        "n0": "NodeAffinity: node(s) didn't match Pod's node affinity/selector",
        "n1": "TaintToleration: node(s) had untolerated taint(s)",
    }


def test_a_pod_held_by_scheduling_gates_is_not_scheduled_and_gets_no_event(tmp_path: Path) -> None:
    path = write(tmp_path, [node("n0", "a"), pod("gated", schedulingGates=[{"name": "example.com/quota"}])])
    code, out, _ = run("allocate", "-f", path, "-o", "json")
    assert code == 1
    items = json.loads(out)["items"]
    assert [i for i in items if i["kind"] == "Event"] == []
    (condition,) = pod_item(out, "gated")["status"]["conditions"]
    assert condition["reason"] == "SchedulingGated"


def test_a_scheduler_configuration_the_scheduler_would_refuse_is_bad_input(tmp_path: Path) -> None:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {"score": {"enabled": [{"name": "NodeResourcesFitt", "weight": 2}]}}}],
    }
    path = write(tmp_path, [node("n0", "a"), pod("p"), config])
    code, out, err = run("allocate", "-f", path)
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert "KubeSchedulerConfiguration/" in line and "profiles[0].plugins.score.enabled[0].name" in line
    assert 'ScorePlugin "NodeResourcesFitt" does not exist' in line
