"""DRA device selectors: compile once, evaluate once per distinct combination of the values read.

`compile_expression` caches compiled programs by (expression, features, flavour).
`Selector.evaluate(device)` builds the `device` variable the way the scheduler
does (attributes and capacity as domain -> id maps, bare names under the driver's
domain, a missing domain is an empty map) and memoizes results, including errors,
on exactly the device values the expression reads (see `reads.py`).
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from ...model.errors import CelCompileError, CelRuntimeError
from . import ast
from . import types as t
from .budget import Program
from .checker import check
from .cost import estimate_cost
from .environment import NEW, STORED, Features, dra_env

__all__ = ["NEW", "STORED", "Features"]
from .evaluator import DefaultMap, compile_program, evaluate
from .parser import parse
from .reads import Path, device_reads

DEFAULT_FEATURES = Features()

# resourceapi.CELSelectorExpressionMaxCost and CELSelectorExpressionMaxLength.
COST_LIMIT = 1_000_000
MAX_EXPRESSION_LENGTH = 10 * 1024
_HINT = ". Consider using CEL optional chaining (?), has() macro, or orValue() for optional fields"


class AttributeValue(NamedTuple):
    """A device attribute as the API gives it: exactly one of these should be set. (A tuple: large
    clusters publish hundreds of thousands of attributes, and tuples are cheap to build.)"""

    int: builtins.int | None = None
    bool: builtins.bool | None = None
    string: str | None = None
    version: str | None = None
    ints: tuple[builtins.int, ...] | None = None
    bools: tuple[builtins.bool, ...] | None = None
    strings: tuple[str, ...] | None = None
    versions: tuple[str, ...] | None = None

    @classmethod
    def of(cls, model: Any) -> AttributeValue:
        """From a client model (V1DeviceAttribute), a plain mapping, or itself."""
        if isinstance(model, AttributeValue):
            return model

        # A pydantic model keeps its fields in __dict__: reading that is far cheaper than getattr on
        # 8 names for each of the hundreds of thousands of attributes a large cluster publishes.
        fields: Mapping[str, Any] = model if isinstance(model, Mapping) else vars(model)
        get = fields.get

        def seq(name: str) -> tuple[Any, ...] | None:
            value = get(name)
            return tuple(value) if value is not None else None

        return cls(
            get("int"),
            get("bool"),
            get("string"),
            get("version"),
            seq("ints"),
            seq("bools"),
            seq("strings"),
            seq("versions"),
        )


@dataclass(frozen=True)
class DeviceInput:
    """What a selector can see of one device."""

    driver: str
    attributes: Mapping[str, AttributeValue] = field(default_factory=dict)
    capacity: Mapping[str, str] = field(default_factory=dict)  # name -> quantity text
    allow_multiple_allocations: bool | None = None
    # device_problem per feature set: it depends on the device alone, and every evaluation asks.
    problems: dict[Any, CelRuntimeError | None] = field(default_factory=dict, compare=False, repr=False)
    # Set when every attribute is a scalar: the problem is then the same under every feature set (only
    # list values depend on them), and whoever built the input already knows it.
    scalar_problem: CelRuntimeError | bool | None = field(default=False, compare=False, repr=False)

    @classmethod
    def of(cls, driver: str, device: Any) -> DeviceInput:
        """From a resource.k8s.io/v1 Device model."""
        attributes = {k: AttributeValue.of(v) for k, v in (device.attributes or {}).items()}
        capacity = {k: v.value for k, v in (device.capacity or {}).items()}
        return cls(driver, attributes, capacity, device.allow_multiple_allocations)


def split_qualified(name: str, driver: str) -> tuple[str, str]:
    """`domain/id` -> (domain, id); a bare id belongs to the driver's domain."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def attribute_value(name: str, attr: AttributeValue, features: Features) -> Any:
    """The CEL value of one attribute; CelRuntimeError when it has none CEL can use."""
    from .library.semver import parse_semver

    def version(text: str) -> Any:
        try:
            return parse_semver(text)
        except ValueError as e:
            raise CelRuntimeError(f"attribute {name}: parse semantic version: {e}") from None

    if attr.int is not None:
        return attr.int
    if attr.bool is not None:
        return attr.bool
    if attr.string is not None:
        return attr.string
    if attr.version is not None:
        return version(attr.version)
    if features.list_type_attributes:
        if attr.ints is not None:
            return list(attr.ints)
        if attr.bools is not None:
            return list(attr.bools)
        if attr.strings is not None:
            return list(attr.strings)
        if attr.versions is not None:
            return [version(v) for v in attr.versions]
    raise CelRuntimeError(f"attribute {name}: unsupported attribute value")


