"""The JSON reader's walk over a document's top object and its top-level lists: a line for each key and
item, each object item an object root of its own, and each root's span of the text (`JsonSpan`), where
the line of a deeper field is found when a problem asks for it. `json_reader` reads documents with it;
`json_tail` reads a List's last items first with it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Container
from typing import Any, Protocol

from ...model.errors import FieldPath
from .bounded_read import TooManyObjects, max_objects
from .documents import LineDict, LineList
from .json_text import LONGEST_KEY, JsonLines, SourceText
from .json_text import too_deep as too_deep_data


class JsonSpan:
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


_JSON_START = re.compile(r"[ \r\n]*(?:---\r?\n[ \r\n]*)?[\[{]")
BLANK = re.compile(r"[ \r\n]*")  # a tab where YAML's block context begins is an error there
SPACE = re.compile(r"[ \t\n\r]*")
_scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]


class Lines:
    """The line of each offset of `text`, asked in increasing order, counted as it goes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0
        self.line = 1

    def __call__(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


class ItemsFirst(Protocol):
    """A List's items read otherwise than in order (`json_tail.TailFirst`: its last items first)."""

    def read_items(
        self,
        text: str,
        items_at: int,
        root: LineDict,
        start: int,
        lines: Lines,
        key_line: int,
        finder: JsonLines,
        scan: Any,
        source: SourceText,
        each: Callable[[Any], None],
    ) -> tuple[LineList, int, LineDict | None]:
        """The items (their `[` at `items_at`), where the reading goes on, and the root's entries after
        the items when they were read too (see json_tail.TailFirst)."""
        ...


def skip(space: re.Pattern[str], text: str, start: int) -> int:
    """Where the run of `space` at `start` ends (the patterns match the empty string too)."""
    found = space.match(text, start)
    return found.end() if found is not None else start


def json_root(
    text: str,
    start: int,
    lines: Lines,
    scan: Any,
    source: SourceText,
    each: Callable[[Any], None],
    tail: ItemsFirst | None = None,
) -> tuple[LineDict, int]:
    """The top object: a line for each key, and its top-level lists item by item (a List's items
    tail first, given `tail`: see json_tail)."""
    root = LineDict()
    root.line = lines(start)
    finder = JsonLines(source, start, root.line)
    root.source = JsonSpan(finder)
    i = skip(SPACE, text, start + 1)
    if text[i] == "}":
        return root, i + 1
    return root, root_entries(text, i, root, start, lines, finder, scan, source, each, tail)


def root_entries(
    text: str,
    i: int,
    root: LineDict,
    start: int,
    lines: Lines,
    finder: JsonLines,
    scan: Any,
    source: SourceText,
    each: Callable[[Any], None],
    tail: ItemsFirst | None = None,
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
        i = skip(SPACE, text, i)
        if text[i] != ":":
            raise ValueError("expected ':'")
        i = skip(SPACE, text, i + 1)
        finder.seen(start, key, key_at, key_line, i)
        rest = None
        if text[i] != "[":
            value, i = scan(text, i)
        elif tail is not None and key == "items":
            value, i, rest = tail.read_items(
                text, i, root, start, lines, key_line, finder, scan, source, each
            )
        else:
            value, i = json_items(text, i, lines, scan, source, each, top=False)
        root[key] = value
        root.key_lines[key] = key_line
        if rest is not None:  # the tail read first: the object's last entries are read already
            root.update(rest)
            root.key_lines.update(rest.key_lines)
            return i
        i = skip(SPACE, text, i)
        if text[i] == "}":
            return i + 1
        if text[i] != ",":
            raise ValueError("expected ',' or '}'")
        i = skip(SPACE, text, i + 1)


def json_items(
    text: str,
    start: int,
    lines: Lines,
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
        items.source = JsonSpan(finder)
    i = skip(SPACE, text, start + 1)
    if text[i] == "]":
        return items, i + 1
    end, _ = item_run(text, i, items, lines, scan, source, each, finder, start)
    return items, end


def item_run(
    text: str,
    i: int,
    items: LineList,
    lines: Lines,
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
            item.source = JsonSpan(JsonLines(source, i, line))
            value = item
        items.append(value)
        items.item_lines.append(line)
        i = skip(SPACE, text, end)
        if text[i] == "]":
            return i + 1, False
        if text[i] != ",":
            raise ValueError("expected ',' or ']'")
        i = skip(SPACE, text, i + 1)
