"""cel-go strings extension, version 2 (what Kubernetes enables since 1.29).

Version 2 has charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace,
split, substring, trim, join, format and strings.quote; `reverse` arrived in
version 3 and is not declared. Indices count code points, as cel-go counts
runes; errors carry cel-go's messages, including its quirks (`''.indexOf('a')`
is an index error, not -1).

`format` follows cel-go's en_US rendering: `%f` and `%e` go through Go's
locale-aware printer (digit grouping, `∞`, `2.718280 × 10⁰⁰`), while doubles
inside lists and maps print plainly with six decimals.
"""

from __future__ import annotations

import datetime as _dt
import math
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from ....errors import CelRuntimeError
from .. import types as t
from ..registry import Library
from ..values import CelObject, Optional, Uint, to_string
from .standard_strings import traversal

library = Library("cel.lib.ext.strings")

VERSION = 2

# --- Go string helpers shared by the Kubernetes libraries ---------------------------

_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_is_print(ch: str) -> bool:
    """Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space."""
    return ch == " " or unicodedata.category(ch)[0] in "LMNPS"


def go_quote(s: str) -> str:
    """Go's strconv.Quote (`%q`): a double-quoted string with Go escapes."""
    out = ['"']
    for ch in s:
        cp = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif 0xD800 <= cp <= 0xDFFF:
            # A lone surrogate is invalid UTF-8 to Go; it quotes the bytes one by one.
            out.append("".join(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass")))
        elif go_is_print(ch):
            out.append(ch)
        elif ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif cp < 0x20 or cp == 0x7F:
            out.append(f"\\x{cp:02x}")
        elif cp < 0x10000:
            out.append(f"\\u{cp:04x}")
        else:
            out.append(f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)


def cel_type_name(value: Any) -> str:
    """The runtime type name cel-go prints in errors (`int`, `list`, `google.protobuf.Duration`)."""
    if value is None:
        return "null_type"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Uint):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, _dt.datetime):
        return "google.protobuf.Timestamp"
    if isinstance(value, _dt.timedelta):
        return "google.protobuf.Duration"
    if isinstance(value, Optional):
        return "optional_type"
    if isinstance(value, t.CelType):
        return "type"
    if isinstance(value, CelObject):
        return value.cel_type.name
    return type(value).__name__


# --- costs ---------------------------------------------------------------------------


def _text(args: Sequence[Any], i: int = 0) -> str:
    value = args[i] if i < len(args) else ""
    return value if isinstance(value, str) else ""


def _size_at(sizes: Sequence[int], i: int = 0) -> int:
    return sizes[i] if i < len(sizes) else 0


def _traverse_cost(args: Sequence[Any]) -> int:
    return traversal(len(_text(args)))


def _traverse_estimate(sizes: Sequence[int]) -> int:
    return traversal(_size_at(sizes))


def _rebuild_cost(args: Sequence[Any]) -> int:
    # Traversal plus construction of the result.
    return math.ceil(float(len(_text(args))) * 2 * 0.1)


def _rebuild_estimate(sizes: Sequence[int]) -> int:
    return math.ceil(float(_size_at(sizes)) * 2 * 0.1)


def _search_cost(args: Sequence[Any]) -> int:
    # Upstream charges indexOf/lastIndexOf one truncated traversal of the receiver.
    return int(float(len(_text(args))) * 0.1)


def _search_estimate(sizes: Sequence[int]) -> int:
    return int(float(_size_at(sizes)) * 0.1)


def _join_cost(args: Sequence[Any]) -> int:
    items = args[0] if args and isinstance(args[0], list) else []
    sep = _text(args, 1)
    size = sum(len(x) for x in items if isinstance(x, str)) + len(sep) * max(len(items) - 1, 0)
    return math.ceil(float(size) * 2 * 0.1)


def _join_estimate(sizes: Sequence[int]) -> int:
    return math.ceil(float(_size_at(sizes)) * 2 * 0.1)


def _linear_cost(args: Sequence[Any]) -> int:
    return traversal(len(_text(args)))


def _linear_estimate(sizes: Sequence[int]) -> int:
    return traversal(_size_at(sizes))


def _unit(_: Sequence[Any]) -> int:
    return 1


# --- functions ---------------------------------------------------------------------


def _out_of_range(index: int) -> CelRuntimeError:
    return CelRuntimeError(f"index out of range: {index}")


