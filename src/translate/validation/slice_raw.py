"""ResourceSlice validation from the devices as read, for slices whose devices are plain.

`validate_resource_slice` walks one model per device; on a cluster dump of tens of thousands of
devices that walk, and the models, cost seconds. A plain device (see `translate.slice_plain`)
holds only names, scalar attributes, capacity values and counter consumption, so its checks are
a few value checks, and across a cluster almost every value repeats. Here each distinct value is
checked once (`_Memo` remembers the valid ones and the others' errors), and the devices are
looked at a kind of value at a time, over the whole slice: a slice whose every value is known
valid, with no duplicate name and no limit exceeded, has no device error. A slice with something
wrong finds its faulty devices the same way and walks only those, check by check, with the model
path's own checks, so the errors, their messages and their order are the model path's; too many
devices is found from the count alone.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from itertools import accumulate, chain, compress, count, repeat
from operator import add, itemgetter, not_
from typing import Any

from kubernetes.client.models import V1Device, V1ResourceSlice

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .counters import (
    RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION,
    RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
    counter_consumption_errors,
)
from .field_errors import Raw, compact_json, duplicate, too_many
from .list_rules import validate_list
from .names import validate_dns1123_label, validate_resource_qualified_name
from .node_selection import validate_per_device_node_selection
from .quantities import validate_quantity
from .resource_slice import Consumers, max_devices, slice_errors
from .slice_device import (
    RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE,
    attribute_key,
    device_size_errors,
    scalar_attribute_errors,
)

_NO_MAP: dict[str, Any] = {}
_NO_LIST: list[Any] = []
_name = itemgetter("name")
_value = itemgetter("value")
_counter_set = itemgetter("counterSet")
_counters = itemgetter("counters")
# A plain device sets none of the node-selection fields: checking it is checking this one.
_NO_NODE_FIELDS = V1Device(name="")
# Beyond this many remembered values a memory starts afresh (hostile input must not grow it forever).
_MAX_REMEMBERED = 1 << 16
_DEVICE_SIZES = range(RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE + 1).__contains__
_CONSUMPTION_COUNTS = range(RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE + 1).__contains__
_COUNTER_COUNTS = range(1, RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION + 1).__contains__


class _Memo:
    """One per-value check (`check(value, path)`, whose errors lie at or below `path`), remembered:
    the valid values as a set (for whole-list membership tests), the others with their errors."""

    def __init__(self, check: Callable[[Any, FieldPath], list[FieldError]]) -> None:
        self.check = check
        self.valid: set[Hashable] = set()
        self.invalid: dict[Hashable, list[FieldError]] = {}

    def learn(self, values: Callable[[], Iterable[Hashable]]) -> bool:
        """Check the values `values()` gives that are not known yet; whether all are valid. (Asked
        again only when some are new: the first look is one membership pass.)"""
        if self.valid.issuperset(values()):
            return True
        fresh = set(values()).difference(self.valid)
        if len(self.valid) + len(self.invalid) + len(fresh) > _MAX_REMEMBERED:
            self.valid.clear()
            self.invalid.clear()
        for value in fresh.difference(self.invalid):
            errors = self.check(value, ())
            if errors:
                self.invalid[value] = errors
            else:
                self.valid.add(value)
        return fresh.isdisjoint(self.invalid)

    def errors(self, value: Hashable, path: FieldPath) -> list[FieldError]:
        if value in self.valid:
            return []
        found = self.invalid.get(value)
        if found is None:
            return self.check(value, path)
        return [FieldError((*path, *e.path), e.message) for e in found]


def _scalar(item: tuple[str, Any], path: FieldPath) -> list[FieldError]:
    return scalar_attribute_errors(item[0], item[1], path)


def _quantity(text: str, path: FieldPath) -> list[FieldError]:
    return validate_quantity(text, path)[1]


_LABELS = _Memo(validate_dns1123_label)
_QUALIFIED_NAMES = _Memo(validate_resource_qualified_name)
_SCALARS = _Memo(_scalar)
_QUANTITIES = _Memo(_quantity)


def _field(devices: list[Any], name: str, absent: Any) -> list[Any]:
    return list(map(dict.get, devices, repeat(name), repeat(absent)))


def _entries(maps: list[Any]) -> list[Any]:
    return list(chain.from_iterable(map(dict.values, maps)))


def _devices_valid(devices: list[Any]) -> bool:
    """Whether no device of the (plain, non-empty) list has an error, decided over the list at once:
    a membership pass per kind of value (the first failing kind ends it)."""
    names = list(map(_name, devices))
    if len(set(names)) != len(names) or not _LABELS.learn(lambda: names):
        return False
    attributes = _field(devices, "attributes", _NO_MAP)
    capacities = _field(devices, "capacity", _NO_MAP)
    # A plain attribute is one value, so this bounds the attribute values (48) as well.
    if not all(map(_DEVICE_SIZES, map(add, map(len, attributes), map(len, capacities)))):
        return False
    if not _QUALIFIED_NAMES.learn(
        lambda: chain(chain.from_iterable(attributes), chain.from_iterable(capacities))
    ):
        return False
    values = _entries(attributes)
    if not _SCALARS.learn(lambda: chain.from_iterable(map(dict.items, values))):
        return False
    capacity_values = _entries(capacities)
    if not _QUANTITIES.learn(lambda: map(_value, capacity_values)):
        return False
    consumptions = _field(devices, "consumesCounters", _NO_LIST)
    if not all(map(_CONSUMPTION_COUNTS, map(len, consumptions))):
        return False
    entries = list(chain.from_iterable(consumptions))
    if not entries:
        return True
    # A device consuming from two sets must name two different ones.
    if any(c[0]["counterSet"] == c[1]["counterSet"] for c in consumptions if len(c) == 2):
        return False
    counters = list(map(_counters, entries))
    return (
        _LABELS.learn(lambda: map(_counter_set, entries))
        and all(map(_COUNTER_COUNTS, map(len, counters)))
        and _LABELS.learn(lambda: chain.from_iterable(counters))
        and _QUANTITIES.learn(lambda: map(_value, _entries(counters)))
    )


def _failing(oks: Iterable[bool]) -> Iterator[int]:
    """The positions of the false ones."""
    return compress(count(), map(not_, oks))


def _owners(positions: Iterable[int], sizes: Iterable[int]) -> set[int]:
    """Which group each position of a concatenation of groups of `sizes` falls in."""
    ends = list(accumulate(sizes))
    return {bisect_right(ends, i) for i in positions}


def _failing_consumptions(consumptions: list[Any]) -> set[int]:
    """The devices whose counter consumption has an error (with every value learnt)."""
    bad = set(_failing(map(_CONSUMPTION_COUNTS, map(len, consumptions))))
    bad.update(
        i for i, c in enumerate(consumptions) if len(c) == 2 and c[0]["counterSet"] == c[1]["counterSet"]
    )
    entries = list(chain.from_iterable(consumptions))
    if not entries:
        return bad
    sets = list(map(_counter_set, entries))
    counters = list(map(_counters, entries))
    counter_values = list(map(_value, _entries(counters)))
    _LABELS.learn(lambda: chain(sets, chain.from_iterable(counters)))
    _QUANTITIES.learn(lambda: counter_values)
    bad_entries = set(_failing(map(_LABELS.valid.__contains__, sets)))
    bad_entries.update(_failing(map(_COUNTER_COUNTS, map(len, counters))))
    bad_entries.update(_failing(map(_LABELS.valid.issuperset, counters)))
    bad_entries.update(
        _owners(_failing(map(_QUANTITIES.valid.__contains__, counter_values)), map(len, counters))
    )
    return bad | _owners(sorted(bad_entries), map(len, consumptions))


def _failing_devices(devices: list[Any]) -> set[int]:
    """The devices with an error of their own (duplicates aside), found a kind of value at a time."""
    names = list(map(_name, devices))
    attributes = _field(devices, "attributes", _NO_MAP)
    capacities = _field(devices, "capacity", _NO_MAP)
    values = _entries(attributes)
    capacity_values = list(map(_value, _entries(capacities)))
    _LABELS.learn(lambda: names)
    _QUALIFIED_NAMES.learn(lambda: chain(chain.from_iterable(attributes), chain.from_iterable(capacities)))
    _SCALARS.learn(lambda: chain.from_iterable(map(dict.items, values)))
    _QUANTITIES.learn(lambda: capacity_values)
    bad = set(_failing(map(_LABELS.valid.__contains__, names)))
    bad.update(_failing(map(_DEVICE_SIZES, map(add, map(len, attributes), map(len, capacities)))))
    bad.update(_failing(map(_QUALIFIED_NAMES.valid.issuperset, attributes)))
    bad.update(_failing(map(_QUALIFIED_NAMES.valid.issuperset, capacities)))
    bad.update(
        _owners(_failing(map(_SCALARS.valid.issuperset, map(dict.items, values))), map(len, attributes))
    )
    bad.update(_owners(_failing(map(_QUANTITIES.valid.__contains__, capacity_values)), map(len, capacities)))
    return bad | _failing_consumptions(_field(devices, "consumesCounters", _NO_LIST))


def _raw_counter_value(counter: object) -> object:
    return counter.get("value") if isinstance(counter, dict) else None


def _consumption_errors(consumption: dict[str, Any], path: FieldPath) -> list[FieldError]:
    return counter_consumption_errors(
        consumption["counterSet"], consumption["counters"], (), path, _raw_counter_value
    )


def _consumptions_fine(consumptions: list[dict[str, Any]]) -> bool:
    """Whether a device's counter consumption has no error, from what the memories know."""
    if not consumptions:
        return True
    if len(consumptions) > RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE:
        return False
    sets = list(map(_counter_set, consumptions))
    counters = list(map(_counters, consumptions))
    return (
        len(set(sets)) == len(sets)
        and _LABELS.valid.issuperset(sets)
        and all(map(_COUNTER_COUNTS, map(len, counters)))
        and all(map(_LABELS.valid.issuperset, counters))
        and _QUANTITIES.valid.issuperset(map(_value, _entries(counters)))
    )


