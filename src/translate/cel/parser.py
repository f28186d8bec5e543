"""Parsing CEL with cel-python's lark grammar, extended with the optional syntax Kubernetes allows.

cel-python's grammar (`celpy/cel.lark`) lacks CEL's optional syntax: `a.?b`,
`a[?k]`, `[?x]`, `{?k: v}`. We load that grammar unchanged and add the missing
forms with lark's `%extend` / `%override`; trailing commas in list and map
literals come along. Macros (has, all, exists, exists_one, map, filter, the
two-variable forms, optMap/optFlatMap and `cel.bind`) are expanded while the
lark tree becomes our syntax tree.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any, TypeAlias

import lark
from celpy.celparser import CELParser
from celpy.evaluation import celbytes, celstr

from ...model.errors import CelCompileError
from . import ast
from .values import INT64_MAX, INT64_MIN, UINT64_MAX, Uint

# lark trees are walked by rule name; their children are typed loosely on purpose.
Tree: TypeAlias = Any

_EXTENSION = r"""
%extend member: member_dot_opt | member_index_opt
member_dot_opt : member "." "?" IDENT
member_index_opt : member "[" "?" expr "]"
%override list_lit : "[" [listelems] "]"
listelems : listelem ("," listelem)* [","]
listelem : [opt_mark] expr
opt_mark : "?"
%override map_lit : "{" [mapentries] "}"
mapentries : mapentry ("," mapentry)* [","]
mapentry : [opt_mark] expr ":" expr
"""

MAX_EXPRESSION_DEPTH = 250


@cache
def _parser() -> lark.Lark:
    grammar = resources.files("celpy").joinpath("cel.lark").read_text(encoding="utf-8")
    return lark.Lark(
        grammar + _EXTENSION,
        parser="lalr",
        start="expr",
        propagate_positions=True,
        maybe_placeholders=False,
        priority="invert",
        g_regex_flags=re.M,
        lexer_callbacks={"IDENT": CELParser.ambiguous_literals},
        # Building the LALR tables takes about a second; lark keeps them in a cache file.
        cache=True,
    )


def error_detail(source: str, line: int, column: int, message: str) -> str:
    """cel-go's issue format: `ERROR: <input>:L:C: message` with the line and a caret under it."""
    lines = source.splitlines() or [""]
    text = lines[line - 1] if 0 < line <= len(lines) else source
    caret = "." * max(column - 1, 0) + "^"
    return f"ERROR: <input>:{line}:{column}: {message}\n | {text}\n | {caret}"


def compile_error(source: str, line: int, column: int, message: str) -> CelCompileError:
    return CelCompileError(error_detail(source, line, column, message), line, column)


def parse(source: str) -> ast.Node:
    """Parse a CEL expression into our syntax tree; raises CelCompileError on syntax errors."""
    try:
        tree = _parser().parse(source)
    except lark.exceptions.UnexpectedCharacters as e:
        pos = e.pos_in_stream or 0
        message = f"Syntax error: token recognition error at: '{source[pos : pos + 1]}'"
        raise compile_error(source, e.line or 1, e.column or 1, message) from None
    except lark.exceptions.UnexpectedToken as e:
        token = e.token
        found = "<EOF>" if token.type == "$END" else str(token)
        expected = ", ".join(sorted(f"{x}" for x in e.expected)[:8])
        if token.type == "$END":
            line, column = _last_line(source), _eof_column(source)
        else:
            line = getattr(token, "line", None) or _last_line(source)
            column = getattr(token, "column", None) or _eof_column(source)
        raise compile_error(
            source, line, column, f"Syntax error: mismatched input '{found}' expecting {{{expected}}}"
        ) from None
    except lark.exceptions.UnexpectedEOF:
        raise compile_error(
            source, _last_line(source), _eof_column(source), "Syntax error: mismatched input '<EOF>'"
        ) from None
    except lark.exceptions.LarkError as e:
        raise compile_error(source, 1, 1, f"Syntax error: {str(e).splitlines()[0]}") from None
    return _Builder(source).build(tree)


def _last_line(source: str) -> int:
    return max(source.count("\n") + 1, 1)


def _eof_column(source: str) -> int:
    return len(source.rsplit("\n", 1)[-1]) + 1


