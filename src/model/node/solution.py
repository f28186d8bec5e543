"""What a node engine answers: one admission per pod, and the state the managers end in."""

from __future__ import annotations

from dataclasses import dataclass

from .problem import Block, CPUSet, CPUState, MemoryState, PodFacts


@dataclass(frozen=True)
class ContainerAdmission:
    name: str
    cpus: CPUSet  # the CPUs it may run on: its exclusive CPUs, or the shared pool it runs in
    exclusive: bool
    numa_affinity: tuple[int, ...] | None  # the topology hint it was allocated with (None: any)
    memory: tuple[Block, ...] = ()


@dataclass(frozen=True)
class PodAdmission:
    pod: PodFacts
    admitted: bool
    reason: str = ""
    message: str = ""
    numa_affinity: tuple[int, ...] | None = None
    pod_cpus: CPUSet = frozenset()  # pod-level resource managers: the pod's CPU bubble
    default_cpus: CPUSet = frozenset()  # the shared pool after this admission
    containers: tuple[ContainerAdmission, ...] = ()
    # Engines that prove their answers (cpsat): optimal | feasible | infeasible | unknown; "" otherwise.
    proof: str = ""


@dataclass(frozen=True)
class NodeSolution:
    admissions: tuple[PodAdmission, ...]
    cpu_state: CPUState
    memory_state: MemoryState

    @property
    def reported(self) -> tuple[PodAdmission, ...]:
        return tuple(a for a in self.admissions if a.pod.report)
