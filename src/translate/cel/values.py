"""Runtime CEL values: plain Python values plus a few wrappers.

Representation (every library function receives and returns these):

    null -> None            bool -> bool           int -> int (int64 range)
    uint -> Uint            double -> float        string -> str
    bytes -> bytes          list -> list           map -> dict
    timestamp -> datetime (aware, UTC)             duration -> timedelta
    type -> CelType         optional -> Optional   quantity -> Quantity
    semver -> Semver        ip/cidr/url -> library classes

Equality is CEL's heterogeneous equality (numbers compare by value across
int/uint/double; values of different kinds are simply unequal), as the Kubernetes
environment evaluates it.
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any, ClassVar

from ...model.errors import CelRuntimeError
from . import types as t
from .budget import spend

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


class Uint(int):
    """A CEL uint; distinct from int for overloads, equal by value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


class Optional:
    """A CEL optional value (`optional.of(x)` / `optional.none()`)."""

    __slots__ = ("has", "value")
    NONE: ClassVar[Optional]

    def __init__(self, value: Any = None, has: bool = True) -> None:
        self.value = value
        self.has = has

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.has else "optional.none()"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Optional):
            return False
        if self.has != other.has:
            return False
        return not self.has or equal(self.value, other.value)

    def __hash__(self) -> int:
        return hash(("optional", self.has))


Optional.NONE = Optional(None, has=False)


class CelObject:
    """Base of library value classes (Quantity, Semver, IP, ...) that carry a CEL type."""

    cel_type: ClassVar[t.CelType] = t.DYN
    go_type: ClassVar[str] = "object"


def int64(value: int) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise CelRuntimeError("integer overflow")
    return value


def uint64(value: int) -> Uint:
    if value < 0 or value > UINT64_MAX:
        raise CelRuntimeError("unsigned integer overflow")
    return Uint(value)


def type_of(value: Any) -> t.CelType:
    """The CEL type of a runtime value (lists and maps report dyn element types)."""
    if value is None:
        return t.NULL
    if isinstance(value, bool):
        return t.BOOL
    if isinstance(value, Uint):
        return t.UINT
    if isinstance(value, int):
        return t.INT
    if isinstance(value, float):
        return t.DOUBLE
    if isinstance(value, str):
        return t.STRING
    if isinstance(value, bytes):
        return t.BYTES
    if isinstance(value, list):
        return t.list_of(t.DYN)
    if isinstance(value, dict):
        return t.map_of(t.DYN, t.DYN)
    if isinstance(value, _dt.datetime):
        return t.TIMESTAMP
    if isinstance(value, _dt.timedelta):
        return t.DURATION
    if isinstance(value, Optional):
        return t.optional_of(t.DYN)
    if isinstance(value, t.CelType):
        return t.TYPE
    if isinstance(value, CelObject):
        return value.cel_type
    raise CelRuntimeError(f"unsupported value type {type(value).__name__}")


_GO_TYPES = {
    "null_type": "types.Null",
    "bool": "types.Bool",
    "int": "types.Int",
    "uint": "types.Uint",
    "double": "types.Double",
    "string": "types.String",
    "bytes": "types.Bytes",
    "list": "traits.Lister",
    "map": "traits.Mapper",
    "google.protobuf.Timestamp": "types.Timestamp",
    "google.protobuf.Duration": "types.Duration",
    "optional_type": "*types.Optional",
    "type": "*types.Type",
}


def go_type_name(value: Any) -> str:
    """The Go type cel-go names in some runtime errors (`got 'types.Int', expected iterable type`)."""
    if isinstance(value, CelObject):
        return value.go_type
    return _GO_TYPES.get(type_of(value).name, "unknown")


def type_name(value: Any) -> str:
    return str(type_of(value))


def is_numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# Pairs of containers already compared within one `equal` call, by identity. Values are built bottom-up
# and never change, so nested lists that share elements (`[x, x]` built on `[x, x]` ...) compare in time
# proportional to the distinct pairs, not to the exponentially many paths through them.
_Seen = dict[tuple[int, int], bool]


