"""Run the dra-example-driver demo corpus through kubefit the way a user applies it.

Each example's files are applied in turn onto its cluster.yaml; after each file
`kubefit allocate` schedules the pending pods and its output (claims with
status.allocation, bound pods) becomes the cluster state the next file is applied
to. The answers use the shape `check.py --actual` reads.

    python tests/realworld.py [--engine greedy] > answers.yaml
    python ../shared/realworld/dra-example-driver/check.py --actual answers.yaml
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from kubefit.cli import main as kubefit_main

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "realworld" / "dra-example-driver"

Key = tuple[str, str, str]


def examples(root: Path = CORPUS) -> list[Path]:
    return sorted(p.parent for p in root.rglob("expect.yaml"))


def _key(doc: dict[str, Any]) -> Key:
    meta = doc.get("metadata") or {}
    return (str(doc.get("kind")), str(meta.get("namespace") or ""), str(meta.get("name") or ""))


def _gates(expect: dict[str, Any]) -> str:
    """The gates the demo's set-up enables (its kind cluster config), on the release it runs."""
    gates = (expect.get("setup") or {}).get("featureGates") or {}
    return ",".join(f"{k}={str(v).lower()}" for k, v in sorted(gates.items()))


def kind_release(root: Path = CORPUS) -> str:
    """The Kubernetes release of the demo's kind node image (`kindest/node vX.Y.Z`, as the corpus's
    README records the demo scripts' choice)."""
    found = re.search(r"kindest/node v(\d+)\.(\d+)", (root / "README.md").read_text(encoding="utf-8"))
    if found is None:
        raise RuntimeError(f"{root / 'README.md'} names no kindest/node image")
    return f"{found.group(1)}.{found.group(2)}"


