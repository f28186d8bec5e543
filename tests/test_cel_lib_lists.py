"""Kubernetes lists library: isSorted, sum, min, max, indexOf, lastIndexOf."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from cel_library_support import LibraryUnderTest

from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import lists as lib
from kubefit.translate.cel.values import Uint

UTC = dt.UTC
TYPES = {
    "int": t.INT,
    "uint": t.UINT,
    "double": t.DOUBLE,
    "bool": t.BOOL,
    "duration": t.DURATION,
    "timestamp": t.TIMESTAMP,
    "string": t.STRING,
    "bytes": t.BYTES,
}


LIB = LibraryUnderTest(lib.library)
overload = LIB.overload
call = LIB.impl


def test_declarations() -> None:
    expected = set()
    for name, typ in TYPES.items():
        expected.add((f"list_{name}_is_sorted_bool", "isSorted", (t.list_of(typ),), t.BOOL))
        expected.add((f"list_{name}_min_{name}", "min", (t.list_of(typ),), typ))
        expected.add((f"list_{name}_max_{name}", "max", (t.list_of(typ),), typ))
    for name in ("int", "uint", "double", "duration"):
        typ = TYPES[name]
        expected.add((f"list_{name}_sum_{name}", "sum", (t.list_of(typ),), typ))
    expected.add(("list_a_index_of_int", "indexOf", (t.list_of(t.A), t.A), t.INT))
    expected.add(("list_a_last_index_of_int", "lastIndexOf", (t.list_of(t.A), t.A), t.INT))
    got = {(o.id.removesuffix("_member"), o.function, o.params, o.result) for o in lib.library.overloads}
    assert got == expected
    assert all(o.member and o.cost is not None and o.estimate is not None for o in lib.library.overloads)
    # `includes` only exists in a later, opt-in version of the library.
    assert "includes" not in {o.function for o in lib.library.overloads}


D = dt.timedelta
TS1 = dt.datetime(2024, 1, 1, tzinfo=UTC)
TS2 = dt.datetime(2024, 6, 1, tzinfo=UTC)
NAN = float("nan")

CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("list_int_is_sorted_bool", ([1, 2, 3],), True),
    ("list_string_is_sorted_bool", (["a", "b", "b", "c"],), True),
    ("list_double_is_sorted_bool", ([2.0, 1.0],), False),
    ("list_int_is_sorted_bool", ([1],), True),
    ("list_int_is_sorted_bool", ([],), True),
    ("list_uint_is_sorted_bool", ([Uint(1), Uint(3), Uint(2)],), False),
    ("list_bool_is_sorted_bool", ([False, True, True],), True),
    ("list_bool_is_sorted_bool", ([True, False],), False),
    ("list_bytes_is_sorted_bool", ([b"a", b"ab", b"b"],), True),
    ("list_duration_is_sorted_bool", ([D(seconds=1), D(minutes=1)],), True),
    ("list_timestamp_is_sorted_bool", ([TS2, TS1],), False),
    # NaN compares as an error upstream, which never reports "out of order".
    ("list_double_is_sorted_bool", ([2.0, NAN, 1.0],), True),
    ("list_int_sum_int", ([1, 3],), 4),
    ("list_double_sum_double", ([1.0, 3.0],), 4.0),
    ("list_duration_sum_duration", ([D(minutes=1), D(seconds=1)],), D(seconds=61)),
    ("list_int_sum_int", ([],), 0),
    ("list_double_sum_double", ([],), 0.0),
    ("list_uint_sum_uint", ([Uint(2), Uint(3)],), Uint(5)),
    ("list_duration_sum_duration", ([],), D(0)),
    ("list_int_min_int", ([1, 3],), 1),
    ("list_int_max_int", ([1, 3],), 3),
    ("list_int_min_int", ([1],), 1),
    ("list_int_min_int", ([0],), 0),
    ("list_string_min_string", (["b", "a", "c"],), "a"),
    ("list_string_max_string", (["b", "a", "c"],), "c"),
    ("list_double_max_double", ([1.5, -2.0, 7.25],), 7.25),
    ("list_bool_max_bool", ([False, True],), True),
    ("list_bytes_min_bytes", ([b"b", b"a"],), b"a"),
    ("list_timestamp_max_timestamp", ([TS1, TS2],), TS2),
    ("list_duration_min_duration", ([D(1), D(seconds=1)],), D(seconds=1)),
    ("list_uint_min_uint", ([Uint(3), Uint(2)],), Uint(2)),
    ("list_a_index_of_int", ([1, 2, 2, 3], 2), 1),
    ("list_a_last_index_of_int", (["a", "b", "b", "c"], "b"), 2),
    ("list_a_index_of_int", ([1.0], 1.1), -1),
    ("list_a_index_of_int", ([], "string"), -1),
    ("list_a_last_index_of_int", ([], 1), -1),
    # CEL equality is heterogeneous: numbers compare by value across types.
    ("list_a_index_of_int", ([1, 2.0, Uint(3)], 2), 1),
    ("list_a_last_index_of_int", ([Uint(1), 1.0, "1"], 1), 1),
    ("list_a_index_of_int", ([[1, 2], [3]], [3]), 1),
    ("list_a_index_of_int", ([{"a": 1}], {"a": 1.0}), 0),
]


@pytest.mark.parametrize(("overload_id", "args", "expected"), CASES)
def test_function(overload_id: str, args: tuple[Any, ...], expected: Any) -> None:
    result = call(overload_id, *args)
    assert result == expected
    assert type(result) is type(expected)


def test_min_max_keep_first_of_equals_and_skip_nan() -> None:
    first, second = 1.0, 1.0
    assert call("list_double_min_double", [first, second]) is first
    assert call("list_double_max_double", [NAN, 3.0, 1.0]) != 3.0  # NaN stays: nothing compares with it
    assert call("list_double_max_double", [3.0, NAN, 5.0]) == 5.0


ERRORS: list[tuple[str, tuple[Any, ...], str]] = [
    ("list_int_min_int", ([],), "min called on empty list"),
    ("list_int_max_int", ([],), "max called on empty list"),
    ("list_string_min_string", ([],), "min called on empty list"),
    ("list_int_sum_int", ([2**62, 2**62],), "integer overflow"),
    ("list_uint_sum_uint", ([Uint(2**64 - 1), Uint(1)],), "unsigned integer overflow"),
    ("list_duration_sum_duration", ([D(days=100000), D(days=100000)],), "integer overflow"),
    ("list_int_sum_int", ([1, 2.0],), "no such overload"),
    ("list_int_min_int", ([None],), "no such overload"),
    ("list_int_is_sorted_bool", ([[1]],), "no such overload"),
]


@pytest.mark.parametrize(("overload_id", "args", "message"), ERRORS)
def test_function_error(overload_id: str, args: tuple[Any, ...], message: str) -> None:
    LIB.check_error(overload_id, args, message)


def test_costs() -> None:
    assert overload("list_int_sum_int").cost([[1, 2, 3]]) == 3
    # Strings cost a truncated tenth of their length each.
    assert overload("list_string_max_string").cost([["a" * 25, "b" * 9]]) == 2
    assert overload("list_a_index_of_int").cost([[[1, 2], [3]], [3]]) == 3
    assert overload("list_int_is_sorted_bool").estimate([10]) == 10
