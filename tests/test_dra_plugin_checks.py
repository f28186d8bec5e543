"""The DynamicResources plugin's checks beyond the allocator, and `validate`'s word on pools whose
slices disagree on their count."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import yaml

from kubefit.cli import main

HERE = Path(__file__).resolve().parent
CPU_SHARING = HERE / "data" / "dra-driver-cpu" / "shared-claim.yaml"
SHARED = "node allocatable resource claim claim-cpu-capacity-10 has a mapped device and cannot be shared across pods"
# The driver's node-allocatable mode needs this alpha gate on (off in every release kubefit carries).
MAPPED = ("--feature-gates", "DRANodeAllocatableResources=true")


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    return code, out.getvalue()


def test_a_claim_mapped_to_node_cpus_is_refused_to_a_second_pod() -> None:
    code, out = run("allocate", "-f", str(CPU_SHARING), "-o", "json", *MAPPED)
    assert code == 1
    doc = json.loads(out)
    pods = {i["metadata"]["name"]: i for i in doc["items"] if i["kind"] == "Pod"}
    assert pods["pod-cpu-dra-claim-a"]["spec"]["nodeName"] == "dra-driver-cpu-worker"
    assert "nodeName" not in pods["pod-cpu-dra-claim-b"]["spec"]
    (event,) = [i["message"] for i in doc["items"] if i["kind"] == "Event"]
    assert event.startswith(f"0/1 nodes are available: 1 {SHARED}. ")
    # The claim's 10 CPUs are charged to the node once.
    claim = next(i for i in doc["items"] if i["kind"] == "ResourceClaim")
    assert [r["name"] for r in claim["status"]["reservedFor"]] == ["pod-cpu-dra-claim-a"]
    code, out = run("explain", "-f", str(CPU_SHARING), "-o", "json", "--pod", "pod-cpu-dra-claim-b", *MAPPED)
    (unit,) = json.loads(out)["items"]
    assert unit["fits"] is False
    assert unit["nodes"][0]["reasons"][0]["message"] == f"DynamicResources: {SHARED}"


def test_without_the_gate_the_claim_maps_nothing_and_may_be_shared() -> None:
    # Off by the release (the API server drops the slice's mappings) or by name (the scheduler ignores them).
    assert run("allocate", "-f", str(CPU_SHARING))[0] == 0
    assert (
        run("allocate", "-f", str(CPU_SHARING), "--feature-gates", "DRANodeAllocatableResources=false")[0]
        == 0
    )


def _slice(name: str, count: int, device: str) -> dict[str, object]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": "driver-a",
            "nodeName": "node-1",
            "pool": {"name": "pool-1", "generation": 1, "resourceSliceCount": count},
            "devices": [{"name": device}],
        },
    }


def test_validate_warns_when_a_pools_slices_disagree_on_their_count(tmp_path: Path) -> None:
    path = tmp_path / "slices.yaml"
    path.write_text(yaml.safe_dump_all([_slice("slice-b", 2, "device-2"), _slice("slice-a", 1, "device-1")]))
    code, out = run("validate", "-f", str(path), "-o", "json")
    report = json.loads(out)
    assert code == 0 and report["valid"] is True
    (problem,) = report["problems"]
    assert problem["severity"] == "warning"
    assert problem["object"] == "ResourceSlice/slice-a"
    assert problem["path"] == "spec.pool.resourceSliceCount"
    assert "disagree on resourceSliceCount (slice-a: 1, slice-b: 2)" in problem["message"]
    assert (
        "kubefit takes slice-a's (1): with 2 slices published it counts the pool incomplete"
        in problem["message"]
    )
    path.write_text(yaml.safe_dump_all([_slice("slice-b", 2, "device-2"), _slice("slice-a", 2, "device-1")]))
    _, out = run("validate", "-f", str(path), "-o", "json")
    assert json.loads(out)["problems"] == []
