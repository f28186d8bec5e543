"""cel-go sets extension."""

from __future__ import annotations

from typing import Any

import pytest

from kubefit.translate.cel import types as t
from kubefit.translate.cel.library import sets as lib
from kubefit.translate.cel.registry import Overload
from kubefit.translate.cel.values import Uint

LIST_T = t.list_of(t.CelType("T", is_param=True))


def overload(name: str) -> Overload:
    found = [o for o in lib.library.overloads if o.function == name]
    assert len(found) == 1, name
    return found[0]


@pytest.mark.parametrize(
    ("name", "overload_id"),
    [
        ("sets.contains", "list_sets_contains_list"),
        ("sets.equivalent", "list_sets_equivalent_list"),
        ("sets.intersects", "list_sets_intersects_list"),
    ],
)
def test_declaration(name: str, overload_id: str) -> None:
    ov = overload(name)
    assert (ov.id, ov.member, ov.params, ov.result) == (overload_id, False, (LIST_T, LIST_T), t.BOOL)
    assert ov.params[0].params[0].is_param
    assert ov.cost is not None and ov.estimate is not None
    assert len(lib.library.overloads) == 3


CASES: list[tuple[str, list[Any], list[Any], bool]] = [
    ("sets.contains", [], [], True),
    ("sets.contains", [], [1], False),
    ("sets.contains", [1, 2, 3, 4], [2, 3], True),
    ("sets.contains", [1, 2.0, Uint(3)], [1.0, Uint(2), 3], True),
    ("sets.contains", [1, 2], [2, 2, 2], True),
    ("sets.contains", [1, 2], [3], False),
    ("sets.contains", [[1], [2, 3]], [[2, 3]], True),
    ("sets.contains", [{"a": 1}], [{"a": 1.0}], True),
    ("sets.contains", ["1"], [1], False),
    ("sets.equivalent", [], [], True),
    ("sets.equivalent", [1], [1, 1], True),
    ("sets.equivalent", [1], [Uint(1), 1.0], True),
    ("sets.equivalent", [1, 2, 3], [Uint(3), 2.0, 1], True),
    ("sets.equivalent", [1, 2], [2, 2, 2], False),
    ("sets.equivalent", [1], [], False),
    ("sets.intersects", [1], [], False),
    ("sets.intersects", [], [1], False),
    ("sets.intersects", [1], [1, 2], True),
    ("sets.intersects", [[1], [2, 3]], [[1, 2], [2, 3.0]], True),
    ("sets.intersects", ["a", "b"], ["c"], False),
    ("sets.intersects", [None], [None], True),
]


@pytest.mark.parametrize(("name", "a", "b", "expected"), CASES)
def test_function(name: str, a: list[Any], b: list[Any], expected: bool) -> None:
    assert overload(name).impl(a, b) is expected


def test_costs() -> None:
    assert overload("sets.contains").cost([[1, 2, 3], [1, 2]]) == 1 + 6
    assert overload("sets.intersects").cost([[], [1]]) == 1
    assert overload("sets.equivalent").cost([[1, 2, 3], [1, 2]]) == 1 + 12
    assert overload("sets.equivalent").estimate([4, 5]) == 41
