"""Symmetry breaking: devices that only differ in name and rank are interchangeable."""

from __future__ import annotations

import itertools
from collections.abc import Hashable

from ...model.node_selector import is_node_local, terms_of
from ..capacity import device_capacity
from .model import Literal, NodeModel


def identical_devices(nm: NodeModel) -> None:
    """Order the uses of interchangeable devices (lex-leader, lower rank first): swapping two of them
    maps every allocation onto an equally good one, and first-fit itself prefers the lower rank, so
    the allocation every objective ends with (its tie-break is first-fit) is never cut off."""
    sensitive = _order_sensitive(nm)
    placed = _placement_sensitive(nm)
    classes: dict[Hashable, list[int]] = {}
    for d in nm.uses_of:
        if d in placed or any(s.position in sensitive for s, _ in nm.uses_of[d]):
            continue
        signature = _signature(nm, d)
        if signature is not None:
            classes.setdefault(signature, []).append(d)
    for devices in classes.values():
        devices.sort(key=nm.facts.rank.__getitem__)
        for a, b in itertools.pairwise(devices):
            _lex_leader(nm, a, b)


def _order_sensitive(nm: NodeModel) -> set[int]:
    """Slots under a scalar-mode constraint where some value is a list or has no kind: there the order
    of picks inside a slot matters (such a value only passes first), so swapping devices is no symmetry."""
    if nm.facts.problem.on("ListTypeAttributes"):
        return set()
    out: set[int] = set()
    for cf in nm.facts.constraints:
        if any(v.is_list or v.kind is None for v in cf.values.values()):
            out.update(cf.slots)
    return out


def _placement_sensitive(nm: NodeModel) -> set[int]:
    """Where a device's slice selector has several terms, whether it is usable depends on a node-local
    device coming before it in the results (node_selector.py): those devices' order matters."""
    devices = nm.facts.problem.devices
    if not any(terms_of(devices[d]) > 1 for d in nm.uses_of):
        return set()
    return {d for d in nm.uses_of if terms_of(devices[d]) > 1 or is_node_local(devices[d])}


def _signature(nm: NodeModel, d: int) -> Hashable | None:
    """Everything the model knows about the device, except its name and rank (None: leave it alone)."""
    facts = nm.facts
    uses = nm.uses_of[d]
    if any(s.all_mode for s, _ in uses):
        return None  # All mode takes its devices whole: nothing to permute
    device = facts.problem.devices[d]
    per_slot = tuple(
        (
            s.position,
            tuple(sorted(s.consumed.get(d, {}).items())),
            tuple(cf.values.get((s.position, d)) for cf in facts.constraints),
        )
        for s, _ in uses
    )
    consumes = tuple(
        (u.counter_set, tuple(sorted(u.counters.items())), tuple(sorted(u.groups))) for u in device.consumes
    )
    existing = facts.in_use.shared_capacity.get(device.ref, {})
    capacity = tuple(
        sorted((name, r.capacity.value, existing.get(name)) for name, r in device_capacity(device).items())
    )
    return (
        facts.pool_of[d].ref,
        d in facts.multi,
        facts.charged(d),
        consumes,
        capacity,
        per_slot,
    )


def _lex_leader(nm: NodeModel, a: int, b: int) -> None:
    """The use vector of `a` (slots in search order) is lexicographically at least that of `b`."""
    m = nm.model
    pairs = [(la, lb) for (_, la), (_, lb) in zip(nm.uses_of[a], nm.uses_of[b], strict=True)]
    equal: Literal | None = None  # the vectors agree so far (None: trivially, nothing compared yet)
    for i, (la, lb) in enumerate(pairs):
        guard = [equal.negated()] if equal is not None else []
        m.add_bool_or([*guard, la, lb.negated()])
        if i + 1 == len(pairs):
            break
        nxt = m.new_bool_var(f"same_d{a}_d{b}_{i + 1}")
        m.add_bool_or([*guard, la, nxt])
        m.add_bool_or([*guard, lb.negated(), nxt])
        equal = nxt