@library.function(
    "charAt",
    member=True,
    params=(t.STRING, t.INT),
    result=t.STRING,
    id="string_char_at_int",
    cost=_unit,
    estimate=lambda s: 1,
)
def char_at(s: str, index: int) -> str:
    if index < 0 or index > len(s):
        raise _out_of_range(index)
    return s[index] if index < len(s) else ""


def _index_of_offset(s: str, sub: str, offset: int) -> int:
    if sub == "":
        return offset
    if offset < 0 or offset >= len(s):
        raise _out_of_range(offset)
    return s.find(sub, offset)


@library.function(
    "indexOf",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.INT,
    id="string_index_of_string",
    cost=_search_cost,
    estimate=_search_estimate,
)
def index_of(s: str, sub: str) -> int:
    return _index_of_offset(s, sub, 0)


@library.function(
    "indexOf",
    member=True,
    params=(t.STRING, t.STRING, t.INT),
    result=t.INT,
    id="string_index_of_string_int",
    cost=_search_cost,
    estimate=_search_estimate,
)
def index_of_offset(s: str, sub: str, offset: int) -> int:
    return _index_of_offset(s, sub, offset)


def _last_index_of_offset(s: str, sub: str, offset: int) -> int:
    if sub == "":
        return offset
    if offset < 0 or offset >= len(s):
        raise _out_of_range(offset)
    last_start = min(offset, len(s) - len(sub))
    if last_start < 0:
        return -1
    return s.rfind(sub, 0, last_start + len(sub))


@library.function(
    "lastIndexOf",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.INT,
    id="string_last_index_of_string",
    cost=_search_cost,
    estimate=_search_estimate,
)
def last_index_of(s: str, sub: str) -> int:
    if sub == "":
        return len(s)
    return _last_index_of_offset(s, sub, len(s) - 1)


@library.function(
    "lastIndexOf",
    member=True,
    params=(t.STRING, t.STRING, t.INT),
    result=t.INT,
    id="string_last_index_of_string_int",
    cost=_search_cost,
    estimate=_search_estimate,
)
def last_index_of_offset(s: str, sub: str, offset: int) -> int:
    return _last_index_of_offset(s, sub, offset)


_UPPER_TO_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_LOWER_TO_UPPER = {c: c - 32 for c in range(ord("a"), ord("z") + 1)}


@library.function(
    "lowerAscii",
    member=True,
    params=(t.STRING,),
    result=t.STRING,
    id="string_lower_ascii",
    cost=_traverse_cost,
    estimate=_traverse_estimate,
)
def lower_ascii(s: str) -> str:
    return s.translate(_UPPER_TO_LOWER)


@library.function(
    "upperAscii",
    member=True,
    params=(t.STRING,),
    result=t.STRING,
    id="string_upper_ascii",
    cost=_traverse_cost,
    estimate=_traverse_estimate,
)
def upper_ascii(s: str) -> str:
    return s.translate(_LOWER_TO_UPPER)


@library.function(
    "replace",
    member=True,
    params=(t.STRING, t.STRING, t.STRING),
    result=t.STRING,
    id="string_replace_string_string",
    cost=_rebuild_cost,
    estimate=_rebuild_estimate,
)
def replace(s: str, old: str, new: str) -> str:
    return s.replace(old, new)


@library.function(
    "replace",
    member=True,
    params=(t.STRING, t.STRING, t.STRING, t.INT),
    result=t.STRING,
    id="string_replace_string_string_int",
    cost=_rebuild_cost,
    estimate=_rebuild_estimate,
)
def replace_n(s: str, old: str, new: str, n: int) -> str:
    # Go's strings.Replace: a negative count replaces everything, zero nothing.
    return s.replace(old, new, n if n >= 0 else -1)


def _split_n(s: str, sep: str, n: int) -> list[str]:
    """Go's strings.SplitN, counting code points where Go counts runes."""
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if n < 0 or n >= len(chars):
            return chars
        return [*chars[: n - 1], "".join(chars[n - 1 :])]
    return s.split(sep) if n < 0 else s.split(sep, n - 1)


@library.function(
    "split",
    member=True,
    params=(t.STRING, t.STRING),
    result=t.list_of(t.STRING),
    id="string_split_string",
    cost=_rebuild_cost,
    estimate=_rebuild_estimate,
)
def split(s: str, sep: str) -> list[str]:
    return _split_n(s, sep, -1)


