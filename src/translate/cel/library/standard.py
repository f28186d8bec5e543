"""CEL's standard operators and functions (the parts not about strings).

Integer arithmetic is int64 with overflow errors, division truncates toward zero
and `%` takes the dividend's sign (Go semantics, as cel-go computes them).
Comparisons across int, uint and double are declared because the Kubernetes
environment enables CrossTypeNumericComparisons. Costs are cel-go's defaults: one
unit, except where a call walks strings or lists (equality and string ordering
walk the shorter operand, string concatenation both, `in` the list).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ....model.errors import CelRuntimeError
from .. import types as t
from ..budget import spend
from ..registry import Library
from ..values import (
    INT64_MAX,
    INT64_MIN,
    UINT64_MAX,
    Uint,
    equal,
    int64,
    map_get,
    ordered,
    to_string,
    type_of,
    uint64,
)
from .costs import BOTH_OPERANDS, SHORTER_OPERAND, TRAVERSAL, arg_len

library = Library("standard")
fn = library.function

# --- arithmetic -----------------------------------------------------------------------------------


def _go_div(a: int, b: int) -> int:
    if b == 0:
        raise CelRuntimeError("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _go_mod(a: int, b: int) -> int:
    if b == 0:
        raise CelRuntimeError("modulus by zero")
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


fn("_+_", params=(t.INT, t.INT), result=t.INT, id="add_int64")(lambda a, b: int64(a + b))
fn("_+_", params=(t.UINT, t.UINT), result=t.UINT, id="add_uint64")(lambda a, b: uint64(a + b))
fn("_+_", params=(t.DOUBLE, t.DOUBLE), result=t.DOUBLE, id="add_double")(lambda a, b: a + b)
fn("_+_", params=(t.STRING, t.STRING), result=t.STRING, id="add_string", costs=BOTH_OPERANDS)(
    lambda a, b: a + b
)
fn("_+_", params=(t.BYTES, t.BYTES), result=t.BYTES, id="add_bytes", costs=BOTH_OPERANDS)(lambda a, b: a + b)


@fn("_+_", params=(t.list_of(t.A), t.list_of(t.A)), result=t.list_of(t.A), id="add_list")
def _add_list(a: list[Any], b: list[Any]) -> list[Any]:
    # cel-go charges one unit and chains the two lists; a Python list is a copy.
    spend(len(a) + len(b))
    return [*a, *b]


fn("_-_", params=(t.INT, t.INT), result=t.INT, id="subtract_int64")(lambda a, b: int64(a - b))
fn("_-_", params=(t.UINT, t.UINT), result=t.UINT, id="subtract_uint64")(lambda a, b: uint64(a - b))
fn("_-_", params=(t.DOUBLE, t.DOUBLE), result=t.DOUBLE, id="subtract_double")(lambda a, b: a - b)
fn("_*_", params=(t.INT, t.INT), result=t.INT, id="multiply_int64")(lambda a, b: int64(a * b))
fn("_*_", params=(t.UINT, t.UINT), result=t.UINT, id="multiply_uint64")(lambda a, b: uint64(a * b))
fn("_*_", params=(t.DOUBLE, t.DOUBLE), result=t.DOUBLE, id="multiply_double")(lambda a, b: a * b)
fn("_/_", params=(t.INT, t.INT), result=t.INT, id="divide_int64")(lambda a, b: int64(_go_div(a, b)))
fn("_/_", params=(t.UINT, t.UINT), result=t.UINT, id="divide_uint64")(lambda a, b: Uint(_go_div(a, b)))
fn("_%_", params=(t.INT, t.INT), result=t.INT, id="modulo_int64")(_go_mod)
fn("_%_", params=(t.UINT, t.UINT), result=t.UINT, id="modulo_uint64")(lambda a, b: Uint(_go_mod(a, b)))
fn("-_", params=(t.INT,), result=t.INT, id="negate_int64")(lambda a: int64(-a))
fn("-_", params=(t.DOUBLE,), result=t.DOUBLE, id="negate_double")(lambda a: -a)
fn("!_", params=(t.BOOL,), result=t.BOOL, id="logical_not")(lambda a: not a)


@fn("_/_", params=(t.DOUBLE, t.DOUBLE), result=t.DOUBLE, id="divide_double")
def _divide_double(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


# --- time arithmetic ------------------------------------------------------------------------------

# CEL timestamps span years 1..9999.
_MIN_TS = dt.datetime(1, 1, 1, tzinfo=dt.UTC)
_MAX_TS = dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.UTC)
_MAX_DURATION = dt.timedelta(seconds=315576000000)


def _check_ts(value: dt.datetime) -> dt.datetime:
    if not _MIN_TS <= value <= _MAX_TS:
        raise CelRuntimeError("timestamp out of range")
    return value


def _check_duration(value: dt.timedelta) -> dt.timedelta:
    if abs(value) > _MAX_DURATION:
        raise CelRuntimeError("duration out of range")
    return value


def _ts_plus(ts: dt.datetime, d: dt.timedelta) -> dt.datetime:
    try:
        return _check_ts(ts + d)
    except OverflowError:
        raise CelRuntimeError("timestamp out of range") from None


fn("_+_", params=(t.TIMESTAMP, t.DURATION), result=t.TIMESTAMP, id="add_timestamp_duration")(_ts_plus)
fn("_+_", params=(t.DURATION, t.TIMESTAMP), result=t.TIMESTAMP, id="add_duration_timestamp")(
    lambda d, ts: _ts_plus(ts, d)
)
fn("_+_", params=(t.DURATION, t.DURATION), result=t.DURATION, id="add_duration_duration")(
    lambda a, b: _check_duration(a + b)
)
fn("_-_", params=(t.TIMESTAMP, t.TIMESTAMP), result=t.DURATION, id="subtract_timestamp_timestamp")(
    lambda a, b: _check_duration(a - b)
)
fn("_-_", params=(t.TIMESTAMP, t.DURATION), result=t.TIMESTAMP, id="subtract_timestamp_duration")(
    lambda ts, d: _ts_plus(ts, -d)
)
fn("_-_", params=(t.DURATION, t.DURATION), result=t.DURATION, id="subtract_duration_duration")(
    lambda a, b: _check_duration(a - b)
)
fn("-_", params=(t.DURATION,), result=t.DURATION, id="negate_duration")(lambda d: -d)

# --- comparison -------------------------------------------------------------------------------------

fn("_==_", params=(t.A, t.A), result=t.BOOL, id="equals", costs=SHORTER_OPERAND)(equal)
fn("_!=_", params=(t.A, t.A), result=t.BOOL, id="not_equals", costs=SHORTER_OPERAND)(
    lambda a, b: not equal(a, b)
)

_ORDERED = (t.INT, t.UINT, t.DOUBLE, t.STRING, t.BYTES, t.BOOL, t.TIMESTAMP, t.DURATION)
for _op, _name in (("_<_", "less"), ("_<=_", "less_equals"), ("_>_", "greater"), ("_>=_", "greater_equals")):
    for _a in _ORDERED:
        _walk = SHORTER_OPERAND if _a in (t.STRING, t.BYTES) else None
        fn(_op, params=(_a, _a), result=t.BOOL, id=f"{_name}_{_a.name}", costs=_walk)(
            lambda a, b, _op=_op: ordered(a, b, _op)
        )
    for _a in t.NUMERIC:
        for _b in t.NUMERIC:
            if _a != _b:
                fn(_op, params=(_a, _b), result=t.BOOL, id=f"{_name}_{_a.name}_{_b.name}")(
                    lambda a, b, _op=_op: ordered(a, b, _op)
                )


@fn("@in", params=(t.A, t.list_of(t.A)), result=t.BOOL, id="in_list", cost=lambda args: arg_len(args, 1))
def _in_list(value: Any, container: list[Any]) -> bool:
    return any(equal(value, item) for item in container)


@fn("@in", params=(t.A, t.map_of(t.A, t.B)), result=t.BOOL, id="in_map")
def _in_map(value: Any, container: dict[Any, Any]) -> bool:
    return map_get(container, value)[0]


# --- size -------------------------------------------------------------------------------------------


def _size(value: Any) -> int:
    return len(value)


# size(string) lives with the other string functions (standard_strings.py).
for _member in (False, True):
    fn("size", member=_member, params=(t.BYTES,), result=t.INT)(_size)
    fn("size", member=_member, params=(t.list_of(t.A),), result=t.INT)(_size)
    fn("size", member=_member, params=(t.map_of(t.A, t.B),), result=t.INT)(_size)

# --- conversions ------------------------------------------------------------------------------------


def _int_from_double(value: float) -> int:
    if math.isnan(value) or math.isinf(value) or not (INT64_MIN <= value < 2.0**63):
        raise CelRuntimeError("double out of int range" if not math.isnan(value) else "integer overflow")
    return int(value)


def _integer_from_string(value: str, target: str, low: int, high: int) -> int:
    """strconv.ParseInt/ParseUint in base 10, worded as cel-go words the failed conversion."""
    try:
        parsed = int(value, 10)
    except ValueError:
        raise CelRuntimeError(f'cannot convert "{value}" to {target}: invalid syntax') from None
    if parsed < low or parsed > high:
        raise CelRuntimeError(f'cannot convert "{value}" to {target}: value out of range')
    return parsed


def _int_from_uint(value: int) -> int:
    if value > INT64_MAX:
        raise CelRuntimeError("integer overflow")
    return int(value)


fn("int", params=(t.INT,), result=t.INT)(lambda v: v)
fn("int", params=(t.UINT,), result=t.INT)(_int_from_uint)
fn("int", params=(t.DOUBLE,), result=t.INT)(_int_from_double)
fn("int", params=(t.STRING,), result=t.INT)(lambda v: _integer_from_string(v, "int", INT64_MIN, INT64_MAX))
fn("int", params=(t.TIMESTAMP,), result=t.INT)(
    lambda ts: int((ts - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(seconds=1))
)


def _uint_from_int(value: int) -> Uint:
    if value < 0:
        raise CelRuntimeError("unsigned integer overflow")
    return Uint(value)


def _uint_from_double(value: float) -> Uint:
    if math.isnan(value) or math.isinf(value) or not (0 <= value < 2.0**64):
        raise CelRuntimeError("double out of uint range")
    return Uint(int(value))


fn("uint", params=(t.UINT,), result=t.UINT)(lambda v: v)
fn("uint", params=(t.INT,), result=t.UINT)(_uint_from_int)
fn("uint", params=(t.DOUBLE,), result=t.UINT)(_uint_from_double)
fn("uint", params=(t.STRING,), result=t.UINT)(lambda v: Uint(_integer_from_string(v, "uint", 0, UINT64_MAX)))


# Fixed patterns over user text: ASCII digits only, as Go's parsers read them, and no two ways to match
# the same digits, so Python's backtracking stays linear.
_DOUBLE = re.compile(r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[Ii]nf(?:inity)?|NaN)", re.ASCII)


def _double_from_string(value: str) -> float:
    text = value.strip()
    if not _DOUBLE.fullmatch(text):
        raise CelRuntimeError(f'cannot convert "{value}" to double: invalid syntax')
    return float(text)


fn("double", params=(t.DOUBLE,), result=t.DOUBLE)(lambda v: v)
fn("double", params=(t.INT,), result=t.DOUBLE)(float)
fn("double", params=(t.UINT,), result=t.DOUBLE)(float)
fn("double", params=(t.STRING,), result=t.DOUBLE)(_double_from_string)

for _src in (t.STRING, t.INT, t.UINT, t.DOUBLE, t.BOOL, t.BYTES, t.TIMESTAMP, t.DURATION):
    fn("string", params=(_src,), result=t.STRING, costs=TRAVERSAL if _src == t.BYTES else None)(to_string)

fn("bytes", params=(t.BYTES,), result=t.BYTES)(lambda v: v)
fn("bytes", params=(t.STRING,), result=t.BYTES, costs=TRAVERSAL)(lambda v: v.encode("utf-8"))

_TRUE = {"1", "t", "true", "TRUE", "True"}
_FALSE = {"0", "f", "false", "FALSE", "False"}


@fn("bool", params=(t.STRING,), result=t.BOOL)
def _bool_from_string(value: str) -> bool:
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise CelRuntimeError("type conversion error from 'string' to 'bool'")


fn("bool", params=(t.BOOL,), result=t.BOOL)(lambda v: v)
fn("dyn", params=(t.A,), result=t.DYN)(lambda v: v)
fn("type", params=(t.A,), result=t.type_of(t.A))(type_of)

# --- timestamps and durations -----------------------------------------------------------------------

_DURATION_UNITS = {
    "h": 3600.0,
    "m": 60.0,
    "s": 1.0,
    "ms": 1e-3,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ns": 1e-9,
}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(h|ms|us|µs|μs|ns|m|s)", re.ASCII)


def parse_duration(text: str) -> dt.timedelta:
    """Go's time.ParseDuration, as CEL's duration() reads its argument."""
    rest = text
    sign = 1
    if rest[:1] in "+-" and rest:
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return dt.timedelta(0)
    if not rest:
        raise CelRuntimeError(f'invalid duration "{text}"')
    total = 0.0
    pos = 0
    while pos < len(rest):
        m = _DURATION_PART.match(rest, pos)
        if m is None:
            raise CelRuntimeError(f'invalid duration "{text}"')
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    return _check_duration(dt.timedelta(seconds=sign * total))


_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})", re.ASCII
)


def parse_timestamp(text: str) -> dt.datetime:
    m = _RFC3339.fullmatch(text)
    if m is None:
        raise CelRuntimeError(f'timestamp "{text}" is not RFC 3339')
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    micros = int((m.group(7) or "0").ljust(9, "0")[:6])
    zone = m.group(8)
    if zone in ("Z", "z"):
        tz = dt.UTC
    else:
        sign = 1 if zone[0] == "+" else -1
        tz = dt.timezone(sign * dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    try:
        value = dt.datetime(year, month, day, hour, minute, second, micros, tzinfo=tz)
    except ValueError as e:
        raise CelRuntimeError(f'timestamp "{text}": {e}') from None
    return _check_ts(value.astimezone(dt.UTC))


fn("duration", params=(t.STRING,), result=t.DURATION)(parse_duration)
fn("duration", params=(t.DURATION,), result=t.DURATION)(lambda v: v)
fn("timestamp", params=(t.STRING,), result=t.TIMESTAMP)(parse_timestamp)
fn("timestamp", params=(t.TIMESTAMP,), result=t.TIMESTAMP)(lambda v: v)
fn("timestamp", params=(t.INT,), result=t.TIMESTAMP)(
    lambda s: _ts_plus(dt.datetime(1970, 1, 1, tzinfo=dt.UTC), dt.timedelta(seconds=s))
)


def _in_zone(ts: dt.datetime, zone: str | None) -> dt.datetime:
    if zone is None:
        return ts.astimezone(dt.UTC)
    m = re.fullmatch(r"([+-])?(\d{1,2}):(\d{2})", zone, re.ASCII)
    if m:
        sign = -1 if m.group(1) == "-" else 1
        return ts.astimezone(dt.timezone(sign * dt.timedelta(hours=int(m.group(2)), minutes=int(m.group(3)))))
    try:
        return ts.astimezone(ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError):
        raise CelRuntimeError(f"unknown time zone {zone}") from None


_TS_PARTS: dict[str, Any] = {
    "getFullYear": lambda d: d.year,
    "getMonth": lambda d: d.month - 1,
    "getDayOfYear": lambda d: d.timetuple().tm_yday - 1,
    "getDayOfMonth": lambda d: d.day - 1,
    "getDate": lambda d: d.day,
    "getDayOfWeek": lambda d: (d.weekday() + 1) % 7,
    "getHours": lambda d: d.hour,
    "getMinutes": lambda d: d.minute,
    "getSeconds": lambda d: d.second,
    "getMilliseconds": lambda d: d.microsecond // 1000,
}

for _name, _part in _TS_PARTS.items():
    fn(_name, member=True, params=(t.TIMESTAMP,), result=t.INT)(lambda ts, _p=_part: _p(_in_zone(ts, None)))
    fn(_name, member=True, params=(t.TIMESTAMP, t.STRING), result=t.INT)(
        lambda ts, zone, _p=_part: _p(_in_zone(ts, zone))
    )


def _duration_part(unit: float) -> Any:
    def part(d: dt.timedelta) -> int:
        total = d / dt.timedelta(seconds=unit)
        return int(total) if total >= 0 else -int(-total)

    return part


fn("getHours", member=True, params=(t.DURATION,), result=t.INT)(_duration_part(3600))
fn("getMinutes", member=True, params=(t.DURATION,), result=t.INT)(_duration_part(60))
fn("getSeconds", member=True, params=(t.DURATION,), result=t.INT)(_duration_part(1))
fn("getMilliseconds", member=True, params=(t.DURATION,), result=t.INT)(
    lambda d: (
        (d // dt.timedelta(milliseconds=1)) % 1000
        if d >= dt.timedelta(0)
        else -((-d // dt.timedelta(milliseconds=1)) % 1000)
    )
)
