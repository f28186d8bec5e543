"""A List's last items read first, by the child that reads a large JSON file for the process
(`json_child`): the process makes their objects while the child reads the rest.

A cluster dump is one List. The objects that cost the process most to make (pods and claims: a model
validated for each) often come last, after the ResourceSlices that cost the child most to read. Read in
order, the process waits for all of it, then makes every object. Read tail first, the child hands the
last items on as soon as it has read them, and the process makes their objects while the child reads
the others.

Where the tail begins is a guess made on the text: the first line past the last sixth of the items'
text that opens an object at the indentation of the first item (`kubectl -o json` writes each item so).
The guess holds only if reading the items in order from the first meets an item beginning exactly
there; the items read from it are then those a reading in order makes, on the same lines, and the List
is read as it would be otherwise. If no item begins there, the tail is void: the items are read in
order, and the process drops what it made of the tail. The tail is read only when the List is the
text's one document, its kind names a List, and its last items are objects (their objects are then
made alike whatever comes before them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .documents import Document, LineDict, LineList
from .json_text import JsonLines, KeyTally, SourceText
from .json_walk import BLANK, SPACE, Lines, item_run, json_items, root_entries, skip

# The tail starts past the last sixth of the items' text: enough for a dump's pods and claims, and
# read before the process has imported what it needs.
TAIL_SHARE = 6


@dataclass
class TailFirst:
    """One reading's tail: `send` gets the tail's document (the List with its last items only) as soon
    as they are read."""

    send: Callable[[LineDict], None]
    tally: KeyTally | None = None  # the reading's key count: a void tail's keys are taken back
    sent: bool = False
    head_items: int | None = None  # once read, if the tail held: how many items come before it

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
        """The List's items (its `[` at `items_at`), and where the reading goes on: past the whole root,
        with the root's entries after the items (a LineDict), if the tail held; past the items, None, if
        not."""
        cut = _tail_start(text, items_at)
        early = (
            _read_tail(text, cut, items_at, root, start, finder, scan, source, each, self) if cut else None
        )
        if cut is None or early is None:
            items, after = json_items(text, items_at, lines, scan, source, each, top=False)
            return items, after, None
        tail_items, rest, end, tail_keys = early
        self.send(_tail_root(root, key_line, tail_items, rest))
        self.sent = True
        # The items before the tail (there is one at least: the cut is past the first).
        items = LineList()
        items.line = lines(items_at)
        first = skip(SPACE, text, items_at + 1)
        after, landed = item_run(text, first, items, lines, scan, source, each, None, items_at, cut)
        if not landed:  # no item begins at the cut: the items are read in order, the tail is void
            if self.tally is not None:
                self.tally.keys -= tail_keys
            return items, after, None
        self.head_items = len(items)
        items.extend(tail_items)
        items.item_lines.extend(tail_items.item_lines)
        return items, end, rest


def _tail_start(text: str, items_at: int) -> int | None:
    """Where the tail would begin: an object opening a line at the first item's indentation, past the
    last sixth of the items' text (None: no such line, or the items are not on lines of their own)."""
    first = skip(SPACE, text, items_at + 1)
    line_start = text.rfind("\n", items_at, first)
    if line_start < 0 or text[first] != "{":
        return None
    opening = text[line_start:first] + "{"
    found = text.find(opening, max(first + 1, len(text) - (len(text) - items_at) // TAIL_SHARE))
    return found + len(opening) - 1 if found >= 0 else None


def _read_tail(
    text: str,
    cut: int,
    items_at: int,
    root: LineDict,
    start: int,
    finder: JsonLines,
    scan: Any,
    source: SourceText,
    each: Callable[[Any], None],
    tail: TailFirst,
) -> tuple[LineList, LineDict, int, int] | None:
    """The items from `cut` on, the root's entries after them, where the root ends, and how many keys
    the tally counted meanwhile; None (and nothing counted) when they are not a List's last items."""
    tally = tail.tally
    if tally is not None:
        tally.fold()
    counted = tally.keys if tally is not None else 0
    lines = Lines(text)
    lines.line += text.count("\n", 0, cut)
    lines.offset = cut
    items = LineList()
    items.line = 1 + text.count("\n", 0, items_at)
    rest = LineDict()
    try:
        end, _ = item_run(text, cut, items, lines, scan, source, each, None, items_at)
        i = skip(SPACE, text, end)
        if text[i] == ",":
            held = (*root, "items")
            i = root_entries(
                text, skip(SPACE, text, i + 1), rest, start, lines, finder, scan, source, each, held=held
            )
        elif text[i] == "}":
            i += 1
        else:
            raise ValueError("expected ',' or '}'")
    except (ValueError, StopIteration, IndexError, RecursionError):
        i = -1
    kind = rest["kind"] if "kind" in rest else root.get("kind")
    if (
        i < 0
        or skip(BLANK, text, i) != len(text)
        or not (isinstance(kind, str) and kind.endswith("List"))
        or not all(item.__class__ is LineDict for item in items)
    ):
        if tally is not None:
            tally.made.clear()
            tally.keys = counted
        return None
    if tally is not None:
        tally.fold()
    return items, rest, i, (tally.keys - counted if tally is not None else 0)


def _tail_root(root: LineDict, key_line: int, items: LineList, rest: LineDict) -> LineDict:
    """The List with its last items only: what comes before them, then they, then what follows."""
    out = LineDict(root)
    out.key_lines = dict(root.key_lines)
    out["items"] = items
    out.key_lines["items"] = key_line
    out.update(rest)
    out.key_lines.update(rest.key_lines)
    out.line = root.line
    out.source = root.source
    return out


def head_documents(docs: list[Document], head_items: int) -> list[Document]:
    """The documents of a reading whose tail held, without the tail's items (sent before them)."""
    (doc,) = docs
    root = doc.data
    items = root["items"]
    head = LineList(items[:head_items])
    head.item_lines = items.item_lines[:head_items]
    head.line = items.line
    out = LineDict(root)
    out.key_lines = root.key_lines
    out["items"] = head
    out.line = root.line
    out.source = root.source
    return [Document(out, doc.file, doc.line)]
