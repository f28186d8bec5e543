"""Admitting pods one after another, as the kubelet's topology manager drives its hint providers
(topologymanager/scope*.go): collect hints, merge them per policy, then let every manager allocate.

Container scope merges and allocates container by container (init containers first), so later
containers see earlier allocations; pod scope merges once for the whole pod. A rejected pod leaves
nothing behind (the kubelet drops its state before the next admission).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from ....model.errors import InputError
from ....model.node.problem import ContainerFacts, NodeProblem, PodFacts
from ....model.node.solution import ContainerAdmission, NodeSolution, PodAdmission
from .. import bitmask
from ..admission import AdmissionError, TopologyAffinityError
from ..bitmask import Hint
from ..hint_merge import NUMAInfo, ProviderHints, merge
from ..topology import CPUTopology
from . import devices, podlevel
from .cpu_static import StaticCPUPolicy
from .memory_static import StaticMemoryPolicy
from .state import CPUAssignments, MemoryAssignments


class Admitter:
    def __init__(self, problem: NodeProblem) -> None:
        self.problem = problem
        policy = problem.policy
        self.policy = policy
        self.topo = CPUTopology(problem.machine)
        self.numa = NUMAInfo(problem.machine.numa_nodes, dict(problem.machine.distances))
        if policy.topology_policy != "none" and len(self.numa.nodes) > policy.max_allowable_numa_nodes:
            raise InputError(
                f"KubeletConfiguration: topologyManagerPolicy: unsupported on machines with more than "
                f"{policy.max_allowable_numa_nodes} NUMA Nodes (this one has {len(self.numa.nodes)}; raise "
                "the max-allowable-numa-nodes option)"
            )
        self.cpu = StaticCPUPolicy(self.topo, policy) if policy.cpu_policy == "static" else None
        self.memory = (
            StaticMemoryPolicy(problem.machine, policy) if policy.memory_policy == "Static" else None
        )
        self.cpus = self.cpu.start(problem.cpu_state) if self.cpu else _none_cpu_state(problem)
        self.mem = self.memory.start(problem.memory_state) if self.memory else _none_memory_state(problem)

    def run(self) -> NodeSolution:
        admissions = tuple(self.admit(pod) for pod in self.problem.pods)
        return NodeSolution(admissions, self.cpus.freeze(), self.mem.freeze())

    # --- one pod ---------------------------------------------------------------------------------

    def admit(self, pod: PodFacts) -> PodAdmission:
        saved = self._save()
        try:
            pod_hint, container_hints = self._admit(pod)
        except AdmissionError as e:
            self._restore(saved)
            return PodAdmission(pod, False, e.reason, e.message, default_cpus=self._shared_pool())
        return self._result(pod, pod_hint, container_hints)

    def _admit(self, pod: PodFacts) -> tuple[Hint | None, dict[str, Hint]]:
        policy = self.policy
        if policy.topology_policy == "none":
            # No hints at all: every manager allocates as it sees fit.
            unaligned = Hint(None, False)
            for c in pod.containers:
                self._allocate(pod, c, unaligned)
            return None, {c.name: unaligned for c in pod.containers}
        if policy.topology_scope == "pod":
            best = self._merge(self._pod_providers(pod))
            if self._pod_level(pod):
                podlevel.allocate(self, pod, best)
            else:
                for c in pod.containers:
                    self._allocate(pod, c, best)
            return best, {c.name: best for c in pod.containers}
        chosen: dict[str, Hint] = {}
        for c in pod.containers:
            best = self._merge(self._container_providers(pod, c))
            chosen[c.name] = best
            self._allocate(pod, c, best)
        return None, chosen

    def _merge(self, providers: Sequence[ProviderHints]) -> Hint:
        best, admit = merge(
            self.policy.topology_policy, self.numa, providers, self.policy.prefer_closest_numa
        )
        if not admit:
            raise TopologyAffinityError()
        return best

    def _pod_level(self, pod: PodFacts) -> bool:
        return podlevel.applies(self, pod)

    def _container_providers(self, pod: PodFacts, c: ContainerFacts) -> list[ProviderHints]:
        return [
            self.cpu.hints(self.cpus, pod, c) if self.cpu else None,
            self.memory.hints(self.mem, pod, c) if self.memory else None,
            devices.container_hints(c, self.numa.nodes),
        ]

    def _pod_providers(self, pod: PodFacts) -> list[ProviderHints]:
        cpu: ProviderHints
        memory: ProviderHints
        if self._pod_level(pod):
            cpu = podlevel.cpu_hints(self, pod)
            memory = podlevel.memory_hints(self, pod)
        else:
            cpu = self.cpu.pod_hints(self.cpus, pod) if self.cpu else None
            memory = self.memory.pod_hints(self.mem, pod) if self.memory else None
        return [cpu, memory, devices.pod_hints(pod, self.numa.nodes)]

    def _allocate(self, pod: PodFacts, c: ContainerFacts, hint: Hint) -> None:
        if self.cpu is not None:
            self.cpu.allocate(self.cpus, pod, c, hint)
        if self.memory is not None:
            self.memory.allocate(self.mem, pod, c, hint)

    # --- bookkeeping -----------------------------------------------------------------------------

    def _save(self) -> tuple[object, ...]:
        return (
            self.cpus.clone(),
            self.mem.clone(),
            copy.deepcopy(self.cpu.reusable) if self.cpu else None,
            copy.deepcopy(self.memory.reusable) if self.memory else None,
        )

    def _restore(self, saved: tuple[object, ...]) -> None:
        cpus, mem, cpu_reuse, mem_reuse = saved
        assert isinstance(cpus, CPUAssignments) and isinstance(mem, MemoryAssignments)
        self.cpus, self.mem = cpus, mem
        if self.cpu is not None:
            self.cpu.reusable = cpu_reuse  # type: ignore[assignment]
        if self.memory is not None:
            self.memory.reusable = mem_reuse  # type: ignore[assignment]

    def _shared_pool(self) -> frozenset[int]:
        return frozenset(self.cpus.default) if self.cpu else self.topo.all

    def _result(self, pod: PodFacts, pod_hint: Hint | None, hints: dict[str, Hint]) -> PodAdmission:
        shared = self._shared_pool()
        containers = []
        for c in pod.containers:
            entry = self.cpus.get(pod.uid, c.name) if self.cpu else None
            exclusive = bool(self.cpu and entry is not None and self.cpu.guaranteed_cpus(pod, c) > 0)
            hint = hints.get(c.name)
            nodes = tuple(hint.nodes() or ()) if hint is not None and hint.mask is not None else None
            blocks = tuple(self.mem.blocks(pod.uid, c.name) or ())
            containers.append(
                ContainerAdmission(c.name, entry if entry is not None else shared, exclusive, nodes, blocks)
            )
        if pod_hint is not None:
            affinity = tuple(pod_hint.nodes() or ()) if pod_hint.mask is not None else None
        else:
            masks = [h.mask for h in hints.values() if h.mask is not None]
            affinity = tuple(bitmask.bits(_union(masks))) if masks else None
        bubble = self.cpus.pod_entries.get(pod.uid, frozenset())
        return PodAdmission(
            pod,
            True,
            numa_affinity=affinity,
            pod_cpus=bubble,
            default_cpus=shared,
            containers=tuple(containers),
        )


def _union(masks: list[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


def _none_cpu_state(problem: NodeProblem) -> CPUAssignments:
    given = problem.cpu_state
    if given is not None and given.policy not in ("", "none"):
        raise InputError(
            'cpu_manager_state: configured policy "none" differs from state checkpoint policy '
            f'"{given.policy}"'
        )
    return CPUAssignments("none", set())


def _none_memory_state(problem: NodeProblem) -> MemoryAssignments:
    given = problem.memory_state
    if given is not None and given.policy not in ("", "None"):
        raise InputError(
            f'memory_manager_state: configured policy "None" differs from state checkpoint policy '
            f'"{given.policy}"'
        )
    return MemoryAssignments("None")
