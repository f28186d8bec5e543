"""The Kubernetes CEL quantity library (apiserver/pkg/cel/library/quantity.go).

Declared exactly as upstream declares it, including that `sign` is a *global*
function (`sign(quantity("1"))`): upstream registers it with `cel.Overload`, not
`cel.MemberOverload`, so the API server rejects `quantity("1").sign()` at compile
time and so must we. Costs follow library/cost.go: parsing traverses the text
(with no static estimate), everything else costs one unit.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, ClassVar

from ....model.errors import CelRuntimeError
from ....model.quantity import ERR_NOT_INT64, Format, Quantity, QuantityError
from .. import types as t
from ..registry import Library
from ..values import CelObject
from .costs import TRAVERSAL, UNIT
from .overloads import accepts, declare_comparisons


class CelQuantity(CelObject):
    """A quantity as a CEL value.

    Upstream has two Go shapes for it: `quantity()` and DRA capacities produce a
    `cel.Quantity` value, while `add`/`sub` return a `*cel.Quantity` pointer. The
    difference is visible in CEL: `Quantity.Equal` only recognises the value
    shape on its right-hand side, so `quantity("2") == quantity("1").add(1)` is
    false in Kubernetes. `by_reference` records the shape; `cel_equals` applies
    that rule, while Python `==` stays plain value equality.
    """

    cel_type: ClassVar[t.CelType] = t.QUANTITY
    go_type: ClassVar[str] = "cel.Quantity"

    def __init__(self, quantity: Quantity, by_reference: bool = False) -> None:
        self.quantity = quantity
        self.by_reference = by_reference
        if by_reference:
            # %T of the pointer shape, as cel-go prints it in type errors.
            self.__dict__["go_type"] = "*cel.Quantity"

    @classmethod
    def parse(cls, value: str | int | float | Quantity) -> CelQuantity:
        """A stored quantity field (e.g. a DRA capacity) as CEL sees it.

        The text is decoded the way the API server decodes the field (surrounding
        whitespace ignored); raises QuantityError when it is not a quantity.
        """
        return cls(value if isinstance(value, Quantity) else Quantity.unmarshal(value))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CelQuantity):
            return NotImplemented
        return self.quantity == other.quantity

    def __hash__(self) -> int:
        return hash(self.quantity)

    def __str__(self) -> str:
        return str(self.quantity)

    def __repr__(self) -> str:
        shape = ", by_reference=True" if self.by_reference else ""
        return f"CelQuantity({self.quantity!r}{shape})"

    def cel_equals(self, other: object) -> bool:
        """CEL `==` with this value on the left, as cel-go evaluates it for Kubernetes."""
        return isinstance(other, CelQuantity) and not other.by_reference and self.quantity == other.quantity


def _unwrap(value: Any) -> Quantity:
    if isinstance(value, CelQuantity):
        return value.quantity
    raise CelRuntimeError("no such overload")


library = Library("quantity")


@library.function(
    "quantity", params=(t.STRING,), result=t.QUANTITY, cost=TRAVERSAL.cost, id="string_to_quantity"
)
def string_to_quantity(text: str) -> CelQuantity:
    try:
        return CelQuantity(Quantity.parse(text))
    except QuantityError as e:
        raise CelRuntimeError(str(e)) from e


library.function(
    "isQuantity", params=(t.STRING,), result=t.BOOL, cost=TRAVERSAL.cost, id="is_quantity_string"
)(accepts(Quantity.parse, QuantityError))
library.function("sign", params=(t.QUANTITY,), result=t.INT, costs=UNIT, id="quantity_sign")(
    lambda q: _unwrap(q).sign()
)
declare_comparisons(
    library, t.QUANTITY, "quantity", lambda q, other: _unwrap(q).cmp(_unwrap(other)), costs=UNIT
)


def _as_integer(q: CelQuantity) -> int:
    value = _unwrap(q).try_as_int64()
    if value is None:
        raise CelRuntimeError(ERR_NOT_INT64)
    return value


for _name, _id, _result, _impl in (
    ("asApproximateFloat", "quantity_get_float", t.DOUBLE, lambda q: _unwrap(q).as_approximate_float()),
    ("asInteger", "quantity_get_int", t.INT, _as_integer),
    ("isInteger", "quantity_is_integer", t.BOOL, lambda q: _unwrap(q).is_integer()),
):
    library.function(_name, member=True, params=(t.QUANTITY,), result=_result, costs=UNIT, id=_id)(_impl)


def _int_operand(value: int) -> Quantity:
    # Upstream turns the int into NewQuantity(value, DecimalExponent) before adding.
    return Quantity.from_int(value, Format.DECIMAL_EXPONENT)


def _arithmetic(
    op: Callable[[Quantity, Quantity], Quantity], operand: Callable[[Any], Quantity]
) -> Callable[[CelQuantity, Any], CelQuantity]:
    def apply(q: CelQuantity, other: Any) -> CelQuantity:
        a, b = _unwrap(q), operand(other)
        try:
            return CelQuantity(op(a, b), by_reference=True)
        except QuantityError as e:
            raise CelRuntimeError(str(e)) from e

    return apply


for _name, _op in (("add", operator.add), ("sub", operator.sub)):
    for _operand_type, _operand, _suffix in ((t.QUANTITY, _unwrap, ""), (t.INT, _int_operand, "_int")):
        library.function(
            _name,
            member=True,
            params=(t.QUANTITY, _operand_type),
            result=t.QUANTITY,
            costs=UNIT,
            id=f"quantity_{_name}{_suffix}",
        )(_arithmetic(_op, _operand))
