"""The Kubernetes CEL quantity library, called through its registry declarations."""

from __future__ import annotations

import math
from typing import cast

import pytest
from cel_library_support import LibraryUnderTest

from kubefit.model.errors import CelRuntimeError
from kubefit.model.quantity import ERR_FORMAT_WRONG, ERR_SUFFIX, Format, Quantity
from kubefit.translate.cel import types as t
from kubefit.translate.cel.library.quantity import CelQuantity, library

LIB = LibraryUnderTest(library)
REGISTRY = LIB.registry
call = LIB.call
m = LIB.method


def q(text: str) -> CelQuantity:
    return cast(CelQuantity, call("quantity", text))


def eq(a: CelQuantity, b: CelQuantity) -> bool:
    return a.cel_equals(b)


# --- declarations ----------------------------------------------------------------------

# upstream overload id: (function, receiver style, parameter types, result type)
DECLARATIONS = {
    "string_to_quantity": ("quantity", False, (t.STRING,), t.QUANTITY),
    "is_quantity_string": ("isQuantity", False, (t.STRING,), t.BOOL),
    "quantity_sign": ("sign", False, (t.QUANTITY,), t.INT),
    "quantity_is_greater_than": ("isGreaterThan", True, (t.QUANTITY, t.QUANTITY), t.BOOL),
    "quantity_is_less_than": ("isLessThan", True, (t.QUANTITY, t.QUANTITY), t.BOOL),
    "quantity_compare_to": ("compareTo", True, (t.QUANTITY, t.QUANTITY), t.INT),
    "quantity_get_float": ("asApproximateFloat", True, (t.QUANTITY,), t.DOUBLE),
    "quantity_get_int": ("asInteger", True, (t.QUANTITY,), t.INT),
    "quantity_is_integer": ("isInteger", True, (t.QUANTITY,), t.BOOL),
    "quantity_add": ("add", True, (t.QUANTITY, t.QUANTITY), t.QUANTITY),
    "quantity_add_int": ("add", True, (t.QUANTITY, t.INT), t.QUANTITY),
    "quantity_sub": ("sub", True, (t.QUANTITY, t.QUANTITY), t.QUANTITY),
    "quantity_sub_int": ("sub", True, (t.QUANTITY, t.INT), t.QUANTITY),
}


def test_every_upstream_overload_is_declared_once() -> None:
    LIB.check_declarations("quantity", DECLARATIONS)


def test_sign_is_a_global_function_only() -> None:
    # Upstream uses cel.Overload for sign, so `quantity("1").sign()` does not type-check there.
    assert REGISTRY.has_global("sign")
    assert not REGISTRY.has_member("sign")
    assert call("sign", q("-1m")) == -1
    assert call("sign", q("0")) == 0
    assert call("sign", q("2Gi")) == 1


def test_no_overload_for_other_argument_types() -> None:
    with pytest.raises(LookupError):
        call("isQuantity", [1, 2, 3])
    with pytest.raises(LookupError):
        m(q("1"), "add", 1.5)


def test_costs_follow_the_kubernetes_estimator() -> None:
    by_id = {ov.id: ov for ov in library.overloads}
    parse_cost = by_id["string_to_quantity"].cost
    assert parse_cost is not None
    assert parse_cost(["12Mi"]) == 1
    assert parse_cost(["1234567890"]) == 1
    # one unit per started ten characters (runes, not bytes)
    assert parse_cost(["x" * 30]) == 3
    assert parse_cost(["x" * 31]) == 4
    assert parse_cost(["é" * 11]) == 2
    assert parse_cost([""]) == 0
    for upstream_id, (_, _member, _, _) in DECLARATIONS.items():
        ov = by_id[upstream_id]
        if ov.function not in ("quantity", "isQuantity"):
            assert ov.cost is not None and ov.cost([]) == 1
            assert ov.estimate is not None and ov.estimate([]) == 1


# --- upstream's library test table ------------------------------------------------------


def test_parse() -> None:
    parsed = q("12Mi")
    assert isinstance(parsed, CelQuantity)
    assert parsed.quantity == Quantity.parse("12Mi")
    assert parsed.cel_type == t.QUANTITY
    assert not parsed.by_reference


@pytest.mark.parametrize(("text", "message"), [("10Mo", ERR_FORMAT_WRONG), ("10Mm", ERR_SUFFIX)])
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(CelRuntimeError) as info:
        q(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("20", True),
        ("20M", True),
        ("20Mi", True),
        ("20Mo", False),
        ("10Mm", False),
        ("1.3G", True),
        ("1.3Gi", True),
        ("1,3G", False),
        ("10000k", True),
        ("200K", False),
        ("Three", False),
        # The documentation calls this invalid, but Go's scanner accepts a bare suffix as zero.
        ("Mi", True),
        ("", False),
    ],
)
def test_is_quantity(text: str, valid: bool) -> None:
    assert call("isQuantity", text) is valid


def test_equality_is_by_value() -> None:
    assert eq(q("200M"), q("200M"))
    assert eq(q("200M"), q("0.2G")) and eq(q("0.2G"), q("200M"))
    assert eq(q("2M"), q("0.002G")) and eq(q("2000k"), q("2M")) and eq(q("0.002G"), q("2000k"))
    assert not eq(q("200M"), q("0.3G"))
    assert eq(q("1Gi"), q("1024Mi"))