def _allocate(state: dict[Key, dict[str, Any]], engine: str, gates: str) -> tuple[int, dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cluster-state.yaml")
        with open(path, "w", encoding="utf-8") as f:
            yaml.safe_dump_all(list(state.values()), f, sort_keys=False)
        argv = [
            "allocate",
            "-f",
            path,
            "--engine",
            engine,
            "-o",
            "json",
            "--emulated-version",
            kind_release(),
        ]
        if gates:
            argv += ["--feature-gates", gates]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = kubefit_main(argv)
    if code not in (0, 1):
        raise RuntimeError(f"kubefit allocate exited {code}: {err.getvalue().strip()}")
    return code, json.loads(out.getvalue())


def run_example(example: Path, engine: str = "greedy") -> dict[str, Any]:
    """The final cluster state (by kind/namespace/name) and the FailedScheduling events seen."""
    expect = yaml.safe_load((example / "expect.yaml").read_text(encoding="utf-8"))
    state: dict[Key, dict[str, Any]] = {}
    for doc in yaml.safe_load_all((example / "cluster.yaml").read_text(encoding="utf-8")):
        if doc:
            state[_key(doc)] = doc
    events: list[dict[str, Any]] = []
    for name in expect.get("apply") or ():
        for doc in yaml.safe_load_all((example / name).read_text(encoding="utf-8")):
            if doc:
                state[_key(doc)] = doc
        _, result = _allocate(state, engine, _gates(expect))
        for item in result.get("items") or ():
            if item.get("kind") == "Event":
                events.append(item)
            else:
                state[_key(item)] = item
    return {"state": state, "events": events}


def _claim_results(claim: dict[str, Any] | None) -> list[dict[str, Any]]:
    allocation = ((claim or {}).get("status") or {}).get("allocation") or {}
    return list((allocation.get("devices") or {}).get("results") or ())


def _claim_devices(claim: dict[str, Any] | None) -> list[str]:
    return [r["device"] for r in _claim_results(claim)]


def _owner(pod: dict[str, Any], state: dict[Key, dict[str, Any]]) -> str:
    """The Deployment (or other workload) a generated pod comes from, or ''."""
    namespace = pod["metadata"].get("namespace") or ""
    for ref in pod["metadata"].get("ownerReferences") or ():
        if ref.get("kind") == "ReplicaSet":
            rs = state.get(("ReplicaSet", namespace, ref["name"]))
            owners = (rs or {}).get("metadata", {}).get("ownerReferences") or ()
            for o in owners:
                return str(o["name"])
            return str(ref["name"]).rsplit("-", 1)[0]
        return str(ref["name"])
    return ""


def pod_answer(pod: dict[str, Any], state: dict[Key, dict[str, Any]]) -> dict[str, Any]:
    namespace = pod["metadata"].get("namespace") or "default"
    status = pod.get("status") or {}
    allocated = bool((pod.get("spec") or {}).get("nodeName"))
    devices: dict[str, list[str]] = {}
    results: dict[str, list[dict[str, Any]]] = {}
    node_allocatable: dict[str, dict[str, str]] = {}
    claim_keys: dict[str, str] = {}
    config_requests: list[list[str]] = []
    names = {s["name"]: s.get("resourceClaimName") for s in status.get("resourceClaimStatuses") or ()}
    for entry in (pod.get("spec") or {}).get("resourceClaims") or ():
        claim_name = entry.get("resourceClaimName") or names.get(entry["name"])
        if claim_name:
            claim = state.get(("ResourceClaim", namespace, claim_name))
            devices[entry["name"]] = _claim_devices(claim)
            results[entry["name"]] = _claim_results(claim)
            claim_keys[claim_name] = entry["name"]
            allocation = ((claim or {}).get("status") or {}).get("allocation") or {}
            configs = (allocation.get("devices") or {}).get("config") or ()
            config_requests.extend(c.get("requests") or [] for c in configs)
    for entry in status.get("nodeAllocatableResourceClaimStatuses") or ():
        key = claim_keys.get(entry["resourceClaimName"], entry["resourceClaimName"])
        node_allocatable[key] = {m["name"]: m["quantity"] for m in entry.get("mapping") or ()}
    extended = status.get("extendedResourceClaimStatus") or {}
    if extended:
        claim = state.get(("ResourceClaim", namespace, extended["resourceClaimName"])) or {}
        allocation = (claim.get("status") or {}).get("allocation") or {}
        results = (allocation.get("devices") or {}).get("results") or ()
        for mapping in extended.get("requestMappings") or ():
            picked = [r["device"] for r in results if r["request"] == mapping["requestName"]]
            devices.setdefault(mapping["resourceName"], []).extend(picked)
    answer: dict[str, Any] = {"allocated": allocated, "devices": devices, "results": results}
    if node_allocatable:
        answer["nodeAllocatable"] = node_allocatable
    if config_requests:
        answer["allocationConfigRequests"] = config_requests
    if allocated:
        answer["node"] = pod["spec"]["nodeName"]
    return answer


def group_claim_devices(pod: dict[str, Any], state: dict[Key, dict[str, Any]]) -> dict[str, list[str]]:
    """PodGroup-level claims: the group's claim statuses name the claims its pods share."""
    namespace = pod["metadata"].get("namespace") or "default"
    group_name = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    group = state.get(("PodGroup", namespace, group_name or ""))
    out: dict[str, list[str]] = {}
    for entry in ((group or {}).get("status") or {}).get("resourceClaimStatuses") or ():
        out[entry["name"]] = _claim_devices(
            state.get(("ResourceClaim", namespace, entry["resourceClaimName"]))
        )
    return out


def answers(example: Path, engine: str = "greedy") -> dict[str, Any]:
    run = run_example(example, engine)
    state = run["state"]
    out: dict[str, Any] = {}
    for (kind, namespace, name), doc in state.items():
        if kind != "Pod":
            continue
        answer = pod_answer(doc, state)
        answer["devices"].update(group_claim_devices(doc, state))
        owner = _owner(doc, state)
        key = f"{namespace or 'default'}/{owner}-*" if owner else f"{namespace or 'default'}/{name}"
        previous = out.get(key)
        if previous is not None:
            previous["replicas"] += 1
            previous["allocatedReplicas"] += int(answer["allocated"])
            previous["allocated"] = previous["allocated"] and answer["allocated"]
            continue
        if owner:
            answer["replicas"] = 1
            answer["allocatedReplicas"] = int(answer["allocated"])
        out[key] = answer
    out["_events"] = [e.get("message", "") for e in run["events"]]
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="greedy")
    parser.add_argument("paths", nargs="*", type=Path)
    args = parser.parse_args(argv)
    result = {}
    for example in args.paths or examples():
        example = example.resolve()
        answer = answers(example, args.engine)
        answer.pop("_events")
        for pod in answer.values():
            pod.pop("results", None)
            pod.pop("allocationConfigRequests", None)
        result[str(example.relative_to(CORPUS))] = answer
    yaml.safe_dump(result, sys.stdout, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
