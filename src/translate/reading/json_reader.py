"""JSON text read by `json`, where it reads the text as YAML does (`json_text` says where): the
fastest of `yaml_source`'s readers, for `kubectl get -o json` dumps and JSON documents between `---`
lines. Each document's top object and its keys, and its top-level lists and their items, are
`LineDict`/`LineList` with their lines; a deeper field's line is found when a problem asks for it,
by walking the object's span of the text (`_JsonSource`).

Also the documents' plain form, for a child that reads a file for the process (`json_child`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Container
from typing import TYPE_CHECKING, Any

from ...model.errors import FieldPath
from .bounded_read import TooManyObjects, max_objects
from .json_text import (
    LONGEST_KEY,
    JsonLines,
    JsonText,
    KeyCount,
    KeyTally,
    LinesState,
    SourceText,
    checked_scan,
    collecting_scanner,
    json_text,
)
from .json_text import too_deep as too_deep_data
from .yaml_source import Document, LineDict, LineList, gc_paused

if TYPE_CHECKING:
    from .json_tail import TailFirst


class _JsonSource:
    """Where an object root read by the JSON path was read from. The reference reader would read
    its span as JSON reads it, and refuse it only when nested too deep: the line is found by walking
    the span's text, reading only what lies on the way, never the whole span again."""

    __slots__ = ("_deep", "lines")

    def __init__(self, lines: JsonLines) -> None:
        self.lines = lines
        self._deep: bool | None = None

    def locate(self, path: FieldPath, data: Any) -> int | None:
        if self._deep is None:
            self._deep = too_deep_data(data)
        return None if self._deep else self.lines.line_of(path)


# ---- JSON documents as plain values (for a child reading for the process: `json_child`) -----------

# Tags of the plain form: a value as it is, a LineDict, a LineList.
_AS_IS, _LINE_DICT, _LINE_LIST = 0, 1, 2


def plain_documents(docs: list[Document]) -> list[Any]:
    """What the JSON reader made of a text, in values `marshal` writes (dicts, lists, tuples, scalars;
    parts shared stay shared), without the text: `documents_of` makes the documents again."""
    return [(doc.file, doc.line, _plain(doc.data)) for doc in docs]


def _plain(value: Any) -> Any:
    # Only the reader's roots are of its own classes: below them every value is plain already.
    cls = value.__class__
    if cls is LineDict:
        entries = {key: _plain(v) for key, v in value.items()}
        return _LINE_DICT, entries, value.line, value.key_lines, _plain_source(value.source)
    if cls is LineList:
        items = [_plain(v) for v in value]
        return _LINE_LIST, items, value.line, value.item_lines, _plain_source(value.source)
    return _AS_IS, value


def _plain_source(source: Any) -> LinesState | None:
    return source.lines.state() if isinstance(source, _JsonSource) else None


def documents_of(plain: list[Any], source: SourceText) -> list[Document]:
    """The documents `plain_documents` gave, their lines looked up in `source`."""
    return [Document(_restored(data, source), file, line) for file, line, data in plain]


def _restored(plain: Any, source: SourceText) -> Any:
    tag = plain[0]
    if tag == _AS_IS:
        return plain[1]
    _, entries, line, lines, state = plain
    value: LineDict | LineList
    if tag == _LINE_DICT:
        value = LineDict({key: _restored(v, source) for key, v in entries.items()})
        value.key_lines = lines
    else:
        value = LineList([_restored(v, source) for v in entries])
        value.item_lines = lines
    value.line = line
    if state is not None:
        value.source = _JsonSource(JsonLines.restored(source, state))
    return value


# ---- JSON: `json` where it reads the text as YAML does (json_text says where) -------------------

_JSON_START = re.compile(r"[ \r\n]*(?:---\r?\n[ \r\n]*)?[\[{]")
_BLANK = re.compile(r"[ \r\n]*")  # a tab where YAML's block context begins is an error there
_SPACE = re.compile(r"[ \t\n\r]*")
_scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]


