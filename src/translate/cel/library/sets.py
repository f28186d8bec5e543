"""cel-go sets extension: sets.contains, sets.equivalent, sets.intersects.

Lists are treated as sets; membership is CEL's heterogeneous equality, so
`sets.contains([1, 2.0], [2u])` holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import types as t
from ..registry import Library
from ..values import equal

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


def _cost(factor: int) -> Any:
    def cost(args: Sequence[Any]) -> int:
        sizes = [len(a) if isinstance(a, (list, dict)) else 1 for a in args[:2]]
        while len(sizes) < 2:
            sizes.append(0)
        return 1 + int(float(sizes[0] * sizes[1]) * factor)

    return cost


def _estimate(factor: int) -> Any:
    def estimate(sizes: Sequence[int]) -> int:
        a = sizes[0] if sizes else 0
        b = sizes[1] if len(sizes) > 1 else 0
        return 1 + a * b * factor

    return estimate


library.function(
    "sets.contains",
    params=(_LIST_T, _LIST_T),
    result=t.BOOL,
    id="list_sets_contains_list",
    cost=_cost(1),
    estimate=_estimate(1),
)(sets_contains)
# Equivalence may need both containment checks.
library.function(
    "sets.equivalent",
    params=(_LIST_T, _LIST_T),
    result=t.BOOL,
    id="list_sets_equivalent_list",
    cost=_cost(2),
    estimate=_estimate(2),
)(sets_equivalent)
library.function(
    "sets.intersects",
    params=(_LIST_T, _LIST_T),
    result=t.BOOL,
    id="list_sets_intersects_list",
    cost=_cost(1),
    estimate=_estimate(1),
)(sets_intersects)
