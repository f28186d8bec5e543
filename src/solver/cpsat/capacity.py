"""Consumable capacity of multi-allocatable devices."""

from __future__ import annotations

from fractions import Fraction

from ..capacity import device_capacity
from .model import NodeModel
from .scale import integral


def consumable_capacity(nm: NodeModel) -> None:
    """The shares picked of a device, with its existing shares, fit each capacity it publishes (each
    pick alone was checked against the existing ones, rounding included, while gathering facts)."""
    facts = nm.facts
    for d, uses in nm.uses_of.items():
        if d not in facts.multi or len(uses) < 2:
            continue
        device = facts.problem.devices[d]
        existing = facts.in_use.shared_capacity.get(device.ref, {})
        for name, entry in device_capacity(device).items():
            left = entry.capacity.value - existing.get(name, Fraction(0))
            terms = [(lit, s.consumed.get(d, {}).get(name, Fraction(0))) for s, lit in uses]
            terms = [(lit, amount) for lit, amount in terms if amount]
            if sum(amount for _, amount in terms) <= left:
                continue
            ints = integral([left, *(amount for _, amount in terms)])
            nm.model.add(sum(c * lit for (lit, _), c in zip(terms, ints[1:], strict=True)) <= ints[0])
