"""Upstream topology fixtures (pkg/kubelet/cm/cpumanager/policy_test.go and friends) as Machines."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from kubefit.model.node.problem import Machine
from kubefit.solver.node.topology import CPUTopology
from kubefit.translate.loader import load_text
from kubefit.translate.node.machine import machine_of
from kubefit.translate.node_topology import NodeTopology

TOPOLOGIES = Path(__file__).resolve().parent / "data" / "topologies"


@cache
def machine(name: str) -> Machine:
    (obj,) = load_text((TOPOLOGIES / f"{name}.yaml").read_text(encoding="utf-8")).objects
    assert isinstance(obj.model, NodeTopology)
    return machine_of(obj.model)


def topology(name: str) -> CPUTopology:
    return CPUTopology(machine(name))


def cpus(text: str) -> frozenset[int]:
    out: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return frozenset(out)
