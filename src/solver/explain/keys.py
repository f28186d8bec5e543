"""What node signatures (`classes`) are made of: devices, pools, claims and constraint values in forms
that compare by everything the facts read of them, and hash cheaply."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Protocol

from ...model.problem import AttrValue, Claim, Device, PoolView, Problem, SelectableTable, SlotKey
from ..attributes import as_set

BOOLS = frozenset((True, False))  # the selectors' outcomes that are verdicts, not errors


def _exact(value: Fraction) -> tuple[int, int]:
    # Hashing a Fraction costs ten times as much as hashing its two integers.
    return value.numerator, value.denominator


def _amounts(counters: Mapping[str, Fraction]) -> tuple[tuple[str, int, int], ...]:
    return tuple([(name, v.numerator, v.denominator) for name, v in counters.items()])


def _text(value: int | bool | str) -> str:
    # As the facts write values.
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


class Shapes:
    """Devices numbered by everything about them but their pool, slice, attributes and placement; kept
    for the whole explanation (none of it depends on the unit or what is in use)."""

    def __init__(self) -> None:
        self.numbers: dict[Hashable, int] = {}
        self.of: dict[int, int] = {}

    def __call__(self, device: Device) -> int:
        found = self.of.get(device.id)
        if found is None:
            key = (
                device.driver,
                device.name,
                device.generation,
                tuple([(name, _exact(c.value), c.policy) for name, c in device.capacity.items()]),
                tuple([(u.counter_set, _amounts(u.counters), u.groups) for u in device.consumes]),
                device.taints,
                device.binding_conditions,
                device.binding_failure_conditions,
                device.binds_to_node,
                device.allow_multiple_allocations,
                device.per_device_node_selection,
                device.skip_node_operations,
                device.node_allocatable,
            )
            found = self.of[device.id] = self.numbers.setdefault(key, len(self.numbers))
        return found


class Column(Protocol):
    """A slot's outcomes by device."""

    def get(self, d: int, default: object, /) -> object: ...


class _Lookup:
    """A slot's outcomes read from a plain mapping of (slot, device) pairs."""

    def __init__(self, selectable: Mapping[tuple[SlotKey, int], object], key: SlotKey) -> None:
        self.selectable = selectable
        self.key = key

    def get(self, d: int, default: object, /) -> object:
        return self.selectable.get((self.key, d), default)


def outcomes(problem: Problem, key: SlotKey) -> Column:
    """The selectors' outcome for one slot, by device. A table's column is read as stored (a request
    selector's error is a 1-tuple there): an error only needs telling apart, not wording."""
    table = problem.selectable
    return table.column_of(key) if isinstance(table, SelectableTable) else _Lookup(table, key)


def claim_key(claim: Claim) -> tuple[object, ...]:
    """A pending claim but for its namespace, name and id."""
    requests = tuple(
        (request.name, request.first_available, tuple(slot.key() for slot in request.slots))
        for request in claim.requests
    )
    return (requests, claim.constraints, claim.allocated, claim.allocated_selector)


def pool_key(pool: PoolView, index: dict[int, int], devices: Sequence[Device]) -> tuple[object, ...]:
    grouped = any(u.groups for d in pool.counter_devices for u in devices[d].consumes)
    return (
        pool.driver,
        pool.state,
        pool.generation,
        pool.reason,
        tuple([(name, _amounts(counters)) for name, counters in pool.counter_sets.items()]),
        tuple(index[d] for d in pool.devices),
        tuple(index[d] for d in pool.counter_devices),
        grouped,
    )


def value_key(value: AttrValue | None, numbers: Numbers) -> tuple[object, ...] | None:
    """A constraint's value with its elements numbered on the node: by text (as the facts name them) and
    by value (as the canonical order compares them), in the order the facts list them."""
    if value is None:
        return None
    kind = value.kind or ""
    values = value.values
    if len(values) == 1:
        return (value.kind, value.is_list, 1, value.kind is None, (numbers(kind, values[0]),))
    elements = tuple(numbers(kind, v) for v in sorted(set(values), key=str))
    return (value.kind, value.is_list, len(values), as_set(value) is None, elements)


class Numbers:
    """Values numbered by first appearance on one node, by text and by value."""

    def __init__(self) -> None:
        self.texts: dict[tuple[str, str], int] = {}
        self.raw: dict[tuple[str, object], int] = {}
        self.values: list[tuple[str, str]] = []  # number -> (kind, text)

    def __call__(self, kind: str, value: int | bool | str) -> tuple[int, int]:
        text = (kind, _text(value))
        by_text = self.texts.get(text)
        if by_text is None:
            by_text = self.texts[text] = len(self.values)
            self.values.append(text)
        return by_text, self.raw.setdefault((kind, value), len(self.raw))
