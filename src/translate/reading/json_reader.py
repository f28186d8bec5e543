"""JSON text read by `json`, where it reads the text as YAML does (`json_text` says where): the
fastest of `yaml_source`'s readers, for `kubectl get -o json` dumps and JSON documents between `---`
lines. Each document's top object and its keys, and its top-level lists and their items, are
`LineDict`/`LineList` with their lines; a deeper field's line is found when a problem asks for it,
by walking the object's span of the text (`json_walk`).

Also the documents' plain form, for a child that reads a file for the process (`json_child`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .bounded_read import TooManyObjects, max_objects
from .documents import Document, LineDict, LineList, gc_paused
from .json_text import (
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
from .json_walk import BLANK, JsonSpan, Lines, json_items, json_root, skip

if TYPE_CHECKING:
    from .json_tail import TailFirst


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
    return source.lines.state() if isinstance(source, JsonSpan) else None


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
        value.source = JsonSpan(JsonLines.restored(source, state))
    return value


# ---- JSON: `json` where it reads the text as YAML does (json_text says where) -------------------


_JSON_START = re.compile(r"[ \r\n]*(?:---\r?\n[ \r\n]*)?[\[{]")


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
    lines = Lines(text)
    docs: list[Document] = []
    first = i = 4 if text.startswith("---\n") else 5 if text.startswith("---\r\n") else 0
    value_next = True  # at the start, or after a separator: a value may come
    try:
        while True:
            i = skip(BLANK, text, i)
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
                json_root(text, i, lines, scan, source, each, tail if not docs else None)
                if text[i] == "{"
                else json_items(text, i, lines, scan, source, each)
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
