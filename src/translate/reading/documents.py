"""What the readers give: documents, and the mappings and sequences that know their lines.

Mappings become `LineDict` and sequences `LineList`, ordinary dicts and lists that know the line of each
key / item. The fast readers make them only where lines are always needed: each document's top mapping
and its keys, its top-level lists and their items. Everything below is plain; the line of a deeper field
is found when a problem asks for it (`line_of`), by the root's `source` (a `Located`): the YAML reader's
span read again (`yaml_reference.YamlSpan`), or the JSON reader's walk of its text (`json_walk.JsonSpan`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from ...model.errors import FieldPath


class Located(Protocol):
    """Where an object root was read from: finds the line of a field below it (None: not found)."""

    def locate(self, path: FieldPath, data: Any) -> int | None: ...


class LineDict(dict[Any, Any]):
    """A mapping that knows the line of itself and of each key (an object root read by a fast path:
    of some keys, and the `source` to find the others in). Every item of a List is one: slots."""

    __slots__ = ("key_lines", "line", "source")
    line: int
    key_lines: dict[Any, int]
    source: Located | None

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
    source: Located | None

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
