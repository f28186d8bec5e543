"""Whether a ResourceSlice's devices can be used as read, without a model per device.

A large cluster dump holds tens of thousands of devices; a pydantic model for each costs seconds
and hundreds of MB. Most devices are "plain": a name, scalar attributes, capacities without a
request policy, counter consumption without compatibility groups. For those the loader's full path
(quantity coercion, `V1ResourceSlice` validation, unknown-field detection) accepts the input
unchanged and warns about nothing, and every field read from the dict equals the model's value, so
the dicts can stand in for the models.

The check runs over all devices of a slice at once, as chains of C-level iterations (type and key
sets compared with frozensets), so it costs about a microsecond per device.
"""

from __future__ import annotations

from itertools import chain, repeat
from operator import is_, itemgetter
from typing import Any

from .documents import LineDict, LineList

# Model fields a plain device may set. Left out: request policies, taints, node selection, binding
# conditions, node-allocatable mappings and list attributes (nested models the dicts would have to
# imitate), and the snake_case spellings the client's models also accept (the wire name would no
# longer be where a reader looks).
_DEVICE_KEYS = frozenset({"name", "attributes", "capacity", "consumesCounters", "allowMultipleAllocations"})
_CONSUMPTION_KEYS = frozenset({"counterSet", "counters"})
# Exactly these Python types, so that nothing is converted: a bool is no int here, a float no int,
# and a number where a quantity is due is left to the full path (which turns it into text). An int
# beyond int64 is kept: the model keeps it as it is too, and neither path's validation looks at it.
_ATTRIBUTE_TYPES = {"int": int, "bool": bool, "string": str, "version": str}
_STRINGS = frozenset({str})
_BOOLS = frozenset({bool})
_MAPS = frozenset({dict, LineDict})
_LISTS = frozenset({list, LineList})
_ONE = frozenset({1})
_TWO = frozenset({2})

# Stand-ins for absent fields, of a type the checks accept; never handed out, never changed.
_NO_MAP: dict[str, Any] = {}
_NO_LIST: list[Any] = []
_value = itemgetter("value")
_counter_set = itemgetter("counterSet")
_counters = itemgetter("counters")

# Applying `dict.keys`, `dict.__len__` or `dict.__getitem__` to each item checks that it is a map
# (a TypeError otherwise) in the same pass that reads it: each pass over a hundred thousand small
# dicts is a pass over memory, and the passes are the cost.


def _field(devices: list[Any], name: str, absent: Any) -> list[Any]:
    return list(map(dict.get, devices, repeat(name), repeat(absent)))


def _string_keys(maps: list[Any]) -> bool:
    """Each of `maps` a map whose keys are all str."""
    # The distinct keys are few (a driver uses the same names on every device), and a key that is
    # not a str can equal a str only if it is a str subclass: the types of the distinct ones tell.
    return _MAPS.issuperset(map(type, maps)) and _STRINGS.issuperset(
        map(type, set(chain.from_iterable(maps)))
    )


def _quantity_maps(maps: list[Any]) -> bool:
    """Each of `maps` a map of str to exactly `{"value": str}` (capacities, counters)."""
    if not _string_keys(maps):
        return False
    entries = list(chain.from_iterable(map(dict.values, maps)))
    # One key each, and `value` there (a KeyError otherwise): `value` is the only key.
    return _ONE.issuperset(map(dict.__len__, entries)) and _STRINGS.issuperset(
        map(type, map(_value, entries))
    )


def _attributes(attributes: list[Any]) -> bool:
    if not _string_keys(attributes):
        return False
    values = list(chain.from_iterable(map(dict.values, attributes)))
    kinds = list(chain.from_iterable(values))
    # As many keys as values, and each value holding the key at its own position: then every value
    # has exactly one key (were one to hold two, another would hold none, and its lookup fail).
    if len(kinds) != len(values):
        return False
    types = map(type, map(dict.__getitem__, values, kinds))
    return all(map(is_, map(_ATTRIBUTE_TYPES.get, kinds), types))


def _consumptions(consumptions: list[Any]) -> bool:
    if not _LISTS.issuperset(map(type, consumptions)):
        return False
    entries = list(chain.from_iterable(consumptions))
    # Two keys, both among the two allowed: each entry has exactly counterSet and counters.
    if not _TWO.issuperset(map(dict.__len__, entries)):
        return False
    if not _CONSUMPTION_KEYS.issuperset(chain.from_iterable(entries)):
        return False
    if not _STRINGS.issuperset(map(type, map(_counter_set, entries))):
        return False
    return _quantity_maps(list(map(_counters, entries)))


def plain_devices(devices: object) -> bool:
    """Whether `devices` (a v1 ResourceSlice's `spec.devices` as read) is a list of plain devices.

    Plain: a map with at most `name` (str, required), `attributes` (str -> exactly one of `int`
    (an int, not a bool), `bool`, `string` or `version` (str)), `capacity` and, in each entry of
    `consumesCounters` (a list of maps with exactly `counterSet` (str) and `counters`), `counters`
    (str -> exactly `{"value": str}`), and `allowMultipleAllocations` (bool). The values themselves
    may be anything API validation refuses: the validators report those.
    """
    if not isinstance(devices, list):
        return False
    try:
        if not _DEVICE_KEYS.issuperset(chain.from_iterable(map(dict.keys, devices))):
            return False
        # A missing name reads as None, which is no str.
        if not _STRINGS.issuperset(map(type, _field(devices, "name", None))):
            return False
        if not _BOOLS.issuperset(map(type, _field(devices, "allowMultipleAllocations", False))):
            return False
        return (
            _attributes(_field(devices, "attributes", _NO_MAP))
            and _quantity_maps(_field(devices, "capacity", _NO_MAP))
            and _consumptions(_field(devices, "consumesCounters", _NO_LIST))
        )
    except (TypeError, KeyError):
        return False


# Device lists a reader proved plain as it read them (slice_intern shares their parts), by identity,
# so the loader does not check them a second time; forgotten when the load ends.
_proven: dict[int, list[Any]] = {}


def prove(devices: object) -> bool:
    """plain_devices, remembered for `proven_once`."""
    if not plain_devices(devices):
        return False
    assert isinstance(devices, list)
    _proven[id(devices)] = devices
    return True


def proven_once(devices: object) -> bool:
    """plain_devices, answered from what a reader proved of this very list (once) where it can."""
    if _proven.pop(id(devices), None) is devices:
        return True
    return plain_devices(devices)


def taken() -> list[list[Any]]:
    """The lists proved plain and not yet asked about, forgotten here (a reader hands them on)."""
    lists = list(_proven.values())
    _proven.clear()
    return lists


def adopt(lists: list[list[Any]]) -> None:
    """Lists proved plain by another reader (a child's, read back with the documents holding them)."""
    for devices in lists:
        _proven[id(devices)] = devices


def forget() -> None:
    _proven.clear()