def _device_errors(device: dict[str, Any], path: FieldPath, per_device: bool) -> list[FieldError]:
    """`validate_device` for a plain device as read, check by check (a path is built only for a
    value that is not known valid: most of a failing device is fine)."""
    errs = _LABELS.errors(device["name"], (*path, "name"))
    attributes: dict[str, Any] = device.get("attributes") or _NO_MAP
    capacities: dict[str, Any] = device.get("capacity") or _NO_MAP
    errs.extend(device_size_errors(path, len(attributes) + len(capacities), len(attributes)))
    names, scalars, quantities = _QUALIFIED_NAMES.valid, _SCALARS.valid, _QUANTITIES.valid
    attrs_path: FieldPath = (*path, "attributes")
    for key, attr in attributes.items():
        if key not in names:
            errs.extend(_QUALIFIED_NAMES.errors(key, attrs_path))
        for item in attr.items():
            if item not in scalars:
                errs.extend(_SCALARS.errors(item, (*attrs_path, attribute_key(key))))
    cap_path: FieldPath = (*path, "capacity")
    for key, capacity in capacities.items():
        if key not in names:
            errs.extend(_QUALIFIED_NAMES.errors(key, cap_path))
        if capacity["value"] not in quantities:
            errs.extend(_QUANTITIES.errors(capacity["value"], (*cap_path, attribute_key(key), "value")))
    consumptions = device.get("consumesCounters") or _NO_LIST
    if not _consumptions_fine(consumptions):
        errs.extend(
            validate_list(
                consumptions,
                (*path, "consumesCounters"),
                _consumption_errors,
                limit=RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
                key=_counter_set,
            )
        )
    if per_device:
        errs.extend(validate_per_device_node_selection(_NO_NODE_FIELDS, per_device, path))
    return errs


