"""The facts of what devices draw on together: pools' shared counters, counter sets' compatibility
groups, and consumable capacity left beside existing shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from ...model.problem import CounterUse, PoolView, Problem
from ..capacity import device_capacity
from . import schema as s
from .amounts import overdraws, scaled
from .gathered import Gathering


class CounterFacts(Gathering):
    def counter_facts(self) -> None:
        """Counters of every pool a candidate draws from; groups of every counter set it draws from."""
        nf = self.nf
        p = self.p
        if not p.on("PartitionableDevices"):
            return
        pools: list[PoolView] = []
        # counter set -> (slot, device, counters) per charge a pick can make (see counters.lp)
        draws: dict[int, list[tuple[int, int, Mapping[str, Fraction]]]] = {}
        slots_of = self.slots_of()
        for d in nf.devices:
            device = p.devices[d]
            if not device.consumes:
                continue
            pool = self.pool_of[d]
            if pool.ref not in self.pool_ids:
                self.pool_ids[pool.ref] = len(self.pool_ids)
                nf.pools.append(pool)
                pools.append(pool)
            local = self.local[d]
            self.add(s.InPool, device=local, pool=self.pool_ids[pool.ref])
            merged = _merged(device.consumes)
            for name, counters in merged.items():
                if name not in pool.counter_sets:
                    continue  # an unknown counter set: the pool is invalid and never searched
                cs = self.set_id(pool, name)
                self.add(s.Draws, device=local, counter_set=cs)
                # Every pick of a device that is not multi-allocatable draws (an admin pick again); a
                # multi-allocatable one draws once, when its first share opens it (slot -1).
                charges = [-1] if nf.allocator.multi(device) else slots_of.get(d, [])
                draws.setdefault(cs, []).extend((slot, local, counters) for slot in charges)
            if p.on("CompatibilityGroups"):
                for use in device.consumes:
                    for g in use.groups if use.counter_set in pool.counter_sets else ():
                        self.add(
                            s.Declares, device=local, counter_set=self.set_id(pool, use.counter_set), group=g
                        )
        for pool in pools:
            available = nf.allocator.available(pool)
            grouped = p.on("CompatibilityGroups") and _grouped(p, pool)
            for name in sorted(pool.counter_sets):
                drawn = (pool.ref, name) in self.set_ids
                counted = False
                drawing = draws.get(self.set_ids.get((pool.ref, name), -1), [])
                totals = _totals(drawing)
                for counter in sorted(available.get(name, {})):
                    left = available[name][counter]
                    if totals.get(counter, 0) <= left:
                        continue  # all candidates together fit: the counter cannot stand in the way
                    users = [(slot, d, c[counter]) for slot, d, c in drawing if counter in c]
                    counted = True
                    self.counter(self.set_id(pool, name), counter, left, users)
                if counted:
                    self.add(s.CounterSet, counter_set=self.set_id(pool, name), pool=self.pool_ids[pool.ref])
                if drawn and grouped:
                    cs = self.set_id(pool, name)
                    has, plain, common = nf.allocator.group_state(pool, name)
                    if has:
                        self.add(s.Seed, counter_set=cs, kind="plain" if plain else "grouped")
                        for g in sorted(common):
                            self.add(s.SeedGroup, counter_set=cs, group=g)

    def set_id(self, pool: PoolView, name: str) -> int:
        """Counter sets are numbered as candidates first draw on them (then by name)."""
        key = (pool.ref, name)
        if key not in self.set_ids:
            self.set_ids[key] = len(self.nf.counter_sets)
            self.nf.counter_sets.append((pool, name))
        return self.set_ids[key]

    def counter(self, cs: int, counter: str, left: Fraction, users: list[tuple[int, int, Fraction]]) -> None:
        """What is left of one counter and what each candidate draws, or, for amounts too large for
        clingo, the sets of charges (slot, device) that overdraw it."""
        ints = scaled([left, *(a for _, _, a in users)])
        if ints is None:
            for i, members in enumerate(overdraws(left, [a for _, _, a in users])):
                self.add(s.Overdraw, counter_set=cs, counter=counter, index=i)
                for m in members:
                    slot, local, _ = users[m]
                    self.add(
                        s.OverdrawMember, counter_set=cs, counter=counter, index=i, slot=slot, device=local
                    )
            return
        self.add(s.CounterLeft, counter_set=cs, counter=counter, amount=ints[0])
        amounts = dict(zip((local for _, local, _ in users), ints[1:], strict=False))
        for local, amount in amounts.items():
            self.add(s.Consumes, device=local, counter_set=cs, counter=counter, amount=amount)

    def slots_of(self) -> dict[int, list[int]]:
        """Device -> the slots (positions) that may pick it: candidates, and All lists."""
        out: dict[int, list[int]] = {}
        for position in sorted({*self.nf.candidates, *self.listed}):
            for d in dict.fromkeys([*self.nf.candidates.get(position, ()), *self.listed.get(position, ())]):
                out.setdefault(d, []).append(position)
        return out

    def capacity_facts(self) -> None:
        nf = self.nf
        by_device: dict[int, dict[int, dict[str, Fraction]]] = {}
        for (position, d), consumed in self.share_use.items():
            by_device.setdefault(d, {})[position] = consumed
        for d in nf.devices:
            uses = by_device.get(d)
            if not uses:
                continue
            device = self.p.devices[d]
            local = self.local[d]
            existing = nf.in_use.shared_capacity.get(device.ref, {})
            for position, consumed in uses.items():
                nf.shares[(position, local)] = consumed
            for name, resolved in sorted(device_capacity(device).items()):
                x = len(nf.capacities)
                nf.capacities.append((local, name))
                left = resolved.capacity.value - existing.get(name, Fraction(0))
                positions = sorted(uses)
                amounts = [uses[pos].get(name, Fraction(0)) for pos in positions]
                ints = scaled([left, *amounts])
                if ints is None:
                    for i, members in enumerate(overdraws(left, amounts)):
                        self.add(s.CapOverdraw, device=local, capacity=x, index=i)
                        for m in members:
                            self.add(
                                s.CapOverdrawMember, device=local, capacity=x, index=i, slot=positions[m]
                            )
                    continue
                self.add(s.CapLeft, device=local, capacity=x, amount=ints[0])
                for pos, amount in zip(positions, ints[1:], strict=True):
                    self.add(s.CapUse, slot=pos, device=local, capacity=x, amount=amount)


def _totals(charges: Sequence[tuple[int, int, Mapping[str, Fraction]]]) -> dict[str, Fraction]:
    """What the charges draw together, by counter."""
    out: dict[str, Fraction] = {}
    for _, _, counters in charges:
        for counter, amount in counters.items():
            out[counter] = out[counter] + amount if counter in out else amount
    return out


def _merged(uses: Sequence[CounterUse]) -> Mapping[str, Mapping[str, Fraction]]:
    """What a device draws, by counter set (a set named twice draws the sum)."""
    if len(uses) == 1:
        return {uses[0].counter_set: uses[0].counters}  # read only: no copy
    merged: dict[str, dict[str, Fraction]] = {}
    for use in uses:
        counters = merged.setdefault(use.counter_set, {})
        for counter, value in use.counters.items():
            counters[counter] = counters.get(counter, Fraction(0)) + value
    return merged


def _grouped(problem: Problem, pool: PoolView) -> bool:
    """Whether any device of the pool declares compatibility groups (else none can be violated)."""
    return any(use.groups for d in pool.counter_devices for use in problem.devices[d].consumes)
