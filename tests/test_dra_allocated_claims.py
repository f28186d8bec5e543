"""DynamicResources' checks of claims a pod uses that are allocated already or going away: a claim
being deleted or not created for the pod, reservedFor matched by uid and full, binding conditions
that failed or timed out, skipped node operations, and the validator's word on the same."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from problem_strategies import claim, exact, node_view, problem
from test_validate import device

from kubefit.cli import main
from kubefit.model.claim_status import AllocatedStatus
from kubefit.model.problem import Node, Unit
from kubefit.model.solution import ClaimAllocation, DeviceResult, Solution, Status, UnitOutcome
from kubefit.solver.claim_use import status_problem, unusable
from kubefit.solver.validate import validate

HERE = Path(__file__).resolve().parent
SCHED = HERE / "scenarios" / "sched"
SHARED = "node allocatable resource claim claim-cpu-capacity-10 has a mapped device and cannot be shared across pods"
CPU_SHARING = HERE / "data" / "dra-driver-cpu" / "shared-claim.yaml"
MAPPED = ("--feature-gates", "DRANodeAllocatableResources=true")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def items(out: str, kind: str) -> dict[str, dict[str, Any]]:
    return {i["metadata"]["name"]: i for i in json.loads(out)["items"] if i["kind"] == kind}


def events(out: str) -> list[str]:
    return [i["message"] for i in json.loads(out)["items"] if i["kind"] == "Event"]


def objects_of(case: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((SCHED / case / "objects.yaml").read_text()) if d]


def write(tmp_path: Path, docs: list[dict[str, Any]]) -> str:
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


# --- PreEnqueue: the claims the pod names -----------------------------------------------------------------


def test_a_claim_being_deleted_leaves_the_pod_waiting(tmp_path: Path) -> None:
    docs = objects_of("dra-plugin-allocated-claim-binding-in-progress")
    claim_doc = next(d for d in docs if d["kind"] == "ResourceClaim")
    del claim_doc["status"]
    claim_doc["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    claim_doc["metadata"]["finalizers"] = ["resource.kubernetes.io/delete-protection"]
    code, out, _ = run("allocate", "-f", write(tmp_path, docs), "-o", "json")
    assert code == 1
    assert "nodeName" not in items(out, "Pod")["pod-0"]["spec"]
    assert events(out) == [
        'running PreFilter/Filter plugin "DynamicResources": resourceclaim "claim-0" is being deleted'
    ]


def _template_pod(status_claim: str, owner_uid: str) -> list[dict[str, Any]]:
    docs = objects_of("dra-plugin-allocated-claim-binding-in-progress")
    docs = [d for d in docs if d["kind"] not in ("ResourceClaim", "Pod")]
    docs.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "gpu", "namespace": "default"},
            "spec": {
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}
            },
        }
    )
    docs.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "name": status_claim,
                "namespace": "default",
                "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"},
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "Pod", "name": "pod-0", "uid": owner_uid, "controller": True}
                ],
            },
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
        }
    )
    docs.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "pod-0", "namespace": "default", "uid": "pod-0-uid"},
            "spec": {
                "containers": [{"name": "app", "image": "app:1", "resources": {"claims": [{"name": "gpu"}]}}],
                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu"}],
            },
            "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": status_claim}]},
        }
    )
    return docs


def test_a_claim_the_pods_status_names_must_be_controlled_by_the_pod(tmp_path: Path) -> None:
    code, out, _ = run(
        "allocate", "-f", write(tmp_path, _template_pod("pod-0-gpu-x", "other-uid")), "-o", "json"
    )
    assert code == 1
    assert events(out) == [
        'running PreFilter/Filter plugin "DynamicResources": ResourceClaim default/pod-0-gpu-x was not created '
        "for pod default/pod-0 (pod is not owner)"
    ]
    code, out, _ = run(
        "allocate", "-f", write(tmp_path, _template_pod("pod-0-gpu-x", "pod-0-uid")), "-o", "json"
    )
    assert code == 0
    assert items(out, "ResourceClaim")["pod-0-gpu-x"]["status"]["allocation"]


# --- reservedFor, matched by uid --------------------------------------------------------------------------


def _cpu_claim_reserved_for(tmp_path: Path, uid: str) -> str:
    """The CPU driver's mapped claim allocated and reserved for pod-cpu-dra-claim-b with `uid`, and that pod
    (uid b-uid) pending."""
    docs = [d for d in yaml.safe_load_all(CPU_SHARING.read_text()) if d]
    docs = [d for d in docs if d["metadata"]["name"] != "pod-cpu-dra-claim-a"]
    for d in docs:
        if d["kind"] == "Pod":
            d["metadata"]["uid"] = "b-uid"
        if d["kind"] == "ResourceClaim":
            d["status"] = {
                "allocation": {
                    "devices": {
                        "results": [
                            {
                                "request": "req-cpu-slice",
                                "driver": "dra.cpu",
                                "pool": "dra-driver-cpu-worker",
                                "device": "cpudevnuma000",
                                "shareID": "11111111-1111-1111-1111-111111111111",
                                "consumedCapacity": {"dra.cpu/cpu": "10"},
                            }
                        ]
                    }
                },
                "reservedFor": [{"resource": "pods", "name": "pod-cpu-dra-claim-b", "uid": uid}],
            }
    return write(tmp_path, docs)


def test_reserved_for_is_matched_by_uid_not_by_name(tmp_path: Path) -> None:
    # Reserved for this very pod: the mapped claim is its own.
    code, out, _ = run("allocate", "-f", _cpu_claim_reserved_for(tmp_path, "b-uid"), "-o", "json", *MAPPED)
    assert code == 0, events(out)
    # Reserved for an earlier pod of the same name (another uid): someone else's, and it cannot be shared.
    code, out, _ = run(
        "allocate", "-f", _cpu_claim_reserved_for(tmp_path, "a-gone-uid"), "-o", "json", *MAPPED
    )
    assert code == 1
    (event,) = events(out)
    assert event.startswith(f"0/1 nodes are available: 1 {SHARED}. ")


def test_a_full_reserved_for_does_not_keep_out_a_pod_already_in_it(tmp_path: Path) -> None:
    docs = objects_of("dra-plugin-allocated-claim-reserved-for-full")
    claim_doc = next(d for d in docs if d["kind"] == "ResourceClaim")
    claim_doc["status"]["reservedFor"][-1] = {"resource": "pods", "name": "pod-0", "uid": "pod-0-uid"}
    code, out, _ = run("allocate", "-f", write(tmp_path, docs), "-o", "json")
    assert code == 0, events(out)
    assert items(out, "Pod")["pod-0"]["spec"]["nodeName"] == "node-1"


# --- binding conditions and the time they are judged at ---------------------------------------------------


def test_now_sets_the_time_binding_timeouts_are_judged_at(tmp_path: Path) -> None:
    path = str(SCHED / "dra-plugin-allocated-claim-binding-timed-out" / "objects.yaml")
    # Allocated at 2020-01-01T00:00:00Z; bindingTimeout is 600s.
    code, out, _ = run("allocate", "-f", path, "-o", "json", "--now", "2020-01-01T00:09:59Z")
    assert code == 0 and items(out, "Pod")["pod-0"]["spec"]["nodeName"] == "node-1"
    code, out, _ = run("allocate", "-f", path, "-o", "json", "--now", "2020-01-01T00:10:01+00:00")
    assert code == 1 and "nodeName" not in items(out, "Pod")["pod-0"]["spec"]
    code, out, _ = run("explain", "-f", path, "-o", "json", "--now", "2020-01-01T00:10:01Z")
    (unit,) = json.loads(out)["items"]
    node_1 = next(n for n in unit["nodes"] if n["node"] == "node-1")
    assert node_1["reasons"][0]["message"] == (
        "resourceclaim not available on the node: binding conditions not met 600s after the allocation "
        "(bindingTimeout)"
    )


def test_the_scheduler_configuration_sets_the_binding_timeout(tmp_path: Path) -> None:
    docs = objects_of("dra-plugin-allocated-claim-binding-timed-out")
    docs.append(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "schedulerName": "default-scheduler",
                    "pluginConfig": [{"name": "DynamicResources", "args": {"bindingTimeout": "1h"}}],
                }
            ],
        }
    )
    path = write(tmp_path, docs)
    code, out, _ = run("allocate", "-f", path, "-o", "json", "--now", "2020-01-01T00:30:00Z")
    assert code == 0 and items(out, "Pod")["pod-0"]["spec"]["nodeName"] == "node-1"
    code, out, _ = run("allocate", "-f", path, "-o", "json", "--now", "2020-01-01T01:00:01Z")
    assert code == 1


@pytest.mark.parametrize("text", ["yesterday", "2020-01-01T00:00:00"])
def test_now_must_be_an_rfc3339_time_with_a_zone(text: str) -> None:
    path = str(SCHED / "dra-plugin-allocated-claim-binding-timed-out" / "objects.yaml")
    code, _, err = run("allocate", "-f", path, "--now", text)
    assert code == 2 and "RFC 3339" in err


def test_a_binding_failure_names_the_condition_as_the_scheduler_does() -> None:
    path = str(SCHED / "dra-plugin-allocated-claim-binding-failed" / "objects.yaml")
    _, out, _ = run("explain", "-f", path, "-o", "json")
    (unit,) = json.loads(out)["items"]
    node_1 = next(n for n in unit["nodes"] if n["node"] == "node-1")
    assert node_1["reasons"][0]["message"] == (
        'resourceclaim not available on the node: claim claim-0 binding failed: reason=FabricDown, message="fabric '
        'is down"'
    )


def _allocated(status: AllocatedStatus, declared: frozenset[str] = frozenset(), **kw: Any) -> Any:
    c = claim(0, exact(), allocated=True, status=status)
    p = problem([], [c], **kw)
    return replace(p, nodes={"node-1": Node("node-1", {"kubernetes.io/hostname": "node-1"}, declared)})


def test_binding_rules_read_from_an_allocated_claims_status() -> None:
    waiting = AllocatedStatus(binding_ready=False, allocated_at=1000.0)
    p = _allocated(waiting, now=1600.0)
    assert status_problem(p, p.claims[0], "node-1", 600.0) == ""
    p = _allocated(waiting, now=1600.5)
    assert "bindingTimeout" in status_problem(p, p.claims[0], "node-1", 600.0)
    # Ready, or without an allocation time: never timed out.
    for status in (AllocatedStatus(allocated_at=0.0), AllocatedStatus(binding_ready=False)):
        q = _allocated(status, now=1e9)
        assert status_problem(q, q.claims[0], "node-1", 1) == ""
    # The gates off: not looked at.
    p = _allocated(
        AllocatedStatus(binding_failed='claim claim-0 binding failed: reason=X, message=""'), features=()
    )
    assert status_problem(p, p.claims[0], "node-1", 600.0) == ""


def test_skipped_node_operations_need_a_node_that_declares_the_feature() -> None:
    skipping = AllocatedStatus(skips_node_operations=True)
    p = _allocated(skipping)
    assert "does not declare DRAOptionalNodeOperations" in status_problem(p, p.claims[0], "node-1", 600)
    p = _allocated(skipping, frozenset({"DRAOptionalNodeOperations"}))
    assert status_problem(p, p.claims[0], "node-1", 600) == ""
    assert unusable(p, p.units[0], "node-1", {}, 600) == []


def test_the_validator_refuses_a_unit_placed_where_its_allocated_claim_cannot_be_used() -> None:
    allocated = claim(0, exact(), allocated=True, status=AllocatedStatus(skips_node_operations=True))
    fresh = claim(1, exact())
    devices = [device(0)]
    p = problem(
        devices, [allocated, fresh], views=[node_view(devices)], units=[Unit(0, "pod-0", (0, 1), ("node-1",))]
    )
    chosen = ClaimAllocation(1, "node-1", (DeviceResult((1, 0, 0), "req-0", 0, False, False, None),), {})
    violations = validate(p, Solution("test", (UnitOutcome(0, Status.ALLOCATED, "node-1", (chosen,)),)))
    assert [v.kind for v in violations] == ["node"]
    assert "skips node operations" in violations[0].message
