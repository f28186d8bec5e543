"""Topology hints of a container's allocated devices (DRA claims whose devices carry the
`resource.kubernetes.io/numaNode` attribute), generated as the device manager does: a mask is a
hint when every device touches it; the narrowest such masks are preferred."""

from __future__ import annotations

from ....model.node.problem import ContainerFacts, DeviceGroup, PodFacts
from .. import bitmask
from ..bitmask import Hint

Hints = dict[str, list[Hint] | None]


def group_hints(group: DeviceGroup, numa_nodes: tuple[int, ...]) -> list[Hint] | None:
    devices = [d for d in group.devices if d]
    if not devices:
        return None  # no topology information: no preference
    request = len(devices)
    min_size = len(numa_nodes)
    found: list[int] = []

    def visit(mask: int) -> None:
        nonlocal min_size
        inside = sum(1 for d in devices if mask & bitmask.mask_of(d))
        if inside >= request:
            min_size = min(min_size, bitmask.count(mask))
            found.append(mask)

    bitmask.iterate(numa_nodes, visit)
    return [Hint(m, bitmask.count(m) == min_size) for m in found]


def container_hints(container: ContainerFacts, numa_nodes: tuple[int, ...]) -> Hints | None:
    if not container.devices:
        return None
    return {g.name: group_hints(g, numa_nodes) for g in container.devices}


def pod_hints(pod: PodFacts, numa_nodes: tuple[int, ...]) -> Hints | None:
    groups = {g.name: g for c in pod.containers for g in c.devices}
    if not groups:
        return None
    return {name: group_hints(g, numa_nodes) for name, g in sorted(groups.items())}
