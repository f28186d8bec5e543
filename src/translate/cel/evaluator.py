"""Evaluating checked CEL: the syntax tree is compiled once into Python closures.

Semantics follow cel-go: `&&`, `||` and `?:` absorb an error when the other
operand decides the result; `all` / `exists` do the same across elements (see
`comprehensions`). Every step is charged as cel-go's cost tracker charges it: one
unit per identifier, selection, index and plain call, the library's cost model for
the others, ten per list literal and thirty per map literal, nothing for literals,
`&&`, `||` and `?:`; past the limit (see `budget`) the evaluation is cancelled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...model.errors import CelRuntimeError
from . import ast, budget
from . import types as t
from .budget import Activation, CostLimitExceeded, Env, Program
from .comprehensions import LIST_CREATE, MAP_CREATE, compile_comprehension
from .registry import Overload, value_matches
from .values import Optional, equal, map_get, type_name


class DefaultMap(dict[Any, Any]):
    """A map whose lookup of a missing key yields a default (DRA: an unknown attribute domain is an
    empty map). `in` and `has()` still see only the real keys, as upstream's wrapper behaves."""

    default: Any = None

    def __init__(self, data: dict[Any, Any], default: Any) -> None:
        super().__init__(data)
        self.default = default


def _find(container: Any, key: Any) -> tuple[bool, Any]:
    if isinstance(container, DefaultMap):
        found, value = map_get(container, key)
        return True, (value if found else container.default)
    if isinstance(container, dict):
        return map_get(container, key)
    raise CelRuntimeError(f"type '{type_name(container)}' does not support field selection")


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) else repr(key)


def select_value(value: Any, field: str, optional: bool) -> Any:
    if isinstance(value, Optional):
        if not value.has:
            return Optional.NONE
        return select_value(value.value, field, True)
    found, result = _find(value, field)
    if optional:
        return Optional(result) if found else Optional.NONE
    if not found:
        raise CelRuntimeError(f"no such key: {field}")
    return result


def index_value(value: Any, index: Any, optional: bool) -> Any:
    if isinstance(value, Optional):
        if not value.has:
            return Optional.NONE
        return index_value(value.value, index, True)
    if isinstance(value, list):
        if isinstance(index, float) and index.is_integer():
            index = int(index)
        if not isinstance(index, int) or isinstance(index, bool):
            raise CelRuntimeError(f"no such overload: _[_](list, {type_name(index)})")
        if not 0 <= index < len(value):
            if optional:
                return Optional.NONE
            raise CelRuntimeError(f"index out of bounds: {index}")
        return Optional(value[index]) if optional else value[index]
    if isinstance(value, dict):
        found, result = _find(value, index)
        if optional:
            return Optional(result) if found else Optional.NONE
        if not found:
            raise CelRuntimeError(f"no such key: {_key_text(index)}")
        return result
    raise CelRuntimeError(f"no such overload: _[_]({type_name(value)}, {type_name(index)})")


def _dispatch(name: str, overloads: list[Overload], args: list[Any]) -> Overload:
    for ov in overloads:
        if len(ov.params) == len(args) and all(
            value_matches(p, a) for p, a in zip(ov.params, args, strict=True)
        ):
            return ov
    shown = ", ".join(type_name(a) for a in args)
    raise CelRuntimeError(f"no such overload: {name}({shown})")


