"""`kubefit allocate` on pending Pods: claims generated from templates, scheduling order, the
scheduler's other filters (node selection, taints, node resources), PodGroups and gangs, workloads,
extended resources, and what is left as the control plane would leave it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cluster_manifests import (
    DRIVER,
    allocate,
    claim,
    device_class,
    devices_of,
    events,
    gpus,
    items,
    node,
    node_of,
    pod,
    template,
)
from gate_support import EVERY_GATE

BASE = [node(), device_class(), gpus(count=2), template()]


# What the PostFilter plugins add to the FailedScheduling message: DynamicResources' word on deallocating
# claims ("still not schedulable" for a pod with claims), then DefaultPreemption's.
STILL = "still not schedulable"
NO_CLAIMS = "no new claims to deallocate"
NOT_HELPFUL = " {dra}, preemption: 0/{n} nodes are available: {n} Preemption is not helpful for scheduling."
NO_VICTIMS = (
    " {dra}, preemption: 0/{n} nodes are available: {n} No preemption victims found for incoming pod."
)


def test_a_claim_from_a_template_is_generated_as_the_controller_would(tmp_path: Path) -> None:
    code, result, _ = allocate(tmp_path, [*BASE, pod("web")])
    assert code == 0
    claims = items(result, "ResourceClaim")
    (name,) = claims
    assert re.fullmatch(r"web-gpu-[bcdfghjklmnpqrstvwxz2456789]{5}", name)
    generated = claims[name]
    the_pod = items(result, "Pod")["web"]
    uid = the_pod["metadata"]["uid"]
    assert generated["metadata"]["annotations"] == {"resource.kubernetes.io/pod-claim-name": "gpu"}
    assert generated["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": "web",
            "uid": uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert generated["status"]["reservedFor"] == [{"resource": "pods", "name": "web", "uid": uid}]
    assert the_pod["spec"]["nodeName"] == "node-1"
    assert the_pod["status"]["resourceClaimStatuses"] == [{"name": "gpu", "resourceClaimName": name}]
    assert devices_of(result, "web") == ["gpu-0"]


def test_the_same_input_gives_the_same_names_and_uids(tmp_path: Path) -> None:
    first = allocate(tmp_path, [*BASE, pod("web")])[1]
    second = allocate(tmp_path, [*BASE, pod("web")])[1]
    assert first == second


def test_pods_go_by_priority_then_creation_then_input_order(tmp_path: Path) -> None:
    one_gpu = [node(), device_class(), gpus(count=1), template()]
    low_first = [pod("low"), pod("high", priority=1000)]
    _, result, _ = allocate(tmp_path, [*one_gpu, *low_first])
    assert devices_of(result, "high") == ["gpu-0"] and node_of(result, "low") is None
    older = pod("older")
    older["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z"
    newer = pod("newer")
    newer["metadata"]["creationTimestamp"] = "2026-01-02T00:00:00Z"
    _, result, _ = allocate(tmp_path, [*one_gpu, newer, older])
    assert node_of(result, "older") == "node-1" and node_of(result, "newer") is None
    _, result, _ = allocate(tmp_path, [*one_gpu, pod("b"), pod("a")])
    assert node_of(result, "b") == "node-1" and node_of(result, "a") is None


def test_a_claim_shared_by_two_pods_is_allocated_once_and_reserved_for_both(tmp_path: Path) -> None:
    docs = [*BASE, claim("shared"), pod("a", claim_name="shared"), pod("b", claim_name="shared")]
    code, result, _ = allocate(tmp_path, docs)
    assert code == 0
    shared = items(result, "ResourceClaim")["shared"]
    assert [r["device"] for r in shared["status"]["allocation"]["devices"]["results"]] == ["gpu-0"]
    assert [r["name"] for r in shared["status"]["reservedFor"]] == ["a", "b"]
    assert devices_of(result, "a") == devices_of(result, "b") == ["gpu-0"]


def test_a_claim_allocated_on_one_node_pins_its_pods_there(tmp_path: Path) -> None:
    allocated = claim("pinned")
    allocated["status"] = {
        "allocation": {
            "devices": {
                "results": [{"request": "gpu", "driver": DRIVER, "pool": "node-2", "device": "gpu-0"}]
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-2"]}]}
                ]
            },
        }
    }
    docs = [node("node-1"), node("node-2"), device_class(), gpus("node-1"), gpus("node-2"), allocated]
    code, result, _ = allocate(tmp_path, [*docs, pod("user", claim_name="pinned")])
    assert code == 0 and node_of(result, "user") == "node-2"


def test_node_selection_and_taints_are_reported_like_the_scheduler(tmp_path: Path) -> None:
    tainted = node("node-2")
    tainted["spec"] = {"taints": [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]}
    docs = [node("node-1", labels={"zone": "a"}), tainted, node("node-3"), device_class(), template()]
    code, result, _ = allocate(tmp_path, [*docs, pod("picky", nodeSelector={"zone": "b"})])
    assert code == 1
    # TaintToleration runs before NodeAffinity, as in the scheduler's default profile.
    assert events(result) == [
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node"
        " affinity/selector." + NOT_HELPFUL.format(dra=STILL, n=3)
    ]
    code, result, _ = allocate(tmp_path, [*docs, pod("anywhere")])
    # Upstream sorts the "<count> <reason>" entries as strings.
    assert events(result) == [
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 cannot allocate all claims."
        " still not schedulable, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling,"
        " 2 No preemption victims found for incoming pod. 0/3 nodes can run pod default/anywhere: 2 have no devices of class"
        " gpu.example.com, 1 node(s) had untolerated taint(s)."
    ]


def test_node_resources_are_checked_like_node_resources_fit(tmp_path: Path) -> None:
    small = node("node-1", allocatable={"cpu": "2", "memory": "4Gi", "pods": "2"})
    docs = [small, device_class(), gpus(count=4), template()]
    big = pod("big", requests={"cpu": "3"})
    _, result, _ = allocate(tmp_path, [*docs, big])
    # More than the node has at all: preemption cannot help.
    assert events(result) == [
        "0/1 nodes are available: 1 Insufficient cpu." + NOT_HELPFUL.format(dra=STILL, n=1)
    ]
    pods = [pod(f"p{i}", requests={"cpu": "500m", "memory": "1Gi"}) for i in range(3)]
    _, result, _ = allocate(tmp_path, [*docs, *pods])
    assert [node_of(result, f"p{i}") for i in range(3)] == ["node-1", "node-1", None]
    assert events(result) == ["0/1 nodes are available: 1 Too many pods." + NO_VICTIMS.format(dra=STILL, n=1)]
    # a pod already running on the node takes its share
    running = pod("running", template_name=None, requests={"cpu": "1500m"}, nodeName="node-1")
    _, result, _ = allocate(tmp_path, [*docs, running, pod("next", requests={"cpu": "1"})])
    assert events(result) == [
        "0/1 nodes are available: 1 Insufficient cpu." + NO_VICTIMS.format(dra=STILL, n=1)
    ]


def test_a_node_that_publishes_no_allocatable_resources_is_not_checked(tmp_path: Path) -> None:
    code, _, _ = allocate(tmp_path, [*BASE, pod("big", requests={"cpu": "64", "memory": "1Ti"})])
    assert code == 0


def test_devices_mapped_to_node_cpus_count_against_the_node(tmp_path: Path) -> None:
    """DRANodeAllocatableResources: each GPU brings 4 CPUs of the node with it."""
    small = node("node-1", allocatable={"cpu": "6", "pods": "10"})
    slice_ = gpus(count=2, nodeAllocatableResources={"cpu": {"mapping": {"deviceMultiplier": "4"}}})
    docs = [small, device_class(), slice_, template(count=1)]
    code, result, _ = allocate(tmp_path, [*docs, pod("one", requests={"cpu": "1"})], *EVERY_GATE)
    assert code == 0
    status = items(result, "Pod")["one"]["status"]["nodeAllocatableResourceClaimStatuses"]
    assert status[0]["mapping"] == [{"name": "cpu", "quantity": "4"}]
    code, result, _ = allocate(tmp_path, [*docs, pod("two", requests={"cpu": "3"})], *EVERY_GATE)
    # 3 CPUs and the GPU's 4 are more than the node has at all (nodeFitsResources: unresolvable).
    assert code == 1 and events(result) == [
        "0/1 nodes are available: 1 Insufficient cpu." + NOT_HELPFUL.format(dra=STILL, n=1)
    ]
    code, _, _ = allocate(
        tmp_path,
        [*docs, pod("two", requests={"cpu": "3"})],
        "--feature-gates",
        "DRANodeAllocatableResources=false",
    )
    assert code == 0


def _group(name: str, min_count: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def _member(name: str, group: str) -> dict[str, Any]:
    return pod(name, schedulingGroup={"podGroupName": group})


def test_a_gang_binds_all_its_pods_or_none(tmp_path: Path) -> None:
    docs = [*BASE, _group("trainers", 3), *(_member(f"t{i}", "trainers") for i in range(3)), pod("other")]
    code, result, _ = allocate(tmp_path, docs, *EVERY_GATE)
    assert code == 1
    assert [node_of(result, f"t{i}") for i in range(3)] == [None, None, None]
    # what the gang could not use goes to the next pod
    assert devices_of(result, "other") == ["gpu-0"]
    # The PodGroup cycle's status, as kube-scheduler's FailedScheduling says it (one placement: every node).
    assert events(result)[0].startswith(
        "0/1 placements are available, first placement status: minCount (3) cannot be satisfied: "
        "2 scheduled, 0 remaining"
    )
    code, result, _ = allocate(
        tmp_path, [*BASE, _group("pair", 2), _member("a", "pair"), _member("b", "pair")], *EVERY_GATE
    )
    assert code == 0 and devices_of(result, "a") == ["gpu-0"] and devices_of(result, "b") == ["gpu-1"]


def test_a_gang_waits_for_its_minimum_number_of_pods(tmp_path: Path) -> None:
    """GangScheduling's PreEnqueue holds the pod out of the queue: no cycle, no FailedScheduling event."""
    code, result, _ = allocate(tmp_path, [*BASE, _group("trio", 3), _member("only", "trio")], *EVERY_GATE)
    assert code == 1 and node_of(result, "only") is None and events(result) == []
    annotations = items(result, "Pod")["only"]["metadata"]["annotations"]
    assert annotations["kubefit.io/preenqueue-result"] == (
        "waiting for minCount pods from a gang to appear in scheduling queue"
    )


