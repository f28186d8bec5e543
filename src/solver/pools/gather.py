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

from dataclasses import dataclass, replace
from functools import cached_property

from ...model.problem import Device, Node, Placement, PoolView, Problem
from ...translate.dra.build import Built
from ...translate.dra.devices import DeviceTable, SliceInfo
from ...translate.dra.pools import gather
from ...translate.kube import slice_spec
from .request import PoolRequest


@dataclass(frozen=True)
class PoolFacts:
    driver: str
    pool: str
    generation: int
    slices: tuple[SliceInfo, ...]  # the newest generation's, by name
    view: PoolView  # as the allocator sees the pool

    @property
    def ref(self) -> str:
        return f"{self.driver}/{self.pool}"

    @property
    def expected(self) -> int:
        """The slice count the pool announces (the first slice's, as the controller reads it)."""
        return self.slices[0].slice_count

    @property
    def complete(self) -> bool:
        return len(self.slices) >= self.expected

    @property
    def node_name(self) -> str | None:
        """The node every slice names, if they agree on one."""
        names = {s.placement.node_name for s in self.slices}
        only = names.pop() if len(names) == 1 else ""
        return only or None

    @cached_property
    def devices(self) -> tuple[int, ...]:
        return tuple(d for s in self.slices for d in s.devices)

    @cached_property
    def published(self) -> dict[int, tuple[SliceInfo, int]]:
        """Device -> its slice and its index there (for what the facts keep only as numbers)."""
        return {d: (s, i) for s in self.slices for i, d in enumerate(s.devices)}

    def partition_attribute(self, d: int) -> str:
        """The partitionTypeAttribute the device's own slice declares ("" when it declares none)."""
        s, _ = self.published[d]
        return str(slice_spec(s.obj).partition_type_attribute or "")

    def capacity_text(self, d: int, name: str) -> str:
        s, i = self.published[d]
        device = s.obj.model.spec.devices[i]  # type: ignore[attr-defined]
        return str(device.capacity[name].value)


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
        out.append(PoolFacts(driver, pool, generation, newest, view))
    return out


def _allocator_view(built: Built, slices: list[SliceInfo]) -> PoolView | None:
    """None when the allocator sees nothing of the pool (the feature gates hide every slice of it)."""
    # Every slice of the pool retargeted at all nodes: `gather` then sees the whole pool, as any node
    # would whose slices these were (it still skips what the feature gates hide from the allocator).
    everywhere = [replace(s, placement=Placement(all_nodes=True)) for s in slices]
    table = DeviceTable(built.table.devices, built.table.inputs, sorted(everywhere, key=lambda s: s.name))
    views = gather(Node("", {}), table, built.problem.features).pools
    return views[0] if views else None


def blocked(problem: Problem, device: Device) -> str | None:
    """Why no request can be given the device whatever is free, if something keeps every one off it."""
    if problem.on("DeviceTaints"):
        # At pool level no request tolerates anything.
        for taint in device.taints:
            if taint.effect in ("NoSchedule", "NoExecute"):
                value = f"={taint.value}" if taint.value else ""
                return f"untolerated taint {taint.key}{value}:{taint.effect}"
    if device.binding_conditions and not problem.on("DeviceBindingAndStatus"):
        return "binding conditions, but DRADeviceBindingConditions is off"
    if device.consumes and not problem.on("PartitionableDevices"):
        return "consumes counters, but DRAPartitionableDevices is off"
    return None
