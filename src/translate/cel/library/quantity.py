"""The Kubernetes CEL quantity library (apiserver/pkg/cel/library/quantity.go).

Declared exactly as upstream declares it, including that `sign` is a *global*
function (`sign(quantity("1"))`): upstream registers it with `cel.Overload`, not
`cel.MemberOverload`, so the API server rejects `quantity("1").sign()` at compile
time and so must we. Costs follow library/cost.go.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ....errors import CelRuntimeError
from ...quantity import ERR_NOT_INT64, Format, Quantity, QuantityError
from .. import types as t
from ..registry import Library
from ..values import CelObject


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


def _traversal_cost(args: Sequence[Any]) -> int:
    # cel-go multiplies the rune count by StringTraversalCostFactor (0.1) in float64.
    text = args[0] if args and isinstance(args[0], str) else ""
    return math.ceil(len(text) * 0.1)


def _nominal_cost(args: Sequence[Any]) -> int:
    return 1


def _nominal_estimate(sizes: Sequence[int]) -> int:
    return 1


library = Library("quantity")


@library.function(
    "quantity", params=(t.STRING,), result=t.QUANTITY, cost=_traversal_cost, id="string_to_quantity"
)
def string_to_quantity(text: str) -> CelQuantity:
    try:
        return CelQuantity(Quantity.parse(text))
    except QuantityError as e:
        raise CelRuntimeError(str(e)) from e


@library.function(
    "isQuantity", params=(t.STRING,), result=t.BOOL, cost=_traversal_cost, id="is_quantity_string"
)
def is_quantity(text: str) -> bool:
    try:
        Quantity.parse(text)
    except QuantityError:
        return False
    return True


@library.function(
    "sign",
    params=(t.QUANTITY,),
    result=t.INT,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_sign",
)
def quantity_sign(q: CelQuantity) -> int:
    return _unwrap(q).sign()


@library.function(
    "isGreaterThan",
    member=True,
    params=(t.QUANTITY, t.QUANTITY),
    result=t.BOOL,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_is_greater_than",
)
def quantity_is_greater_than(q: CelQuantity, other: CelQuantity) -> bool:
    return _unwrap(q).cmp(_unwrap(other)) == 1


@library.function(
    "isLessThan",
    member=True,
    params=(t.QUANTITY, t.QUANTITY),
    result=t.BOOL,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_is_less_than",
)
def quantity_is_less_than(q: CelQuantity, other: CelQuantity) -> bool:
    return _unwrap(q).cmp(_unwrap(other)) == -1


@library.function(
    "compareTo",
    member=True,
    params=(t.QUANTITY, t.QUANTITY),
    result=t.INT,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_compare_to",
)
def quantity_compare_to(q: CelQuantity, other: CelQuantity) -> int:
    return _unwrap(q).cmp(_unwrap(other))


@library.function(
    "asApproximateFloat",
    member=True,
    params=(t.QUANTITY,),
    result=t.DOUBLE,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_get_float",
)
def quantity_as_approximate_float(q: CelQuantity) -> float:
    return _unwrap(q).as_approximate_float()


@library.function(
    "asInteger",
    member=True,
    params=(t.QUANTITY,),
    result=t.INT,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_get_int",
)
def quantity_as_integer(q: CelQuantity) -> int:
    value = _unwrap(q).try_as_int64()
    if value is None:
        raise CelRuntimeError(ERR_NOT_INT64)
    return value


@library.function(
    "isInteger",
    member=True,
    params=(t.QUANTITY,),
    result=t.BOOL,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_is_integer",
)
def quantity_is_integer(q: CelQuantity) -> bool:
    return _unwrap(q).is_integer()


def _arith(result: Quantity) -> CelQuantity:
    return CelQuantity(result, by_reference=True)


def _int_operand(value: int) -> Quantity:
    # Upstream turns the int into NewQuantity(value, DecimalExponent) before adding.
    return Quantity.from_int(value, Format.DECIMAL_EXPONENT)


def _guard(compute: Callable[[], Quantity]) -> CelQuantity:
    try:
        return _arith(compute())
    except QuantityError as e:
        raise CelRuntimeError(str(e)) from e


@library.function(
    "add",
    member=True,
    params=(t.QUANTITY, t.QUANTITY),
    result=t.QUANTITY,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_add",
)
def quantity_add(q: CelQuantity, other: CelQuantity) -> CelQuantity:
    a, b = _unwrap(q), _unwrap(other)
    return _guard(lambda: a + b)


@library.function(
    "add",
    member=True,
    params=(t.QUANTITY, t.INT),
    result=t.QUANTITY,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_add_int",
)
def quantity_add_int(q: CelQuantity, other: int) -> CelQuantity:
    a, b = _unwrap(q), _int_operand(other)
    return _guard(lambda: a + b)


@library.function(
    "sub",
    member=True,
    params=(t.QUANTITY, t.QUANTITY),
    result=t.QUANTITY,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_sub",
)
def quantity_sub(q: CelQuantity, other: CelQuantity) -> CelQuantity:
    a, b = _unwrap(q), _unwrap(other)
    return _guard(lambda: a - b)


@library.function(
    "sub",
    member=True,
    params=(t.QUANTITY, t.INT),
    result=t.QUANTITY,
    cost=_nominal_cost,
    estimate=_nominal_estimate,
    id="quantity_sub_int",
)
def quantity_sub_int(q: CelQuantity, other: int) -> CelQuantity:
    a, b = _unwrap(q), _int_operand(other)
    return _guard(lambda: a - b)
