"""Small clusters as manifests for the `allocate` tests, and a way to run kubefit on them in-process."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import yaml

from kubefit.cli import main

DRIVER = "gpu.example.com"


def node(name: str = "node-1", *, labels: dict[str, str] | None = None, **status: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
    }
    if status:
        doc["status"] = status
    return doc


def device_class(name: str = DRIVER, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}], **spec},
    }


def gpus(node_name: str = "node-1", count: int = 2, **device_fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-gpus"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {"name": f"gpu-{i}", "attributes": {"index": {"int": i}}, **device_fields}
                for i in range(count)
            ],
        },
    }


def template(name: str = "one-gpu", count: int = 1, namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER, "count": count}}]
                }
            }
        },
    }


def claim(name: str, count: int = 1, namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER, "count": count}}]}
        },
    }


def pod(
    name: str,
    *,
    template_name: str | None = "one-gpu",
    claim_name: str | None = None,
    namespace: str = "default",
    requests: dict[str, str] | None = None,
    limits: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    claims = []
    if claim_name:
        claims.append({"name": "gpu", "resourceClaimName": claim_name})
    elif template_name:
        claims.append({"name": "gpu", "resourceClaimTemplateName": template_name})
    resources: dict[str, Any] = {}
    if claims:
        resources["claims"] = [{"name": "gpu"}]
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    container: dict[str, Any] = {"name": "main", "image": "registry.example.com/app:1"}
    if resources:
        container["resources"] = resources
    body: dict[str, Any] = {"containers": [container], **spec}
    if claims:
        body["resourceClaims"] = claims
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": body,
    }


def write(tmp_path: Path, docs: list[dict[str, Any]], name: str = "cluster.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    return path


def allocate(tmp_path: Path, docs: list[dict[str, Any]], *args: str) -> tuple[int, dict[str, Any], str]:
    """Run `kubefit allocate -o json` on the documents: exit code, the List, stderr."""
    path = write(tmp_path, docs)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["allocate", "-f", str(path), "-o", "json", *args])
    return code, (json.loads(out.getvalue()) if out.getvalue().strip() else {}), err.getvalue()


def items(result: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {i["metadata"]["name"]: i for i in result.get("items", ()) if i["kind"] == kind}


def devices_of(result: dict[str, Any], pod_name: str) -> list[str]:
    """The devices of every claim the pod uses, via the pod's status and spec."""
    pods = items(result, "Pod")
    claims = items(result, "ResourceClaim")
    p = pods[pod_name]
    names = {s["name"]: s["resourceClaimName"] for s in p.get("status", {}).get("resourceClaimStatuses", ())}
    out = []
    for entry in p["spec"].get("resourceClaims", ()):
        claim_name = entry.get("resourceClaimName") or names.get(entry["name"])
        allocation = claims.get(claim_name, {}).get("status", {}).get("allocation") or {}
        out += [r["device"] for r in allocation.get("devices", {}).get("results", ())]
    return out


def node_of(result: dict[str, Any], pod_name: str) -> str | None:
    spec: dict[str, Any] = items(result, "Pod")[pod_name]["spec"]
    return spec.get("nodeName")


def events(result: dict[str, Any]) -> list[str]:
    return [i["message"] for i in result.get("items", ()) if i["kind"] == "Event"]
