"""Size limits and uniqueness of list fields, the way the API server walks them.

Upstream: `validateSlice` and `validateSet` in kubernetes/kubernetes
`pkg/apis/resource/validation/validation.go`. Where an item's duplicate is
reported (right after that item's own errors, or after every item's) decides the
order of the errors, and users compare that order with `kubectl`'s, so both
walks exist.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from ...model.errors import FieldPath
from . import FieldError
from .field_errors import Value, duplicate, too_many

T = TypeVar("T")
ItemCheck = Callable[[T, FieldPath], list[FieldError]]


def duplicates(path: FieldPath, keys: Iterable[Value]) -> list[FieldError]:
    """A duplicate error at each index whose key an earlier item already had."""
    errs: list[FieldError] = []
    seen: set[Hashable] = set()
    for i, key in enumerate(keys):
        if key in seen:
            errs.append(duplicate((*path, i), key))
        seen.add(key)
    return errs


def validate_list(
    items: Sequence[T],
    path: FieldPath,
    check: ItemCheck[T],
    *,
    limit: int | None = None,
    key: Callable[[T], Value] | None = None,
) -> list[FieldError]:
    """Each item at `path[i]`; a repeated `key` is reported right after that item's own errors.

    Over `limit` only the count is reported, so a huge list is not echoed back item by item.
    """
    if limit is not None and len(items) > limit:
        return [too_many(path, len(items), limit)]
    errs: list[FieldError] = []
    seen: set[Hashable] = set()
    for i, item in enumerate(items):
        item_path: FieldPath = (*path, i)
        errs.extend(check(item, item_path))
        if key is not None:
            item_key = key(item)
            if item_key in seen:
                errs.append(duplicate(item_path, item_key))
            seen.add(item_key)
    return errs


def validate_set(
    items: Sequence[T],
    path: FieldPath,
    check: ItemCheck[T],
    key: Callable[[T], Value],
    *,
    limit: int | None = None,
) -> list[FieldError]:
    """Like `validate_list`, but the repeated keys are reported after every item's own errors."""
    if limit is not None and len(items) > limit:
        return [too_many(path, len(items), limit)]
    return validate_list(items, path, check) + duplicates(path, map(key, items))
