"""What a JSON text holds, told without reading it all in Python: whether `json` reads it as YAML
does, how many keys it can hold, and the line of a field.

YAML reads a JSON text differently from `json`, or refuses it, where there are characters YAML
does not accept, NEL (YAML folds it) or the Unicode line separators (YAML counts lines at them);
escaped surrogates (YAML refuses them, `json` pairs them); a key whose `:` is on another line or far
away (YAML refuses a key that spans lines or 1024 characters); a lone CR (YAML counts a line there).
The patterns below say exactly where; on a large dump each takes about as long to search as `json`
takes to read the text, so each runs only when a look at a few characters cannot rule it out.

Lines: a field below what the reader tracked is found by walking the value's text along the path,
`json` skipping what lies before it; what the walk has seen of an object or array is kept.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...model.errors import FieldPath
from .yaml_limits import MAX_DEPTH

_NOT_YAML_TEXT = re.compile("[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_YAML_ASCII = bytes([9, 10, 13, *range(0x20, 0x7F)])
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_FAR_COLON = re.compile(r'"(?:[ \t\r]*\n[ \t\r\n]*|[ \t\r]{64,}):')
_LONE_CR = re.compile(r"\r(?!\n)")
# The character before each `:` that does not follow a quote; the far colon needs a blank there.
_NOT_AFTER_QUOTE = re.compile(r':(?<=([^"]):)')
_BLANKS = frozenset(" \t\r\n")
# A run of backslashes, and the escaped surrogate it may end in (`_SURROGATE_ESCAPE`'s match).
_ESCAPES = re.compile(r"\\+(u[dD][89a-fA-F])?")
_SPACE = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True)
class JsonText:
    """A text `json` reads as YAML does (as far as its characters tell)."""

    key_bound: int | None
    """When every `:` that follows a key follows its closing quote at once: the number of `":` in the
    text whose quote is not escaped. That is every key, plus a string that begins with `:`; so a
    reading that finds this many distinct keys in its objects proves no object had a key twice.
    None when a blank comes before some `:`."""


def json_text(text: str) -> JsonText | None:
    """None when YAML may read `text` differently from `json` (then it goes the YAML way)."""
    if not _yaml_characters(text):
        return None
    if "\r" in text and _LONE_CR.search(text):
        return None
    escaped_colons = _escaped_colons(text) if "\\" in text else 0
    if escaped_colons is None:
        return None
    before = _NOT_AFTER_QUOTE.findall(text)
    if _BLANKS.isdisjoint(before):  # no `:` follows a blank: no far colon
        uncounted = escaped_colons < 0
        return JsonText(None if uncounted else text.count(":") - len(before) - escaped_colons)
    return None if _FAR_COLON.search(text) else JsonText(None)


def _yaml_characters(text: str) -> bool:
    if text.isascii():
        return "\x7f" not in text  # the other control characters are not JSON either
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return False  # a surrogate
    # The characters that may be wrong are few: search them alone (each UTF-8 sequence stays whole).
    return _NOT_YAML_TEXT.search(data.translate(None, _YAML_ASCII).decode()) is None


def _escaped_colons(text: str) -> int | None:
    """How many `\\":` escape their quote (-1: too many runs of backslashes to count in Python), or
    None when an escaped surrogate may be there (`_SURROGATE_ESCAPE`'s match ends a run)."""
    found = 0
    runs_left = max(4096, len(text) >> 10)
    start = text.find("\\")
    while start >= 0:
        runs_left -= 1
        if runs_left < 0:
            return None if _SURROGATE_ESCAPE.search(text, start) else -1
        run: Any = _ESCAPES.match(text, start)
        if run.group(1) is not None:
            return None
        end = run.end()
        if (end - start) % 2 and text.startswith('":', end):  # an odd run escapes the quote
            found += 1
        start = text.find("\\", end)
    return found


def too_deep(data: Any) -> bool:
    """Whether collections nest deeper than MAX_DEPTH in `data` (a collection), as the reference
    reader refuses the text it came from then. Plain dicts and lists are walked a level at a time by
    the collector's own traversal; their subclasses (the readers' roots) entry by entry."""
    roots = [data] if type(data) not in (dict, list) else []
    plain: list[Any] = [] if roots else [data]
    levels = 0  # levels below `data` holding anything: collections nest that deep or one less
    while True:
        below: list[Any] = gc.get_referents(*plain)
        below_roots = []
        for root in roots:
            for child in root.values() if isinstance(root, dict) else root:
                if isinstance(child, dict | list) and type(child) not in (dict, list):
                    below_roots.append(child)
                else:
                    below.append(child)
        if not below and not below_roots:
            break
        levels += 1
        if levels > MAX_DEPTH:
            return True
        roots, plain = below_roots, below
    # At MAX_DEPTH levels, the last one holds an empty collection or only scalars.
    return levels == MAX_DEPTH and (bool(roots) or any(isinstance(x, dict | list) for x in plain))


# ---- scanners: `json`'s, reading scalars as YAML does --------------------------------------------

LONGEST_KEY = 128  # with \uXXXX escapes and a little space, still well inside YAML's 1024
# YAML's float needs a dot, and a sign in its exponent: `1e5` and `1.5e3` are strings there.
_YAML_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+(?:[eE][-+][0-9]+)?")


def _float(text: str) -> Any:
    return float(text) if _YAML_FLOAT.fullmatch(text) else text


def _checked_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs) or (out and max(map(len, out)) > LONGEST_KEY):
        raise ValueError("a duplicate or long key: the YAML path reports or reads it")
    return out


