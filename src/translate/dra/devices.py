"""Devices as facts: every device of every ResourceSlice, with DeviceTaintRule taints applied.

Quantities become exact fractions; attributes keep their kind and list-ness, which
constraint matching depends on. The CEL view of each device is kept beside the
facts (engines never see it) for evaluating selectors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...model.problem import Capacity, CounterUse, Device, Placement
from ...model.quantity import QuantityError
from ...model.terms import Taint
from ..cel.selector import DeviceInput
from ..kube import KubeObject, LazySlice, ObjectSet, slice_spec
from .amounts import located, quantity
from .field_facts import attr_value, capacity_policy, placement_of, taint_of
from .node_allocatable import device_node_allocatable
from .raw_devices import RawDevices


@dataclass(frozen=True)
class SliceInfo:
    """What pool gathering needs of one ResourceSlice."""

    obj: KubeObject
    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    placement: Placement
    per_device_node_selection: bool | None  # None: the field is absent
    has_shared_counters: bool
    shared_counters: tuple[tuple[str, dict[str, Fraction]], ...]
    devices: tuple[int, ...]  # device ids in slice order
    has_compatibility_groups: bool
    skip_node_operations: tuple[str, ...]


def _rule_taints(rules: Sequence[KubeObject], driver: str, pool: str, device: str) -> list[Taint]:
    out = []
    for rule in rules:
        spec = rule.model.spec  # type: ignore[attr-defined]
        sel = spec.device_selector
        if sel is not None and (
            (sel.driver and sel.driver != driver)
            or (sel.pool and sel.pool != pool)
            or (sel.device and sel.device != device)
        ):
            continue
        out.append(taint_of(spec.taint))
    return out


@dataclass
class DeviceTable:
    devices: list[Device]
    inputs: list[DeviceInput]  # the CEL view, by device id
    slices: list[SliceInfo]
    _by_node: dict[str, list[SliceInfo]] | None = None

    def near(self, node: str) -> list[SliceInfo]:
        """The slices published for `node` or for no node in particular, in table order."""
        if self._by_node is None:
            self._by_node = {}
            for s in self.slices:
                self._by_node.setdefault(s.placement.node_name, []).append(s)
        mine = self._by_node.get(node, []) if node else []
        shared = self._by_node.get("", [])
        # the table is in slice-name order; keep it
        return sorted([*mine, *shared], key=lambda s: s.name) if mine and shared else [*mine, *shared]


def _pools_near(slices: Sequence[KubeObject], node: str) -> set[tuple[str, str]]:
    """The pools with a slice the node could see: published for it or for no node in particular."""
    out = set()
    for obj in slices:
        spec = slice_spec(obj)
        if not spec.node_name or spec.node_name == node:
            out.add((spec.driver, spec.pool.name))
    return out


def build_devices(
    objects: ObjectSet,
    taint_rules: bool,
    device_taints: bool,
    node_allocatable: bool = True,
    node: str | None = None,
) -> DeviceTable:
    """Every device of every slice (every generation: a node may still settle on an older one); with
    `node`, only the pools that node could use (all their slices: completeness and counter sets are
    pool-wide)."""
    rules = objects.of_kind("DeviceTaintRule") if taint_rules and device_taints else []
    table = DeviceTable([], [], [])
    slices = objects.of_kind("ResourceSlice")
    if node is not None:
        near = _pools_near(slices, node)
        slices = [o for o in slices if (slice_spec(o).driver, slice_spec(o).pool.name) in near]
    raw = RawDevices()
    for obj in sorted(slices, key=lambda o: o.name):
        try:
            _add_slice(table, obj, rules, device_taints, node_allocatable, raw)
        except QuantityError as e:
            raise located([obj], e) from e
    return table


def _add_slice(
    table: DeviceTable,
    obj: KubeObject,
    rules: list[KubeObject],
    device_taints: bool,
    node_allocatable: bool,
    raw: RawDevices,
) -> None:
    """One slice's devices, and its counter sets, into the table."""
    spec = slice_spec(obj)
    per_device = bool(spec.per_device_node_selection)
    skip = tuple(spec.skip_node_operations or ())
    ids: list[int] = []
    grouped = False
    models: Any = spec.devices  # a LazySlice's shell has none: its devices are the raw ones, or the model's
    if isinstance(obj, LazySlice):
        if obj.built:
            models = obj.model.spec.devices  # type: ignore[attr-defined]
        else:
            placement = Placement() if per_device else placement_of(spec)
            driver, pool = spec.driver, spec.pool.name
            named = (lambda name: tuple(_rule_taints(rules, driver, pool, name))) if rules else None
            ids = raw.add(table.devices, table.inputs, obj, spec, placement, per_device, skip, named)
    for index, device in enumerate(models or ()):
        taints = [taint_of(t) for t in device.taints or ()] if device_taints else []
        taints += _rule_taints(rules, spec.driver, spec.pool.name, device.name)
        consumes = tuple(
            CounterUse(
                c.counter_set,
                {k: quantity(v.value) for k, v in (c.counters or {}).items()},
                tuple(c.compatibility_groups or ()),
            )
            for c in device.consumes_counters or ()
        )
        grouped = grouped or any(c.groups for c in consumes)
        cel = DeviceInput.of(spec.driver, device)
        fact = Device(
            id=len(table.devices),
            driver=spec.driver,
            pool=spec.pool.name,
            name=device.name,
            slice=obj.name,
            generation=int(spec.pool.generation),
            attributes={k: attr_value(v) for k, v in cel.attributes.items()},
            capacity={
                k: Capacity(quantity(v.value), capacity_policy(v.request_policy))
                for k, v in (device.capacity or {}).items()
            },
            consumes=consumes,
            taints=tuple(taints),
            binding_conditions=tuple(device.binding_conditions or ()),
            binding_failure_conditions=tuple(device.binding_failure_conditions or ()),
            binds_to_node=bool(device.binds_to_node),
            allow_multiple_allocations=bool(device.allow_multiple_allocations),
            placement=placement_of(device if per_device else spec),
            per_device_node_selection=per_device,
            skip_node_operations=skip,
            node_allocatable=device_node_allocatable(obj, index, device) if node_allocatable else (),
        )
        ids.append(fact.id)
        table.devices.append(fact)
        table.inputs.append(cel)
    counters = tuple(
        (cs.name, {k: quantity(v.value) for k, v in (cs.counters or {}).items()})
        for cs in spec.shared_counters or ()
    )
    table.slices.append(
        SliceInfo(
            obj=obj,
            name=obj.name,
            driver=spec.driver,
            pool=spec.pool.name,
            generation=int(spec.pool.generation),
            slice_count=int(spec.pool.resource_slice_count),
            placement=placement_of(spec),
            per_device_node_selection=spec.per_device_node_selection,
            has_shared_counters=bool(spec.shared_counters),
            shared_counters=counters,
            devices=tuple(ids),
            has_compatibility_groups=grouped,
            skip_node_operations=skip,
        )
    )


def devices_of(table: DeviceTable, slices: Iterable[SliceInfo]) -> list[int]:
    return [i for s in slices for i in s.devices]