_ONE_VAR = {"all": ast.ALL, "exists": ast.EXISTS, "exists_one": ast.EXISTS_ONE, "existsOne": ast.EXISTS_ONE}
_RELATIONS = {
    "relation_lt": "_<_",
    "relation_le": "_<=_",
    "relation_gt": "_>_",
    "relation_ge": "_>=_",
    "relation_eq": "_==_",
    "relation_ne": "_!=_",
    "relation_in": "@in",
}
_ARITH = {
    "addition_add": "_+_",
    "addition_sub": "_-_",
    "multiplication_mul": "_*_",
    "multiplication_div": "_/_",
    "multiplication_mod": "_%_",
}


class _Builder:
    """lark tree -> ast.Node, expanding macros."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.depth = 0

    def error(self, where: Any, message: str) -> CelCompileError:
        line, column = _pos(where)
        return compile_error(self.source, line, column, message)

    def build(self, tree: Any) -> ast.Node:
        self.depth += 1
        if self.depth > MAX_EXPRESSION_DEPTH:
            raise self.error(tree, f"expression recursion limit exceeded: {MAX_EXPRESSION_DEPTH}")
        try:
            method = getattr(self, "b_" + tree.data)
            node: ast.Node = method(tree)
            return node
        finally:
            self.depth -= 1

    # --- operators --------------------------------------------------------------------------------

    def b_expr(self, tree: Tree) -> ast.Node:
        if len(tree.children) == 1:
            return self.build(tree.children[0])
        cond, then, other = (self.build(c) for c in tree.children)
        return self.call(tree, "_?_:_", None, [cond, then, other])

    def _binary(self, tree: Tree, function: str) -> ast.Node:
        if len(tree.children) == 1:
            return self.build(tree.children[0])
        left, right = tree.children
        return self.call(tree, function, None, [self.build(left), self.build(right)])

    def b_conditionalor(self, tree: Tree) -> ast.Node:
        return self._binary(tree, "_||_")

    def b_conditionaland(self, tree: Tree) -> ast.Node:
        return self._binary(tree, "_&&_")

    def _operator(self, tree: Tree, names: dict[str, str]) -> ast.Node:
        if len(tree.children) == 1:
            return self.build(tree.children[0])
        op_tree, right = tree.children
        assert isinstance(op_tree, lark.Tree)
        (left,) = op_tree.children
        return self.call(op_tree, names[op_tree.data], None, [self.build(left), self.build(right)])

    def b_relation(self, tree: Tree) -> ast.Node:
        return self._operator(tree, _RELATIONS)

    def b_addition(self, tree: Tree) -> ast.Node:
        return self._operator(tree, _ARITH)

    def b_multiplication(self, tree: Tree) -> ast.Node:
        return self._operator(tree, _ARITH)

    def b_unary(self, tree: Tree) -> ast.Node:
        if len(tree.children) == 1:
            return self.build(tree.children[0])
        op_tree, operand_tree = tree.children
        assert isinstance(op_tree, lark.Tree)
        operand = self.build(operand_tree)
        if op_tree.data == "unary_neg":
            folded = _negate_literal(operand)
            if folded is not None:
                return folded
            return self.call(op_tree, "-_", None, [operand])
        return self.call(op_tree, "!_", None, [operand])

    # --- members ------------------------------------------------------------------------------------

    def b_member(self, tree: Tree) -> ast.Node:
        return self.build(tree.children[0])

    def b_member_dot(self, tree: Tree) -> ast.Node:
        # cel-go locates a selection at its dot.
        operand, name = tree.children
        line, column = _pos(name)
        return ast.Select(line, max(column - 1, 1), self.build(operand), str(name))

    def b_member_dot_opt(self, tree: Tree) -> ast.Node:
        operand, name = tree.children
        line, column = _pos(name)
        return ast.Select(line, max(column - 2, 1), self.build(operand), str(name), optional=True)

    def b_member_index(self, tree: Tree) -> ast.Node:
        operand, index = tree.children
        return ast.Index(*_pos(tree), self.build(operand), self.build(index))

    def b_member_index_opt(self, tree: Tree) -> ast.Node:
        operand, index = tree.children
        return ast.Index(*_pos(tree), self.build(operand), self.build(index), optional=True)

    def b_member_object(self, tree: Tree) -> ast.Node:
        operand = tree.children[0]
        name = _qualified_name(operand)
        if name is None:
            raise self.error(tree, "Syntax error: expected a type name before '{'")
        fields: list[tuple[str, ast.Node]] = []
        if len(tree.children) > 1:
            inits = tree.children[1]
            assert isinstance(inits, lark.Tree)
            for ident, value in zip(inits.children[0::2], inits.children[1::2], strict=True):
                fields.append((str(ident), self.build(value)))
        return ast.StructLit(*_pos(tree), name, fields)

    def b_member_dot_arg(self, tree: Tree) -> ast.Node:
        target_tree, name_token = tree.children[0], tree.children[1]
        args_trees = list(tree.children[2].children) if len(tree.children) > 2 else []
        name = str(name_token)
        target = self.build(target_tree)
        macro = self.member_macro(tree, name_token, target, args_trees)
        if macro is not None:
            return macro
        args = [self.build(a) for a in args_trees]
        return ast.Call(*_pos(name_token), name, target, args)

    # --- primaries ----------------------------------------------------------------------------------

    def b_primary(self, tree: Tree) -> ast.Node:
        return self.build(tree.children[0])

    def b_paren_expr(self, tree: Tree) -> ast.Node:
        return self.build(tree.children[0])

    def b_ident(self, tree: Tree) -> ast.Node:
        token = tree.children[0]
        return ast.Ident(*_pos(token), str(token))

    def b_dot_ident(self, tree: Tree) -> ast.Node:
        token = tree.children[0]
        return ast.Ident(*_pos(token), "." + str(token))

    def b_dot_ident_arg(self, tree: Tree) -> ast.Node:
        token = tree.children[0]
        args = [self.build(a) for a in (tree.children[1].children if len(tree.children) > 1 else [])]
        return ast.Call(*_pos(token), str(token), None, args)

    def b_ident_arg(self, tree: Tree) -> ast.Node:
        token = tree.children[0]
        args_trees = list(tree.children[1].children) if len(tree.children) > 1 else []
        name = str(token)
        if name == "has":
            if len(args_trees) != 1:
                raise self.error(token, "invalid argument to has() macro")
            arg = self.build(args_trees[0])
            if not isinstance(arg, ast.Select) or arg.optional:
                raise self.error(token, "invalid argument to has() macro")
            return ast.Has(*_pos(token), arg)
        return ast.Call(*_pos(token), name, None, [self.build(a) for a in args_trees])

    def b_list_lit(self, tree: Tree) -> ast.Node:
        elements: list[ast.Node] = []
        optional: set[int] = set()
        if tree.children:
            for elem in tree.children[0].children:
                assert isinstance(elem, lark.Tree)
                if len(elem.children) == 2:
                    optional.add(len(elements))
                elements.append(self.build(elem.children[-1]))
        return ast.ListLit(*_pos(tree), elements, frozenset(optional))

    def b_map_lit(self, tree: Tree) -> ast.Node:
        entries: list[ast.MapEntry] = []
        if tree.children:
            for entry in tree.children[0].children:
                assert isinstance(entry, lark.Tree)
                is_optional = len(entry.children) == 3
                key, value = entry.children[-2:]
                entries.append(ast.MapEntry(self.build(key), self.build(value), is_optional))
        return ast.MapLit(*_pos(tree), entries)

    def b_literal(self, tree: Tree) -> ast.Node:
        token = tree.children[0]
        assert isinstance(token, lark.Token)
        return ast.Literal(*_pos(token), self.literal_value(token))

    def literal_value(self, token: lark.Token) -> Any:
        text = str(token)
        kind = token.type
        if kind == "INT_LIT":
            value = _int_text(text)
            if value < INT64_MIN or value > INT64_MAX:
                raise self.error(token, f"invalid int literal: {text}")
            return value
        if kind == "UINT_LIT":
            digits = text[:-1]
            if digits.startswith("-"):
                raise self.error(token, f"invalid uint literal: {text}")
            value = _int_text(digits)
            if value > UINT64_MAX:
                raise self.error(token, f"invalid uint literal: {text}")
            return Uint(value)
        if kind == "FLOAT_LIT":
            return float(text)
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            try:
                return str(celstr(token))
            except ValueError as e:
                raise self.error(token, f"Syntax error: invalid string literal: {e}") from None
        if kind == "BYTES_LIT":
            try:
                return bytes(celbytes(token))
            except ValueError as e:
                raise self.error(token, f"Syntax error: invalid bytes literal: {e}") from None
        if kind == "BOOL_LIT":
            return text == "true"
        if kind == "NULL_LIT":
            return None
        raise self.error(token, f"Syntax error: unsupported literal {text}")

    # --- macros -------------------------------------------------------------------------------------

    def call(self, where: Any, function: str, target: ast.Node | None, args: list[ast.Node]) -> ast.Call:
        return ast.Call(*_pos(where), function, target, args)

    def var_name(self, tree: Any) -> str:
        node = self.build(tree)
        if not isinstance(node, ast.Ident) or node.name.startswith("."):
            raise self.error(tree, "argument must be a simple name")
        return node.name

    def member_macro(self, tree: Tree, name_token: Any, target: ast.Node, args: list[Any]) -> ast.Node | None:
        name, n = str(name_token), len(args)
        pos = _pos(name_token)
        if name == "bind" and isinstance(target, ast.Ident) and target.name == "cel":
            if n != 3:
                return None
            return ast.Bind(*pos, self.var_name(args[0]), self.build(args[1]), self.build(args[2]))
        if name in _ONE_VAR and n == 2:
            return ast.Comprehension(
                *pos, _ONE_VAR[name], target, self.var_name(args[0]), None, self.build(args[1])
            )
        if name in ("all", "exists", "existsOne", "exists_one") and n == 3:
            return ast.Comprehension(
                *pos,
                _ONE_VAR[name],
                target,
                self.var_name(args[0]),
                self.var_name(args[1]),
                self.build(args[2]),
            )
        if name == "map" and n in (2, 3):
            var = self.var_name(args[0])
            predicate = self.build(args[1]) if n == 3 else None
            return ast.Comprehension(*pos, ast.MAP, target, var, None, self.build(args[-1]), predicate)
        if name == "filter" and n == 2:
            return ast.Comprehension(
                *pos, ast.FILTER, target, self.var_name(args[0]), None, self.build(args[1])
            )
        if name in (ast.TRANSFORM_LIST, ast.TRANSFORM_MAP, ast.TRANSFORM_MAP_ENTRY) and n in (3, 4):
            predicate = self.build(args[2]) if n == 4 else None
            return ast.Comprehension(
                *pos,
                name,
                target,
                self.var_name(args[0]),
                self.var_name(args[1]),
                self.build(args[-1]),
                predicate,
            )
        if name in (ast.OPT_MAP, ast.OPT_FLAT_MAP) and n == 2:
            return ast.Comprehension(*pos, name, target, self.var_name(args[0]), None, self.build(args[1]))
        return None


def _pos(where: Any) -> tuple[int, int]:
    # Down the first children (a loop: a long chain of operators nests thousands deep).
    while True:
        if isinstance(where, lark.Token):
            return where.line or 1, where.column or 1
        meta = getattr(where, "meta", None)
        if meta is not None and not getattr(meta, "empty", True) and meta.line is not None:
            return meta.line, meta.column
        if not isinstance(where, lark.Tree) or not where.children:
            return 1, 1
        where = where.children[0]


def _int_text(text: str) -> int:
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    value = int(digits[2:], 16) if digits[:2].lower() == "0x" else int(digits, 10)
    return -value if negative else value


def _negate_literal(node: ast.Node) -> ast.Node | None:
    # `-9223372036854775808` is a valid int literal only once the sign is applied.
    if (
        isinstance(node, ast.Literal)
        and type(node.value) in (int, float)
        and not isinstance(node.value, bool)
    ):
        return ast.Literal(node.line, node.column, -node.value)
    return None


def _qualified_name(tree: Any) -> str | None:
    """`a.b.c` written as a member chain, as a dotted name."""
    if isinstance(tree, lark.Tree):
        if tree.data in ("member", "primary") and len(tree.children) == 1:
            return _qualified_name(tree.children[0])
        if tree.data == "ident":
            return str(tree.children[0])
        if tree.data == "dot_ident":
            return "." + str(tree.children[0])
        if tree.data == "member_dot":
            left = _qualified_name(tree.children[0])
            return f"{left}.{tree.children[1]}" if left else None
    return None
