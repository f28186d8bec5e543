"""NodeTopology -> the Machine facts the managers reason about."""

from __future__ import annotations

from ...model.node.problem import CPUInfo, Machine, NUMAMemory
from ...model.quantity import Quantity
from ..node_topology import NodeTopology


def _bytes(text: str) -> int:
    return Quantity.parse(text).value()


def machine_of(topology: NodeTopology) -> Machine:
    spec = topology.spec
    cpus = tuple(
        sorted(
            (CPUInfo(c.id, c.core, c.socket, c.numa, c.uncore_cache) for c in spec.cpus), key=lambda c: c.id
        )
    )
    memory = []
    for m in spec.memory:
        pages = [
            (name, size)
            for name, size in (
                ("hugepages-1Gi", _bytes(m.hugepages_1gi)),
                ("hugepages-2Mi", _bytes(m.hugepages_2mi)),
            )
            if size
        ]
        memory.append(NUMAMemory(m.numa, _bytes(m.capacity), tuple(pages)))
    distances = tuple(sorted((node, tuple(row)) for node, row in spec.distances.items()))
    return Machine(cpus, tuple(sorted(memory, key=lambda m: m.numa)), distances)