@library.function(
    "split",
    member=True,
    params=(t.STRING, t.STRING, t.INT),
    result=t.list_of(t.STRING),
    id="string_split_string_int",
    cost=_rebuild_cost,
    estimate=_rebuild_estimate,
)
def split_n(s: str, sep: str, n: int) -> list[str]:
    return _split_n(s, sep, n)


@library.function(
    "substring",
    member=True,
    params=(t.STRING, t.INT),
    result=t.STRING,
    id="string_substring_int",
    cost=_traverse_cost,
    estimate=_traverse_estimate,
)
def substring(s: str, start: int) -> str:
    if start < 0 or start > len(s):
        raise _out_of_range(start)
    return s[start:]


@library.function(
    "substring",
    member=True,
    params=(t.STRING, t.INT, t.INT),
    result=t.STRING,
    id="string_substring_int_int",
    cost=_traverse_cost,
    estimate=_traverse_estimate,
)
def substring_range(s: str, start: int, end: int) -> str:
    if start > end:
        raise CelRuntimeError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > len(s):
        raise _out_of_range(start)
    if end < 0 or end > len(s):
        raise _out_of_range(end)
    return s[start:end]


# Go's unicode.IsSpace: Latin-1 spaces plus the Unicode White_Space property.
# Zero-width characters (U+200B, U+FEFF, U+180E) are not among them.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


@library.function(
    "trim",
    member=True,
    params=(t.STRING,),
    result=t.STRING,
    id="string_trim",
    cost=_traverse_cost,
    estimate=_traverse_estimate,
)
def trim(s: str) -> str:
    return s.strip(_GO_SPACE)


def _go_value(value: Any) -> str:
    """Roughly Go's `%v` of a CEL value, for the one error that prints one."""
    try:
        return to_string(value)
    except CelRuntimeError:
        return repr(value)


def _join(items: list[Any], sep: str) -> str:
    for item in items:
        if not isinstance(item, str):
            raise CelRuntimeError(f"join: invalid input: {_go_value(item)}")
    return sep.join(items)


@library.function(
    "join",
    member=True,
    params=(t.list_of(t.STRING),),
    result=t.STRING,
    id="list_join",
    cost=_join_cost,
    estimate=_join_estimate,
)
def join(items: list[Any]) -> str:
    return _join(items, "")


@library.function(
    "join",
    member=True,
    params=(t.list_of(t.STRING), t.STRING),
    result=t.STRING,
    id="list_join_string",
    cost=_join_cost,
    estimate=_join_estimate,
)
def join_sep(items: list[Any], sep: str) -> str:
    return _join(items, sep)


_QUOTE_ESCAPES = {**_GO_ESCAPES, "\\": "\\\\", '"': '\\"'}


@library.function(
    "strings.quote",
    params=(t.STRING,),
    result=t.STRING,
    id="strings_quote",
    cost=_linear_cost,
    estimate=_linear_estimate,
)
def quote(s: str) -> str:
    out = ['"']
    for ch in s:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            ch = "\ufffd"
        out.append(_QUOTE_ESCAPES.get(ch, ch))
    out.append('"')
    return "".join(out)


# --- format --------------------------------------------------------------------------

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_DEFAULT_PRECISION = 6
# Go's fmt refuses widths and precisions above a million; the locale printer keeps
# at most 255 fraction digits.
_MAX_WIDTH = 1_000_000
_MAX_FRACTION_DIGITS = 255


class _FormatError(Exception):
    """A clause failure, before cel-go adds its `error during formatting: ` prefix."""


def _string_clause_error(value: Any) -> _FormatError:
    return _FormatError(
        "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
        f"durations, and timestamps, was given {cel_type_name(value)}"
    )


def _bytes_text(value: bytes) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _FormatError(f"could not convert argument {go_quote(repr(value))} to string") from e


def _format_string(value: Any) -> str:
    """The `%s` rendering of a value."""
    if isinstance(value, list):
        return "[" + ", ".join(_format_member(v) for v in value) + "]"
    if isinstance(value, dict):
        return _format_map(value)
    if value is None:
        return "null"
    if isinstance(value, t.CelType):
        return value.name
    if isinstance(value, bytes):
        return _bytes_text(value)
    if isinstance(value, (bool, int, float, str, _dt.datetime, _dt.timedelta)):
        return to_string(value)
    raise _string_clause_error(value)