def test_podgroup_claims_are_shared_by_the_pods_that_name_them(tmp_path: Path) -> None:
    group = _group("team", 2)
    group["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    code, result, _ = allocate(
        tmp_path, [*BASE, group, _member("a", "team"), _member("b", "team")], *EVERY_GATE
    )
    assert code == 0
    assert devices_of(result, "a") == devices_of(result, "b") == ["gpu-0"]
    (generated,) = items(result, "ResourceClaim").values()
    assert generated["metadata"]["ownerReferences"][0]["kind"] == "PodGroup"
    assert generated["status"]["reservedFor"][0]["resource"] == "podgroups"
    statuses = items(result, "PodGroup")["team"]["status"]["resourceClaimStatuses"]
    assert statuses == [{"name": "gpu", "resourceClaimName": generated["metadata"]["name"]}]


def test_a_deployment_becomes_its_replicas(tmp_path: Path) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod("x")["spec"]},
        },
    }
    code, result, _ = allocate(tmp_path, [*BASE, deployment])
    assert code == 1  # two GPUs, three replicas
    pods = items(result, "Pod")
    assert len(pods) == 3
    for name, p in pods.items():
        assert re.fullmatch(r"web-[a-z0-9]{10}-[a-z0-9]{5}", name)
        assert p["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
        assert p["metadata"]["labels"] == {"app": "web"}
    assert sorted(d for name in pods for d in devices_of(result, name)) == ["gpu-0", "gpu-1"]


def test_workloads_beyond_what_a_cluster_holds_are_refused(tmp_path: Path) -> None:
    def deployment(name: str, replicas: int) -> dict[str, Any]:
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}, "spec": pod("x")["spec"]},
            },
        }

    # Past int32 the API server cannot even read the number; past 150,000 pods no cluster holds them
    # (either way kubefit would spend minutes and gigabytes naming them).
    code, result, err = allocate(tmp_path, [*BASE, deployment("web", 2**31)])
    assert code == 2 and not result
    assert re.fullmatch(
        r".*: Deployment/default/web: spec\.replicas: json: cannot unmarshal number 2147483648 into Go struct "
        r"field DeploymentSpec\.spec\.replicas of type int32\n",
        err,
    ), err
    code, _, err = allocate(tmp_path, [*BASE, deployment("a", 100_000), deployment("b", 50_001)])
    assert code == 2
    assert (
        "Deployment/default/b: spec.replicas: Invalid value: 50001: the workloads would make 150001 pods"
        in err
    )
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "default"},
        "spec": {"parallelism": 2**31 - 1, "completions": 2, "template": {"spec": pod("x")["spec"]}},
    }
    code, result, _ = allocate(tmp_path, [*BASE, job])  # completions bound it: two pods
    assert code == 0 and len(items(result, "Pod")) == 2
    # One more and the API server cannot read the parallelism at all.
    job["spec"]["parallelism"] = 2**31
    code, result, err = allocate(tmp_path, [*BASE, job])
    assert code == 2 and not result
    assert "spec.parallelism: json: cannot unmarshal number 2147483648 into Go struct field" in err


