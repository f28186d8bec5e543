"""Reading YAML/JSON the way Kubernetes does, remembering where every value came from.

The data is what PyYAML's SafeLoader gives, except that timestamps stay strings (as
sigs.k8s.io/yaml leaves them) and duplicate keys are an error (as the API server's strict
decoding says). Three readers give it, the fastest that applies:

- JSON text (`kubectl get -o json`, or JSON documents between `---` lines) is read by `json`
  (`json_reader`), once the few things JSON and YAML read differently have been ruled out (else:
  the YAML path);
- YAML is built straight from libyaml's events, without PyYAML's node graph; a document that needs
  more (explicit tags, merge keys, or anything that is an error) is replayed through PyYAML's
  composer and constructor, so its data and its error are PyYAML's own;
- `reference_documents`, PyYAML's composer and constructor building `LineDict`/`LineList` (a line
  for every key and item): the replay, the finder of lines, and what the others are tested against.

Lines: mappings become `LineDict` and sequences `LineList`, ordinary dicts and lists that know
the line of each key / item. The fast readers make them only where lines are always needed: each
document's top mapping and its keys, its top-level lists and their items. Everything below is
plain; the line of a deeper field is found when a problem asks for it (`line_of`), by reading the
object's own span of the text again with the reference reader.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from ...model.errors import FieldPath, Problem
from . import yaml_scalars
from .bounded_read import TooManyObjects, max_objects
from .json_text import SourceText
from .yaml_limits import MAX_DEPTH, excessive_aliasing, too_deep

if TYPE_CHECKING:
    from .json_reader import _JsonSource


class LineDict(dict[Any, Any]):
    """A mapping that knows the line of itself and of each key (an object root read by a fast path:
    of some keys, and the `source` to find the others in). Every item of a List is one: slots."""

    __slots__ = ("key_lines", "line", "source")
    line: int
    key_lines: dict[Any, int]
    source: _Source | _JsonSource | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = 0
        self.key_lines = {}
        self.source = None


class LineList(list[Any]):
    """A sequence that knows the line of itself and of each item (a document that is a list read by a
    fast path: also its `source`, where its items' lines are found when their own spans fail)."""

    __slots__ = ("item_lines", "line", "source")
    line: int
    item_lines: list[int]
    source: _Source | _JsonSource | None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.line = 0
        self.item_lines = []
        self.source = None


@dataclass
class Document:
    """One YAML document of a file: its data and where it starts."""

    data: Any
    file: str
    line: int


def read_documents(text: str, file: str, source: SourceText | None = None) -> Iterator[Document | Problem]:
    """Every non-empty document of a YAML (or JSON) stream, or the syntax problem that stopped it.
    `source`: the text as lines are looked up later (see SourceText), when the caller can read it
    again."""
    from .json_reader import read_json  # it reads what this module defines

    docs = read_json(text, file, source or SourceText(text))
    if docs is not None:
        yield from docs
    else:
        yield from _yaml_documents(text, file)


# Objects made while paused past which the collection that would follow is worth avoiding (it takes
# some 10-30 ms per 100,000).
_FREEZE_AFTER = 100_000


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while reading: the data read has no cycles, and collections
    triggered by its many new containers, each scanning everything read so far, took half of the
    reading time.

    The collector counts the containers made while it is paused: once re-enabled, the next
    allocation would start a collection that scans them all (as long again as reading a large
    dump). So when many were made, they are frozen on the way out (`gc.freeze`: kept out of every
    later collection). That is safe for what is read here: trees of dicts, lists and scalars hold no
    reference cycles, and frozen objects are still freed by reference counting when dropped. What
    only the collector frees (a cycle: a recursive YAML alias, or garbage from before the pause that
    it had not collected yet) stays until the process ends."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_count()[0] > _FREEZE_AFTER:
                gc.freeze()
            gc.enable()


def line_of(data: Any, path: FieldPath, default: int = 0) -> int:
    """The line of the deepest part of `path` that exists in `data`."""
    line = getattr(data, "line", 0) or default
    current = data
    # The innermost object root read by a fast path, and where `path` enters it: below what the
    # fast reader tracked, the root's source finds the line.
    holder: tuple[Any, int] | None = None
    for i, part in enumerate(path):
        source = getattr(current, "source", None)
        if source is not None:
            holder = (current, i)
        if isinstance(current, LineDict) and part in current:
            if source is not None and part not in current.key_lines:
                return _locate(current, path[i:], line)
            line = current.key_lines.get(part, line)
        elif isinstance(current, LineList) and isinstance(part, int) and 0 <= part < len(current):
            line = current.item_lines[part]
        else:
            break
        current = current[part]
        if holder is not None and i + 1 < len(path) and type(current) in (dict, list):
            return _locate(holder[0], path[holder[1] :], line)
    return line


def _locate(root: LineDict | LineList, path: FieldPath, line: int) -> int:
    assert root.source is not None
    found = root.source.locate(path, root)
    return found if found is not None else line


# ---- the reference reader: PyYAML's composer and constructor, a line for everything ----------


class _DuplicateKey(yaml.MarkedYAMLError):
    pass


# libyaml's parser when PyYAML has it (several times faster on large slices).
_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Kubernetes decodes YAML into JSON first: a timestamp is just a string there.
_RESOLVERS = {
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


class _Loader(_Base):  # type: ignore[valid-type,misc]
    """SafeLoader with line-aware containers; timestamps are left as strings."""


class _Replay(yaml.composer.Composer, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
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


for _cls in (_Loader, _Replay):
    _cls.yaml_implicit_resolvers = _RESOLVERS
    _cls.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _cls.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
    yaml_scalars.install(_cls)


def reference_documents(text: str, file: str) -> Iterator[Document | Problem]:
    """`read_documents` through PyYAML's composer and constructor: lines everywhere, slowly."""
    try:
        deep: Any = too_deep(yaml.parse(text, Loader=_Base))
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
        yield _syntax_problem(e, file)
    finally:
        loader.dispose()


def _syntax_problem(e: yaml.YAMLError, file: str) -> Problem:
    if isinstance(e, yaml.MarkedYAMLError):
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else 0
        what = e.problem or e.context or "invalid YAML"
        return Problem(f"invalid YAML: {what}", file=file, line=line)
    return Problem(f"invalid YAML: {e}", file=file)


class _Source:
    """Where an object root was read from, to find the line of a field only when a problem needs it."""

    __slots__ = ("_tree", "column", "end", "line", "parent", "start", "text")

    def __init__(
        self, text: str, start: int, line: int, column: int, parent: tuple[_Source, FieldPath] | None
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


# ---- YAML: objects straight from libyaml's events --------------------------------------------


class _Unusual(Exception):
    """This document needs PyYAML's composer and constructor: a tag, a merge key, or an error that
    PyYAML raises only after the whole document is composed."""


_SCALARS = yaml.constructor.SafeConstructor()
_CONSTRUCT = {
    "tag:yaml.org,2002:bool": _SCALARS.construct_yaml_bool,
    "tag:yaml.org,2002:int": _SCALARS.construct_yaml_int,
    "tag:yaml.org,2002:float": _SCALARS.construct_yaml_float,
    "tag:yaml.org,2002:null": _SCALARS.construct_yaml_null,
}
# The first characters for which a plain scalar may be something other than a string ("" too: null).
_MAY_RESOLVE = frozenset(_RESOLVERS)
_MISS: Any = object()


def _resolve(value: str, cache: dict[str, Any]) -> Any:
    """A plain scalar as the resolver and constructor make it (the same tables and functions)."""
    result: Any = value
    for tag, regexp in _RESOLVERS.get(value[:1], ()):
        if regexp.match(value):
            construct = _CONSTRUCT.get(tag)
            if construct is None:  # merge `<<`, value `=`: PyYAML's own business
                raise _Unusual
            try:
                result = construct(ScalarNode(tag, value))
            except Exception as e:  # e.g. int("", 2) for `0b_`: raised where PyYAML raises it
                raise _Unusual from e
            break
    if result.__class__ is not float:  # two NaNs are two keys, one cached NaN would be one
        cache[value] = result
    return result


def _yaml_documents(text: str, file: str) -> Iterator[Document | Problem]:
    parser: Any = _Base(text)
    cache: dict[str, Any] = {}
    count = 0
    try:
        parser.get_event()  # stream start
        while parser.peek_event().__class__ is not StreamEndEvent:
            doc = _yaml_document(parser, text, file, cache)
            if doc is not None:
                count += 1
                if count > max_objects():
                    raise TooManyObjects
                yield doc
    except yaml.YAMLError as e:
        yield _syntax_problem(e, file)
    finally:
        parser.dispose()


def _yaml_document(parser: Any, text: str, file: str, cache: dict[str, Any]) -> Document | None:
    with gc_paused():
        return _build_document(parser, text, file, cache)


# Events of one document kept for a replay (some 500 bytes each). A larger document is read as usual;
# one that also needs PyYAML's composer (a tag, a merge key, a duplicate key...) is refused instead, as
# composing it would take gigabytes: JSON, or a smaller document, reads.
RECORDED_EVENTS = 500_000


def _build_document(parser: Any, text: str, file: str, cache: dict[str, Any]) -> Document | None:
    get = parser.get_event
    events: list[Event] = [get()]  # document start; every event is kept for a replay
    record = events.append
    recorded = RECORDED_EVENTS
    anchors: dict[str, Any] = {}
    first_marks: dict[str, Any] = {}  # where each anchor was defined, as the composer reports it
    open_anchors: set[str] = set()  # collections still being read: an alias to one is recursive
    # The container being filled; for a mapping, the key waiting for its value. `track`: 1 = the
    # document's top mapping (key lines), 2 = one of its lists (item lines), 3 = an item of such a
    # list (an object root), 0 = anything deeper (plain).
    stack: list[tuple[Any, bool, Any, int, Any]] = []
    cur: Any = None
    is_map = False
    key: Any = _NO_KEY
    track = 0
    start: Any = None  # the start event of `cur`
    root: Any = None
    key_line = 0
    aliased = False
    limit = max_objects()
    try:
        while True:
            ev = get()
            if len(events) < recorded:
                record(ev)
            cls = ev.__class__
            if cls is ScalarEvent:
                if ev.anchor is not None:
                    _define(ev, anchors, first_marks)
                if ev.tag is not None:
                    raise _Unusual
                value = ev.value
                if ev.implicit[0] and value[:1] in _MAY_RESOLVE:
                    value = cache.get(value, _MISS)
                    if value is _MISS:
                        value = _resolve(ev.value, cache)
                if ev.anchor is not None:
                    anchors[ev.anchor] = (value, ev.start_mark.line + 1)
                line_ev = ev
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if ev.anchor is not None:
                    _define(ev, anchors, first_marks)
                if ev.tag is not None or (is_map and key is _NO_KEY):
                    raise _Unusual  # a tag, or a collection as a key (an error)
                stack.append((cur, is_map, key, track, start))
                is_map = cls is MappingStartEvent
                mark = ev.start_mark
                if cur is None:
                    track = 1 if is_map else 2
                elif track == 1:
                    track = 0 if is_map else 2
                elif track == 2:
                    track = 3 if is_map else 0
                else:
                    track = 0
                if track == 0:
                    cur = {} if is_map else []
                elif track == 2:
                    cur = LineList()
                    cur.line = mark.line + 1
                    if not stack[-1][3]:  # the document is this list
                        cur.source = _Source(text, mark.index, mark.line + 1, mark.column, None)
                else:
                    cur = LineDict()
                    cur.line = mark.line + 1
                    parent: tuple[_Source, FieldPath] | None = None
                    if track == 3:
                        # stack[-1] is the list; stack[-2] the top mapping (waiting with the list's
                        # key) or, when the list is the document, nothing.
                        items, owner, list_key = stack[-1][0], stack[-2][0], stack[-2][2]
                        if owner is None:
                            parent = (items.source, (len(items),))
                        else:
                            parent = (owner.source, (list_key, len(items)))
                    cur.source = _Source(text, mark.index, mark.line + 1, mark.column, parent)
                start = ev
                key = _NO_KEY
                if ev.anchor is not None:
                    anchors[ev.anchor] = (cur, mark.line + 1)
                    open_anchors.add(ev.anchor)
                continue
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                value = cur
                if track and cur.source is not None:
                    cur.source.end = ev.end_mark.index
                if start.anchor is not None:
                    open_anchors.discard(start.anchor)
                line_ev = start
                cur, is_map, key, track, start = stack.pop()
            elif cls is AliasEvent:
                aliased = True
                if ev.anchor not in anchors:
                    raise yaml.composer.ComposerError(None, None, "found undefined alias", ev.start_mark)
                if ev.anchor in open_anchors:
                    raise _Unusual  # recursive: PyYAML's constructor refuses it
                value, alias_line = anchors[ev.anchor]
                if isinstance(value, (dict, list)) and (
                    track == 1 or track == 2 or (is_map and key is _NO_KEY)
                ):
                    # A collection as a key (an error), or shared where lines are tracked: PyYAML's.
                    raise _Unusual
                line_ev = None
            else:  # document end
                break
            if is_map:
                if key is _NO_KEY:
                    key = value
                    if track == 1:
                        key_line = line_ev.start_mark.line + 1 if line_ev is not None else alias_line
                else:
                    if key in cur:
                        raise _Unusual  # a duplicate key: PyYAML's error, with PyYAML's priorities
                    cur[key] = value
                    if track == 1:
                        cur.key_lines[key] = key_line
                    key = _NO_KEY
            elif cur is not None:
                cur.append(value)
                if track == 2:
                    if len(cur) > limit:
                        raise TooManyObjects
                    cur.item_lines.append(line_ev.start_mark.line + 1 if line_ev is not None else alias_line)
            else:
                root = value
    except _Unusual:
        if len(events) >= recorded:
            _drain(get, None, first_marks)
            begin: Any = events[0].start_mark
            raise yaml.MarkedYAMLError(
                problem=f"a document of more than {recorded} YAML nodes with a tag, a merge key, an anchor "
                "or a duplicate key: kubefit reads so large a document only without them (as JSON reads)",
                problem_mark=begin,
            ) from None
        _drain(get, events, first_marks)
        deep: Any = too_deep(events)
        if deep is not None:  # PyYAML's composer and constructor recurse
            raise yaml.MarkedYAMLError(
                problem=f"exceeded max depth of {MAX_DEPTH}", problem_mark=deep.start_mark
            ) from None
        replay = _Replay(events)
        node: Any = replay.compose_document()
        data = replay.construct_document(node)
        if data is None:
            return None
        _check_aliasing(data, any(e.__class__ is AliasEvent for e in events), events)
        return Document(data, file, node.start_mark.line + 1)
    if root is None:
        return None
    _check_aliasing(root, aliased, events)
    first: Any = events[1]
    return Document(root, file, first.start_mark.line + 1)


def _check_aliasing(data: Any, aliased: bool, events: list[Event]) -> None:
    if aliased and excessive_aliasing(data):
        mark: Any = events[0].start_mark
        raise yaml.MarkedYAMLError(problem="document contains excessive aliasing", problem_mark=mark)


_NO_KEY: Any = object()


def _define(ev: Any, anchors: dict[str, Any], first_marks: dict[str, Any]) -> None:
    if ev.anchor in first_marks:
        raise yaml.composer.ComposerError(
            "found duplicate anchor; first occurrence",
            first_marks[ev.anchor],
            "second occurrence",
            ev.start_mark,
        )
    first_marks[ev.anchor] = ev.start_mark
    anchors[ev.anchor] = (None, 0)


def _drain(get: Any, events: list[Event] | None, first_marks: dict[str, Any]) -> None:
    """The rest of the document (into `events`, unless None), with the composer's own checks: its
    errors come before the constructor's, as in PyYAML."""
    ev: Any = events[-1] if events else None
    while not isinstance(ev, DocumentEndEvent):
        ev = get()
        if events is not None:
            events.append(ev)
        if ev.__class__ is AliasEvent:
            if ev.anchor not in first_marks:
                mark: Any = ev.start_mark
                raise yaml.composer.ComposerError(None, None, "found undefined alias", mark)
        elif getattr(ev, "anchor", None) is not None:  # a scalar or the start of a collection
            _define(ev, {}, first_marks)
