"""Size limits and uniqueness of list fields: where each kind of error lands in the output."""

from __future__ import annotations

from validation_helpers import pairs

from kubefit.model.errors import FieldPath
from kubefit.translate.validation import FieldError
from kubefit.translate.validation.field_errors import invalid
from kubefit.translate.validation.list_rules import duplicates, validate_list, validate_set


def odd(value: str, path: FieldPath) -> list[FieldError]:
    return [invalid(path, value, "odd")] if len(value) % 2 else []


def test_duplicates_name_each_repeat_after_the_first() -> None:
    assert pairs(duplicates(("p",), ["a", "b", "a", "a"])) == [
        (("p", 2), 'Duplicate value: "a"'),
        (("p", 3), 'Duplicate value: "a"'),
    ]


def test_a_list_reports_a_repeat_right_after_its_item() -> None:
    found = validate_list(["x", "x", "yy"], ("p",), odd, key=lambda v: v)
    assert pairs(found) == [
        (("p", 0), 'Invalid value: "x": odd'),
        (("p", 1), 'Invalid value: "x": odd'),
        (("p", 1), 'Duplicate value: "x"'),
    ]


def test_a_set_reports_repeats_after_all_items() -> None:
    found = validate_set(["x", "x", "yy"], ("p",), odd, lambda v: v)
    assert pairs(found) == [
        (("p", 0), 'Invalid value: "x": odd'),
        (("p", 1), 'Invalid value: "x": odd'),
        (("p", 1), 'Duplicate value: "x"'),
    ]
    found = validate_set(["x", "x", "z"], ("p",), odd, lambda v: v)
    assert [p for p, _ in pairs(found)] == [("p", 0), ("p", 1), ("p", 2), ("p", 1)]


def test_over_the_limit_only_the_count_is_reported() -> None:
    for check in (validate_list, validate_set):
        found = check(["x", "x", "x"], ("p",), odd, key=lambda v: v, limit=2)
        assert pairs(found) == [(("p",), "Too many: 3: must have at most 2 items")]
