"""cel-go's `<string>.format(<list>)` (strings extension), and its compile-time check.

`format` follows cel-go's en_US rendering: `%f` and `%e` go through Go's
locale-aware printer (digit grouping, `∞`, `2.718280 × 10⁰⁰`), while doubles
inside lists and maps print plainly with six decimals.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from typing import Any

from ....model.errors import CelRuntimeError
from ....model.go_strings import go_quote
from .. import types as t
from ..budget import spend
from ..values import to_string, type_of


def cel_type_name(value: Any) -> str:
    """The runtime type name cel-go prints in errors (`int`, `list`, `google.protobuf.Duration`)."""
    try:
        return type_of(value).name
    except CelRuntimeError:
        return type(value).__name__


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_DEFAULT_PRECISION = 6
# Go's fmt refuses widths and precisions above a million; the locale printer keeps
# at most 255 fraction digits.
_MAX_WIDTH = 1_000_000
_MAX_FRACTION_DIGITS = 255


# What each verb accepts, by CEL type name, and how cel-go words a value of another kind. The
# static check of a literal call compares type names; formatting compares the value itself.
_CLAUSES: dict[str, tuple[frozenset[str], str]] = {
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
        "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
        "durations, and timestamps",
    ),
    "d": (frozenset({"int", "uint"}), "decimal clause can only be used on integers"),
    "f": (frozenset({"double", "string"}), "fixed-point clause can only be used on doubles"),
    "e": (frozenset({"double", "string"}), "scientific clause can only be used on doubles"),
    "b": (frozenset({"int", "uint", "bool"}), "only integers and bools can be formatted as binary"),
    "x": (
        frozenset({"int", "uint", "string", "bytes"}),
        "only integers, byte buffers, and strings can be formatted as hex",
    ),
    "o": (frozenset({"int", "uint"}), "octal clause can only be used on integers"),
}


def _wrong_kind(verb: str, type_name: str) -> str:
    return f"{_CLAUSES[verb][1]}, was given {type_name}"


class _FormatError(Exception):
    """A clause failure, before cel-go adds its `error during formatting: ` prefix."""


def _clause_error(verb: str, value: Any) -> _FormatError:
    return _FormatError(_wrong_kind(verb, cel_type_name(value)))


def _bytes_text(value: bytes) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _FormatError(f"could not convert argument {go_quote(repr(value))} to string") from e


def _format_string(value: Any) -> str:
    """The `%s` rendering of a value."""
    if isinstance(value, list):
        spend(len(value))
        return "[" + _joined([_format_member(v) for v in value]) + "]"
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
    raise _clause_error("s", value)


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


def _joined(parts: list[str]) -> str:
    """`, `-separated parts. Elements shared across nested lists repeat in the text, so its length
    can grow far beyond what cel-go's cost counted: it is counted as work before it is built."""
    spend(sum(len(p) + 2 for p in parts))
    return ", ".join(parts)


def _format_map(value: dict[Any, Any]) -> str:
    spend(len(value))
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
    return "{" + _joined([f"{k}:{v}" for k, v in pairs]) + "}"


def _decimal(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(int(value))
    raise _clause_error("d", value)


def _as_double(value: Any, verb: str) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value.replace("Infinity", "inf"))
    raise _clause_error(verb, value)


def _group_thousands(digits: str) -> str:
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return ",".join(parts)


def _fixed(value: Any, precision: int) -> str:
    """Go's en_US message printer with `%.Nf`."""
    x = _as_double(value, "f")
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
    x = _as_double(value, "e")
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
    raise _clause_error("b", value)


def _hex(value: Any, upper: bool) -> str:
    if isinstance(value, str):
        text = value.encode("utf-8", "surrogatepass").hex()
    elif isinstance(value, bytes):
        text = value.hex()
    elif isinstance(value, int) and not isinstance(value, bool):
        text = format(int(value), "x")
    else:
        raise _clause_error("x", value)
    return text.upper() if upper else text


def _octal(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return format(int(value), "o")
    raise _clause_error("o", value)


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
    # cel-go charges the format string only; the arguments it repeats can be long.
    spend(sum(len(part) for part in out))
    return "".join(out)


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
        kind = "x" if verb == "X" else verb
        if not t.is_dyn(arg_type) and arg_type.name not in _CLAUSES[kind][0]:
            return f"error during formatting: {_wrong_kind(kind, arg_type.name)}"
        i += 1 + read
        arg_index += 1
    if len(arg_types) > arg_index:
        return f"too many arguments supplied to string.format (expected {arg_index}, got {len(arg_types)})"
    return None
