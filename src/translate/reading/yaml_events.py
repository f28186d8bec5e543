"""YAML read straight from libyaml's events, without PyYAML's node graph: the document's top mapping
and its lists with their lines, plain values below. A document that needs more (explicit tags, merge
keys, or anything that is an error) is replayed through PyYAML's composer and constructor
(`yaml_reference.Replay`), so its data and its error are PyYAML's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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
from .bounded_read import TooManyObjects, max_objects
from .documents import Document, LineDict, LineList, gc_paused
from .yaml_limits import MAX_DEPTH, excessive_aliasing, too_deep
from .yaml_reference import BASE_LOADER, RESOLVERS, Replay, YamlSpan, syntax_problem


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
_MAY_RESOLVE = frozenset(RESOLVERS)
_MISS: Any = object()


def _resolve(value: str, cache: dict[str, Any]) -> Any:
    """A plain scalar as the resolver and constructor make it (the same tables and functions)."""
    result: Any = value
    for tag, regexp in RESOLVERS.get(value[:1], ()):
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


def yaml_documents(text: str, file: str) -> Iterator[Document | Problem]:
    parser: Any = BASE_LOADER(text)
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
        yield syntax_problem(e, file)
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
                        cur.source = YamlSpan(text, mark.index, mark.line + 1, mark.column, None)
                else:
                    cur = LineDict()
                    cur.line = mark.line + 1
                    parent: tuple[YamlSpan, FieldPath] | None = None
                    if track == 3:
                        # stack[-1] is the list; stack[-2] the top mapping (waiting with the list's
                        # key) or, when the list is the document, nothing.
                        items, owner, list_key = stack[-1][0], stack[-2][0], stack[-2][2]
                        if owner is None:
                            parent = (items.source, (len(items),))
                        else:
                            parent = (owner.source, (list_key, len(items)))
                    cur.source = YamlSpan(text, mark.index, mark.line + 1, mark.column, parent)
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
        replay = Replay(events)
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
