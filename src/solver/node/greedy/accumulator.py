"""The CPU accumulator of the static policy (cpumanager/cpu_assignment.go): the free CPUs of one
request, the orderings every step walks, and the CPUs claimed so far.

Every ordering is best fit: a domain with fewer free CPUs comes first, ties by id, so partly used
cores, sockets and NUMA nodes fill up before idle ones. Whether NUMA nodes or sockets are the outer
level depends on the machine (see CPUTopology.numa_first).
"""

from __future__ import annotations

from collections.abc import Iterable

from ....model.node.problem import CPUSet
from ..topology import CPUTopology


class NotEnoughCPUs(Exception):
    """The untyped allocation error the kubelet reports (admission: UnexpectedAdmissionError)."""


class Accumulator:
    def __init__(self, topo: CPUTopology, available: Iterable[int], needed: int) -> None:
        self.topo = topo
        self.free: set[int] = set(available) & topo.all
        self.needed = needed
        self.result: set[int] = set()

    # --- bookkeeping ---------------------------------------------------------------------------

    def take(self, cpus: Iterable[int]) -> None:
        cpus = set(cpus)
        self.result |= cpus
        self.free -= cpus
        # Counted by the size of what was taken, as upstream (a repeated domain would count twice).
        self.needed -= len(cpus)

    def needs_at_least(self, n: int) -> bool:
        return self.needed >= n

    @property
    def satisfied(self) -> bool:
        return self.needed < 1

    @property
    def failed(self) -> bool:
        return self.needed > len(self.free)

    def free_in(self, level: str, ident: int) -> set[int]:
        return self.free & self.topo.cpus_in(level, (ident,))

    # --- orderings -----------------------------------------------------------------------------

    def _sorted(self, level: str, ids: Iterable[int]) -> list[int]:
        return sorted(set(ids), key=lambda i: (len(self.free_in(level, i)), i))

    def _within(self, level: str, outer_level: str, outer: int) -> list[int]:
        return self._sorted(level, self.topo.levels_of(self.free_in(outer_level, outer), level))

    def sorted_numas(self) -> list[int]:
        if self.topo.numa_first:
            return self._sorted("numa", self.topo.levels_of(self.free, "numa"))
        return [n for s in self.sorted_sockets() for n in self._within("numa", "socket", s)]

    def sorted_sockets(self) -> list[int]:
        if self.topo.numa_first:
            return [s for n in self.sorted_numas() for s in self._within("socket", "numa", n)]
        return self._sorted("socket", self.topo.levels_of(self.free, "socket"))

    def sorted_cores(self) -> list[int]:
        if self.topo.numa_first:
            return [c for s in self.sorted_sockets() for c in self._within("core", "socket", s)]
        return [c for n in self.sorted_numas() for c in self._within("core", "numa", n)]

    def sorted_uncores(self) -> list[int]:
        return [u for n in self.sorted_numas() for u in self._within("uncore", "numa", n)]

    def packed_cpus(self) -> list[int]:
        return [cpu for core in self.sorted_cores() for cpu in sorted(self.free_in("core", core))]

    def spread_cpus(self) -> list[int]:
        return [cpu for s in self.sorted_sockets() for cpu in sorted(self.free_in("socket", s))]

    # --- whole domains -------------------------------------------------------------------------

    def is_whole_free(self, level: str, ident: int) -> bool:
        free = len(self.free_in(level, ident))
        if level == "socket":
            return free == self.topo.cpus_per_socket
        if level == "core":
            return free == self.topo.cpus_per_core
        return free == len(self.topo.cpus_in(level, (ident,)))

    def take_whole(self, level: str, order: list[int]) -> None:
        """Take each entirely free domain, in `order`, while the request still covers its size."""
        for ident in [i for i in order if self.is_whole_free(level, i)]:
            cpus = self.topo.cpus_in(level, (ident,))
            if self.needs_at_least(len(cpus)):
                self.take(cpus)

    def take_numas(self) -> None:
        self.take_whole("numa", self.sorted_numas())

    def take_sockets(self) -> None:
        self.take_whole("socket", self.sorted_sockets())

    def take_cores(self) -> None:
        self.take_whole("core", self.sorted_cores())

    def take_remaining(self, spread: bool) -> None:
        for cpu in self.spread_cpus() if spread else self.packed_cpus():
            self.take((cpu,))
            if self.satisfied:
                return

    def outcome(self) -> CPUSet:
        return frozenset(self.result)


def not_enough(requested: int, available: int) -> NotEnoughCPUs:
    return NotEnoughCPUs(
        f"not enough cpus available to satisfy request: requested={requested}, available={available}"
    )
