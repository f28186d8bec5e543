"""A claim's matchAttribute and distinctAttribute constraints over its results."""

from __future__ import annotations

from collections.abc import Sequence

from ...model.families import Family
from ...model.problem import AttrValue, Claim
from ..attributes import ValueSet, as_set, intersect, scalar_distinct, scalar_equal
from .base import Checker, Pick


class ConstraintChecks(Checker):
    def attribute(self, pick: Pick, name: str) -> AttrValue | str | None:
        """The value a constraint sees: the slot's derived attribute shadows the physical one."""
        if any(derived.name == name for derived in pick.slot.derived):
            return self.p.derived.get((pick.result.slot, pick.device.id, name))
        return pick.device.lookup_attribute(name)

    def check_constraints(self, claim: Claim, picks: Sequence[Pick]) -> None:
        lists = self.p.on("ListTypeAttributes")
        for i, constraint in enumerate(claim.constraints):
            if constraint.kind == "invalid":
                continue
            affected = [p for p in picks if constraint.applies_to(p.slot)]
            values = [self.attribute(p, constraint.attribute) for p in affected]
            errors = [(p, v) for p, v in zip(affected, values, strict=True) if isinstance(v, str)]
            if errors:
                self.bad(errors[0][0], Family.ATTRIBUTES, f"cannot be checked: {errors[0][1]}")
                continue
            known = [v for v in values if not isinstance(v, str)]
            at = (_match_breaks if constraint.kind == "match" else _distinct_breaks)(known, lists)
            if at is not None:
                what = "matchAttribute" if constraint.kind == "match" else "distinctAttribute"
                text = f"breaks constraint #{i} ({what} {constraint.attribute}, value {_show(known[at])})"
                self.bad(affected[at], Family.ATTRIBUTES, text)


def _match_breaks(values: Sequence[AttrValue | None], lists: bool) -> int | None:
    """Index of the first value that cannot join a matchAttribute with the ones before it."""
    if lists:
        common: ValueSet | None = None
        for i, value in enumerate(values):
            this = as_set(value)
            if this is None:
                return i
            common = this if common is None else intersect(common, this)
            if common is None:
                return i
        return None
    first = values[0] if values else None
    for i, value in enumerate(values):
        if first is None or first.kind is None:
            return 0
        if value is None or (i and not scalar_equal(first, value)):
            return i
    return None


def _distinct_breaks(values: Sequence[AttrValue | None], lists: bool) -> int | None:
    """Index of the first value that repeats one before it under distinctAttribute."""
    seen: list[AttrValue] = []
    for i, value in enumerate(values):
        if value is None or value.kind is None:
            return i
        if lists:
            this = as_set(value)
            if this is None or any(
                (other := as_set(old)) is not None and intersect(other, this) is not None for old in seen
            ):
                return i
        elif not scalar_distinct(seen, value):
            return i
        seen.append(value)
    return None


def _show(value: AttrValue | None) -> str:
    if value is None:
        return "missing"
    if value.kind is None:
        return "empty"
    shown = ", ".join(str(v) for v in value.values)
    return f"[{shown}]" if value.is_list else shown
