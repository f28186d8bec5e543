"""cel-go sets extension: sets.contains, sets.equivalent, sets.intersects.

Lists are treated as sets; membership is CEL's heterogeneous equality, so
`sets.contains([1, 2.0], [2u])` holds.
"""

from __future__ import annotations

from typing import Any

from .. import types as t
from ..registry import Costs, Library
from ..values import equal
from .costs import arg_len, size_at

library = Library("cel.lib.ext.sets")

_T = t.CelType("T", is_param=True)
_LIST_T = t.list_of(_T)


def _has(items: list[Any], value: Any) -> bool:
    return any(equal(item, value) for item in items)


def sets_contains(items: list[Any], sub: list[Any]) -> bool:
    return all(_has(items, v) for v in sub)


def sets_equivalent(a: list[Any], b: list[Any]) -> bool:
    return sets_contains(a, b) and sets_contains(b, a)


def sets_intersects(a: list[Any], b: list[Any]) -> bool:
    return any(_has(b, v) for v in a)


def _pairs(factor: int) -> Costs:
    """One comparison per pair of elements, `factor` times over."""
    return Costs(
        lambda args: 1 + int(float(arg_len(args, 0) * arg_len(args, 1)) * factor),
        lambda sizes: 1 + size_at(sizes, 0) * size_at(sizes, 1) * factor,
    )


for _name, _impl, _factor in (
    ("contains", sets_contains, 1),
    ("equivalent", sets_equivalent, 2),  # may need both containment checks
    ("intersects", sets_intersects, 1),
):
    library.function(
        f"sets.{_name}",
        params=(_LIST_T, _LIST_T),
        result=t.BOOL,
        id=f"list_sets_{_name}_list",
        costs=_pairs(_factor),
    )(_impl)