def device_variable(device: DeviceInput, features: Features) -> dict[str, Any]:
    """The `device` variable for one device, exactly as the scheduler builds it."""
    from .library.quantity import CelQuantity

    attributes: dict[str, dict[str, Any]] = {}
    for name, attr in device.attributes.items():
        if _hidden(attr, features):
            continue
        domain, ident = split_qualified(name, device.driver)
        attributes.setdefault(domain, {})[ident] = attribute_value(name, attr, features)
    capacity: dict[str, dict[str, Any]] = {}
    for name, quantity in device.capacity.items():
        domain, ident = split_qualified(name, device.driver)
        capacity.setdefault(domain, {})[ident] = CelQuantity.parse(quantity)
    value: dict[str, Any] = {
        "driver": device.driver,
        "attributes": DefaultMap(attributes, {}),
        "capacity": DefaultMap(capacity, {}),
    }
    if features.consumable_capacity:
        value["allowMultipleAllocations"] = bool(device.allow_multiple_allocations)
    return value


@dataclass
class CompiledExpression:
    expression: str
    features: Features
    env_type: str
    program: Program | None = None
    error: CelCompileError | None = None
    max_cost: int = 0
    reads: frozenset[Path] | None = None
    node: ast.Node | None = None


_ATTRIBUTE_TYPES = ("int", "bool", "string", "kubernetes.Semver")


def _output_error(output: t.CelType, result: str) -> str | None:
    if t.is_dyn(output):
        return None
    if result == "bool":
        return None if output.name == "bool" else f"must evaluate to bool or the unknown type, not {output}"
    element = output.params[0] if output.name == "list" else output
    if t.is_dyn(element) or element.name in _ATTRIBUTE_TYPES:
        return None
    return f"must evaluate to an attribute value (int, bool, string, semver or a list of them), not {output}"


@lru_cache(maxsize=4096)
def compile_expression(
    expression: str, features: Features = DEFAULT_FEATURES, env_type: str = STORED, result_kind: str = "bool"
) -> CompiledExpression:
    """Parse, type-check and compile an expression; the error (if any) is in `.error`, never raised.

    `result_kind` is "bool" for selectors and "attribute" for derived attributes.
    """
    result = CompiledExpression(expression, features, env_type)
    try:
        node = parse(expression)
        output = check(node, dra_env(features, env_type), expression)
    except CelCompileError as e:
        result.error = CelCompileError(f"compilation failed: {e.detail}", e.line, e.column)
        return result
    message = _output_error(output, result_kind)
    if message is not None:
        result.error = CelCompileError(message)
        return result
    result.node = node
    result.program = compile_program(node)
    result.max_cost = estimate_cost(node)
    result.reads = device_reads(node)
    return result


def compile_error_text(
    expression: str, features: Features = DEFAULT_FEATURES, new: bool = True, result: str = "bool"
) -> str | None:
    """What the API server says about an expression when an object is written (None = accepted)."""
    if len(expression) > MAX_EXPRESSION_LENGTH:
        return f"may not be longer than {MAX_EXPRESSION_LENGTH} bytes"
    compiled = compile_expression(expression, features, NEW if new else STORED, result)
    if compiled.error is not None:
        return compiled.error.detail
    if compiled.max_cost > COST_LIMIT:
        return "too complex, exceeds cost limit"
    return None


_MISSING = ("<missing>",)