def equal(a: Any, b: Any, seen: _Seen | None = None) -> bool:
    """CEL `==` with heterogeneous equality."""
    if is_numeric(a) and is_numeric(b):
        if isinstance(a, float) or isinstance(b, float):
            return float(a) == float(b) if not (isinstance(a, float) and math.isnan(a)) else False
        return int(a) == int(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, CelObject) and hasattr(a, "cel_equals"):
        # Library types compare as their Go implementations do (asymmetries included).
        return bool(a.cel_equals(b))
    if isinstance(a, (list, dict)):
        same_kind = isinstance(b, list) if isinstance(a, list) else isinstance(b, dict)
        if not same_kind or len(a) != len(b):
            return False
        if seen is None:
            # cel-go's cost counts the outer walk; what lies below it is work (see `budget`).
            return _containers_equal(a, b, {})
        key = (id(a), id(b))
        if key not in seen:
            spend(len(a))
            seen[key] = _containers_equal(a, b, seen)
        return seen[key]
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        if isinstance(a, _dt.datetime) and isinstance(b, _dt.datetime):
            return a == b
        return False
    return bool(a == b)


def _containers_equal(a: Any, b: Any, seen: _Seen) -> bool:
    if isinstance(a, list):
        return all(equal(x, y, seen) for x, y in zip(a, b, strict=True))
    for key, value in a.items():
        found, other = map_get(b, key)
        if not found or not equal(value, other, seen):
            return False
    return True


def map_get(container: dict[Any, Any], key: Any) -> tuple[bool, Any]:
    """Look a key up with CEL key semantics (numeric keys match across int/uint/double)."""
    if isinstance(key, bool):
        for k, v in container.items():
            if isinstance(k, bool) and k == key:
                return True, v
        return False, None
    if is_numeric(key):
        if isinstance(key, float):
            if not key.is_integer():
                return False, None
            key = int(key)
        for k, v in container.items():
            if is_numeric(k) and not isinstance(k, bool) and int(k) == key:
                return True, v
        return False, None
    if key in container:
        return True, container[key]
    return False, None


def compare(a: Any, b: Any, op: str = "_<_") -> int:
    """Ordering for `<`, `<=`, `>`, `>=`; numbers compare across types (CrossTypeNumericComparisons)."""
    if is_numeric(a) and is_numeric(b):
        if isinstance(a, float) or isinstance(b, float):
            x, y = float(a), float(b)
            if math.isnan(x) or math.isnan(y):
                # Every comparison with NaN is false; signal "unordered".
                raise _Unordered()
            return (x > y) - (x < y)
        return (int(a) > int(b)) - (int(a) < int(b))
    if isinstance(a, bool) and isinstance(b, bool):
        return (a > b) - (a < b)
    if isinstance(a, str) and isinstance(b, str):
        return (a > b) - (a < b)
    if isinstance(a, bytes) and isinstance(b, bytes):
        return (a > b) - (a < b)
    if isinstance(a, _dt.datetime) and isinstance(b, _dt.datetime):
        return (a > b) - (a < b)
    if isinstance(a, _dt.timedelta) and isinstance(b, _dt.timedelta):
        return (a > b) - (a < b)
    raise CelRuntimeError(f"no such overload: {op}({type_name(a)}, {type_name(b)})")


class _Unordered(Exception):
    """NaN took part in a comparison."""


def ordered(a: Any, b: Any, op: str) -> bool:
    try:
        c = compare(a, b, op)
    except _Unordered:
        return False
    if op == "_<_":
        return c < 0
    if op == "_<=_":
        return c <= 0
    if op == "_>_":
        return c > 0
    return c >= 0


def to_string(value: Any) -> str:
    """`string(x)` conversion."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CelRuntimeError("invalid UTF-8 in bytes, cannot convert to string") from e
    if isinstance(value, _dt.datetime):
        return format_timestamp(value)
    if isinstance(value, _dt.timedelta):
        return format_duration(value)
    raise CelRuntimeError(f"type conversion error from '{type_name(value)}' to 'string'")


def format_double(value: float) -> str:
    """Go's `%g` of a float64, as cel-go prints doubles: the shortest digits that read back exactly,
    in exponent form below 1e-4 and from 1e6 up (Go decides with precision 6 for shortest output)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = _shortest_digits(abs(value))
    digits = "".join(map(str, digits_tuple))
    point = len(digits) + exponent  # position of the decimal point after the first digit block
    exp10 = point - 1
    if exp10 < -4 or exp10 >= _G_PRECISION:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


_G_PRECISION = 6


def _shortest_digits(value: float) -> tuple[tuple[int, ...], int]:
    from decimal import Decimal

    _, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    return tuple(digits), exponent


def format_timestamp(value: _dt.datetime) -> str:
    value = value.astimezone(_dt.UTC)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    return text + "Z"


def format_duration(value: _dt.timedelta) -> str:
    total_us = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    sign = "-" if total_us < 0 else ""
    total_us = abs(total_us)
    seconds, micros = divmod(total_us, 1_000_000)
    if micros:
        return f"{sign}{seconds}.{micros:06d}".rstrip("0") + "s"
    return f"{sign}{seconds}s"
