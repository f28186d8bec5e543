"""Printing results as kubectl does: YAML, JSON, or an aligned table.

YAML is written by libyaml's emitter (PyYAML's CSafeDumper) where PyYAML has it: a large answer
takes a fraction of the time PyYAML's own emitter takes, for the same bytes. The two differ only
on characters beyond the Basic Multilingual Plane (libyaml escapes them, PyYAML writes them), so a
document holding one is written by PyYAML's emitter, as it is where libyaml is missing: the output
never depends on the installation.

JSON and YAML keep every value exact, and show with their own escapes what a terminal would act on
(see terminal): JSON escapes only C0 controls, so DEL, C1 controls, the bidirectional controls and
the Unicode line separators get `\\uXXXX`; YAML escapes most of them, and a string holding a
bidirectional control is written double-quoted with it as `\\uXXXX`.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

import yaml

from .model.terminal import escape, escape_lines

FORMATS = ("table", "yaml", "json")

# What libyaml's emitter writes as PyYAML's does: printable ASCII, newlines, and the printable rest of
# the Basic Multilingual Plane but for the bidirectional controls, the Unicode line separators and the
# byte order mark.
_ORDINARY = (
    "\n\x20-\x7e\xa0-\u061b\u061d-\u200d\u2010-\u2027\u202f-\u2065\u206a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
)
_SPECIAL = re.compile(f"[^{_ORDINARY.replace(chr(10), '')}]")  # (a newline: a literal block)
_UNORDINARY = re.compile(f"[^{_ORDINARY}]")
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Lines no literal block can hold (a space before a line break, or at the end), which go double-quoted
# and are folded otherwise by the two; and a literal block keeping its final line breaks (`|+`), after
# which libyaml ends the document with "...".
_NOT_LITERAL = re.compile(" \n| \\Z|(?:\\A|\n)\n\\Z")
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


class _NeedsPyYAML(Exception):
    """The document holds a string libyaml would write otherwise than PyYAML's emitter."""


_STR, _INT, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "bool", "null"))
_MAP, _SEQ = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"


class _Represent:
    """Block-style YAML with multi-line strings as literal blocks (unless they hold controls).

    A dump's documents are millions of plain dicts, lists, strings and integers: they are turned into
    nodes here directly, as SafeRepresenter turns them (a dict or list seen twice is an alias, as
    there), without its lookups per value; other types take its way. What the emitter asks the
    resolver about each scalar (whether its text reads back as a string) is remembered per text."""

    bidi = False  # a string holds a bidirectional control (written raw inside double quotes, then escaped)
    represented_objects: dict[int, yaml.Node]
    object_keeper: list[Any]

    def represent_data(self, data: Any) -> yaml.Node:
        kind = data.__class__
        if kind is str:
            return self.represent_str(data)
        if kind is dict or kind is list:
            node = self.represented_objects.get(id(data))
            if node is not None:
                return node
            self.object_keeper.append(data)
            items: list[Any] = []
            if kind is dict:
                if "" in data and isinstance(self, _CDumper):
                    # An empty key: PyYAML writes it as an explicit key (`? ''`), libyaml as a simple one.
                    raise _NeedsPyYAML
                node = yaml.MappingNode(_MAP, items, flow_style=False)
                self.represented_objects[id(data)] = node
                for key, value in data.items():
                    items.append((self.represent_data(key), self.represent_data(value)))
            else:
                node = yaml.SequenceNode(_SEQ, items, flow_style=False)
                self.represented_objects[id(data)] = node
                items.extend(map(self.represent_data, data))
            return node
        if kind is int:
            return yaml.ScalarNode(_INT, str(data))
        if kind is bool:
            return yaml.ScalarNode(_BOOL, "true" if data else "false")
        if data is None:
            return yaml.ScalarNode(_NULL, "null")
        return super().represent_data(data)  # type: ignore[misc, no-any-return]

    def represent_str(self, value: str) -> yaml.ScalarNode:
        style = None
        if _SPECIAL.search(value):
            if isinstance(self, _CDumper) and (_UNORDINARY.search(value) or _NOT_LITERAL.search(value)):
                raise _NeedsPyYAML
            style = "|"
            if _JSON_UNSAFE.search(value):
                style = '"'
                self.bidi = self.bidi or bool(_BIDI.search(value))
            elif "\n" not in value:
                style = None
        return yaml.ScalarNode(_STR, value, style=style)

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)  # type: ignore[misc]
        if not implicit[0]:
            return _STR  # no implicit resolver applies (nor a path resolver: SafeDumper has none)
        tags: dict[str, str] | None = self.__dict__.get("_tags")
        if tags is None:
            tags = self.__dict__["_tags"] = {}
        tag = tags.get(value)
        if tag is None:
            tag = tags[value] = super().resolve(kind, value, implicit)  # type: ignore[misc]
        return tag


