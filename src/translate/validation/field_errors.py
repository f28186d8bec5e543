"""Field errors worded as the API server words them after the field path (`Invalid value: "x": ...`,
`Required value`, `Too many: 33: must have at most 32 items`, ...), and values rendered the way Go's
field errors print them. Users put our output next to `kubectl` errors, so the wording is kept
identical.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from ...model.errors import FieldPath
from . import FieldError

# Rendering values the way Go's field errors print them -------------------------------------


@dataclass(frozen=True)
class Raw:
    """A value already rendered (Go prints some values as struct/slice literals)."""

    text: str


Value = str | int | bool | None | Raw


def go_quote(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def render(value: Value) -> str:
    if value is None:
        return "null"
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return go_quote(value)


def compact_json(value: object) -> str:
    """JSON without spaces: the closest we get to the bytes the API server received."""
    return json.dumps(value, separators=(",", ":"))


def go_string_slice(values: Iterable[str] | None, type_name: str = "[]string") -> Raw:
    """`[]string{"a", "b"}`, or `[]string(nil)` for an unset list, as `%#v` shows it."""
    if values is None:
        return Raw(f"{type_name}(nil)")
    return Raw(type_name + "{" + ", ".join(go_quote(v) for v in values) + "}")


# Field-error builders ------------------------------------------------------------------------


def required(path: FieldPath, detail: str = "") -> FieldError:
    return FieldError(path, "Required value" + (f": {detail}" if detail else ""))


def invalid(path: FieldPath, value: Value, detail: str) -> FieldError:
    return FieldError(path, f"Invalid value: {render(value)}: {detail}")


def forbidden(path: FieldPath, detail: str) -> FieldError:
    return FieldError(path, f"Forbidden: {detail}")


def too_long(path: FieldPath, max_bytes: int) -> FieldError:
    return FieldError(path, f"Too long: may not be more than {max_bytes} bytes")


def too_many(path: FieldPath, actual: int, maximum: int) -> FieldError:
    return FieldError(path, f"Too many: {actual}: must have at most {maximum} items")


def duplicate(path: FieldPath, value: Value) -> FieldError:
    return FieldError(path, f"Duplicate value: {render(value)}")


def not_found(path: FieldPath, value: Value) -> FieldError:
    return FieldError(path, f"Not found: {render(value)}")


def not_supported(path: FieldPath, value: Value, supported: Iterable[str]) -> FieldError:
    listed = ", ".join(go_quote(s) for s in supported)
    suffix = f": supported values: {listed}" if listed else ""
    return FieldError(path, f"Unsupported value: {render(value)}{suffix}")


def messages_as_invalid(path: FieldPath, value: str, messages: Iterable[str]) -> list[FieldError]:
    return [invalid(path, value, m) for m in messages]
