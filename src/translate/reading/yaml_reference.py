"""The reference reader: PyYAML's composer and constructor building `LineDict`/`LineList` (a line for
every key and item). It reads a document the fast reader hands over (`Replay`), finds the lines of
fields below what the fast readers track (`YamlSpan`), and is what the others are tested against.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml
from yaml.events import Event

from ...model.errors import FieldPath, Problem
from . import yaml_scalars
from .documents import Document, LineDict, LineList, line_of
from .yaml_limits import MAX_DEPTH, too_deep


class _DuplicateKey(yaml.MarkedYAMLError):
    pass


# libyaml's parser when PyYAML has it (several times faster on large slices).
BASE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Kubernetes decodes YAML into JSON first: a timestamp is just a string there.
RESOLVERS = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_mapping(loader: Any, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, (list, dict)):
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a scalar", key_node.start_mark
            )
        if key in result:
            raise _DuplicateKey(None, None, f'duplicate key "{key}" in mapping', key_node.start_mark)
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: Any, node: yaml.SequenceNode) -> LineList:
    result = LineList()
    result.line = node.start_mark.line + 1
    for child in node.value:
        result.append(loader.construct_object(child, deep=True))
        result.item_lines.append(child.start_mark.line + 1)
    return result


class _Loader(BASE_LOADER):  # type: ignore[valid-type,misc]
    """SafeLoader with line-aware containers; timestamps are left as strings."""


class Replay(yaml.composer.Composer, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """The same composer and constructor, fed with one document's events the fast reader recorded."""

    def __init__(self, events: list[Event]) -> None:
        self._events = events
        self._next = 0
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)

    def check_event(self, *choices: type[Event]) -> bool:
        return not choices or isinstance(self._events[self._next], choices)

    def peek_event(self) -> Event:
        return self._events[self._next]

    def get_event(self) -> Event:
        self._next += 1
        return self._events[self._next - 1]


for _cls in (_Loader, Replay):
    _cls.yaml_implicit_resolvers = RESOLVERS
    _cls.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _cls.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
    yaml_scalars.install(_cls)


def reference_documents(text: str, file: str) -> Iterator[Document | Problem]:
    """`read_documents` through PyYAML's composer and constructor: lines everywhere, slowly."""
    try:
        deep: Any = too_deep(yaml.parse(text, Loader=BASE_LOADER))
    except yaml.YAMLError:
        deep = None  # the loader below reports it where PyYAML does
    if deep is not None:  # the composer and constructor recurse
        yield Problem(
            f"invalid YAML: exceeded max depth of {MAX_DEPTH}", file=file, line=deep.start_mark.line + 1
        )
        return
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            data = loader.construct_document(node)
            if data is None:
                continue
            yield Document(data, file, node.start_mark.line + 1)
    except yaml.YAMLError as e:
        yield syntax_problem(e, file)
    finally:
        loader.dispose()


def syntax_problem(e: yaml.YAMLError, file: str) -> Problem:
    if isinstance(e, yaml.MarkedYAMLError):
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else 0
        what = e.problem or e.context or "invalid YAML"
        return Problem(f"invalid YAML: {what}", file=file, line=line)
    return Problem(f"invalid YAML: {e}", file=file)


class YamlSpan:
    """Where an object root was read from, to find the line of a field only when a problem needs it."""

    __slots__ = ("_tree", "column", "end", "line", "parent", "start", "text")

    def __init__(
        self, text: str, start: int, line: int, column: int, parent: tuple[YamlSpan, FieldPath] | None
    ) -> None:
        self.text = text
        self.start = start
        self.end = len(text)
        self.line = line
        self.column = column
        # The enclosing document and the path to this root there: an alias in the span may name an
        # anchor outside it, and then only the whole document reads.
        self.parent = parent
        self._tree: Any = _UNREAD

    def locate(self, path: FieldPath, data: Any = None) -> int | None:
        if self.end - self.start > LOCATED_SPAN:
            return None  # the object's own line stands for its fields'
        if self._tree is _UNREAD:
            # The span, indented as in the file, reads as a document of its own with the same lines.
            docs = list(reference_documents(" " * self.column + self.text[self.start : self.end], ""))
            one = docs[0] if len(docs) == 1 else None
            tracked = isinstance(one, Document) and isinstance(one.data, (LineDict, LineList))
            self._tree = one.data if tracked and isinstance(one, Document) else None
        if self._tree is not None:
            return line_of(self._tree, path) + self.line - 1
        if self.parent is not None:
            source, prefix = self.parent
            return source.locate((*prefix, *path))
        return None


_UNREAD: Any = object()
# Reading a span again with the reference reader takes some 300 bytes of memory per byte of text: past
# this (more than the 1.5 MiB the API server stores of one object), a problem in it is located at the
# object's own line.
LOCATED_SPAN = 2 << 20
