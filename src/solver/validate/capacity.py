"""Consumable capacity: the share flags and amounts of one result, and the totals of a unit."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ...model.families import Family
from ..capacity import CapacityError, consumed_amount, device_capacity, resolve_requests, violates
from .base import Checker, Pick, amounts_text, quantity


class CapacityChecks(Checker):
    def check_share(self, pick: Pick) -> None:
        """The share flags and the capacity one result consumes (totals are checked per unit)."""
        result, device = pick.result, pick.device
        if not self.cc:
            if result.shared or result.consumed_capacity is not None:
                self.bad(pick, Family.CAPACITY, "is shared, but ConsumableCapacity is off")
            return
        if pick.multi and not result.shared:
            self.bad(pick, Family.CAPACITY, "is multi-allocatable, but given without a share")
        if not pick.multi and (result.shared or result.consumed_capacity is not None):
            self.bad(
                pick, Family.CAPACITY, "is exclusive, but its result carries a share or consumed capacity"
            )
        try:
            resolved = resolve_requests(pick.slot.capacity_requests, device)
            if resolved is None:
                names = ", ".join(sorted(pick.slot.capacity_requests or {}))
                self.bad(pick, Family.CAPACITY, f"does not publish capacity {names}")
                return
            capacity = device_capacity(device)
            consumed = {
                n: consumed_amount(resolved.get(n), e.capacity, self.fractional) for n, e in capacity.items()
            }
        except CapacityError as e:
            self.fail(pick.claim, Family.CAPACITY, str(e), pick.slot.result_name)
            return
        for name, amount in consumed.items():
            entry = capacity[name]
            if amount < 0:
                self.bad(
                    pick, Family.CAPACITY, f"would consume a negative amount of capacity {entry.published}"
                )
                return
            if violates(amount, entry.capacity.policy, self.fractional):
                self.bad(
                    pick,
                    Family.CAPACITY,
                    f"cannot take {quantity(amount)} of capacity {entry.published} (request policy)",
                )
        pick.consumed = consumed
        if pick.multi:
            expected = {capacity[name].published: value for name, value in consumed.items()}
            got = dict(result.consumed_capacity or {})
            if got != expected:
                text = f"reports consumed capacity {amounts_text(got)}, but the request consumes "
                self.bad(pick, Family.CAPACITY, text + amounts_text(expected))

    def check_capacity_totals(self, picks: Sequence[Pick]) -> None:
        inflight: dict[str, dict[str, Fraction]] = {}
        reported: set[tuple[str, str]] = set()
        for pick in picks:
            if pick.consumed is None:
                continue  # ConsumableCapacity is off, or the result was reported already
            ref = pick.device.ref
            total = pick.consumed
            if pick.multi:
                # Admin shares count within their batch too (the allocator records them in flight).
                total = inflight.setdefault(ref, {})
                for name, value in pick.consumed.items():
                    total[name] = total.get(name, Fraction(0)) + value
            capacity = device_capacity(pick.device)
            for name, value in total.items():
                entry, before = capacity[name], self.held.capacity.get(ref, {}).get(name, Fraction(0))
                if before + value > entry.capacity.value and (ref, name) not in reported:
                    reported.add((ref, name))
                    most = quantity(entry.capacity.value)
                    amounts = f"{quantity(before)} in use + {quantity(value)} allocated now > {most}"
                    self.bad(pick, Family.CAPACITY, f"capacity {entry.published} is exceeded: {amounts}")
