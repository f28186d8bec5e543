"""Comprehension macros (`all`, `exists`, `map`, `transformMap`, ...) and what cel-go charges for them.

cel-go expands each macro into a fold over its range, with an accumulator
`__result__`, a loop condition and a step (parser/macro.go, ext/comprehensions.go),
and charges the steps of that expansion as it runs them: one unit per identifier
(`__result__`, the iteration variables) and per plain call, ten per list literal
and thirty per map literal, nothing for literals, `&&`, `||` and `?:`. The
constants below are those charges; the semantics (an error in one element is
absorbed when another decides `all`/`exists`) are the fold's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ...model.errors import CelRuntimeError
from . import ast
from .budget import Activation, CostLimitExceeded, Env, Program
from .values import Optional, go_type_name, map_get, type_name

# The loop condition of `all`, `@not_strictly_false(__result__)`, and of `exists`, which negates first.
_ALL_CONDITION = 2
_EXISTS_CONDITION = 3
# `__result__ && p` / `__result__ || p`: the accumulator is read.
_QUANTIFIER_STEP = 1
# exists_one: `p ? __result__ + 1 : __result__`, then `__result__ == 1`. A conditional charges nothing
# for a branch that only reads a variable, so an element that does not count costs only its predicate.
_COUNT_STEP, _COUNT_RESULT = 2, 2
# map / filter / transformList: `__result__ + [x]`; a filtered-out element, like above, costs nothing more.
_APPEND_STEP = 12
# transformMap: `cel.@mapInsert(__result__, k, v)`; transformMapEntry: `cel.@mapInsert(__result__, e)`.
_INSERT_STEP, _INSERT_ENTRY_STEP = 3, 2
# The accumulator's first value (`[]`, `{}`) and reading the final one.
LIST_CREATE, MAP_CREATE, _RESULT = 10, 30, 1
# optMap: `o.hasValue() ? optional.of(cel.bind(v, o.value(), e)) : optional.none()`; optFlatMap the same
# without `optional.of`.
_HAS_VALUE, _OPT_ABSENT = 1, 1
_OPT_PRESENT = {ast.OPT_MAP: 12, ast.OPT_FLAT_MAP: 11}


def _iterable(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return value
    raise CelRuntimeError(f"got '{go_type_name(value)}', expected iterable type")


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) else repr(key)


def compile_comprehension(
    node: ast.Comprehension, rng: Program, body: Program, predicate: Program | None
) -> Program:
    """The program of one comprehension, given the programs of its range, body and filter."""
    var, var2, kind = node.var, node.var2, node.kind
    if kind in (ast.OPT_MAP, ast.OPT_FLAT_MAP):
        return _optional_map(kind, var, rng, body)

    def bindings(container: Any) -> Iterator[tuple[Any, Any]]:
        if isinstance(container, list):
            return ((v, None) for v in container) if var2 is None else enumerate(container)
        return ((k, None) for k in container) if var2 is None else ((k, container[k]) for k in container)

    def scope(env: Env, a: Any, b: Any) -> Env:
        inner = {**env, var: a}
        if var2 is not None:
            inner[var2] = b
        return inner

    if kind in (ast.ALL, ast.EXISTS):
        decisive = kind == ast.EXISTS
        condition = _EXISTS_CONDITION if decisive else _ALL_CONDITION

        def quantifier(act: Activation, env: Env) -> Any:
            container = _iterable(rng(act, env))
            error: CelRuntimeError | None = None
            remaining = len(container)
            for a, b in bindings(container):
                remaining -= 1
                act.charge(condition + _QUANTIFIER_STEP)
                try:
                    value = body(act, scope(env, a, b))
                except CostLimitExceeded:
                    raise
                except CelRuntimeError as e:
                    error = error or e
                    continue
                if not isinstance(value, bool):
                    error = error or CelRuntimeError(
                        f"no such overload: {kind} body of type {type_name(value)}"
                    )
                    continue
                if value is decisive:
                    # The next loop condition sees the decided accumulator and stops the fold.
                    act.charge((condition if remaining else 0) + _RESULT)
                    return decisive
            act.charge(_RESULT)
            if error is not None:
                raise error
            return not decisive

        return quantifier

    if kind == ast.EXISTS_ONE:

        def exists_one(act: Activation, env: Env) -> Any:
            container = _iterable(rng(act, env))
            count = 0
            for a, b in bindings(container):
                value = body(act, scope(env, a, b))
                if not isinstance(value, bool):
                    raise CelRuntimeError(f"no such overload: exists_one body of type {type_name(value)}")
                if value:
                    act.charge(_COUNT_STEP)
                    count += 1
            act.charge(_COUNT_RESULT)
            return count == 1

        return exists_one

    if kind == ast.FILTER:

        def filter_(act: Activation, env: Env) -> Any:
            container = _iterable(rng(act, env))
            act.charge(LIST_CREATE)
            out = []
            for a, b in bindings(container):
                keep = body(act, scope(env, a, b))
                if not isinstance(keep, bool):
                    raise CelRuntimeError(f"no such overload: filter predicate of type {type_name(keep)}")
                if keep:
                    # Appending `[x]` reads x too.
                    act.charge(_APPEND_STEP + 1)
                    out.append(a)
            act.charge(_RESULT)
            return out

        return filter_

    return _transform(kind, rng, body, predicate, bindings, scope)


def _transform(
    kind: str,
    rng: Program,
    body: Program,
    predicate: Program | None,
    bindings: Callable[[Any], Iterator[tuple[Any, Any]]],
    scope: Callable[[Env, Any, Any], Env],
) -> Program:
    """map, transformList, transformMap and transformMapEntry, with an optional filter."""
    as_map = kind in (ast.TRANSFORM_MAP, ast.TRANSFORM_MAP_ENTRY)
    step = {ast.TRANSFORM_MAP: _INSERT_STEP, ast.TRANSFORM_MAP_ENTRY: _INSERT_ENTRY_STEP}.get(
        kind, _APPEND_STEP
    )

    def transform(act: Activation, env: Env) -> Any:
        container = _iterable(rng(act, env))
        act.charge(MAP_CREATE if as_map else LIST_CREATE)
        out_list: list[Any] = []
        out_map: dict[Any, Any] = {}
        for a, b in bindings(container):
            inner = scope(env, a, b)
            if predicate is not None:
                keep = predicate(act, inner)
                if not isinstance(keep, bool):
                    raise CelRuntimeError(f"no such overload: {kind} predicate of type {type_name(keep)}")
                if not keep:
                    continue
            value = body(act, inner)
            act.charge(step)
            if kind == ast.TRANSFORM_MAP:
                out_map[a] = value
            elif kind == ast.TRANSFORM_MAP_ENTRY:
                if not isinstance(value, dict):
                    raise CelRuntimeError(f"transformMapEntry body must be a map, not {type_name(value)}")
                for k, v in value.items():
                    if map_get(out_map, k)[0]:
                        raise CelRuntimeError(f"insert failed: key {_key_text(k)} already exists")
                    out_map[k] = v
            else:
                out_list.append(value)
        act.charge(_RESULT)
        return out_map if as_map else out_list

    return transform


def _optional_map(kind: str, var: str, rng: Program, body: Program) -> Program:
    def opt_map(act: Activation, env: Env) -> Any:
        value = rng(act, env)
        if not isinstance(value, Optional):
            raise CelRuntimeError(f"no such overload: {kind}({type_name(value)})")
        act.charge(_HAS_VALUE + (_OPT_PRESENT[kind] if value.has else _OPT_ABSENT))
        if not value.has:
            return Optional.NONE
        result = body(act, {**env, var: value.value})
        if kind == ast.OPT_MAP:
            return Optional(result)
        if not isinstance(result, Optional):
            raise CelRuntimeError(f"optFlatMap body must return an optional, not {type_name(result)}")
        return result

    return opt_map