@pytest.mark.parametrize(
    ("a", "b", "cmp"),
    [
        ("50M", "50Mi", -1),
        ("50M", "100M", -1),
        ("100M", "50M", 1),
        ("50Mi", "50M", 1),
        ("150Mi", "100Mi", 1),
        ("50Mi", "100Mi", -1),
        ("200M", "0.2G", 0),
        ("1Gi", "1073741824", 0),
    ],
)
def test_comparisons(a: str, b: str, cmp: int) -> None:
    LIB.check_comparison(q(a), q(b), cmp)


def test_arithmetic_examples() -> None:
    assert eq(m(q("50k"), "add", q("20")), q("50.02k"))
    assert m(m(q("50k"), "add", 20), "isLessThan", q("50020")) is False
    assert eq(m(q("50k"), "sub", q("20")), q("49.98k"))
    assert eq(m(q("50k"), "sub", 20), q("49980"))
    assert eq(m(q("50k"), "add", 20), q("50020"))
    assert eq(m(q("50k"), "sub", 20000), q("30k"))
    chain = m(m(q("50k"), "add", 20), "sub", q("100k"))
    assert m(chain, "asInteger") == -49980
    chain = m(chain, "sub", -50000)
    assert m(chain, "asInteger") == 20
    assert eq(chain, q("20"))
    assert m(m(q("50k"), "sub", 20000), "asApproximateFloat") == 30000.0


def test_arithmetic_keeps_the_receivers_format() -> None:
    assert str(m(q("1Gi"), "add", q("1G"))) == "2073741824"
    assert m(q("1Gi"), "add", 1).quantity.format is Format.BINARY_SI
    # A zero receiver takes the operand's format; an int operand is DecimalExponent.
    assert m(q("0"), "add", 1000).quantity.format is Format.DECIMAL_EXPONENT
    assert str(m(q("0"), "add", 1000)) == "1e3"


@pytest.mark.parametrize(
    ("text", "integer"),
    [
        ("50k", 50000),
        ("50", 50),
        ("50000000G", 50 * 10**15),
        ("9999999999999999999999999999999999999G", None),
        ("1Gi", 2**30),
        # Go's AsInt64 refuses a negative scale or a decimal-backed value, whole or not.
        ("1000m", None),
        ("1.5Ki", None),
        ("0.5", None),
    ],
)
def test_as_integer_and_is_integer(text: str, integer: int | None) -> None:
    assert m(q(text), "isInteger") is (integer is not None)
    if integer is None:
        with pytest.raises(CelRuntimeError) as info:
            m(q(text), "asInteger")
        assert str(info.value) == "cannot convert value to integer"
    else:
        assert m(q(text), "asInteger") == integer


def test_as_integer_after_overflowing_addition() -> None:
    big = m(q("9223372036854775807"), "add", 1)
    assert m(big, "isInteger") is False
    assert m(m(q("1"), "add", 9223372036854775806), "asInteger") == 9223372036854775807


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("50.703k", 50703.0),
        ("1.1Ki", 1126.4),
        ("2Gi", 2147483648.0),
        ("0", 0.0),
        ("-1m", -0.001),
        ("12E", 1.2e19),
    ],
)
def test_as_approximate_float(text: str, value: float) -> None:
    result = m(q(text), "asApproximateFloat")
    assert isinstance(result, float) and result == value


def test_as_approximate_float_overflows_to_infinity() -> None:
    assert m(q("1e400"), "asApproximateFloat") == math.inf
    assert m(q("-1e400"), "asApproximateFloat") == -math.inf


# --- the value type --------------------------------------------------------------------


def test_results_of_add_and_sub_are_pointers_in_go() -> None:
    added = m(q("1"), "add", 1)
    assert added.by_reference
    assert added.go_type == "*cel.Quantity"
    assert q("1").go_type == "cel.Quantity"
    assert CelQuantity.go_type == "cel.Quantity"
    # cel.Quantity.Equal only accepts the value shape on its right.
    assert added.cel_equals(q("2"))
    assert not q("2").cel_equals(added)
    assert not added.cel_equals(m(q("0"), "add", 2))
    assert not q("1").cel_equals(1)


def test_stored_values_decode_like_the_api_server() -> None:
    capacity = CelQuantity.parse(" 80Gi ")
    assert not capacity.by_reference and str(capacity) == "80Gi"
    assert capacity.cel_equals(q("80Gi")) and q("80Gi").cel_equals(capacity)
    assert CelQuantity.parse(2).quantity == Quantity.parse("2")
    assert CelQuantity.parse(Quantity.parse("1k")).quantity == Quantity.parse("1000")
    with pytest.raises(ValueError, match="regular expression"):
        CelQuantity.parse("lots")


def test_python_equality_and_hash_are_by_value() -> None:
    a, b = q("1Gi"), m(q("1023Mi"), "add", q("1Mi"))
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, q("1073741824")}) == 1
    assert a != q("1G")
    assert (a == Quantity.parse("1Gi")) is False


def test_string_forms() -> None:
    assert str(q("1.5")) == "1500m"
    assert str(q("1024Mi")) == "1Gi"
    assert str(m(q("1Gi"), "sub", q("512Mi"))) == "512Mi"
    assert repr(q("1Gi")) == "CelQuantity(Quantity('1Gi', BinarySI))"


def test_unbounded_arithmetic_is_a_cel_error() -> None:
    with pytest.raises(CelRuntimeError, match="digits"):
        m(q("1e2147483647"), "add", 1)
