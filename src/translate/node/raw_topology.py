"""A machine as the topology readers (sysfs, cAdvisor) find it, before `sources` prints it as a
NodeTopology: logical CPUs with a (socket-local) core key, a socket, a NUMA node and an uncore cache,
and memory and huge pages per NUMA node."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RawCPU:
    id: int
    core_key: Hashable  # what identifies its core (unique only together with the socket)
    socket: int
    numa: int
    uncore: int | None


@dataclass
class RawNode:
    numa: int
    memory: int = 0  # bytes
    hugepages: dict[int, int] = field(default_factory=dict)  # page size in KiB -> pages
    distances: list[int] = field(default_factory=list)
