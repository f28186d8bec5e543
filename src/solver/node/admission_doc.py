"""The Admission object: one pod's admission as kubefit reports it (JSON/YAML and explanations)."""

from __future__ import annotations

from typing import Any

from ...model.cpuset import format_cpuset
from ...model.node.problem import Block
from ...model.node.solution import PodAdmission
from ...model.quantity.amounts import binary_size

API_VERSION = "kubefit.io/v1alpha1"


def _size(size: int) -> str:
    return binary_size(size)


def _block(b: Block) -> dict[str, Any]:
    return {"resource": b.resource, "size": _size(b.size), "numaAffinity": list(b.numa)}


def admission_doc(node: str, a: PodAdmission) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "Admission",
        "node": node,
        "pod": a.pod.ref,
        "admitted": a.admitted,
        "reason": a.reason,
        "message": a.message,
        "numaAffinity": list(a.numa_affinity) if a.numa_affinity is not None else None,
        "podCpus": format_cpuset(a.pod_cpus),
        "defaultCpuSet": format_cpuset(a.default_cpus),
        "containers": [
            {
                "name": c.name,
                "cpus": format_cpuset(c.cpus),
                "exclusive": c.exclusive,
                "numaAffinity": list(c.numa_affinity) if c.numa_affinity is not None else None,
                "memory": [_block(b) for b in c.memory],
            }
            for c in a.containers
        ],
    }
    if a.proof:
        # Plain text: the engine's proof is an enum, which the YAML writer does not know.
        doc["proof"] = str(a.proof)
    return doc
