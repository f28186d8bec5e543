"""Printing results as kubectl does: YAML, JSON, or an aligned table."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import yaml

FORMATS = ("table", "yaml", "json")


class _Dumper(yaml.SafeDumper):
    """Block-style YAML with multi-line strings as literal blocks."""


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_representer)


def default_format(stream: TextIO | None = None) -> str:
    """Table on a terminal, YAML when piped (so the output can be applied or parsed)."""
    return "table" if (stream or sys.stdout).isatty() else "yaml"


def to_yaml(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)


def to_json(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to the widest cell, three spaces apart, as `kubectl get` prints."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [cell.ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append("   ".join(parts).rstrip())
    return "\n".join(lines) + "\n"


def emit(doc: Any, fmt: str, table_text: str | None = None, stream: TextIO | None = None) -> None:
    stream = stream or sys.stdout
    if fmt == "json":
        stream.write(to_json(doc))
    elif fmt == "yaml":
        stream.write(to_yaml(doc))
    else:
        stream.write(table_text if table_text is not None else to_yaml(doc))