class _Lines:
    """The line of each offset of `text`, asked in increasing order, counted as it goes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0
        self.line = 1

    def __call__(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def json_start(text: str) -> bool:
    """Whether the text begins as a JSON object or array does (then it may be read as JSON)."""
    return _JSON_START.match(text) is not None


def read_json(text: str, file: str, source: SourceText) -> list[Document] | None:
    """The documents of a JSON text (one value, or values between `---` lines), or None when the
    text is not JSON that YAML reads the same way."""
    facts = json_facts(text)
    if facts is None:
        return None
    with gc_paused():
        if facts.key_bound is not None:
            docs, keys = collected_documents(text, file, source)
            if docs is None or keys.prove(facts.key_bound):
                return docs
            del docs  # a string that begins with `:`, or a key twice: check object by object
        return _json_chunk_documents(text, file, checked_scan, source, _sharing())


def json_facts(text: str) -> JsonText | None:
    """What the JSON reader checks of a text before reading it (None: not JSON as YAML reads it)."""
    return json_text(text) if json_start(text) else None


def collected_documents(
    text: str, file: str, source: SourceText, tail: TailFirst | None = None
) -> tuple[list[Document] | None, KeyCount]:
    """The documents as a scanner that keeps every object it makes reads them (None: not JSON), and
    their keys counted, to prove that no object had one twice and none is too long (KeyCount).
    `tail`: a List's last items are read first and handed on (see json_tail)."""
    scan, made = collecting_scanner()
    tally = KeyTally(made)
    each = _sharing()

    def fold_each(item: Any) -> None:
        tally.fold()
        each(item)

    if tail is not None:
        tail.tally = tally
    docs = _json_chunk_documents(text, file, scan, source, fold_each, tail)
    roots = sum(len(doc.data) for doc in docs if isinstance(doc.data, LineDict)) if docs is not None else 0
    return docs, tally.count(roots)


def _sharing() -> Callable[[Any], None]:
    """What the reader does with each item of a List as soon as it is read: its equal device parts
    made one (`slice_intern`)."""
    from .slice_intern import share  # only for JSON texts

    parts: dict[Any, Any] = {}

    def each(item: Any) -> None:
        share(item, parts)

    return each


def _json_chunk_documents(
    text: str,
    file: str,
    scan: Any,
    source: SourceText,
    each: Callable[[Any], None],
    tail: TailFirst | None = None,
) -> list[Document] | None:
    """The values of a JSON text, one between each two lines that are exactly `---` (YAML's document
    start; the text's first line too). A value holds no such line (it breaks lines only between
    tokens, and no token starts `---`): each is read, then a separator looked for after it."""
    lines = _Lines(text)
    docs: list[Document] = []
    first = i = 4 if text.startswith("---\n") else 5 if text.startswith("---\r\n") else 0
    value_next = True  # at the start, or after a separator: a value may come
    try:
        while True:
            i = _skip(_BLANK, text, i)
            if i == len(text):
                return docs
            after = _separator_end(text, i, first)
            if after is not None:
                i, value_next = after, True
                continue
            if not value_next or text[i] not in "{[":
                return None
            line = lines(i)
            data, i = (
                _json_root(text, i, lines, scan, source, each, tail if not docs else None)
                if text[i] == "{"
                else _json_items(text, i, lines, scan, source, each)
            )
            docs.append(Document(data, file, line))
            if len(docs) > max_objects():
                raise TooManyObjects
            value_next = False
    except (ValueError, StopIteration, IndexError, RecursionError):
        return None


def _separator_end(text: str, i: int, first: int) -> int | None:
    """Where the next document begins if a `---` line starts at `i` (its line break after `first`)."""
    if i <= first or text[i - 1] != "\n" or not text.startswith("---", i):
        return None
    after = i + 3
    if after == len(text):
        return after
    if text.startswith("\n", after):
        return after + 1
    return after + 2 if text.startswith("\r\n", after) else None


def _skip(space: re.Pattern[str], text: str, start: int) -> int:
    """Where the run of `space` at `start` ends (the patterns match the empty string too)."""
    found = space.match(text, start)
    return found.end() if found is not None else start


