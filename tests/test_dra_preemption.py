"""Preemption and DRA devices: kube-scheduler without DRAPreemption (every release so far) frees no
device in preemption's dry run; with it, KEP-5690's rules decide which claims a victim's removal
releases, and the preemptor's allocation is held on its nominated node. `explain` never says "fits"
for a pod that fits only by evicting others."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import yaml
from cluster_manifests import (
    DRIVER,
    allocate,
    claim,
    device_class,
    events,
    gpus,
    items,
    node,
    node_of,
    pod,
    template,
)

from kubefit.cli import main

ON = ("--feature-gates", "DRAPreemption=true")
OFF = ("--feature-gates", "DRAPreemption=false")
NODE = node("node-a", allocatable={"cpu": "8", "memory": "32Gi", "pods": "110"})


def held(name: str, *pods: str, device: str = "gpu-0", node_name: str = "node-a", group: str = "") -> Any:
    """A claim allocated to `device` and reserved for `pods` (and for PodGroup `group`)."""
    doc = claim(name)
    reserved: list[dict[str, Any]] = [
        {"resource": "pods", "name": p, "uid": f"00000000-0000-4000-8000-{i:012d}"}
        for i, p in enumerate(pods)
    ]
    if group:
        reserved.append(
            {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": group, "uid": "group-uid"}
        )
    doc["status"] = {
        "allocation": {
            "devices": {
                "results": [{"request": "gpu", "driver": DRIVER, "pool": node_name, "device": device}]
            }
        },
        "reservedFor": reserved,
    }
    return doc


def running(name: str, claim_name: str, priority: int = 0, node_name: str = "node-a", **spec: Any) -> Any:
    doc = pod(
        name, claim_name=claim_name, nodeName=node_name, priority=priority, requests={"cpu": "1"}, **spec
    )
    doc["status"] = {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}
    return doc


def pending(name: str, priority: int = 1000, **spec: Any) -> Any:
    return pod(name, priority=priority, requests={"cpu": "1"}, **spec)


ONE_GPU = [NODE, device_class(), gpus("node-a", count=1), template(), held("train-gpu", "train")]


def explain(tmp_path: Path, docs: list[Any], *args: str) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "explain.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["explain", "-f", str(path), "-o", "json", *args])
    return code, json.loads(out.getvalue())


def evicted(result: dict[str, Any]) -> list[str]:
    return [
        name
        for name, p in items(result, "Pod").items()
        if "kubefit.io/preempted-by" in p["metadata"].get("annotations", {})
    ]


def test_without_the_gate_preemption_frees_no_device_and_the_pod_stays_pending(tmp_path: Path) -> None:
    docs = [*ONE_GPU, running("train", "train-gpu"), pending("serve")]
    for args in ((), OFF):
        code, result, _ = allocate(tmp_path, docs, *args)
        assert code == 1
        assert node_of(result, "serve") is None
        assert evicted(result) == []
        (message,) = events(result)
        assert message.startswith(
            "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, "
            "preemption: 0/1 nodes are available: 1 cannot allocate all claims."
        )
    code, doc = explain(tmp_path, docs)
    (unit,) = doc["items"]
    assert code == 1 and unit["fits"] is False and unit["status"] == "does-not-fit"
    (hint,) = [h for h in unit["nodes"][0]["hints"] if "DRAPreemption" in h]
    assert hint.startswith(
        "held by lower-priority default/train (priority 0): kube-scheduler does not preempt"
    )


def test_with_the_gate_the_victims_claim_is_released_and_explain_says_preempts(tmp_path: Path) -> None:
    budget = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "train-pdb", "namespace": "default"},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "train"}}},
    }
    victim = running("train", "train-gpu")
    victim["metadata"]["labels"] = {"app": "train"}
    docs = [*ONE_GPU, budget, victim, pending("serve")]
    code, result, _ = allocate(tmp_path, docs, *ON)
    assert code == 0
    assert node_of(result, "serve") == "node-a"
    assert evicted(result) == ["train"]
    code, doc = explain(tmp_path, docs, *ON)
    (unit,) = doc["items"]
    assert code == 1
    assert (unit["fits"], unit["status"], unit["node"]) == (False, "preempts", "node-a")
    assert unit["victims"] == [
        {
            "pod": "default/train",
            "priority": 0,
            "podDisruptionBudgets": [{"name": "train-pdb", "disruptionsAllowed": 1}],
        }
    ]


def test_the_allocate_table_lists_the_pods_preempted_without_wide(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        yaml.safe_dump_all([*ONE_GPU, running("train", "train-gpu"), pending("serve")]), encoding="utf-8"
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["allocate", "-f", str(path), "-o", "table", *ON])
    rows = [line.split() for line in out.getvalue().splitlines()]
    assert ["default/train", "preempted", "node-a", "-", "-", "-"] in rows
    assert (
        "default/train: preempted (priority 0) on node node-a to make room for default/serve (priority 1000)"
        in (out.getvalue())
    )


def test_a_shared_claim_is_released_only_when_every_pod_reserving_it_is_removed(tmp_path: Path) -> None:
    base = [*ONE_GPU[:4], held("shared", "a", "b")]
    both = [*base, running("a", "shared"), running("b", "shared"), pending("serve")]
    code, result, _ = allocate(tmp_path, both, *ON)
    assert code == 0 and sorted(evicted(result)) == ["a", "b"]
    # A sharer the preemptor may not evict keeps the claim allocated: nothing is evicted.
    guarded = [*base, running("a", "shared"), running("b", "shared", priority=2000), pending("serve")]
    code, result, _ = allocate(tmp_path, guarded, *ON)
    assert code == 1 and evicted(result) == [] and node_of(result, "serve") is None


def test_a_claim_reserved_for_a_pod_group_is_never_released(tmp_path: Path) -> None:
    docs = [
        *ONE_GPU[:4],
        held("group-gpu", "member", group="trainers"),
        running("member", "group-gpu"),
        pending("serve"),
    ]
    code, result, _ = allocate(tmp_path, docs, *ON)
    assert code == 1 and evicted(result) == [] and node_of(result, "serve") is None


def test_devices_off_node_local_slices_are_never_released(tmp_path: Path) -> None:
    shared_slice = gpus("node-a", count=1)
    del shared_slice["spec"]["nodeName"]
    shared_slice["spec"]["nodeSelector"] = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]}]}
        ]
    }
    docs = [
        NODE,
        device_class(),
        shared_slice,
        template(),
        held("train-gpu", "train"),
        running("train", "train-gpu"),
        pending("serve"),
    ]
    code, result, _ = allocate(tmp_path, docs, *ON)
    assert code == 1 and evicted(result) == [] and node_of(result, "serve") is None


def test_a_pod_group_member_frees_nothing_by_preempting(tmp_path: Path) -> None:
    group = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "solo", "namespace": "default"},
        "spec": {"schedulingPolicy": {"basic": {}}},
    }
    docs = [
        *ONE_GPU,
        group,
        running("train", "train-gpu"),
        pending("serve", schedulingGroup={"podGroupName": "solo"}),
    ]
    code, result, _ = allocate(tmp_path, docs, *ON)
    assert code == 1 and evicted(result) == []


def test_the_preemptors_allocation_is_held_against_pods_of_lower_priority(tmp_path: Path) -> None:
    docs = [
        *ONE_GPU,
        running("train", "train-gpu"),
        pending("serve", priority=1000),
        pending("batch", priority=500),
    ]
    _, result, _ = allocate(tmp_path, docs, *ON)
    # batch may not take the GPU freed for serve, so serve does not have to preempt batch in turn.
    assert evicted(result) == ["train"]
    assert node_of(result, "serve") == "node-a" and node_of(result, "batch") is None


def test_preemption_for_cpu_still_evicts_without_the_gate(tmp_path: Path) -> None:
    small = node("node-a", allocatable={"cpu": "2", "memory": "32Gi", "pods": "110"})
    hog = pod("cpu-hog", template_name=None, nodeName="node-a", priority=0, requests={"cpu": "2"})
    hog["status"] = {"phase": "Running"}
    docs = [small, device_class(), gpus("node-a", count=2), template(), hog, pending("serve")]
    code, result, _ = allocate(tmp_path, docs)
    assert code == 0 and evicted(result) == ["cpu-hog"] and node_of(result, "serve") == "node-a"