class Compiler:
    """Turns a checked syntax tree into a Program."""

    def compile(self, node: ast.Node) -> Program:
        method: Callable[[Any], Program] = getattr(self, "c_" + type(node).__name__)
        return method(node)

    def c_Literal(self, node: ast.Literal) -> Program:
        value = node.value
        return lambda act, env: value

    def c_Ident(self, node: ast.Ident) -> Program:
        name = node.name.lstrip(".")
        root_only = node.name.startswith(".")
        ty = node.type
        if ty is not None and ty.name == "type" and ty.params and name in t.NAMED_TYPES:
            constant = t.NAMED_TYPES[name]

            def type_ident(act: Activation, env: Env) -> Any:
                if name in env and not root_only:
                    return env[name]
                return constant

            return type_ident

        def ident(act: Activation, env: Env) -> Any:
            act.charge(1)
            try:
                return env[name]
            except KeyError:
                raise CelRuntimeError(f"no such attribute: {name}") from None

        return ident

    def c_Select(self, node: ast.Select) -> Program:
        ty = node.type
        if ty is not None and ty.name == "type" and ty.params:
            from .checker import dotted_name

            qualified = dotted_name(node)
            if qualified in t.NAMED_TYPES:
                constant = t.NAMED_TYPES[qualified]
                return lambda act, env: constant
        operand = self.compile(node.operand)
        field, optional = node.field, node.optional

        def select(act: Activation, env: Env) -> Any:
            act.charge(1)
            return select_value(operand(act, env), field, optional)

        return select

    def c_Has(self, node: ast.Has) -> Program:
        operand = self.compile(node.select.operand)
        field = node.select.field

        def has(act: Activation, env: Env) -> bool:
            act.charge(1)
            value = operand(act, env)
            if isinstance(value, Optional):
                if not value.has:
                    return False
                value = value.value
            if isinstance(value, dict):
                return map_get(value, field)[0]
            raise CelRuntimeError(f"invalid type for field selection: {type_name(value)}")

        return has

    def c_Index(self, node: ast.Index) -> Program:
        operand = self.compile(node.operand)
        index = self.compile(node.index)
        optional = node.optional

        def index_(act: Activation, env: Env) -> Any:
            act.charge(1)
            return index_value(operand(act, env), index(act, env), optional)

        return index_

    def c_ListLit(self, node: ast.ListLit) -> Program:
        elements = [self.compile(e) for e in node.elements]
        optional = node.optional_indices

        def list_lit(act: Activation, env: Env) -> Any:
            act.charge(LIST_CREATE)
            out = []
            for i, element in enumerate(elements):
                value = element(act, env)
                if i in optional:
                    if not isinstance(value, Optional):
                        raise CelRuntimeError(
                            f"cannot initialize optional list element from non-optional value {value!r}"
                        )
                    if value.has:
                        out.append(value.value)
                else:
                    out.append(value)
            return out

        return list_lit

    def c_MapLit(self, node: ast.MapLit) -> Program:
        entries = [(self.compile(e.key), self.compile(e.value), e.optional) for e in node.entries]

        def map_lit(act: Activation, env: Env) -> Any:
            act.charge(MAP_CREATE)
            out: dict[Any, Any] = {}
            for key_fn, value_fn, optional in entries:
                key = key_fn(act, env)
                value = value_fn(act, env)
                if optional:
                    if not isinstance(value, Optional):
                        raise CelRuntimeError("cannot initialize optional entry from non-optional value")
                    if not value.has:
                        continue
                    value = value.value
                if map_get(out, key)[0]:
                    raise CelRuntimeError(f"Failed with repeated key: {_key_text(key)}")
                out[key] = value
            return out

        return map_lit

    def c_StructLit(self, node: ast.StructLit) -> Program:
        raise CelRuntimeError(f"message construction is not supported: {node.type_name}")

    def c_Bind(self, node: ast.Bind) -> Program:
        init = self.compile(node.init)
        body = self.compile(node.body)
        var = node.var

        def bind(act: Activation, env: Env) -> Any:
            # cel.bind expands to a fold over an empty list literal.
            act.charge(LIST_CREATE)
            return body(act, {**env, var: init(act, env)})

        return bind

    # --- calls ------------------------------------------------------------------------------------

    def c_Call(self, node: ast.Call) -> Program:
        fn = node.function
        if fn == "_&&_":
            return self.logical(node, decisive=False)
        if fn == "_||_":
            return self.logical(node, decisive=True)
        if fn == "_?_:_":
            return self.conditional(node)
        if fn in ("or", "orValue") and node.target is not None:
            return self.optional_or(node)
        target = self.compile(node.target) if node.target is not None else None
        args = [self.compile(a) for a in node.args]
        overloads = list(node.overloads)
        if len(overloads) == 1 and target is None and len(args) == 2:
            impl, cost = overloads[0].impl, overloads[0].cost
            a0, a1 = args

            def binary(act: Activation, env: Env) -> Any:
                x, y = a0(act, env), a1(act, env)
                act.charge(cost((x, y)) if cost else 1)
                if not (
                    value_matches(overloads[0].params[0], x) and value_matches(overloads[0].params[1], y)
                ):
                    return _dispatch(fn, overloads, [x, y]).impl(x, y)
                return impl(x, y)

            return binary

        def call(act: Activation, env: Env) -> Any:
            values = ([target(act, env)] if target is not None else []) + [a(act, env) for a in args]
            ov = _dispatch(fn, overloads, values)
            act.charge(ov.cost(values) if ov.cost else 1)
            return ov.impl(*values)

        return call

    def logical(self, node: ast.Call, decisive: bool) -> Program:
        left, right = (self.compile(a) for a in node.args)
        op = "||" if decisive else "&&"

        def run(act: Activation, env: Env) -> Any:
            error: CelRuntimeError | None = None
            try:
                a = left(act, env)
                if not isinstance(a, bool):
                    raise CelRuntimeError(f"no such overload: _{op}_({type_name(a)}, ...)")
                if a is decisive:
                    return decisive
            except CostLimitExceeded:
                raise
            except CelRuntimeError as e:
                error = e
            b = right(act, env)
            if not isinstance(b, bool):
                raise CelRuntimeError(f"no such overload: _{op}_(..., {type_name(b)})")
            if b is decisive:
                return decisive
            if error is not None:
                raise error
            return b

        return run

    def conditional(self, node: ast.Call) -> Program:
        cond, then, other = (self.compile(a) for a in node.args)

        def run(act: Activation, env: Env) -> Any:
            c = cond(act, env)
            if not isinstance(c, bool):
                raise CelRuntimeError(f"no such overload: _?_:_({type_name(c)}, ...)")
            return then(act, env) if c else other(act, env)

        return run

    def optional_or(self, node: ast.Call) -> Program:
        assert node.target is not None
        target = self.compile(node.target)
        (arg,) = (self.compile(a) for a in node.args)
        want_value = node.function == "orValue"
        overloads = list(node.overloads)

        def run(act: Activation, env: Env) -> Any:
            act.charge(1)
            opt = target(act, env)
            if not isinstance(opt, Optional):
                return _dispatch(node.function, overloads, [opt, arg(act, env)]).impl(opt, arg(act, env))
            if opt.has:
                return opt.value if want_value else opt
            other = arg(act, env)
            if not want_value and not isinstance(other, Optional):
                raise CelRuntimeError(f"no such overload: or(optional, {type_name(other)})")
            return other

        return run

    # --- comprehensions ---------------------------------------------------------------------------

    def c_Comprehension(self, node: ast.Comprehension) -> Program:
        predicate = self.compile(node.predicate) if node.predicate is not None else None
        return compile_comprehension(node, self.compile(node.range), self.compile(node.body), predicate)


def compile_program(node: ast.Node) -> Program:
    return Compiler().compile(node)


def evaluate(program: Program, variables: Env, limit: int) -> Any:
    """Run a program; raises CelRuntimeError (`CostLimitExceeded` past `limit` cost units)."""
    return budget.run(program, variables, Activation(limit))


__all__ = ["Activation", "DefaultMap", "compile_program", "equal", "evaluate"]
