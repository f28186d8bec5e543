"""The CEL core: parsing with optional syntax, type checking, evaluation semantics, cost, and the
memoization that evaluates a selector once per distinct combination of the values it reads."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubefit.model.errors import CelCompileError, CelRuntimeError
from kubefit.translate.cel import ast
from kubefit.translate.cel.environment import Features
from kubefit.translate.cel.parser import parse
from kubefit.translate.cel.reads import device_reads
from kubefit.translate.cel.selector import (
    AttributeValue,
    DeviceInput,
    Selector,
    compile_error_text,
    compile_expression,
    device_variable,
)

DRIVER = "gpu.example.com"


def device(**attrs: Any) -> DeviceInput:
    attributes = {}
    for name, value in attrs.items():
        key = {bool: "bool", int: "int", str: "string"}[type(value)]
        attributes[name] = AttributeValue(**{key: value})
    return DeviceInput(DRIVER, attributes, {"memory": "40Gi"})


# --- parsing ------------------------------------------------------------------------------------------


def test_optional_syntax_parses_into_optional_nodes() -> None:
    node = parse('a.?b[?"c"]')
    assert isinstance(node, ast.Index) and node.optional
    assert isinstance(node.operand, ast.Select) and node.operand.optional


def test_optional_list_and_map_elements_parse() -> None:
    lst = parse("[?a, b]")
    assert isinstance(lst, ast.ListLit) and lst.optional_indices == frozenset({0})
    mp = parse('{?"k": v, "x": 1,}')
    assert isinstance(mp, ast.MapLit) and [e.optional for e in mp.entries] == [True, False]


def test_cel_bind_is_a_macro() -> None:
    node = parse("cel.bind(x, 1, x + 1)")
    assert isinstance(node, ast.Bind) and node.var == "x"


def test_macro_variables_must_be_simple_names() -> None:
    with pytest.raises(CelCompileError) as info:
        parse("[1].all(x.y, true)")
    assert "argument must be a simple name" in info.value.detail


def test_syntax_errors_point_at_the_position() -> None:
    with pytest.raises(CelCompileError) as info:
        parse("a &&\n  || b")
    assert info.value.detail.startswith("ERROR: <input>:2:3: Syntax error: mismatched input '||'")
    assert info.value.detail.splitlines()[1:] == [" |   || b", " | ..^"]


def test_the_most_negative_int_literal_is_valid() -> None:
    node = parse("-9223372036854775808")
    assert isinstance(node, ast.Literal) and node.value == -(2**63)


def test_an_out_of_range_int_literal_is_a_compile_error() -> None:
    with pytest.raises(CelCompileError):
        parse("9223372036854775808")


# --- checking and evaluating --------------------------------------------------------------------------


def evaluate(expression: str, dev: DeviceInput | None = None) -> bool:
    selector = Selector(expression)
    assert selector.error is None, selector.error.detail if selector.error else ""
    return selector.evaluate(dev or device())


@pytest.mark.parametrize(
    "expression,expected",
    [
        ("true ? 1 == 1 : 1 / 0 == 0", True),
        ("false || (1 / 0 == 0 || true)", True),
        ("[1, 2].exists(x, 1 / (x - 1) == 1)", True),
        ("{'a': 1}.all(k, k == 'a')", True),
        ("'abc' < 'abd' && b'a' < b'b' && 1u < 2u", True),
        ("[1, 2] + [3] == [1, 2, 3]", True),
        ("{'a': {'b': 1}}.a.b == 1", True),
        ("{'a': 1}.?b.orValue(7) == 7", True),
        ("optional.of({'x': 1}).x.value() == 1", True),
        ("type(optional.none()) == type(optional.of(1))", True),
        ("-7 / 2 == -3 && -7 % 2 == -1", True),
        ("double(1) / 0.0 > 1e308", True),
        ("size([1, 2, 3]) == 3 && size({'a': 1}) == 1 && size(b'ab') == 2", True),
        ("string(1.5) == '1.5' && string(1e6) == '1e+06' && string(true) == 'true'", True),
    ],
)
def test_standard_semantics(expression: str, expected: bool) -> None:
    assert evaluate(expression) is expected


@pytest.mark.parametrize(
    "expression,error",
    [
        ("1 / 0 == 0", "division by zero"),
        ("1 % 0 == 0", "modulus by zero"),
        ("[1][2] == 1", "index out of bounds: 2"),
        ("{'a': 1}['b'] == 1", "no such key: b"),
        ("optional.none().value() == 1", "optional.none() dereference"),
        ("9223372036854775807 * 2 > 0", "integer overflow"),
        ("uint(-1) == 1u", "unsigned integer overflow"),
        ("{'a': 1, 'a': 2}.size() == 1", "repeated key"),
    ],
)
def test_runtime_errors(expression: str, error: str) -> None:
    with pytest.raises(CelRuntimeError) as info:
        evaluate(expression)
    assert error in str(info.value)


@pytest.mark.parametrize(
    "expression,error",
    [
        ("device.nope", "undefined field 'nope'"),
        ("x == 1", "undeclared reference to 'x'"),
        ("1 + 'a' == 1", "found no matching overload for '_+_' applied to '(int, string)'"),
        ("'a'.nope()", "undeclared reference to 'nope'"),
        ("[1].map(x, x) == 1", "found no matching overload for '_==_'"),
        ("(1).exists(x, true)", "cannot be the range of a comprehension"),
        ("{1.5: 'a'}.size() == 1", "unsupported map key type: double"),
        ("Foo{a: 1} == 1", "undeclared reference to 'Foo'"),
        ("'x'.matches('(')", "invalid matches argument"),
        ("'%d'.format(['a']) == ''", "decimal clause can only be used on integers"),
    ],
)
def test_compile_errors(expression: str, error: str) -> None:
    compiled = compile_expression(expression)
    assert compiled.error is not None
    assert error in compiled.error.detail


def test_a_bool_result_is_required_of_selectors_but_not_of_derived_attributes() -> None:
    assert "must evaluate to bool" in (compile_error_text('device.attributes["d"].x + 1') or "")
    assert compile_error_text('device.attributes["d"].x + 1', result="attribute") is None
    assert "must evaluate to an attribute value" in (compile_error_text("{'a': 1}", result="attribute") or "")


def test_the_runtime_cost_limit_stops_a_runaway_expression() -> None:
    selector = Selector(
        "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
        "[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, "
        "[1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, f > 0))))))",
        cost_limit=100_000,
    )
    with pytest.raises(CelRuntimeError) as info:
        selector.evaluate(device())
    assert "actual cost limit exceeded" in str(info.value)


def test_the_cost_estimate_refuses_what_the_api_server_refuses() -> None:
    nested = "[1,2,3,4,5,6,7,8,9,10].all(x, " * 7 + "true" + ")" * 7
    assert compile_error_text(nested) == "too complex, exceeds cost limit"
    assert compile_error_text('device.attributes["d"].exists_one(x, x == "y")') is None


def test_a_missing_domain_is_an_empty_map_and_a_missing_key_is_an_error() -> None:
    assert evaluate('device.attributes["nowhere.example.com"].size() == 0')
    with pytest.raises(CelRuntimeError) as info:
        evaluate('device.attributes["nowhere.example.com"].x == 1')
    assert str(info.value).startswith("no such key: x. Consider using CEL optional chaining")


def test_bare_attribute_names_belong_to_the_driver_domain() -> None:
    dev = DeviceInput(
        DRIVER,
        {"model": AttributeValue(string="A100"), "other.example.com/model": AttributeValue(string="B")},
        {},
    )
    variable = device_variable(dev, Features())
    assert variable["attributes"][DRIVER] == {"model": "A100"}
    assert variable["attributes"]["other.example.com"] == {"model": "B"}


def test_allow_multiple_allocations_only_with_consumable_capacity() -> None:
    dev = DeviceInput(DRIVER, {}, {}, True)
    assert device_variable(dev, Features())["allowMultipleAllocations"] is True
    assert "allowMultipleAllocations" not in device_variable(dev, Features(consumable_capacity=False))


# --- what an expression reads, and memoization --------------------------------------------------------


@pytest.mark.parametrize(
    "expression,reads",
    [
        ('device.driver == "x"', {("driver",)}),
        ('device.attributes["d"].model == "A"', {("attributes", "d", "model")}),
        ('device.attributes["d"]["model"] == "A"', {("attributes", "d", "model")}),
        (
            'cel.bind(a, device.attributes["d"], a.x && a.y)',
            {("attributes", "d", "x"), ("attributes", "d", "y")},
        ),
        ('device.attributes["d"].exists(k, k == "x")', {("attributes", "d")}),
        ('"m" in device.capacity["d"]', {("capacity", "d", "m")}),
        ('has(device.attributes["d"].x)', {("attributes", "d", "x")}),
        ('device.attributes["d"].?x.orValue(1) == 1', {("attributes", "d", "x")}),
        ('device.attributes.exists(d, d == "x")', {("attributes",)}),
        ('device.attributes["d"][device.driver] == 1', {("attributes", "d"), ("driver",)}),
    ],
)
def test_reads_are_found_statically(expression: str, reads: set[tuple[str, ...]]) -> None:
    assert device_reads(parse(expression)) == frozenset(reads)


def test_using_the_whole_device_reads_everything() -> None:
    assert device_reads(parse("[device].size() == 1")) is None


def test_ten_thousand_devices_of_three_models_are_three_evaluations() -> None:
    selector = Selector(
        f'device.attributes["{DRIVER}"].model == "H100" && '
        f'device.capacity["{DRIVER}"].memory.isGreaterThan(quantity("10Gi"))'
    )
    models = ["A100", "H100", "L4"]
    matched = sum(selector.evaluate(device(model=models[i % 3], uuid=f"GPU-{i}")) for i in range(10_000))
    assert matched == 3333
    assert selector.evaluations == 3


def test_runtime_errors_are_memoized_too() -> None:
    selector = Selector(f'device.attributes["{DRIVER}"].cores > 2')
    for i in range(100):
        with pytest.raises(CelRuntimeError):
            selector.evaluate(device(uuid=f"GPU-{i}"))
    assert selector.evaluations == 1


def test_a_device_with_an_unusable_attribute_fails_whatever_the_expression_reads() -> None:
    dev = DeviceInput(DRIVER, {"broken": AttributeValue()}, {})
    with pytest.raises(CelRuntimeError) as info:
        Selector("true").evaluate(dev)
    assert str(info.value) == "attribute broken: unsupported attribute value"


EXPRESSIONS = [
    f'device.attributes["{DRIVER}"].model == "H100"',
    f'device.attributes["{DRIVER}"].?cores.orValue(0) > 64',
    f'cel.bind(a, device.attributes["{DRIVER}"], a.?model.orValue("") == "A100" || a.?ok.orValue(false))',
    f'device.attributes["{DRIVER}"].exists(k, k == "ok")',
    f'device.attributes["{DRIVER}"].cores > 64',
    f'"{DRIVER}" in device.attributes && has(device.attributes["{DRIVER}"].model)',
    'device.attributes["other.example.com"].?model.hasValue()',
]

attribute_values = st.one_of(
    st.builds(lambda v: AttributeValue(string=v), st.sampled_from(["H100", "A100", "L4"])),
    st.builds(lambda v: AttributeValue(int=v), st.integers(0, 200)),
    st.builds(lambda v: AttributeValue(bool=v), st.booleans()),
)
devices = st.builds(
    lambda attrs: DeviceInput(DRIVER, attrs, {"memory": "40Gi"}),
    st.dictionaries(st.sampled_from(["model", "cores", "ok", "other.example.com/model"]), attribute_values),
)


def outcome(selector: Selector, dev: DeviceInput) -> tuple[str, Any]:
    try:
        return "value", selector.evaluate(dev)
    except CelRuntimeError as e:
        return "error", str(e)


@settings(max_examples=200, deadline=None)
@given(st.lists(devices, min_size=1, max_size=12))
def test_memoized_answers_equal_fresh_evaluation(devs: list[DeviceInput]) -> None:
    for expression in EXPRESSIONS:
        shared = Selector(expression)
        for dev in devs:
            fresh = Selector(expression)
            fresh.cache.clear()
            assert outcome(shared, dev) == outcome(fresh, dev), (expression, dev)