# NaN and Infinity are plain strings to YAML.
_CHECKED = json.JSONDecoder(object_pairs_hook=_checked_object, parse_float=_float, parse_constant=str)
checked_scan: Any = _CHECKED.scan_once  # type: ignore[attr-defined]


def collecting_scanner() -> tuple[Any, list[dict[str, Any]]]:
    """A scanner reading as `checked_scan` does, but keeping every object it makes instead of checking
    its keys one object at a time (a Python call on a list of pairs for each: half again the time
    `json` takes). `KeyTally` checks them all at once."""
    made: list[dict[str, Any]] = []
    keep = made.append

    def collect(obj: dict[str, Any]) -> dict[str, Any]:
        keep(obj)
        return obj

    decoder = json.JSONDecoder(object_hook=collect, parse_float=_float, parse_constant=str)
    return decoder.scan_once, made  # type: ignore[attr-defined]


class KeyTally:
    """The keys of the objects a collecting scanner made, counted as reading goes (`fold` after each
    value read): the objects themselves need not be kept until the end, so what reading makes of
    them (see `slice_intern`) can be freed at once."""

    def __init__(self, made: list[dict[str, Any]]) -> None:
        self.made = made
        self.keys = 0
        self.longest = 0

    def fold(self) -> None:
        made = self.made
        if made:
            self.keys += sum(map(len, made))
            self.longest = max(self.longest, max(map(len, set().union(*made)), default=0))
            made.clear()

    def count(self, more_keys: int) -> KeyCount:
        """The keys of the objects made, and `more_keys` read otherwise."""
        self.fold()
        return KeyCount(self.keys + more_keys, self.longest)


@dataclass(frozen=True)
class KeyCount:
    """The keys a reader met in a text, and the longest."""

    keys: int
    longest: int

    def prove(self, key_bound: int) -> bool:
        """Whether the objects hold as many keys as the text can (its facts' `key_bound`): then none
        lost one to a duplicate; and whether none is longer than LONGEST_KEY."""
        return self.keys == key_bound and self.longest <= LONGEST_KEY


class SourceText:
    """A text as the lines of its objects are looked up: held while it is read, then (`release`) read
    again from its file only if a line is ever asked for. A large dump's text is as big as what is
    read from it; nothing needs it again unless a problem must be located."""

    def __init__(self, text: str | None, reread: Callable[[], str] | None = None) -> None:
        # None: not read yet (someone else read it), read from the file when a line is asked for.
        assert text is not None or reread is not None
        self._text = text
        self._reread = reread

    def get(self) -> str:
        if self._text is None:
            assert self._reread is not None
            self._text = self._reread()
        return self._text

    def release(self) -> None:
        if self._reread is not None:
            self._text = None


