"""Regular machines made up from their shape, numbered as Linux numbers x86 servers: the first thread
of every core first (CPU id = core index), the sibling threads after all of them.

For benchmarks and generated tests; real machines come from sysfs, cadvisor or NodeTopology files.
"""

from __future__ import annotations

from ...model.node.problem import CPUInfo, Machine, NUMAMemory

GI = 2**30


def synthetic_machine(
    sockets: int,
    numa_per_socket: int,
    cores_per_numa: int,
    threads: int = 2,
    cores_per_uncore: int | None = None,
    memory_per_numa: int = 64 * GI,
    hugepages_1g_per_numa: int = 0,
) -> Machine:
    """`sockets` x `numa_per_socket` NUMA nodes of `cores_per_numa` cores with `threads` threads each;
    an uncore (L3) cache per `cores_per_uncore` cores (default: one per NUMA node)."""
    per_uncore = cores_per_uncore or cores_per_numa
    cores = sockets * numa_per_socket * cores_per_numa
    cpus = []
    for t in range(threads):
        for core in range(cores):
            numa = core // cores_per_numa
            cpus.append(
                CPUInfo(
                    id=t * cores + core,
                    core=core,
                    socket=numa // numa_per_socket,
                    numa=numa,
                    uncore=core // per_uncore,
                )
            )
    nodes = sockets * numa_per_socket
    pages = (("hugepages-1Gi", hugepages_1g_per_numa),) if hugepages_1g_per_numa else ()
    memory = tuple(NUMAMemory(n, memory_per_numa, pages) for n in range(nodes))
    # SLIT-like distances: 10 to itself, 12 inside a socket, 32 across sockets.
    distances = tuple(
        (
            a,
            tuple(
                10 if a == b else 12 if a // numa_per_socket == b // numa_per_socket else 32
                for b in range(nodes)
            ),
        )
        for a in range(nodes)
    )
    return Machine(tuple(sorted(cpus, key=lambda c: c.id)), memory, distances)
