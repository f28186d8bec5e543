"""Device facts straight from plain device dicts (see `slice_plain`), as `devices._add_slice` would build
them from the models, for large clusters: no model per device, and the parts devices share (attribute
values, capacities, counter consumption) built once and shared by every device with the same ones.

On a 500-node fleet of MIG GPUs almost every attribute value, capacity and counter consumption repeats
(only the GPU's UUID is per GPU, and it repeats over the GPU's partitions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...model.errors import CelRuntimeError
from ...model.problem import AttrValue, Capacity, CounterUse, Device, Placement
from ...model.terms import Taint
from ..cel.selector import DEFAULT_FEATURES, AttributeValue, DeviceInput, attribute_value
from ..kube import KubeObject
from .amounts import quantity
from .field_facts import attr_value


class RawDevices:
    """The shared parts, for one table."""

    def __init__(self) -> None:
        self.attributes: dict[tuple[str, str, Any], _Attribute] = {}
        self.capacities: dict[tuple[tuple[str, str], ...], tuple[dict[str, Capacity], dict[str, str]]] = {}
        self.consumptions: dict[
            tuple[tuple[str, tuple[tuple[str, str], ...]], ...], tuple[CounterUse, ...]
        ] = {}
        # The same, by the identity of the part as read: the reader makes equal parts one object
        # (`slice_intern`), so a part met once is known without building its key again. Each entry
        # holds its part, whose identity is then never another's.
        self.attribute_parts: dict[tuple[str, int], _AttributePart] = {}
        self.capacity_parts: dict[int, tuple[Any, tuple[dict[str, Capacity], dict[str, str]]]] = {}
        self.consumption_parts: dict[int, tuple[Any, tuple[CounterUse, ...]]] = {}

    def add(
        self,
        devices: list[Device],
        inputs: list[DeviceInput],
        obj: KubeObject,
        spec: Any,
        placement: Placement,
        per_device: bool,
        skip: tuple[str, ...],
        taints: Callable[[str], tuple[Taint, ...]] | None,
    ) -> list[int]:
        """The slice's devices appended to `devices` and `inputs`; their ids."""
        driver = spec.driver
        # One device built the ordinary way gives every field the slice's devices share; each device is
        # then a copy of its fields with its own set. A frozen dataclass's __init__ sets fields one by one
        # through object.__setattr__, five times the cost, and a large cluster has tens of thousands.
        shared = Device(
            id=0,
            driver=driver,
            pool=spec.pool.name,
            name="",
            slice=obj.name,
            generation=int(spec.pool.generation),
            attributes={},
            capacity={},
            placement=placement,
            per_device_node_selection=per_device,
            skip_node_operations=skip,
        ).__dict__
        shared_input = DeviceInput(driver).__dict__
        new = object.__new__
        ids = []
        capacity_parts = self.capacity_parts.get
        consumption_parts = self.consumption_parts.get
        for raw in obj.raw["spec"]["devices"]:
            attributes, cel, problem = self._attributes(raw.get("attributes"))
            part = raw.get("capacity")
            held = capacity_parts(id(part))
            capacity, quantities = held[1] if held is not None and held[0] is part else self._capacity(part)
            part = raw.get("consumesCounters")
            seen = consumption_parts(id(part))
            consumes = seen[1] if seen is not None and seen[0] is part else self._consumes(part)
            multiple = raw.get("allowMultipleAllocations")
            device = new(Device)
            fields = device.__dict__
            fields.update(shared)
            fields["id"] = len(devices)
            fields["name"] = raw["name"]
            fields["attributes"] = attributes
            fields["capacity"] = capacity
            fields["consumes"] = consumes
            if taints is not None:
                fields["taints"] = taints(raw["name"])
            if multiple:
                fields["allow_multiple_allocations"] = True
            view = new(DeviceInput)
            fields = view.__dict__
            fields.update(shared_input)
            fields["attributes"] = cel
            fields["capacity"] = quantities
            fields["allow_multiple_allocations"] = multiple
            fields["problems"] = {}
            fields["scalar_problem"] = problem
            ids.append(device.id)
            devices.append(device)
            inputs.append(view)
        return ids

    def _attributes(
        self, raw: dict[str, Any] | None
    ) -> tuple[dict[str, AttrValue], dict[str, AttributeValue], CelRuntimeError | None]:
        """The facts, the CEL view, and the error every selector gets on the device (the first
        attribute CEL cannot represent: plain attributes are scalars, whatever the features)."""
        facts: dict[str, AttrValue] = {}
        cel: dict[str, AttributeValue] = {}
        problem = None
        if not raw:
            return facts, cel, problem
        memo = self.attributes
        known = self.attribute_parts
        get = known.get
        for key, value in raw.items():
            found = get((key, id(value)))
            if found is None or found[3] is not value:
                ((kind, scalar),) = value.items()  # exactly one: plain
                made = memo.get((key, kind, scalar))
                if made is None:
                    made = memo[(key, kind, scalar)] = _attribute(key, value)
                found = known[(key, id(value))] = (*made, value)
            cel[key] = found[0]
            facts[key] = found[1]
            if found[2] is not None and problem is None:
                problem = found[2]
        return facts, cel, problem

    def _capacity(self, raw: dict[str, Any] | None) -> tuple[dict[str, Capacity], dict[str, str]]:
        """The facts and the CEL view, shared by every device with the same capacities (devices are
        immutable facts, and nothing writes to these maps)."""
        if not raw:
            return {}, {}
        key = tuple([(k, v["value"]) for k, v in raw.items()])
        found = self.capacities.get(key)
        if found is None:
            facts = {k: Capacity(quantity(text), None) for k, text in key}
            found = self.capacities[key] = (facts, dict(key))
        self.capacity_parts[id(raw)] = (raw, found)
        return found

    def _consumes(self, raw: list[dict[str, Any]] | None) -> tuple[CounterUse, ...]:
        if not raw:
            return ()
        key = tuple(
            [(use["counterSet"], tuple([(k, v["value"]) for k, v in use["counters"].items()])) for use in raw]
        )
        found = self.consumptions.get(key)
        if found is None:
            found = self.consumptions[key] = tuple(
                CounterUse(name, {k: quantity(v) for k, v in counters}, ()) for name, counters in key
            )
        self.consumption_parts[id(raw)] = (raw, found)
        return found


_Attribute = tuple[AttributeValue, AttrValue, CelRuntimeError | None]
_AttributePart = tuple[AttributeValue, AttrValue, CelRuntimeError | None, Any]  # with the value read


def _attribute(key: str, value: dict[str, Any]) -> _Attribute:

    view = AttributeValue.of(value)
    try:
        attribute_value(key, view, DEFAULT_FEATURES)
        problem = None
    except CelRuntimeError as e:
        problem = e
    return view, attr_value(view), problem
