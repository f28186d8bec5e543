"""Names holding what a terminal acts on instead of showing it (a catalog: see values), and a
mutation that gives one name such an ending everywhere it is used, so that the objects still refer to
each other and the name reaches every table and message.

ESC starts escape sequences (colour, cursor moves, window titles, hyperlinks), BEL rings, NUL and the
other C0 and C1 controls act or vanish, CR overwrites the line, a newline forges one, and the
bidirectional controls reorder what follows. Whatever the verb prints for a terminal must show them
escaped (the runner checks: tables and every line on stderr).
"""

from __future__ import annotations

import copy
from typing import Any

from .choices import Chooser, pick
from .values import register

ENDINGS = (
    "\x1b[31mred\x1b[0m",
    "\x1b]0;title\x07",
    "\x1b]8;;http://example.com\x1b\\link\x1b]8;;\x1b\\",
    "\x07",
    "\x00",
    "\r",
    "\rforged",
    "\nforged: line",
    "\r\n",
    "\t",
    "\x7f",
    "\x85",
    "\x9b31m",
    "\u202egnp.exe",
    "\u2066isolate\u2069",
    "\u200f",
    "\u2028",
)

CONTROL_NAMES = tuple(f"name{ending}" for ending in ENDINGS) + ENDINGS

register(("name", "node", "driver", "pool", "device", "namespace", "key", "reason", "message"), CONTROL_NAMES)

_NAME_KEYS = (
    "name",
    "namespace",
    "nodeName",
    "resourceClaimName",
    "resourceClaimTemplateName",
    "pool",
    "device",
)


def _names(value: Any, out: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _NAME_KEYS and isinstance(item, str) and item:
                out.add(item)
            _names(item, out)
    elif isinstance(value, list):
        for item in value:
            _names(item, out)


def _renamed(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        return {_renamed(k, old, new): _renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    return new if value == old else value


def rename_everywhere(chooser: Chooser, files: dict[str, list[Any]]) -> str:
    """One name of the input, wherever it is used, ends in a control sequence; what was renamed."""
    found: set[str] = set()
    for docs in files.values():
        _names(docs, found)
    if not found:
        return ""
    old = pick(chooser, sorted(found))
    new = old + pick(chooser, ENDINGS)
    for name, docs in files.items():
        files[name] = [_renamed(copy.deepcopy(d), old, new) for d in docs]
    return f"renamed {old!r} to {new!r} everywhere"