class _Dumper(_Represent, yaml.SafeDumper):
    pass


_Dumper.add_representer(str, _Represent.represent_str)

if getattr(yaml, "__with_libyaml__", False):

    class _CDumper(_Represent, yaml.CSafeDumper):
        pass

    _CDumper.add_representer(str, _Represent.represent_str)
    _DUMPERS: tuple[type, ...] = (_CDumper, _Dumper)
else:  # pragma: no cover - PyYAML built without libyaml

    class _CDumper:  # type: ignore[no-redef]
        """Stands for libyaml's dumper where there is none (never made)."""

    _DUMPERS = (_Dumper,)


def default_format(stream: TextIO | None = None) -> str:
    """Table on a terminal, YAML when piped (so the output can be applied or parsed)."""
    return "table" if (stream or sys.stdout).isatty() else "yaml"


def to_yaml(doc: Any, pure: bool = False) -> str:
    """`doc` as YAML (`pure`: by PyYAML's own emitter, whatever is installed)."""
    # A lone scalar is the other difference (PyYAML ends its document with "..."); kubefit writes objects.
    pure = pure or not isinstance(doc, dict | list)
    for dumper_class in _DUMPERS[-1:] if pure else _DUMPERS:
        stream = io.StringIO()
        dumper = dumper_class(stream, default_flow_style=False, allow_unicode=True, sort_keys=False)
        try:
            dumper.open()
            dumper.represent(doc)
            dumper.close()
        except _NeedsPyYAML:
            continue
        finally:
            dumper.dispose()
        text = stream.getvalue()
        return _BIDI.sub(_yaml_escape, text) if dumper.bidi else text
    raise AssertionError("PyYAML's emitter writes every document")


def _yaml_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04X}"


def to_json(doc: Any) -> str:
    return _json_safe(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"


def _json_safe(text: str) -> str:
    # An ASCII text (a flag of the string, no scan) can hold no unsafe character but DEL: one fast search
    # instead of the pattern's (a second per 300 MB).
    unsafe = "\x7f" in text if text.isascii() else _JSON_UNSAFE.search(text) is not None
    return _JSON_UNSAFE.sub(_json_escape, text) if unsafe else text


def write_json(stream: TextIO, doc: Any) -> None:
    """`to_json(doc)` on the stream. A document whose last key is `items` holding an iterator (a List
    rendered an object at a time) is written an item at a time, in the same bytes: the items of a
    large answer (kube-scheduler's annotations on every pod) are never all held at once."""
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, Iterator) or list(doc)[-1] != "items":
        write(stream, to_json(_listed(doc)))
        return
    head = json.dumps({**doc, "items": []}, indent=2, ensure_ascii=False)
    parts = [head[: -len("[]\n}")] + "["]
    size, sep = 0, "\n    "
    for item in items:
        text = json.dumps(item, indent=2, ensure_ascii=False)
        # A JSON text holds no line break but between its tokens: each line indented two levels more.
        parts.append(sep + text.replace("\n", "\n    "))
        sep = ",\n    "
        size += len(text)
        if size >= _CHUNK:
            write(stream, _json_safe("".join(parts)))
            parts, size = [], 0
    parts.append("]\n}\n" if sep == "\n    " else "\n  ]\n}\n")
    write(stream, _json_safe("".join(parts)))


def _listed(doc: Any) -> Any:
    """The document with a List's items made a list (what JSON and YAML dumpers take)."""
    if isinstance(doc, dict) and isinstance(doc.get("items"), Iterator):
        return {**doc, "items": list(doc["items"])}
    return doc


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to the widest cell, three spaces apart, as `kubectl get` prints; what the cells
    quote is shown as a terminal should show it (see terminal)."""
    cells = [[str(h) for h in headers]] + [["" if c is None else escape(str(c)) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [cell.ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append("   ".join(parts).rstrip())
    return "\n".join(lines) + "\n"


def emit(doc: Any, fmt: str, table_text: str | None = None, stream: TextIO | None = None) -> None:
    stream = stream or sys.stdout
    if fmt == "json":
        write_json(stream, doc)
    elif fmt == "yaml":
        write(stream, to_yaml(_listed(doc)))
    else:
        write(stream, escape_lines(table_text) if table_text is not None else to_yaml(_listed(doc)))


# Characters written at a time: a buffered stream given 2 GiB or more at once writes 2 GiB less 4 KiB (one
# write(2) call's most) and drops the rest without an error.
_CHUNK = 1 << 26


def write(stream: TextIO, text: str) -> None:
    """`text` on the stream, whatever its size."""
    for at in range(0, len(text), _CHUNK):
        stream.write(text[at : at + _CHUNK])
