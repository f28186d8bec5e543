"""CEL optional values (cel-go's OptionalTypes library, as the Kubernetes environment enables it).

`or` and `orValue` are evaluated lazily by the evaluator (the right side only
when the left is empty); their declarations here give the checker their types.
"""

from __future__ import annotations

from typing import Any

from ....model.errors import CelRuntimeError
from .. import types as t
from ..registry import Library
from ..values import Optional, equal

library = Library("optional")
fn = library.function

OPT_A = t.optional_of(t.A)


@fn("optional.of", params=(t.A,), result=OPT_A)
def of(value: Any) -> Optional:
    return Optional(value)


@fn("optional.none", params=(), result=t.optional_of(t.DYN))
def none() -> Optional:
    return Optional.NONE


def _is_zero(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, (bool, int, float, str, bytes, list, dict)):
        return equal(value, type(value)())
    return False


@fn("optional.ofNonZeroValue", params=(t.A,), result=OPT_A)
def of_non_zero_value(value: Any) -> Optional:
    return Optional.NONE if _is_zero(value) else Optional(value)


@fn("hasValue", member=True, params=(OPT_A,), result=t.BOOL)
def has_value(opt: Optional) -> bool:
    return opt.has


@fn("value", member=True, params=(OPT_A,), result=t.A)
def value(opt: Optional) -> Any:
    if not opt.has:
        raise CelRuntimeError("optional.none() dereference")
    return opt.value


@fn("or", member=True, params=(OPT_A, OPT_A), result=OPT_A)
def or_(opt: Optional, other: Optional) -> Optional:
    return opt if opt.has else other


@fn("orValue", member=True, params=(OPT_A, t.A), result=t.A)
def or_value(opt: Optional, default: Any) -> Any:
    return opt.value if opt.has else default


@fn("optional.unwrap", params=(t.list_of(OPT_A),), result=t.list_of(t.A))
def unwrap(items: list[Optional]) -> list[Any]:
    return [o.value for o in items if o.has]


fn("unwrapOpt", member=True, params=(t.list_of(OPT_A),), result=t.list_of(t.A))(unwrap)