def test_extended_resources_backed_by_a_device_class(tmp_path: Path) -> None:
    docs = [node(), device_class(extendedResourceName="example.com/gpu"), gpus(count=2)]
    wants = pod("wants", template_name=None, limits={"example.com/gpu": "2"})
    code, result, _ = allocate(tmp_path, [*docs, wants])
    assert code == 0
    status = items(result, "Pod")["wants"]["status"]["extendedResourceClaimStatus"]
    assert status["requestMappings"] == [
        {"containerName": "main", "resourceName": "example.com/gpu", "requestName": "container-0-request-0"}
    ]
    special = items(result, "ResourceClaim")[status["resourceClaimName"]]
    assert special["metadata"]["annotations"] == {"resource.kubernetes.io/extended-resource-claim": "true"}
    assert [r["device"] for r in special["status"]["allocation"]["devices"]["results"]] == ["gpu-0", "gpu-1"]
    implicit = pod(
        "implicit", template_name=None, limits={f"deviceclass.resource.kubernetes.io/{DRIVER}": "1"}
    )
    assert allocate(tmp_path, [*docs, implicit])[0] == 0
    unbacked = pod("unbacked", template_name=None, limits={"vendor.example/fpga": "1"})
    code, result, _ = allocate(tmp_path, [*docs, unbacked])
    assert code == 1 and events(result) == [
        "0/1 nodes are available: 1 Insufficient vendor.example/fpga."
        + NOT_HELPFUL.format(dra=NO_CLAIMS, n=1)
    ]


