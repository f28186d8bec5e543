"""Shared counters of partitionable devices, and the compatibility groups of a counter set."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ...model.families import Family
from ...model.problem import Device, NodeView, PoolView
from .base import Checker, Pick, quantity


class CounterChecks(Checker):
    def check_counters(self, picks: Sequence[Pick], view: NodeView) -> None:
        if not self.p.on("PartitionableDevices"):
            return  # counter-consuming devices are reported one by one
        pool_of = {d: pool for pool in view.pools if pool.state == "complete" for d in pool.devices}
        drawing: dict[str, list[Pick]] = {}  # pool -> picks that draw on its counters, in order
        pools: dict[str, PoolView] = {}
        opened: set[str] = set()
        for pick in picks:
            device = pick.device
            pool = pool_of.get(device.id)
            if not device.consumes or pool is None:
                continue
            if pick.multi:
                # A shared device draws on the counters once, when its first share opens it.
                if self.held.has_shares(device.ref) or device.ref in opened:
                    continue
                opened.add(device.ref)
            drawing.setdefault(pool.ref, []).append(pick)
            pools[pool.ref] = pool
        for ref, members in drawing.items():
            self.check_pool_counters(pools[ref], members)
            if self.p.on("CompatibilityGroups"):
                self.check_groups(pools[ref], members)

    def left(self, pool: PoolView) -> dict[str, dict[str, Fraction]]:
        """What the pool's counters have left beside the devices allocated so far (kept up to date as
        units commit, so that each unit does not add up the whole pool again)."""
        key = (pool.ref, pool.counter_devices)
        left = self.left_of.get(key)
        if left is None:
            left = {name: dict(counters) for name, counters in pool.counter_sets.items()}
            for d in pool.counter_devices:
                device = self.p.devices[d]
                if self.held.allocated(device.ref):
                    add_draws(left, device, -1)
                self.drawn_from.setdefault(d, []).append(left)
            self.left_of[key] = left
        return left

    def check_pool_counters(self, pool: PoolView, members: Sequence[Pick]) -> None:
        left = self.left(pool)
        needed: dict[str, dict[str, Fraction]] = {}
        for pick in members:
            add_draws(needed, pick.device, +1)
        # The allocator re-checks every counter of the pool for each new device, so an already
        # exhausted counter blocks devices that do not even draw on it.
        for name, counters in left.items():
            for counter, value in counters.items():
                used = needed.get(name, {}).get(counter, Fraction(0))
                if used <= value:
                    continue
                culprits = [p for p in members if draws_on(p.device, name, counter)]
                refs = ", ".join(p.device.ref for p in culprits)
                why = (
                    f"the new devices ({refs}) need {quantity(used)}, {quantity(value)} is left"
                    if culprits
                    else (f"it is already exhausted ({quantity(value)} left)")
                )
                where = f"counter {counter} of counter set {name} in pool {pool.ref}"
                self.bad((culprits or list(members))[-1], Family.COUNTERS, f"overdraws {where}: {why}")

    def check_groups(self, pool: PoolView, members: Sequence[Pick]) -> None:
        for name in dict.fromkeys(use.counter_set for p in members for use in p.device.consumes):
            # The allocator's running state, seeded from the allocated devices in pool order: a state
            # that is already inconsistent (a group-less peer beside grouped ones) is what it keeps.
            state: Groups = None
            for d in pool.counter_devices:
                if self.held.allocated(self.p.devices[d].ref):
                    for use in self.p.devices[d].consumes:
                        if use.counter_set == name:
                            state = joined(state, frozenset(use.groups))
            # Report the first new device the set does not admit.
            for pick, use in ((p, u) for p in members for u in p.device.consumes if u.counter_set == name):
                groups = frozenset(use.groups)
                if not admitted(state, groups):
                    text = (
                        f"(groups {sorted(use.groups)}) shares no compatibility group with the other "
                        f"devices on counter set {name} of pool {pool.ref}"
                    )
                    self.bad(pick, Family.COMPATIBILITY_GROUPS, text)
                    break
                state = joined(state, groups)


# A counter set's compatibility state: None before any member, GROUPLESS while every member declared no
# group, else the groups all grouped members share (spec: DRADeviceCompatibilityGroups).
GROUPLESS = "group-less"
Groups = frozenset[str] | str | None


def admitted(state: Groups, groups: frozenset[str]) -> bool:
    if state is None:
        return True
    if isinstance(state, str):
        return not groups
    return bool(state & groups)


def joined(state: Groups, groups: frozenset[str]) -> Groups:
    """A member joins (or is seeded): a group-less one leaves a grouped state as it is, and a grouped
    one a group-less state."""
    if state is None:
        return groups if groups else GROUPLESS
    if isinstance(state, str) or not groups:
        return state
    return state & groups


def add_draws(totals: dict[str, dict[str, Fraction]], device: Device, sign: int) -> None:
    """Add (or take away) what a device draws on its pool's counters; `totals` of the new devices grow
    as needed, what is left of the published counters only covers counters that exist."""
    for use in device.consumes:
        counters = totals.setdefault(use.counter_set, {}) if sign > 0 else totals.get(use.counter_set, {})
        for counter, value in use.counters.items():
            if sign > 0 or counter in counters:
                counters[counter] = counters.get(counter, Fraction(0)) + sign * value


def draws_on(device: Device, counter_set: str, counter: str) -> bool:
    return any(use.counter_set == counter_set and counter in use.counters for use in device.consumes)
