"""The kubelet's view of the CPUs (cpumanager/topology): lookups by core, socket, NUMA node and
uncore cache, and the per-domain ratios it derives from the global counts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import cached_property

from ...model.node.problem import CPUInfo, CPUSet, Machine


class CPUTopology:
    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.info: dict[int, CPUInfo] = {c.id: c for c in machine.cpus}
        self.all: CPUSet = frozenset(self.info)
        self._by: dict[str, dict[int, set[int]]] = {
            k: defaultdict(set) for k in ("core", "socket", "numa", "uncore")
        }
        for c in machine.cpus:
            self._by["core"][c.core].add(c.id)
            self._by["socket"][c.socket].add(c.id)
            self._by["numa"][c.numa].add(c.id)
            self._by["uncore"][c.uncore].add(c.id)
        self.num_cpus = len(self.info)
        self.num_cores = len(self._by["core"])
        self.num_sockets = len(self._by["socket"])
        self.num_numa = len(self._by["numa"])
        self.num_uncore = len(self._by["uncore"])

    # Ratios use integer division of the global counts, as the kubelet does (hybrid parts give 1).
    @cached_property
    def cpus_per_core(self) -> int:
        return self.num_cpus // self.num_cores if self.num_cores else 0

    @cached_property
    def cpus_per_socket(self) -> int:
        return self.num_cpus // self.num_sockets if self.num_sockets else 0

    @cached_property
    def cpus_per_uncore(self) -> int:
        return self.num_cpus // self.num_uncore if self.num_uncore else 0

    @property
    def numa_first(self) -> bool:
        """NUMA nodes are the outer level unless a socket holds several NUMA nodes."""
        return self.num_sockets >= self.num_numa

    def cpus_in(self, level: str, ids: Iterable[int]) -> CPUSet:
        table = self._by[level]
        out: set[int] = set()
        for i in ids:
            out |= table.get(i, set())
        return frozenset(out)

    def ids(self, level: str) -> list[int]:
        return sorted(self._by[level])

    def of(self, cpu: int, level: str) -> int:
        info = self.info[cpu]
        return int(getattr(info, level))

    def levels_of(self, cpus: Iterable[int], level: str) -> set[int]:
        return {self.of(c, level) for c in cpus}

    def siblings(self, cpus: Iterable[int]) -> CPUSet:
        """Every CPU on the cores of `cpus`."""
        return self.cpus_in("core", self.levels_of(cpus, "core"))

    def sockets_of_numa(self, numas: Iterable[int]) -> set[int]:
        return self.levels_of(self.cpus_in("numa", numas), "socket")
