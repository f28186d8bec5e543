"""The CEL type checker: compile errors as the Kubernetes API server reports them.

cel-python only parses; the API server also type-checks a selector before it
accepts it. This checker follows cel-go's rules for what users actually write:
undeclared references, undefined fields of the `device` object, overload
resolution (with dyn), homogeneous list and map literals, comprehension ranges.
It annotates each node with its type and each call with the overloads that may
apply at run time, which the evaluator then dispatches among.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...model.errors import CelCompileError
from . import ast
from . import types as t
from .parser import compile_error
from .registry import Overload, Registry
from .values import type_of

_MAP_KEY_TYPES = {"int", "uint", "bool", "string"}
_TYPE_NAMES = t.NAMED_TYPES
_REGEX_FUNCTIONS = {"matches": 1, "find": 1, "findAll": 1}


@dataclass
class Env:
    """Declarations an expression is checked against."""

    variables: dict[str, t.CelType]
    registry: Registry
    # Object type name -> field name -> field type.
    object_fields: dict[str, dict[str, t.CelType]] = field(default_factory=dict)


def _is_anyish(ty: t.CelType) -> bool:
    return t.is_dyn(ty) or ty.name == "any"


def _join(types: list[t.CelType]) -> t.CelType:
    if any(ty.name == "any" for ty in types):
        return ANY
    return t.join(types)


ANY = t.CelType("any")


class Checker:
    def __init__(self, env: Env, source: str) -> None:
        self.env = env
        self.source = source

    def error(self, node: ast.Node, message: str) -> CelCompileError:
        return compile_error(self.source, node.line, node.column, message)

    def check(self, node: ast.Node, scope: dict[str, t.CelType] | None = None) -> t.CelType:
        ty = self._check(node, scope or {})
        node.type = ty
        return ty

    def _check(self, node: ast.Node, scope: dict[str, t.CelType]) -> t.CelType:
        if isinstance(node, ast.Literal):
            return type_of(node.value)
        if isinstance(node, ast.Ident):
            return self.ident(node, scope)
        if isinstance(node, ast.Select):
            return self.select(node, scope)
        if isinstance(node, ast.Has):
            self.select(node.select, scope, test_only=True)
            node.select.type = t.BOOL
            return t.BOOL
        if isinstance(node, ast.Index):
            return self.index(node, scope)
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        if isinstance(node, ast.ListLit):
            return self.list_lit(node, scope)
        if isinstance(node, ast.MapLit):
            return self.map_lit(node, scope)
        if isinstance(node, ast.Bind):
            init = self.check(node.init, scope)
            return self.check(node.body, {**scope, node.var: init})
        if isinstance(node, ast.Comprehension):
            return self.comprehension(node, scope)
        if isinstance(node, ast.StructLit):
            raise self.error(node, f"undeclared reference to '{node.type_name}' (in container '')")
        raise self.error(node, f"unsupported expression {type(node).__name__}")

    # --- names and fields -------------------------------------------------------------------------

    def ident(self, node: ast.Ident, scope: dict[str, t.CelType]) -> t.CelType:
        name = node.name
        if name.startswith("."):
            name = name[1:]
        elif name in scope:
            return scope[name]
        if name in self.env.variables:
            return self.env.variables[name]
        if name in _TYPE_NAMES:
            return t.type_of(_TYPE_NAMES[name])
        raise self.error(node, f"undeclared reference to '{name}' (in container '')")

    def select(self, node: ast.Select, scope: dict[str, t.CelType], test_only: bool = False) -> t.CelType:
        qualified = dotted_name(node)
        if (
            qualified is not None
            and qualified in _TYPE_NAMES
            and qualified.split(".")[0] not in scope
            and qualified.split(".")[0] not in self.env.variables
        ):
            return t.type_of(_TYPE_NAMES[qualified])
        operand = self.check(node.operand, scope)
        if operand.name == "optional_type":
            inner = self.field_type(node, operand.params[0])
            return t.optional_of(inner)
        ty = self.field_type(node, operand)
        return t.optional_of(ty) if node.optional else ty

    def field_type(self, node: ast.Select, operand: t.CelType) -> t.CelType:
        if _is_anyish(operand):
            return t.DYN
        if operand.name == "map":
            key, value = operand.params
            if not (_is_anyish(key) or key == t.STRING):
                raise self.error(node, f"type '{operand}' does not support field selection")
            return value
        fields = self.env.object_fields.get(operand.name)
        if fields is not None:
            if node.field not in fields:
                raise self.error(node, f"undefined field '{node.field}'")
            return fields[node.field]
        raise self.error(node, f"type '{operand}' does not support field selection")

    def index(self, node: ast.Index, scope: dict[str, t.CelType]) -> t.CelType:
        operand = self.check(node.operand, scope)
        index = self.check(node.index, scope)
        wrap = node.optional
        if operand.name == "optional_type":
            operand, wrap = operand.params[0], True
        result = self.element_type(node, operand, index)
        return t.optional_of(result) if wrap else result

    def element_type(self, node: ast.Node, operand: t.CelType, index: t.CelType) -> t.CelType:
        if _is_anyish(operand):
            return t.DYN
        if operand.name == "list" and (_is_anyish(index) or index in (t.INT, t.UINT)):
            return operand.params[0]
        if operand.name == "map" and t.assignable(operand.params[0], index, {}):
            return operand.params[1]
        raise self.error(node, f"found no matching overload for '_[_]' applied to '({operand}, {index})'")

    # --- calls ------------------------------------------------------------------------------------

    def qualified_target(self, node: ast.Call, scope: dict[str, t.CelType]) -> str | None:
        """`sets.contains(...)` parses as a member call on `sets`; it is a global function when no
        variable of that name exists."""
        parts: list[str] = []
        target = node.target
        while isinstance(target, ast.Select) and not target.optional:
            parts.append(target.field)
            target = target.operand
        if not isinstance(target, ast.Ident):
            return None
        root = target.name.lstrip(".")
        if root in scope or root in self.env.variables:
            return None
        parts.append(root)
        return ".".join(reversed(parts)) + "." + node.function

    def call(self, node: ast.Call, scope: dict[str, t.CelType]) -> t.CelType:
        registry = self.env.registry
        if node.target is not None:
            qualified = self.qualified_target(node, scope)
            if qualified is not None and registry.has_global(qualified):
                node.function, node.target = qualified, None
        fn = node.function
        if fn in ("_&&_", "_||_"):
            for arg in node.args:
                self.check(arg, scope)
            types = [a.type for a in node.args if a.type is not None]
            if not all(_is_anyish(ty) or ty == t.BOOL for ty in types):
                raise self.error(node, self.no_overload(fn, None, types))
            return t.BOOL
        if fn == "_?_:_":
            cond, then, other = (self.check(a, scope) for a in node.args)
            if not (_is_anyish(cond) or cond == t.BOOL):
                raise self.error(node, self.no_overload(fn, None, [cond, then, other]))
            if not (t.assignable(then, other, {}) or t.assignable(other, then, {})):
                raise self.error(node, self.no_overload(fn, None, [cond, then, other]))
            return _join([then, other])
        target = self.check(node.target, scope) if node.target is not None else None
        if fn == "format" and node.args and isinstance(node.args[0], ast.ListLit):
            args = [self.format_arguments(node, node.args[0], scope)]
        else:
            args = [self.check(a, scope) for a in node.args]
        member = target is not None
        if not (registry.has_global(fn) if not member else registry.has_member(fn)):
            raise self.error(node, f"undeclared reference to '{fn}' (in container '')")
        actual = ([target] if target is not None else []) + args
        matches: list[tuple[Overload, t.CelType]] = []
        for ov in registry.candidates(fn, member):
            if len(ov.params) != len(actual):
                continue
            bindings: t.Bindings = {}
            if all(t.assignable(p, a, bindings) for p, a in zip(ov.params, actual, strict=True)):
                matches.append((ov, t.substitute(ov.result, bindings)))
        if not matches:
            raise self.error(node, self.no_overload(fn, target, args))
        if fn in _REGEX_FUNCTIONS:
            self.check_regex_literal(node)
        node.overloads = [ov for ov, _ in matches]
        return _join([ty for _, ty in matches])

    def format_arguments(
        self, node: ast.Call, arguments: ast.ListLit, scope: dict[str, t.CelType]
    ) -> t.CelType:
        """The argument list of `format` may mix types (cel-go exempts it from the homogeneity rule);
        with a literal format string, the clauses are checked against the argument types now."""
        from .library.strings import check_format_call

        types = [self.check(e, scope) for e in arguments.elements]
        arguments.type = t.list_of(t.DYN)
        if isinstance(node.target, ast.Literal) and isinstance(node.target.value, str):
            problem = check_format_call(node.target.value, types)
            if problem is not None:
                raise self.error(node, problem)
        return arguments.type

    def check_regex_literal(self, node: ast.Call) -> None:
        """A constant pattern is compiled now, as the Kubernetes environment validates regex literals."""
        from .library.re2 import RegexSyntaxError, compile_re2

        operands = ([node.target] if node.target is not None else []) + list(node.args)
        pattern = operands[_REGEX_FUNCTIONS[node.function]] if len(operands) > 1 else None
        if isinstance(pattern, ast.Literal) and isinstance(pattern.value, str):
            try:
                compile_re2(pattern.value)
            except RegexSyntaxError as e:
                raise self.error(pattern, f"invalid {node.function} argument: {e}") from None

    @staticmethod
    def no_overload(fn: str, target: t.CelType | None, args: list[t.CelType]) -> str:
        shown = ", ".join(str(a) for a in args)
        applied = f"{target}.({shown})" if target is not None else f"({shown})"
        return f"found no matching overload for '{fn}' applied to '{applied}'"

    # --- literals ---------------------------------------------------------------------------------

    def list_lit(self, node: ast.ListLit, scope: dict[str, t.CelType]) -> t.CelType:
        elem_types: list[t.CelType] = []
        first: t.CelType | None = None
        for i, elem in enumerate(node.elements):
            ty = self.check(elem, scope)
            if i in node.optional_indices:
                if ty.name != "optional_type" and not _is_anyish(ty):
                    raise self.error(elem, f"expected type 'optional_type' but found '{ty}'")
                ty = ty.params[0] if ty.params else t.DYN
            if first is None and not _is_anyish(ty):
                first = ty
            elif first is not None and not _is_anyish(ty) and not t.assignable(first, ty, {}):
                raise self.error(elem, f"expected type '{first}' but found '{ty}'")
            elem_types.append(ty)
        return t.list_of(_join(elem_types) if elem_types else t.DYN)

    def map_lit(self, node: ast.MapLit, scope: dict[str, t.CelType]) -> t.CelType:
        keys: list[t.CelType] = []
        values: list[t.CelType] = []
        for entry in node.entries:
            key = self.check(entry.key, scope)
            value = self.check(entry.value, scope)
            if not _is_anyish(key) and key.name not in _MAP_KEY_TYPES:
                raise self.error(entry.key, f"unsupported map key type: {key}")
            if entry.optional:
                if value.name != "optional_type" and not _is_anyish(value):
                    raise self.error(entry.value, f"expected type 'optional_type' but found '{value}'")
                value = value.params[0] if value.params else t.DYN
            for seen, ty, what in ((keys, key, entry.key), (values, value, entry.value)):
                known = [s for s in seen if not _is_anyish(s)]
                if known and not _is_anyish(ty) and not t.assignable(known[0], ty, {}):
                    raise self.error(what, f"expected type '{known[0]}' but found '{ty}'")
                seen.append(ty)
        return t.map_of(_join(keys) if keys else t.DYN, _join(values) if values else t.DYN)

    # --- comprehensions ---------------------------------------------------------------------------

    def comprehension(self, node: ast.Comprehension, scope: dict[str, t.CelType]) -> t.CelType:
        rng = self.check(node.range, scope)
        kind = node.kind
        if kind in (ast.OPT_MAP, ast.OPT_FLAT_MAP):
            if rng.name != "optional_type" and not _is_anyish(rng):
                raise self.error(node, self.no_overload(kind, rng, []))
            inner = rng.params[0] if rng.params else t.DYN
            body = self.check(node.body, {**scope, node.var: inner})
            if kind == ast.OPT_MAP:
                return t.optional_of(body)
            if body.name != "optional_type" and not _is_anyish(body):
                raise self.error(node.body, f"expected type 'optional_type' but found '{body}'")
            return body
        first, second = self.range_vars(node, rng)
        inner_scope = {**scope, node.var: first}
        if node.var2 is not None:
            inner_scope[node.var2] = second
        if node.predicate is not None:
            self.expect_bool(node.predicate, inner_scope, kind)
        if kind in (ast.ALL, ast.EXISTS, ast.EXISTS_ONE, ast.FILTER):
            self.expect_bool(node.body, inner_scope, "_&&_" if kind == ast.ALL else "_||_")
            if kind == ast.FILTER:
                return t.list_of(first)
            return t.BOOL
        body = self.check(node.body, inner_scope)
        if kind in (ast.MAP, ast.TRANSFORM_LIST):
            return t.list_of(body)
        if kind == ast.TRANSFORM_MAP:
            key = rng.params[0] if rng.name == "map" else (t.INT if rng.name == "list" else t.DYN)
            return t.map_of(key, body)
        if body.name != "map" and not _is_anyish(body):
            raise self.error(node.body, f"expected type 'map' but found '{body}'")
        return body if body.name == "map" else t.map_of(t.DYN, t.DYN)

    def range_vars(self, node: ast.Comprehension, rng: t.CelType) -> tuple[t.CelType, t.CelType]:
        two = node.var2 is not None
        if _is_anyish(rng):
            return t.DYN, t.DYN
        if rng.name == "list":
            return (t.INT, rng.params[0]) if two else (rng.params[0], t.DYN)
        if rng.name == "map":
            return rng.params[0], rng.params[1]
        raise self.error(
            node.range,
            f"expression of type '{rng}' cannot be the range of a comprehension "
            "(must be list, map, or dynamic)",
        )

    def expect_bool(self, node: ast.Node, scope: dict[str, t.CelType], op: str) -> None:
        ty = self.check(node, scope)
        if not (_is_anyish(ty) or ty == t.BOOL):
            raise self.error(node, self.no_overload(op, None, [t.BOOL, ty]))


def dotted_name(node: ast.Node) -> str | None:
    """`a.b.c` written as selections on a plain identifier, as one dotted name."""
    parts: list[str] = []
    while isinstance(node, ast.Select) and not node.optional:
        parts.append(node.field)
        node = node.operand
    if not isinstance(node, ast.Ident):
        return None
    parts.append(node.name.lstrip("."))
    return ".".join(reversed(parts))


def check(node: ast.Node, env: Env, source: str) -> t.CelType:
    """Type-check a parsed expression, annotating it; raises CelCompileError."""
    return Checker(env, source).check(node)
