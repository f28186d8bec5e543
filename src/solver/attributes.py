"""Attribute semantics of matchAttribute / distinctAttribute, shared by engines and the validator.

With DRAListTypeAttributes every value is a set (a scalar is a one-element set):
matchAttribute needs one element common to all devices, distinctAttribute needs
pairwise-disjoint sets. Without it, values compare as scalars and a list never
matches anything but itself being first. Values of different kinds never match.
"""

from __future__ import annotations

from ..model.problem import AttrValue

ValueSet = tuple[str, frozenset[int | bool | str]]


def as_set(attr: AttrValue | None) -> ValueSet | None:
    """A value as (kind, elements); None for no value (an empty list counts as none)."""
    if attr is None or attr.kind is None or not attr.values:
        return None
    return attr.kind, frozenset(attr.values)


def intersect(a: ValueSet, b: ValueSet) -> ValueSet | None:
    """The common elements, or None when kinds differ or nothing is shared."""
    if a[0] != b[0]:
        return None
    common = a[1] & b[1]
    return (a[0], common) if common else None


def scalar_equal(first: AttrValue, other: AttrValue) -> bool:
    """matchAttribute without list support: same kind, both scalars, same value."""
    if other.is_list or other.kind is None:
        return False
    return not first.is_list and first.kind == other.kind and first.values == other.values


def scalar_distinct(existing: list[AttrValue], new: AttrValue) -> bool:
    """distinctAttribute without list support (a list or empty value only passes when first)."""
    for attr in existing:
        if new.is_list or new.kind is None:
            return False
        if not attr.is_list and attr.kind == new.kind and attr.values == new.values:
            return False
    return True


class MatchState:
    """The running state of one matchAttribute constraint, with exact undo."""

    def __init__(self, lists: bool) -> None:
        self.lists = lists
        self.first: AttrValue | None = None
        self.stack: list[ValueSet] = []  # running intersections (list mode)
        self.count = 0

    def add(self, attr: AttrValue | None) -> bool:
        if attr is None:
            return False
        if self.lists:
            new = as_set(attr)
            if new is None:
                return False
            if self.count == 0:
                self.stack.append(new)
            else:
                common = intersect(self.stack[-1], new)
                if common is None:
                    return False
                self.stack.append(common)
        elif self.count == 0:
            self.first = attr
        elif self.first is None or not scalar_equal(self.first, attr):
            return False
        self.count += 1
        return True

    def remove(self) -> None:
        self.count -= 1
        if self.lists:
            self.stack.pop()
        if self.count == 0:
            self.first = None


class DistinctState:
    """The running state of one distinctAttribute constraint, with exact undo."""

    def __init__(self, lists: bool) -> None:
        self.lists = lists
        self.values: list[AttrValue] = []

    def add(self, attr: AttrValue | None) -> bool:
        if attr is None:
            return False
        if self.lists:
            new = as_set(attr)
            if new is None:
                return False
            for old in self.values:
                existing = as_set(old)
                if existing is not None and intersect(existing, new) is not None:
                    return False
        elif not scalar_distinct(self.values, attr):
            return False
        self.values.append(attr)
        return True

    def remove(self) -> None:
        self.values.pop()
