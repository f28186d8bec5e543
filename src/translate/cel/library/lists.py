"""Kubernetes lists library: isSorted, sum, min, max, indexOf, lastIndexOf.

isSorted/min/max are declared once per comparable element type and sum once per
summable type, as upstream does (so `[[1]].min()` does not type-check); indexOf
and lastIndexOf take any element type and use CEL equality.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import Any

from ....model.errors import CelRuntimeError
from .. import types as t
from ..budget import spend
from ..registry import Costs, Library
from ..values import Uint, equal, int64, ordered, uint64
from .costs import STRING_TRAVERSAL_COST, size_at

library = Library("kubernetes.lists")

# Upstream's type names, used in overload ids (`list_int_sum_int`).
COMPARABLE = (
    ("int", t.INT),
    ("uint", t.UINT),
    ("double", t.DOUBLE),
    ("bool", t.BOOL),
    ("duration", t.DURATION),
    ("timestamp", t.TIMESTAMP),
    ("string", t.STRING),
    ("bytes", t.BYTES),
)
SUMMABLE = (("int", t.INT), ("uint", t.UINT), ("double", t.DOUBLE), ("duration", t.DURATION))

_ZERO: dict[str, Any] = {"int": 0, "uint": Uint(0), "double": 0.0, "duration": _dt.timedelta(0)}

# cel-go's duration range is that of a Go time.Duration (int64 nanoseconds).
_MAX_DURATION_NS = 2**63 - 1

_MISSING = object()


def traversal_cost(value: Any, seen: dict[int, int] | None = None) -> int:
    """Upstream's cost of walking a value: strings by length, containers by elements.

    Nested lists may share elements; each distinct one is walked once (by identity), so
    the cost of a value whose size doubles at every level is found without walking it all.
    """
    if isinstance(value, (str, bytes)):
        return int(float(len(value)) * STRING_TRAVERSAL_COST)
    if not isinstance(value, (list, dict)):
        return 1
    seen = {} if seen is None else seen
    if id(value) not in seen:
        spend(len(value))
        if isinstance(value, list):
            seen[id(value)] = sum(traversal_cost(v, seen) for v in value)
        else:
            seen[id(value)] = sum(traversal_cost(k, seen) + traversal_cost(v, seen) for k, v in value.items())
    return seen[id(value)]


# Every function here walks its receiver once.
_WALK = Costs(lambda args: traversal_cost(args[0]) if args else 0, lambda sizes: size_at(sizes, 0))


def _comparable(value: Any) -> Any:
    """Upstream rejects an element that has no ordering at all."""
    if (
        value is None
        or isinstance(value, (list, dict))
        or not isinstance(value, (int, float, str, bytes, _dt.datetime, _dt.timedelta))
    ):
        raise CelRuntimeError("no such overload")
    return value


def _greater(a: Any, b: Any) -> bool:
    """a > b. Upstream ignores comparison errors (NaN, mixed types), so they count as false."""
    try:
        return ordered(a, b, "_>_")
    except CelRuntimeError:
        return False


def is_sorted(items: list[Any]) -> bool:
    prev: Any = _MISSING
    for item in items:
        _comparable(item)
        if prev is not _MISSING and _greater(prev, item):
            return False
        prev = item
    return True


def _extreme(items: list[Any], name: str, want_greater: bool) -> Any:
    result: Any = _MISSING
    for item in items:
        _comparable(item)
        # Only a strict comparison replaces the running result, so the first of equal
        # elements wins and NaN neither replaces nor is replaced.
        if result is _MISSING or (_greater(item, result) if want_greater else _greater(result, item)):
            result = item
    if result is _MISSING:
        raise CelRuntimeError(f"{name} called on empty list")
    return result


def list_min(items: list[Any]) -> Any:
    return _extreme(items, "min", want_greater=False)


def list_max(items: list[Any]) -> Any:
    return _extreme(items, "max", want_greater=True)


def _same_kind(acc: Any, item: Any) -> bool:
    if isinstance(acc, Uint):
        return isinstance(item, Uint)
    if isinstance(acc, int):
        return isinstance(item, int) and not isinstance(item, (bool, Uint))
    return type(acc) is type(item)


def _add(acc: Any, item: Any) -> Any:
    if not _same_kind(acc, item):
        raise CelRuntimeError("no such overload")
    if isinstance(acc, _dt.timedelta):
        total = acc + item
        ns = (total.days * 86400 + total.seconds) * 1_000_000_000 + total.microseconds * 1000
        if abs(ns) > _MAX_DURATION_NS:
            raise CelRuntimeError("integer overflow")
        return total
    if isinstance(acc, Uint):
        return uint64(int(acc) + int(item))
    if isinstance(acc, float):
        return acc + item
    return int64(acc + item)


def _summer(type_name: str) -> Any:
    def list_sum(items: list[Any]) -> Any:
        acc = _ZERO[type_name]
        for item in items:
            acc = _add(acc, item)
        return acc

    return list_sum


def index_of(items: list[Any], item: Any) -> int:
    for i, v in enumerate(items):
        if equal(v, item):
            return i
    return -1


def last_index_of(items: list[Any], item: Any) -> int:
    for i in range(len(items) - 1, -1, -1):
        if equal(items[i], item):
            return i
    return -1


def _declare(
    name: str, overload_id: str, params: tuple[t.CelType, ...], result: t.CelType, impl: Callable[..., Any]
) -> None:
    library.function(name, member=True, params=params, result=result, id=overload_id, costs=_WALK)(impl)


for _name, _type in COMPARABLE:
    _declare("isSorted", f"list_{_name}_is_sorted_bool", (t.list_of(_type),), t.BOOL, is_sorted)
    _declare("min", f"list_{_name}_min_{_name}", (t.list_of(_type),), _type, list_min)
    _declare("max", f"list_{_name}_max_{_name}", (t.list_of(_type),), _type, list_max)

for _name, _type in SUMMABLE:
    _declare("sum", f"list_{_name}_sum_{_name}", (t.list_of(_type),), _type, _summer(_name))

_declare("indexOf", "list_a_index_of_int", (t.list_of(t.A), t.A), t.INT, index_of)
_declare("lastIndexOf", "list_a_last_index_of_int", (t.list_of(t.A), t.A), t.INT, last_index_of)
