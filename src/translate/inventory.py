"""The devices published in ResourceSlices, and which nodes can reach them.

Only the newest generation of each pool counts (older slices are being replaced);
devices keep the order the allocator searches them in: driver, pool, slice name,
then position in the slice.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from .nodes import selector_matches
from .objects import KubeObject, ObjectSet


@dataclass(frozen=True)
class DeviceEntry:
    driver: str
    pool: str
    slice: KubeObject
    index: int  # position within the slice
    device: Any  # V1Device

    @property
    def name(self) -> str:
        return str(self.device.name)

    @property
    def spec(self) -> Any:
        return self.slice.model.spec  # type: ignore[attr-defined]

    @property
    def per_device(self) -> bool:
        return bool(self.spec.per_device_node_selection)

    @property
    def node_name(self) -> str:
        """The node the device is local to, or "" for network-attached devices."""
        source = self.device if self.per_device else self.spec
        return str(source.node_name or "")

    def reachable_from(self, node_name: str, labels: dict[str, str] | None) -> bool:
        source = self.device if self.per_device else self.spec
        if source.node_name:
            return bool(source.node_name == node_name)
        if source.all_nodes:
            return True
        if source.node_selector is not None:
            return selector_matches(source.node_selector, node_name, labels)
        return False

    def placement(self) -> str:
        """Where the device can be used, for tables."""
        source = self.device if self.per_device else self.spec
        if source.node_name:
            return str(source.node_name)
        if source.all_nodes:
            return "<all nodes>"
        if source.node_selector is not None:
            return "<node selector>"
        return "<none>"


def newest_slices(objects: ObjectSet) -> list[KubeObject]:
    """ResourceSlices of the newest generation of their pool, sorted as the allocator walks them."""
    pools: dict[tuple[str, str], list[KubeObject]] = defaultdict(list)
    for obj in objects.of_kind("ResourceSlice"):
        spec = obj.model.spec  # type: ignore[attr-defined]
        pools[(spec.driver, spec.pool.name)].append(obj)
    out: list[KubeObject] = []
    for key in sorted(pools):
        slices = pools[key]
        newest = max(s.model.spec.pool.generation for s in slices)  # type: ignore[attr-defined]
        out.extend(
            sorted(
                (s for s in slices if s.model.spec.pool.generation == newest),  # type: ignore[attr-defined]
                key=lambda s: s.name,
            )
        )
    return out


def devices(objects: ObjectSet, node: str | None = None) -> list[DeviceEntry]:
    """Every device of the newest pool generations; with `node`, only those that node can reach."""
    labels: dict[str, str] | None = None
    if node is not None:
        node_obj = objects.get("Node", node)
        meta = getattr(node_obj.model, "metadata", None) if node_obj is not None else None
        labels = dict(meta.labels or {}) if meta is not None else {}
    out: list[DeviceEntry] = []
    for slice_obj in newest_slices(objects):
        spec = slice_obj.model.spec  # type: ignore[attr-defined]
        for i, device in enumerate(spec.devices or []):
            entry = DeviceEntry(spec.driver, spec.pool.name, slice_obj, i, device)
            if node is None or entry.reachable_from(node, labels):
                out.append(entry)
    return out
