"""Admissions as kubefit prints them: the Admission object (one pod), a List of them, a table, and
the checkpoint files the kubelet would leave behind."""

from __future__ import annotations

from typing import Any

from ..model.cpuset import format_cpuset
from ..model.node.solution import NodeSolution
from ..model.quantity.amounts import binary_size
from ..model.terminal import lines_text
from ..output import table
from ..solver.node.admission_doc import admission_doc
from ..translate.node.checkpoint import CPU_FILE, MEMORY_FILE, write_cpu_state, write_memory_state


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
            memory = (
                ", ".join(f"{b.resource} {binary_size(b.size)} on {_nodes(b.numa)}" for b in c.memory) or "-"
            )
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
