"""The DRA additions to the CEL environment: `includes` for list-typed device attributes."""

from __future__ import annotations

from typing import Any

from ....model.errors import CelRuntimeError
from .. import types as t
from ..registry import Library
from ..values import equal

# resourceapi.ResourceSliceMaxAttributeValuesPerDevice: the longest list a device attribute may hold.
MAX_ATTRIBUTE_VALUES = 48

library = Library("dra")


@library.function(
    "includes",
    member=True,
    params=(t.DYN, t.DYN),
    result=t.BOOL,
    cost=lambda args: 1 + MAX_ATTRIBUTE_VALUES,
    estimate=lambda sizes: MAX_ATTRIBUTE_VALUES,
)
def includes(container: Any, value: Any) -> bool:
    """List membership for a list attribute, plain equality for a scalar one."""
    if isinstance(container, list):
        if len(container) > MAX_ATTRIBUTE_VALUES:
            raise CelRuntimeError(
                f"'includes' function cannot be applied to lists longer than {MAX_ATTRIBUTE_VALUES} values"
            )
        return any(equal(item, value) for item in container)
    return equal(container, value)