def _json_root(
    text: str,
    start: int,
    lines: _Lines,
    scan: Any,
    source: SourceText,
    each: Callable[[Any], None],
    tail: TailFirst | None = None,
) -> tuple[LineDict, int]:
    """The top object: a line for each key, and its top-level lists item by item (a List's items
    tail first, given `tail`: see json_tail)."""
    root = LineDict()
    root.line = lines(start)
    finder = JsonLines(source, start, root.line)
    root.source = _JsonSource(finder)
    i = _skip(_SPACE, text, start + 1)
    if text[i] == "}":
        return root, i + 1
    return root, _root_entries(text, i, root, start, lines, finder, scan, source, each, tail)


def _root_entries(
    text: str,
    i: int,
    root: LineDict,
    start: int,
    lines: _Lines,
    finder: JsonLines,
    scan: Any,
    source: SourceText,
    each: Callable[[Any], None],
    tail: TailFirst | None = None,
    held: Container[str] = (),
) -> int:
    """The top object's entries from the key at `i` on, into `root`: the offset after its `}`. `held`:
    keys the object has that `root` does not hold (a tail read first holds the last entries)."""
    while True:
        if text[i] != '"':
            raise ValueError("expected a key")
        key_at = i
        key_line = lines(i)
        key, i = _scanstring(text, i + 1)
        if key in root or key in held or len(key) > LONGEST_KEY:
            raise ValueError("a duplicate or long key")
        i = _skip(_SPACE, text, i)
        if text[i] != ":":
            raise ValueError("expected ':'")
        i = _skip(_SPACE, text, i + 1)
        finder.seen(start, key, key_at, key_line, i)
        rest = None
        if text[i] != "[":
            value, i = scan(text, i)
        elif tail is not None and key == "items":
            from .json_tail import read_tail_first

            value, i, rest = read_tail_first(
                text, i, root, start, lines, key_line, finder, scan, source, each, tail
            )
        else:
            value, i = _json_items(text, i, lines, scan, source, each, top=False)
        root[key] = value
        root.key_lines[key] = key_line
        if rest is not None:  # the tail read first: the object's last entries are read already
            root.update(rest)
            root.key_lines.update(rest.key_lines)
            return i
        i = _skip(_SPACE, text, i)
        if text[i] == "}":
            return i + 1
        if text[i] != ",":
            raise ValueError("expected ',' or '}'")
        i = _skip(_SPACE, text, i + 1)


def _json_items(
    text: str,
    start: int,
    lines: _Lines,
    scan: Any,
    source: SourceText,
    each: Callable[[Any], None],
    top: bool = True,
) -> tuple[LineList, int]:
    """A top-level list (`top`: the document): a line for each item, and each object item an object
    root of its own."""
    items = LineList()
    items.line = lines(start)
    finder = JsonLines(source, start, items.line) if top else None
    if finder is not None:
        items.source = _JsonSource(finder)
    i = _skip(_SPACE, text, start + 1)
    if text[i] == "]":
        return items, i + 1
    end, _ = _item_run(text, i, items, lines, scan, source, each, finder, start)
    return items, end


def _item_run(
    text: str,
    i: int,
    items: LineList,
    lines: _Lines,
    scan: Any,
    source: SourceText,
    each: Callable[[Any], None],
    finder: JsonLines | None,
    start: int,
    stop: int = -1,
) -> tuple[int, bool]:
    """The items of the list at `start` from the one at `i` on, into `items`: the offset after the
    list's `]`, and False; or `stop` and True, when an item begins there (it is not read)."""
    limit = max_objects()
    while True:
        if i == stop:
            return i, True
        if len(items) >= limit:
            raise TooManyObjects
        line = lines(i)
        if finder is not None:
            finder.seen(start, len(items), i, line, i)
        value, end = scan(text, i)
        each(value)  # at once: what it frees is reused for the next item
        if value.__class__ is dict:
            item = LineDict(value)
            item.line = line
            item.source = _JsonSource(JsonLines(source, i, line))
            value = item
        items.append(value)
        items.item_lines.append(line)
        i = _skip(_SPACE, text, end)
        if text[i] == "]":
            return i + 1, False
        if text[i] != ",":
            raise ValueError("expected ',' or ']'")
        i = _skip(_SPACE, text, i + 1)