def test_a_pod_already_running_with_its_claims_is_left_alone(tmp_path: Path) -> None:
    done = claim("done")
    done["status"] = {
        "allocation": {
            "devices": {
                "results": [{"request": "gpu", "driver": DRIVER, "pool": "node-1", "device": "gpu-0"}]
            }
        }
    }
    running = pod("running", claim_name="done", nodeName="node-1")
    code, result, _ = allocate(tmp_path, [*BASE, done, running, pod("new")])
    assert code == 0
    assert "running" not in items(result, "Pod")
    assert devices_of(result, "new") == ["gpu-1"]


def test_a_missing_template_is_reported_for_the_pod(tmp_path: Path) -> None:
    code, result, _ = allocate(
        tmp_path, [node(), device_class(), gpus(), pod("orphan", template_name="nope")]
    )
    assert code == 1
    (message,) = events(result)
    assert 'resourceclaimtemplate "nope" not found' in message
    event = items(result, "Event")
    (only,) = event.values()
    assert only["involvedObject"] == {
        "apiVersion": "v1",
        "kind": "Pod",
        "namespace": "default",
        "name": "orphan",
    }
    assert only["reason"] == "FailedScheduling"


def test_unknown_claims_named_on_the_command_line_are_bad_input(tmp_path: Path) -> None:
    code, _, err = allocate(tmp_path, BASE, "--claims", "missing")
    assert code == 2 and "missing" in err and err.count("\n") == 1


def test_a_search_over_its_budget_is_undecided_never_does_not_fit(tmp_path: Path) -> None:
    code, result, _ = allocate(tmp_path, [*BASE, pod("web")], "--steps", "1")
    assert code == 1 and node_of(result, "web") is None
    (message,) = events(result)
    assert message.startswith("undecided, not a proof that it does not fit: ")
    assert "search stopped at its limit of 1 steps" in message
    assert allocate(tmp_path, [*BASE, pod("web")], "--steps", "100")[0] == 0
