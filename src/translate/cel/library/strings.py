"""cel-go strings extension, version 2 (what Kubernetes enables since 1.29).

Version 2 has charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace,
split, substring, trim, join, format and strings.quote; `reverse` arrived in
version 3 and is not declared. Indices count code points, as cel-go counts
runes; errors carry cel-go's messages, including its quirks (`''.indexOf('a')`
is an index error, not -1). `format` itself lives in `string_format`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ....model.errors import CelRuntimeError
from ....model.go_strings import GO_ESCAPES, GO_SPACE
from ....model.go_strings import go_quote as go_quote
from .. import types as t
from ..budget import spend
from ..registry import Costs, Declaration, Library
from ..values import to_string
from .costs import DOUBLE_TRAVERSAL, STRING_TRAVERSAL_COST, TRAVERSAL, UNIT, arg_len, size_at, traversal
from .string_format import cel_type_name as cel_type_name
from .string_format import check_format_call as check_format_call
from .string_format import format_string

library = Library("cel.lib.ext.strings")

VERSION = 2

_STRINGS = t.list_of(t.STRING)


# Upstream charges indexOf/lastIndexOf one truncated traversal of the receiver.
_SEARCH = Costs(
    lambda args: int(float(arg_len(args, 0)) * STRING_TRAVERSAL_COST),
    lambda sizes: int(float(size_at(sizes, 0)) * STRING_TRAVERSAL_COST),
)


def _join_cost(args: Sequence[Any]) -> int:
    items = args[0] if args and isinstance(args[0], list) else []
    sep = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    size = sum(len(x) for x in items if isinstance(x, str)) + len(sep) * max(len(items) - 1, 0)
    # Traversal of the parts plus construction of the result.
    return traversal(size, 2 * STRING_TRAVERSAL_COST)


_JOIN = Costs(_join_cost, DOUBLE_TRAVERSAL.estimate)


def _member(
    name: str, params: tuple[t.CelType, ...], result: t.CelType, overload_id: str, costs: Costs
) -> Declaration:
    """A receiver-style declaration (all of this library's functions but `strings.quote`)."""
    return library.function(name, member=True, params=params, result=result, id=overload_id, costs=costs)


def _out_of_range(index: int) -> CelRuntimeError:
    return CelRuntimeError(f"index out of range: {index}")


@_member("charAt", (t.STRING, t.INT), t.STRING, "string_char_at_int", UNIT)
def char_at(s: str, index: int) -> str:
    if index < 0 or index > len(s):
        raise _out_of_range(index)
    return s[index] if index < len(s) else ""


@_member("indexOf", (t.STRING, t.STRING), t.INT, "string_index_of_string", _SEARCH)
@_member("indexOf", (t.STRING, t.STRING, t.INT), t.INT, "string_index_of_string_int", _SEARCH)
def index_of(s: str, sub: str, offset: int = 0) -> int:
    if sub == "":
        return offset
    if offset < 0 or offset >= len(s):
        raise _out_of_range(offset)
    return s.find(sub, offset)


@_member("lastIndexOf", (t.STRING, t.STRING), t.INT, "string_last_index_of_string", _SEARCH)
@_member("lastIndexOf", (t.STRING, t.STRING, t.INT), t.INT, "string_last_index_of_string_int", _SEARCH)
def last_index_of(s: str, sub: str, offset: int | None = None) -> int:
    if sub == "":
        return len(s) if offset is None else offset
    if offset is None:
        offset = len(s) - 1
    if offset < 0 or offset >= len(s):
        raise _out_of_range(offset)
    last_start = min(offset, len(s) - len(sub))
    if last_start < 0:
        return -1
    return s.rfind(sub, 0, last_start + len(sub))


_UPPER_TO_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_LOWER_TO_UPPER = {c: c - 32 for c in range(ord("a"), ord("z") + 1)}


@_member("lowerAscii", (t.STRING,), t.STRING, "string_lower_ascii", TRAVERSAL)
def lower_ascii(s: str) -> str:
    return s.translate(_UPPER_TO_LOWER)


@_member("upperAscii", (t.STRING,), t.STRING, "string_upper_ascii", TRAVERSAL)
def upper_ascii(s: str) -> str:
    return s.translate(_LOWER_TO_UPPER)


@_member(
    "replace", (t.STRING, t.STRING, t.STRING), t.STRING, "string_replace_string_string", DOUBLE_TRAVERSAL
)
@_member(
    "replace",
    (t.STRING, t.STRING, t.STRING, t.INT),
    t.STRING,
    "string_replace_string_string_int",
    DOUBLE_TRAVERSAL,
)
def replace(s: str, old: str, new: str, n: int = -1) -> str:
    # Go's strings.Replace: a negative count replaces everything, zero nothing.
    count = s.count(old) if old else len(s) + 1
    if n >= 0:
        count = min(count, n)
    # Charged by its input, a replacement can still build a result thousands of times longer.
    spend(len(s) + count * max(len(new) - len(old), 0))
    return s.replace(old, new, n if n >= 0 else -1)


@_member("split", (t.STRING, t.STRING), _STRINGS, "string_split_string", DOUBLE_TRAVERSAL)
@_member("split", (t.STRING, t.STRING, t.INT), _STRINGS, "string_split_string_int", DOUBLE_TRAVERSAL)
def split(s: str, sep: str, n: int = -1) -> list[str]:
    """Go's strings.SplitN, counting code points where Go counts runes."""
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if n < 0 or n >= len(chars):
            return chars
        return [*chars[: n - 1], "".join(chars[n - 1 :])]
    return s.split(sep) if n < 0 else s.split(sep, n - 1)


@_member("substring", (t.STRING, t.INT), t.STRING, "string_substring_int", TRAVERSAL)
def substring(s: str, start: int) -> str:
    if start < 0 or start > len(s):
        raise _out_of_range(start)
    return s[start:]


@_member("substring", (t.STRING, t.INT, t.INT), t.STRING, "string_substring_int_int", TRAVERSAL)
def substring_range(s: str, start: int, end: int) -> str:
    if start > end:
        raise CelRuntimeError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > len(s):
        raise _out_of_range(start)
    if end < 0 or end > len(s):
        raise _out_of_range(end)
    return s[start:end]


@_member("trim", (t.STRING,), t.STRING, "string_trim", TRAVERSAL)
def trim(s: str) -> str:
    return s.strip(GO_SPACE)


def _go_value(value: Any) -> str:
    """Roughly Go's `%v` of a CEL value, for the one error that prints one."""
    try:
        return to_string(value)
    except CelRuntimeError:
        return repr(value)


@_member("join", (_STRINGS,), t.STRING, "list_join", _JOIN)
@_member("join", (_STRINGS, t.STRING), t.STRING, "list_join_string", _JOIN)
def join(items: list[Any], sep: str = "") -> str:
    for item in items:
        if not isinstance(item, str):
            raise CelRuntimeError(f"join: invalid input: {_go_value(item)}")
    return sep.join(items)


_member("format", (t.STRING, t.list_of(t.DYN)), t.STRING, "string_format", TRAVERSAL)(format_string)

_QUOTE_ESCAPES = {**GO_ESCAPES, "\\": "\\\\", '"': '\\"'}


@library.function("strings.quote", params=(t.STRING,), result=t.STRING, id="strings_quote", costs=TRAVERSAL)
def quote(s: str) -> str:
    spend(len(s))
    out = ['"']
    for ch in s:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            ch = "\ufffd"
        out.append(_QUOTE_ESCAPES.get(ch, ch))
    out.append('"')
    return "".join(out)