# ---- lines ----------------------------------------------------------------------------------------

_skip: Any = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]


@dataclass
class _Members:
    """What a walk has seen of one object (by key) or array (by index): each entry's offset, line
    and value offset; where to read on (None: all seen), whether that is the last entry's value
    (still to be skipped), and the last offset whose line is known (lines are counted from there)."""

    offset: int
    line: int
    entries: dict[Any, tuple[int, int, int]] = field(default_factory=dict)
    next: int | None = None
    in_value: bool = False


# (start, line, {container offset: (offset, line, entries, next, in_value)}): see JsonLines.state.
LinesState = tuple[int, int, dict[int, tuple[int, int, dict[Any, tuple[int, int, int]], int | None, bool]]]


class JsonLines:
    """The lines of the fields of one JSON value of a text (an object root of the fast reader). One is
    made for every item of a List: slots, and nothing seen until a walk asks (an item costs bytes)."""

    __slots__ = ("_seen", "line", "source", "start")

    def __init__(self, text: str | SourceText, start: int, line: int) -> None:
        self.source = text if isinstance(text, SourceText) else SourceText(text)
        self.start = start
        self.line = line
        self._seen: dict[int, _Members] | None = None

    def seen(self, container: int, entry: Any, at: int, line: int, value: int) -> None:
        """An entry of the container at offset `container` that the reader met (it reads such
        containers whole): at offset `at` on `line`, its value at offset `value`."""
        if self._seen is None:
            self._seen = {}
        members = self._seen.get(container)
        if members is None:
            members = self._seen[container] = _Members(at, line)
        members.entries[entry] = (at, line, value)

    @property
    def text(self) -> str:
        return self.source.get()

    def state(self) -> LinesState:
        """What this knows of the text, in plain values (`marshal` writes them): `restored` makes it
        again for the same text."""
        seen = {at: (m.offset, m.line, m.entries, m.next, m.in_value) for at, m in (self._seen or {}).items()}
        return self.start, self.line, seen

    @classmethod
    def restored(cls, source: SourceText, state: LinesState) -> JsonLines:
        start, line, seen = state
        lines = cls(source, start, line)
        lines._seen = {at: _Members(*m) for at, m in seen.items()}
        return lines

    def line_of(self, path: FieldPath) -> int:
        """The line of the deepest part of `path` that exists (the value's own line if none)."""
        line = value_line = self.line
        value = self.start
        for part in path:
            found = self._find(value, value_line, part)
            if found is None:
                break
            at, line, value = found
            value_line = line + self.text.count("\n", at, value)
        return line

    def _find(self, value: int, line: int, part: Any) -> tuple[int, int, int] | None:
        opening = self.text[value]
        if opening == "{":
            if not isinstance(part, str):
                return None  # keys are strings
        elif opening != "[" or not isinstance(part, int) or part < 0:
            return None
        if self._seen is None:
            self._seen = {}
        members = self._seen.get(value)
        if members is None:
            members = self._seen[value] = _Members(value, line, next=_skip_space(self.text, value + 1))
        while part not in members.entries and members.next is not None:
            self._read_on(members, opening == "{")
        return members.entries.get(part)

    def _read_on(self, members: _Members, is_object: bool) -> None:
        """The next entry of an object or array (the text is JSON the fast reader has read)."""
        text = self.text
        i = members.next
        assert i is not None
        if members.in_value:
            _, end = _skip(text, i)
            i = _skip_space(text, end)
            if text[i] != ",":
                members.next = None
                return
            i = _skip_space(text, i + 1)
        elif text[i] in "}]":
            members.next = None
            return
        members.line += text.count("\n", members.offset, i)
        members.offset = i
        if is_object:
            key, after = _scanstring(text, i + 1)
            value = _skip_space(text, _skip_space(text, after) + 1)  # past the `:`
        else:
            key, value = len(members.entries), i
        members.entries[key] = (i, members.line, value)
        members.next, members.in_value = value, True


def _skip_space(text: str, start: int) -> int:
    found = _SPACE.match(text, start)
    return found.end() if found is not None else start
