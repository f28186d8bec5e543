"""The CEL syntax tree kubefit checks, analyses and evaluates (macros already expanded)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .types import CelType


@dataclass(eq=False)
class Node:
    line: int
    column: int
    # Filled in by the checker.
    type: CelType | None = field(default=None, init=False, repr=False)


@dataclass(eq=False)
class Literal(Node):
    value: Any


@dataclass(eq=False)
class Ident(Node):
    name: str


@dataclass(eq=False)
class Select(Node):
    """`operand.field`; `optional` for `operand.?field`."""

    operand: Node
    field: str
    optional: bool = False


@dataclass(eq=False)
class Index(Node):
    """`operand[index]`; `optional` for `operand[?index]`."""

    operand: Node
    index: Node
    optional: bool = False


@dataclass(eq=False)
class Call(Node):
    """A function or operator call; `target` is the receiver of `target.function(args)`."""

    function: str
    target: Node | None
    args: list[Node]
    # Filled in by the checker: the overloads that may apply at run time.
    overloads: list[Any] = field(default_factory=list, init=False, repr=False)


@dataclass(eq=False)
class ListLit(Node):
    elements: list[Node]
    optional_indices: frozenset[int] = frozenset()


@dataclass(eq=False)
class MapEntry:
    key: Node
    value: Node
    optional: bool = False


@dataclass(eq=False)
class MapLit(Node):
    entries: list[MapEntry]


@dataclass(eq=False)
class StructLit(Node):
    """`Type{field: value}`: message construction (no message types exist in this environment)."""

    type_name: str
    fields: list[tuple[str, Node]]


@dataclass(eq=False)
class Has(Node):
    """`has(operand.field)`."""

    select: Select


@dataclass(eq=False)
class Bind(Node):
    """`cel.bind(var, init, body)`."""

    var: str
    init: Node
    body: Node


# Comprehension kinds: the macros of standard CEL, the two-variable extension and optionals.
ALL = "all"
EXISTS = "exists"
EXISTS_ONE = "exists_one"
MAP = "map"
FILTER = "filter"
TRANSFORM_LIST = "transformList"
TRANSFORM_MAP = "transformMap"
TRANSFORM_MAP_ENTRY = "transformMapEntry"
OPT_MAP = "optMap"
OPT_FLAT_MAP = "optFlatMap"


@dataclass(eq=False)
class Comprehension(Node):
    """A macro over a list, map or optional.

    `var2` is the second variable of the two-variable forms (`all(i, v, p)`);
    `predicate` is the filter of `map(x, p, e)` / `transformList(i, v, p, e)`.
    """

    kind: str
    range: Node
    var: str
    var2: str | None
    body: Node
    predicate: Node | None = None


def children(node: Node) -> list[Node]:
    """The direct sub-expressions of a node, in evaluation order."""
    if isinstance(node, Select):
        return [node.operand]
    if isinstance(node, Index):
        return [node.operand, node.index]
    if isinstance(node, Call):
        return ([node.target] if node.target is not None else []) + list(node.args)
    if isinstance(node, ListLit):
        return list(node.elements)
    if isinstance(node, MapLit):
        return [x for e in node.entries for x in (e.key, e.value)]
    if isinstance(node, StructLit):
        return [v for _, v in node.fields]
    if isinstance(node, Has):
        return [node.select]
    if isinstance(node, Bind):
        return [node.init, node.body]
    if isinstance(node, Comprehension):
        return [node.range] + ([node.predicate] if node.predicate else []) + [node.body]
    return []