def _canonical(value: Any) -> Any:
    """A hashable stand-in for a CEL value that keeps types apart (1, 1.0 and true differ)."""
    if isinstance(value, dict):
        return ("map", frozenset((_canonical(k), _canonical(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", tuple(_canonical(v) for v in value))
    return (type(value).__name__, str(value) if not isinstance(value, (int, float, str, bool)) else value)


def _value_at(variable: dict[str, Any], path: Path) -> Any:
    current: Any = variable
    for part in path:
        if isinstance(current, DefaultMap):
            current = current.get(part, current.default)
        elif isinstance(current, dict):
            if part not in current:
                return _MISSING
            current = current[part]
        else:
            return _MISSING
    return _canonical(current)


def input_at(device: DeviceInput, path: Path) -> Any:
    """The same key part as `_value_at`, read straight from the input (no CEL values built)."""
    head = path[0]
    if head == "driver":
        return device.driver
    if head == "allowMultipleAllocations":
        return bool(device.allow_multiple_allocations)
    source: Mapping[str, Any] = device.attributes if head == "attributes" else device.capacity
    if len(path) == 1:
        return tuple(sorted(source.items()))
    domain = path[1]
    if len(path) == 2:
        return tuple(
            sorted((k, v) for k, v in source.items() if split_qualified(k, device.driver)[0] == domain)
        )
    ident = path[2]
    value = source.get(f"{domain}/{ident}", _MISSING)
    if value is _MISSING and domain == device.driver:
        value = source.get(ident, _MISSING)
    return value


def _hidden(attr: AttributeValue, features: Features) -> bool:
    """A list value with DRAListTypeAttributes off: the device is seen without that attribute, so
    selectors reading it fail like on any missing attribute and constraints cannot match it
    (0c8a1b07; 65b832c failed every selector on such a device instead)."""
    return not features.list_type_attributes and (
        attr.ints is not None
        or attr.bools is not None
        or attr.strings is not None
        or attr.versions is not None
    )


def device_problem(device: DeviceInput, features: Features) -> CelRuntimeError | None:
    """The error every selector gets on this device (an attribute CEL cannot represent), if any."""
    if device.scalar_problem is not False:
        return device.scalar_problem  # type: ignore[return-value]
    if features in device.problems:
        return device.problems[features]
    found = None
    for name, attr in device.attributes.items():
        if _hidden(attr, features):
            continue
        try:
            _checked_attribute(name, attr, features)
        except CelRuntimeError as e:
            found = e
            break
    device.problems[features] = found
    return found


@lru_cache(maxsize=65536)
def _checked_attribute(name: str, attr: AttributeValue, features: Features) -> None:
    attribute_value(name, attr, features)


class Selector:
    """One compiled expression bound to a feature set, evaluating devices with memoization."""

    def __init__(
        self,
        expression: str,
        features: Features = DEFAULT_FEATURES,
        env_type: str = STORED,
        cost_limit: int = COST_LIMIT,
    ) -> None:
        self.compiled = compile_expression(expression, features, env_type)
        self.features = features
        self.cost_limit = cost_limit
        self.cache: dict[Any, tuple[bool, CelRuntimeError | None]] = {}
        self.evaluations = 0
        # The memo key lists the values read in path order (paths are distinct: the order is theirs).
        reads = self.compiled.reads
        self.ordered_reads = tuple(sorted(reads)) if reads is not None else None

    @property
    def error(self) -> CelCompileError | None:
        return self.compiled.error

    def evaluate(self, device: DeviceInput | dict[str, Any]) -> bool:
        """Does the device match? Raises CelRuntimeError as the scheduler would fail."""
        if self.compiled.program is None:
            raise self.compiled.error or CelCompileError("not compiled")
        reads = self.compiled.reads
        variable: dict[str, Any] | None
        if isinstance(device, dict):
            variable = device
            key: Any = (
                _canonical(variable)
                if reads is None
                else tuple(sorted((p, _value_at(variable, p)) for p in reads))
            )
        else:
            problem = device_problem(device, self.features)
            if problem is not None:
                raise problem
            variable = None
            ordered = self.ordered_reads
            key = (
                ("device", device) if ordered is None else tuple([(p, input_at(device, p)) for p in ordered])
            )
        cached = self.cache.get(key) if reads is not None or variable is not None else None
        if cached is None:
            if variable is None:
                variable = device_variable(device, self.features)  # type: ignore[arg-type]
            cached = self._run(variable)
            if reads is not None or isinstance(device, dict):
                self.cache[key] = cached
        matched, error = cached
        if error is not None:
            raise error
        return matched

    def _run(self, variable: dict[str, Any]) -> tuple[bool, CelRuntimeError | None]:
        self.evaluations += 1
        assert self.compiled.program is not None
        try:
            result = evaluate(self.compiled.program, {"device": variable}, self.cost_limit)
        except CelRuntimeError as e:
            message = str(e)
            if message.startswith("no such key:"):
                message += _HINT
            return False, CelRuntimeError(message)
        except RecursionError:
            return False, CelRuntimeError("expression too deeply nested to evaluate")
        if not isinstance(result, bool):
            from .values import type_name

            return False, CelRuntimeError(
                f"CEL result of type {type_name(result)} could not be converted to bool"
            )
        return result, None


def evaluate_value(
    expression: str, device: DeviceInput, features: Features = DEFAULT_FEATURES, cost_limit: int = COST_LIMIT
) -> Any:
    """The value of a derived-attribute expression on one device (raises CelCompileError/CelRuntimeError)."""
    compiled = compile_expression(expression, features, STORED, "attribute")
    if compiled.program is None:
        raise compiled.error or CelCompileError("not compiled")
    problem = device_problem(device, features)
    if problem is not None:
        raise problem
    try:
        return evaluate(compiled.program, {"device": device_variable(device, features)}, cost_limit)
    except CelRuntimeError as e:
        message = str(e)
        raise CelRuntimeError(message + _HINT if message.startswith("no such key:") else message) from None
