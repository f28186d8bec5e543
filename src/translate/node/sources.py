"""Machine layouts read from a real machine, printed as a NodeTopology.

Both readers reduce the machine to logical CPUs with a (socket-local) core key, a socket, a NUMA
node and an uncore (last-level) cache, plus memory and huge pages per NUMA node. Core ids are then
made machine-unique as the kubelet makes them: the smallest CPU id among a core's threads. A CPU
without a known L3 cache gets its socket id as uncore cache, as the kubelet does.
"""

from __future__ import annotations

import socket as _socket
from collections.abc import Hashable, Iterable
from typing import Any

from ...model.quantity.amounts import binary_size as _quantity
from .raw_topology import RawCPU, RawNode


def topology_doc(name: str | None, cpus: Iterable[RawCPU], nodes: Iterable[RawNode]) -> dict[str, Any]:
    cpus = sorted(cpus, key=lambda c: c.id)
    first_thread: dict[tuple[int, Hashable], int] = {}
    for c in cpus:
        key = (c.socket, c.core_key)
        first_thread[key] = min(first_thread.get(key, c.id), c.id)
    spec_cpus = [
        {
            "id": c.id,
            "core": first_thread[(c.socket, c.core_key)],
            "socket": c.socket,
            "numa": c.numa,
            "uncoreCache": c.socket if c.uncore is None else c.uncore,
        }
        for c in cpus
    ]
    memory = []
    distances: dict[int, list[int]] = {}
    for n in sorted(nodes, key=lambda n: n.numa):
        entry: dict[str, Any] = {"numa": n.numa, "capacity": _quantity(n.memory)}
        for page_kib, resource in ((2048, "hugepages-2Mi"), (1048576, "hugepages-1Gi")):
            pages = n.hugepages.get(page_kib, 0)
            if pages:
                entry[resource] = _quantity(pages * page_kib * 1024)
        memory.append(entry)
        if n.distances:
            distances[n.numa] = list(n.distances)
    spec: dict[str, Any] = {"cpus": spec_cpus}
    if memory:
        spec["memory"] = memory
    if len(distances) > 1:
        spec["distances"] = distances
    return {
        "apiVersion": "kubefit.io/v1alpha1",
        "kind": "NodeTopology",
        "metadata": {"name": name or _socket.gethostname()},
        "spec": spec,
    }


def from_sysfs(root: str, name: str | None = None) -> dict[str, Any]:
    from .sysfs import read_sysfs

    cpus, nodes = read_sysfs(root)
    return topology_doc(name, cpus, nodes)


def from_cadvisor(path: str, name: str | None = None) -> dict[str, Any]:
    from .cadvisor import read_cadvisor

    cpus, nodes = read_cadvisor(path)
    return topology_doc(name, cpus, nodes)