def _format_member(value: Any) -> str:
    """A list element or map value, written as a CEL literal."""
    if isinstance(value, bool) or value is None or isinstance(value, t.CelType):
        return _format_string(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bytes):
        return "b" + go_quote(_bytes_text(value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return go_quote("NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf"))
        return f"{value:.{_DEFAULT_PRECISION}f}"
    if isinstance(value, _dt.datetime):
        return f"timestamp({go_quote(to_string(value))})"
    if isinstance(value, _dt.timedelta):
        return f"duration({go_quote(to_string(value))})"
    if isinstance(value, (list, dict)):
        return _format_string(value)
    raise _FormatError(f"no formatting function for {cel_type_name(value)}")


def _format_map(value: dict[Any, Any]) -> str:
    pairs = []
    for key, item in value.items():
        if isinstance(key, bool):
            key_text = "true" if key else "false"
        elif isinstance(key, str):
            key_text = go_quote(key)
        elif isinstance(key, int):
            key_text = str(int(key))
        else:
            raise _FormatError(f"no formatting function for map key of type {cel_type_name(key)}")
        pairs.append((key_text, _format_member(item)))
    pairs.sort(key=lambda p: p[0])
    return "{" + ", ".join(f"{k}:{v}" for k, v in pairs) + "}"


def _decimal(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(int(value))
    raise _FormatError(f"decimal clause can only be used on integers, was given {cel_type_name(value)}")


def _as_double(value: Any, clause: str) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value.replace("Infinity", "inf"))
    raise _FormatError(f"{clause} clause can only be used on doubles, was given {cel_type_name(value)}")


def _group_thousands(digits: str) -> str:
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return ",".join(parts)


def _fixed(value: Any, precision: int) -> str:
    """Go's en_US message printer with `%.Nf`."""
    x = _as_double(value, "fixed-point")
    if math.isnan(x):
        return "NaN"
    sign = "-" if x < 0 else ""
    if math.isinf(x):
        return sign + "∞"
    whole, _, frac = f"{abs(x):.{min(precision, _MAX_FRACTION_DIGITS)}f}".partition(".")
    return sign + _group_thousands(whole) + ("." + frac if frac else "")


def _scientific(value: Any, width: int) -> str:
    """Go's en_US message printer with cel-go's `%<precision>e`: the precision becomes a width.

    The width pads finite numbers only; the printer returns NaN and infinities early.
    """
    x = _as_double(value, "scientific")
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return ("-" if x < 0 else "") + "∞"
    mantissa, _, exp_text = f"{abs(x):.{_DEFAULT_PRECISION}e}".partition("e")
    exponent = int(exp_text)
    exp_digits = f"{abs(exponent):02d}".translate(_SUPERSCRIPT)
    exp_sign = "⁻" if exponent < 0 else ""
    text = ("-" if x < 0 else "") + mantissa + "\u202f×\u202f10" + exp_sign + exp_digits
    return text.rjust(min(width, _MAX_WIDTH))


def _binary(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return format(int(value), "b")
    raise _FormatError(
        f"only integers and bools can be formatted as binary, was given {cel_type_name(value)}"
    )


def _hex(value: Any, upper: bool) -> str:
    if isinstance(value, str):
        text = value.encode("utf-8", "surrogatepass").hex()
    elif isinstance(value, bytes):
        text = value.hex()
    elif isinstance(value, int) and not isinstance(value, bool):
        text = format(int(value), "x")
    else:
        raise _FormatError(
            "only integers, byte buffers, and strings can be formatted as hex, "
            f"was given {cel_type_name(value)}"
        )
    return text.upper() if upper else text


def _octal(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return format(int(value), "o")
    raise _FormatError(f"octal clause can only be used on integers, was given {cel_type_name(value)}")


def _parse_clause(spec: str) -> tuple[int, str, int | None]:
    """The clause after a `%`: (characters read, verb, precision). Raises with Go's wording."""
    i = 0
    precision: int | None = None
    if spec[0] == ".":
        i = 1
        while True:
            if i >= len(spec):
                raise _FormatError("error while parsing precision: could not find end of precision specifier")
            if not ("0" <= spec[i] <= "9"):
                break
            i += 1
        digits = spec[1:i]
        if not digits:
            raise _FormatError(
                "error while parsing precision: error while converting precision to integer: "
                'strconv.Atoi: parsing "": invalid syntax'
            )
        if int(digits) > 2**63 - 1:
            raise _FormatError(
                "error while parsing precision: error while converting precision to integer: "
                f"strconv.Atoi: parsing {go_quote(digits)}: value out of range"
            )
        precision = int(digits)
    verb = spec[i]
    if verb not in "sdfebxXo":
        # cel-go reads the verb as one byte, so a multi-byte character shows as its first byte.
        shown = chr(verb.encode("utf-8", "surrogatepass")[0])
        raise _FormatError(f'unrecognized formatting clause "{shown}"')
    return i + 1, verb, precision


def _apply_clause(verb: str, precision: int | None, value: Any) -> str:
    if verb == "s":
        return _format_string(value)
    if verb == "d":
        return _decimal(value)
    if verb == "f":
        return _fixed(value, _DEFAULT_PRECISION if precision is None else precision)
    if verb == "e":
        return _scientific(value, _DEFAULT_PRECISION if precision is None else precision)
    if verb == "b":
        return _binary(value)
    if verb in "xX":
        return _hex(value, verb == "X")
    return _octal(value)


def format_string(fmt: str, args: list[Any]) -> str:
    """cel-go's `<string>.format(<list>)`."""
    out: list[str] = []
    i, arg_index, n = 0, 0, len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        if i + 1 < n and fmt[i + 1] == "%":
            out.append("%")
            i += 2
            continue
        if arg_index >= len(args):
            raise CelRuntimeError(f"index {arg_index} out of range")
        if i + 1 >= n:
            raise CelRuntimeError("unexpected end of string")
        try:
            read, verb, precision = _parse_clause(fmt[i + 1 :])
        except _FormatError as e:
            raise CelRuntimeError(f"could not parse formatting clause: {e}") from e
        try:
            out.append(_apply_clause(verb, precision, args[arg_index]))
        except _FormatError as e:
            raise CelRuntimeError(f"error during formatting: {e}") from e
        i += 1 + read
        arg_index += 1
    return "".join(out)


library.function(
    "format",
    member=True,
    params=(t.STRING, t.list_of(t.DYN)),
    result=t.STRING,
    id="string_format",
    cost=_linear_cost,
    estimate=_linear_estimate,
)(format_string)


# Static check of a literal format string against its literal argument list, as
# cel-go's validator runs it at compile time. Kinds are compared by type name.
_CLAUSE_KINDS: dict[str, tuple[frozenset[str], Callable[[str], str]]] = {
    "s": (
        frozenset(
            {
                "list",
                "map",
                "int",
                "uint",
                "double",
                "bool",
                "string",
                "google.protobuf.Timestamp",
                "bytes",
                "google.protobuf.Duration",
                "type",
                "null_type",
            }
        ),
        lambda n: (
            "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
            f"types, durations, and timestamps, was given {n}"
        ),
    ),
    "d": (
        frozenset({"int", "uint"}),
        lambda n: f"decimal clause can only be used on integers, was given {n}",
    ),
    "f": (
        frozenset({"double", "string"}),
        lambda n: f"fixed-point clause can only be used on doubles, was given {n}",
    ),
    "e": (
        frozenset({"double", "string"}),
        lambda n: f"scientific clause can only be used on doubles, was given {n}",
    ),
    "b": (
        frozenset({"int", "uint", "bool"}),
        lambda n: f"only integers and bools can be formatted as binary, was given {n}",
    ),
    "x": (
        frozenset({"int", "uint", "string", "bytes"}),
        lambda n: f"only integers, byte buffers, and strings can be formatted as hex, was given {n}",
    ),
    "o": (frozenset({"int", "uint"}), lambda n: f"octal clause can only be used on integers, was given {n}"),
}


def check_format_call(fmt: str, arg_types: Sequence[t.CelType]) -> str | None:
    """The compile-time error cel-go reports for `'<fmt>'.format([<args>])`, or None."""
    i, arg_index, n = 0, 0, len(fmt)
    while i < n:
        if fmt[i] != "%":
            i += 1
            continue
        if i + 1 < n and fmt[i + 1] == "%":
            i += 2
            continue
        if i + 1 >= n:
            return "unexpected end of string"
        if arg_index >= len(arg_types):
            return f"index {arg_index} out of range"
        try:
            read, verb, _ = _parse_clause(fmt[i + 1 :])
        except _FormatError as e:
            return f"could not parse formatting clause: {e}"
        arg_type = arg_types[arg_index]
        allowed, message = _CLAUSE_KINDS["x" if verb == "X" else verb]
        if not t.is_dyn(arg_type) and arg_type.name not in allowed:
            return f"error during formatting: {message(arg_type.name)}"
        i += 1 + read
        arg_index += 1
    if len(arg_types) > arg_index:
        return f"too many arguments supplied to string.format (expected {arg_index}, got {len(arg_types)})"
    return None
