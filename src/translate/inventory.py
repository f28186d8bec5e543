"""The devices published in ResourceSlices, and which nodes can reach them.

Only the newest generation of each pool counts (older slices are being replaced);
devices keep the order the allocator searches them in: driver, pool, slice name,
then position in the slice.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from .cel.selector import AttributeValue
from .kube import KubeObject, LazySlice, ObjectSet, slice_spec
from .nodes import selector_matches


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
        return slice_spec(self.slice)

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
        spec = slice_spec(obj)
        pools[(spec.driver, spec.pool.name)].append(obj)
    out: list[KubeObject] = []
    for key in sorted(pools):
        slices = pools[key]
        newest = max(slice_spec(s).pool.generation for s in slices)
        out.extend(
            sorted(
                (s for s in slices if slice_spec(s).pool.generation == newest),
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
        spec = slice_spec(slice_obj)
        for i, device in enumerate(_devices_of(slice_obj)):
            entry = DeviceEntry(spec.driver, spec.pool.name, slice_obj, i, device)
            if node is None or entry.reachable_from(node, labels):
                out.append(entry)
    return out


def _devices_of(obj: KubeObject) -> list[Any]:
    if isinstance(obj, LazySlice) and not obj.built:
        return [PlainDevice(raw) for raw in obj.raw_devices]
    return list(obj.model.spec.devices or [])  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Quantity:
    value: str


class PlainDevice:
    """A plain device as read (see `slice_plain`), with the fields of a V1Device its readers use: a
    large cluster's devices are listed without a model each."""

    # What a plain device never has (slice_plain leaves such devices to the model).
    binding_conditions = None
    node_name = None
    all_nodes = None
    node_selector = None

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    @property
    def name(self) -> str:
        return str(self.raw["name"])

    @property
    def attributes(self) -> dict[str, AttributeValue]:
        return {k: AttributeValue.of(v) for k, v in (self.raw.get("attributes") or {}).items()}

    @property
    def capacity(self) -> dict[str, Quantity]:
        return {k: Quantity(v["value"]) for k, v in (self.raw.get("capacity") or {}).items()}

    @property
    def allow_multiple_allocations(self) -> bool | None:
        value = self.raw.get("allowMultipleAllocations")
        return value if isinstance(value, bool) else None
