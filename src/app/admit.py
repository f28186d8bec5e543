"""Admissions as kubefit prints them: the Admission object (one pod), a List of them, a table, and
the checkpoint files the kubelet would leave behind."""

from __future__ import annotations

from typing import Any

from ..model.cpuset import format_cpuset
from ..model.node.problem import Block
from ..model.node.solution import NodeSolution, PodAdmission
from ..model.terminal import lines_text
from ..output import table
from ..translate.node.checkpoint import CPU_FILE, MEMORY_FILE, write_cpu_state, write_memory_state
from ..translate.quantity import Format, Quantity

API_VERSION = "kubefit.io/v1alpha1"


def _size(size: int) -> str:
    return str(Quantity.from_int(size, Format.BINARY_SI))


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


def render(node: str, solution: NodeSolution, single: bool) -> dict[str, Any]:
    docs = [admission_doc(node, a) for a in solution.reported]
    if single and len(docs) == 1:
        return docs[0]
    return {"apiVersion": "v1", "kind": "List", "items": docs}


def _nodes(nodes: tuple[int, ...] | None) -> str:
    return "any" if nodes is None else ",".join(map(str, nodes)) or "-"


def admission_table(solution: NodeSolution) -> str:
    rows = []
    notes = []
    for a in solution.reported:
        if not a.admitted:
            rows.append([a.pod.ref, "-", "rejected", "-", "-", "-"])
            notes.append(f"{a.pod.ref}: {a.reason}: {a.message}")
            continue
        for c in a.containers:
            memory = ", ".join(f"{b.resource} {_size(b.size)} on {_nodes(b.numa)}" for b in c.memory) or "-"
            kind = "exclusive" if c.exclusive else "shared"
            rows.append(
                [
                    a.pod.ref,
                    c.name,
                    "admitted",
                    f"{format_cpuset(c.cpus)} ({kind})",
                    _nodes(c.numa_affinity),
                    memory,
                ]
            )
    text = table(["POD", "CONTAINER", "STATUS", "CPUS", "NUMA", "MEMORY"], rows)
    if solution.reported:
        last = solution.reported[-1]
        text += f"\nshared pool: {format_cpuset(last.default_cpus) or '-'}\n"
    return text + ("\n" + lines_text(notes) if notes else "")


def write_state(directory: str, solution: NodeSolution) -> list[str]:
    """Write cpu_manager_state and memory_manager_state into `directory`, both or neither, as the
    kubelet writes a checkpoint (see checkpoint_store); the paths written."""
    from .checkpoint_store import write_files

    return write_files(
        directory,
        [
            (CPU_FILE, write_cpu_state(solution.cpu_state).encode()),
            (MEMORY_FILE, write_memory_state(solution.memory_state).encode()),
        ],
    )