def _device_list_errors(devices: list[Any], path: FieldPath, per_device: bool) -> list[FieldError]:
    """`validate_list` over the devices (the limit already checked): each device with something
    wrong gets its errors, then a repeated name its duplicate, in device order."""
    failing = set(range(len(devices))) if per_device else _failing_devices(devices)
    names = list(map(_name, devices))
    seen: set[str] = set()
    repeated: set[int] = set()
    if len(set(names)) != len(names):
        for i, name in enumerate(names):
            if name in seen:
                repeated.add(i)
            seen.add(name)
    errs: list[FieldError] = []
    for i in sorted(failing | repeated):
        item_path: FieldPath = (*path, i)
        if i in failing:
            errs.extend(_device_errors(devices[i], item_path, per_device))
        if i in repeated:
            errs.append(duplicate(item_path, names[i]))
    return errs


def _show_raw_attribute(attr: Mapping[str, Any]) -> Raw | None:
    return None if "string" in attr else Raw(compact_json(dict(attr)))


def validate_resource_slice_raw(
    raw: dict[str, Any], model_without_devices: V1ResourceSlice, ctx: ValidationContext
) -> list[FieldError] | None:
    """`validate_resource_slice` of the slice `raw` was read from, whose `spec.devices` are plain
    (`plain_devices`), given the slice's model with `spec.devices` empty. None when `raw` has no
    devices list or the model does not have an empty one: then validate the full model.

    `ctx` is taken for the validators' common signature: of a device's checks only request policies
    read feature gates, and plain devices have none."""
    spec_raw = raw.get("spec")
    devices = spec_raw.get("devices") if isinstance(spec_raw, dict) else None
    spec = model_without_devices.spec
    if not isinstance(devices, list) or spec.devices != []:
        return None
    path: FieldPath = ("spec", "devices")
    limit = max_devices(any(_field(devices, "consumesCounters", _NO_LIST)))
    per_device = bool(spec.per_device_node_selection)
    device_errors: list[FieldError] = []
    if len(devices) > limit:
        # The only error then, as the model path reports it, without a look at any device.
        device_errors = [too_many(path, len(devices), limit)]
    elif devices and (per_device or not _devices_valid(devices)):
        device_errors = _device_list_errors(devices, path, per_device)

    def consumers() -> Consumers:
        return [
            (i, d.get("attributes") or _NO_MAP) for i, d in enumerate(devices) if d.get("consumesCounters")
        ]

    return slice_errors(model_without_devices, device_errors, consumers, _show_raw_attribute)
