"""Overloads the Kubernetes value-type libraries (ip, cidr, url, quantity, semver) declare alike."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec

from .. import types as t
from ..registry import Costs, Library

P = ParamSpec("P")


def accepts(parse: Callable[P, object], error: type[Exception]) -> Callable[P, bool]:
    """The `isX(...)` check of a conversion: does `parse` take these arguments without `error`?"""

    def check(*args: P.args, **kwargs: P.kwargs) -> bool:
        try:
            parse(*args, **kwargs)
        except error:
            return False
        return True

    return check


def declare_comparisons(
    library: Library,
    cel_type: t.CelType,
    id_prefix: str,
    compare: Callable[[Any, Any], int],
    costs: Costs | None = None,
) -> None:
    """`isGreaterThan`, `isLessThan` and `compareTo` of an ordered type, with upstream's overload ids
    (`<id_prefix>_is_greater_than`, ...). `compare` takes the two CEL values and returns -1, 0 or 1.
    """
    params = (cel_type, cel_type)
    for name, suffix, result, impl in (
        ("isGreaterThan", "is_greater_than", t.BOOL, lambda a, b: compare(a, b) == 1),
        ("isLessThan", "is_less_than", t.BOOL, lambda a, b: compare(a, b) == -1),
        ("compareTo", "compare_to", t.INT, compare),
    ):
        library.function(
            name, member=True, params=params, result=result, id=f"{id_prefix}_{suffix}", costs=costs
        )(impl)
