"""The pools a ResourcePoolStatusRequest reports: per (driver, pool), its newest generation's slices.

Two views of one pool meet here. The status controller's (kube-controller-manager,
`pkg/controller/resourcepoolstatusrequest`): every slice of the pool at the highest
generation any slice has, counted against the `resourceSliceCount` they announce,
whatever node they target. And the allocator's, which decides what can still be
allocated: the pool as `translate.dra.pools.gather` settles it (feature gates,
completeness, validity, counter sets). The status is node-independent, so the
allocator's view is taken as a node would see it if every slice of the pool targeted
it: counter sets and validity are pool-wide anyway.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...model.pools import PoolFacts, PoolRequest
from ...model.problem import Node, Placement, PoolView
from ..kube import slice_spec
from .build import Built
from .devices import DeviceTable, SliceInfo
from .pools import gather


def pools(built: Built, request: PoolRequest) -> list[PoolFacts]:
    """The pools the request matches, sorted by driver then pool name."""
    by_pool: dict[tuple[str, str], list[SliceInfo]] = {}
    for s in built.table.slices:
        if request.matches(s.driver, s.pool):
            by_pool.setdefault((s.driver, s.pool), []).append(s)
    out = []
    for (driver, pool), slices in sorted(by_pool.items()):
        generation = max(s.generation for s in slices)
        newest = tuple(sorted((s for s in slices if s.generation == generation), key=lambda s: s.name))
        view = _allocator_view(built, slices) or PoolView(driver, pool, "incomplete", generation)
        out.append(_facts(driver, pool, generation, newest, view))
    return out


def _allocator_view(built: Built, slices: list[SliceInfo]) -> PoolView | None:
    """None when the allocator sees nothing of the pool (the feature gates hide every slice of it)."""
    # Every slice of the pool retargeted at all nodes: `gather` then sees the whole pool, as any node
    # would whose slices these were (it still skips what the feature gates hide from the allocator).
    everywhere = [replace(s, placement=Placement(all_nodes=True)) for s in slices]
    table = DeviceTable(built.table.devices, built.table.inputs, sorted(everywhere, key=lambda s: s.name))
    views = gather(Node("", {}), table, built.problem.features).pools
    return views[0] if views else None


def _facts(
    driver: str, pool: str, generation: int, newest: tuple[SliceInfo, ...], view: PoolView
) -> PoolFacts:
    names = {s.placement.node_name for s in newest}
    only = names.pop() if len(names) == 1 else ""
    attributes: dict[int, str] = {}
    capacities: dict[int, dict[str, str]] = {}
    for s in newest:
        declared = str(slice_spec(s.obj).partition_type_attribute or "")
        published: Any = s.obj.model.spec.devices  # type: ignore[attr-defined]
        for i, d in enumerate(s.devices):
            attributes[d] = declared
            capacities[d] = {name: str(c.value) for name, c in (published[i].capacity or {}).items()}
    return PoolFacts(
        driver,
        pool,
        generation,
        len(newest),
        newest[0].slice_count,
        only or None,
        any(s.shared_counters for s in newest),
        tuple(d for s in newest for d in s.devices),
        attributes,
        capacities,
        view,
    )
