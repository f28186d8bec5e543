"""What every search on one Problem shares: facts about devices and pools that never change, worked out
once instead of in each of the thousands of node searches a scheduling run makes.

- each node view's device -> pool index, and each pool's device refs;
- what each device draws from its pool's counters, as numbers that compare fast: whole amounts as
  ints (exact, like the Fractions they stand for, and much cheaper), others as Fractions;
- what a pool's counters have left, and its compatibility-group seeds, for a given set of allocated
  devices of the pool (the in-use state changes one node at a time, so most pools look the same
  search after search);
- whether an unshared device can take a request's capacity (no other share to count), for each shape
  of capacity devices publish.

Held per Problem, and dropped with it (the Problem is only weakly referenced).
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable, Mapping
from fractions import Fraction

from ...model.problem import Device, InUse, NodeView, PoolView, Problem
from ..capacity import CapacityError, fit

Number = int | Fraction
GroupState = tuple[bool, bool, frozenset[str]]
Draws = tuple[tuple[str, tuple[tuple[str, Number], ...]], ...]  # (counter set, ((counter, amount), ...))

# Entries kept for (pool, allocated devices) before the memo starts over: a long run visits many states.
_MEMO_LIMIT = 8192


def number(q: Fraction) -> Number:
    return q.numerator if q.denominator == 1 else q


class Shared:
    def __init__(self, problem: Problem) -> None:
        self.devices = problem.devices
        self.views: dict[int, tuple[NodeView, dict[int, PoolView]]] = {}
        self.pools: dict[
            int, tuple[PoolView, tuple[str, ...], frozenset[str], tuple[tuple[int, str], ...]]
        ] = {}
        self.draws_of: dict[int, Draws] = {}
        self.rooms: dict[tuple[int, tuple[int, ...]], tuple[PoolView, dict[str, dict[str, Number]], int]] = {}
        self.seeds: dict[tuple[int, tuple[int, ...], str], tuple[PoolView, GroupState]] = {}
        # Numbers standing for what capacity.fit reads of a device (its driver and capacities, in order)
        # and of a request, so that looking an answer up hashes small ints.
        self.ids: dict[Hashable, int] = {}
        self.shapes: dict[int, int] = {}  # device -> its shape's number
        self.fits: dict[tuple[int, int, bool], tuple[dict[str, Fraction] | None, str | None]] = {}

    def ref(self, d: int) -> str:
        return self.devices[d].ref  # made once per device (Device.ref)

    def pool_of(self, view: NodeView) -> dict[int, PoolView]:
        """Device -> its pool, for the devices of the node's view."""
        hit = self.views.get(id(view))
        if hit is None or hit[0] is not view:
            hit = (view, {d: pv for pv in view.pools for d in pv.devices})
            self.views[id(view)] = hit
        return hit[1]

    def _pool(
        self, pool: PoolView
    ) -> tuple[PoolView, tuple[str, ...], frozenset[str], tuple[tuple[int, str], ...]]:
        hit = self.pools.get(id(pool))
        if hit is None or hit[0] is not pool:
            ref = self.ref
            counting = tuple((d, ref(d)) for d in pool.counter_devices)
            hit = (pool, tuple(ref(d) for d in pool.devices), frozenset(r for _, r in counting), counting)
            self.pools[id(pool)] = hit
        return hit

    def device_refs(self, pool: PoolView) -> tuple[str, ...]:
        """The refs of the pool's devices, in its order."""
        return self._pool(pool)[1]

    def allocated(self, pool: PoolView, in_use: InUse) -> tuple[int, ...]:
        """The pool's counter-drawing devices that are allocated (each counted once, shares or not)."""
        _, _, refs, counting = self._pool(pool)
        hits = refs & in_use.exclusive
        if in_use.shared:
            hits |= refs & in_use.shared
        if in_use.shared_capacity:
            hits |= refs.intersection(in_use.shared_capacity)
        return tuple(d for d, ref in counting if ref in hits) if hits else ()

    def draws(self, d: int) -> Draws:
        found = self.draws_of.get(d)
        if found is None:
            found = tuple(
                (use.counter_set, tuple((c, number(v)) for c, v in use.counters.items()))
                for use in self.devices[d].consumes
            )
            self.draws_of[d] = found
        return found

    def room(self, pool: PoolView, allocated: tuple[int, ...]) -> tuple[dict[str, dict[str, Number]], int]:
        """What the pool's counters have left with `allocated` drawing on them, and how many of them are
        below zero already. Shared: never to be changed."""
        key = (id(pool), allocated)
        hit = self.rooms.get(key)
        if hit is None or hit[0] is not pool:
            left = {
                name: {c: number(v) for c, v in counters.items()}
                for name, counters in pool.counter_sets.items()
            }
            for d in allocated:
                for name, draws in self.draws(d):
                    counters = left.get(name)
                    if counters is None:
                        continue
                    for counter, value in draws:
                        if counter in counters:
                            counters[counter] -= value
            below = sum(1 for counters in left.values() for value in counters.values() if value < 0)
            if len(self.rooms) >= _MEMO_LIMIT:
                self.rooms.clear()
            hit = self.rooms[key] = (pool, left, below)
        return hit[1], hit[2]

    def seed(self, pool: PoolView, allocated: tuple[int, ...], counter_set: str) -> GroupState:
        """A counter set's compatibility-group state with the allocated devices folded in, in pool order."""
        key = (id(pool), allocated, counter_set)
        hit = self.seeds.get(key)
        if hit is None or hit[0] is not pool:
            state: GroupState = (False, False, frozenset())
            for d in allocated:
                for use in self.devices[d].consumes:
                    if use.counter_set == counter_set:
                        state = fold(state, frozenset(use.groups))
            if len(self.seeds) >= _MEMO_LIMIT:
                self.seeds.clear()
            hit = self.seeds[key] = (pool, state)
        return hit[1]

    def _id(self, what: Hashable) -> int:
        return self.ids.setdefault(what, len(self.ids))

    def requests_id(self, requests: Mapping[str, Fraction] | None) -> int:
        """The number standing for a request's capacity requests (for `fit_alone`)."""
        return self._id(("requests", tuple(requests.items()) if requests is not None else None))

    def fit_alone(
        self, device: Device, requests: Mapping[str, Fraction] | None, key: int, fractional: bool
    ) -> tuple[dict[str, Fraction] | None, str | None]:
        """capacity.fit with no other share of the device counted: (what it consumes or None, the
        CapacityError's message or None). `key` is `requests_id(requests)`. The map is shared: never
        changed."""
        shape = self.shapes.get(device.id)
        if shape is None:
            shape = self.shapes[device.id] = self._id(
                ("device", device.driver, tuple(device.capacity.items()))
            )
        memo = (shape, key, fractional)
        hit = self.fits.get(memo)
        if hit is None:
            try:
                hit = (fit(device, requests, {}, {}, fractional), None)
            except CapacityError as e:
                hit = (None, str(e))
            self.fits[memo] = hit
        return hit


def fold(state: GroupState, groups: frozenset[str]) -> GroupState:
    """The state after a device with `groups` joins (seeding from allocated peers folds them in order)."""
    has_members, all_empty, common = state
    if not has_members:
        return (True, not groups, groups)
    if all_empty or not groups:
        return state
    return (True, False, common & groups)


_SHARED: dict[int, tuple[weakref.ref[Problem], Shared]] = {}


def shared(problem: Problem) -> Shared:
    """The problem's shared facts (made on first use)."""
    key = id(problem)
    hit = _SHARED.get(key)
    if hit is None or hit[0]() is not problem:
        hit = (weakref.ref(problem), Shared(problem))
        _SHARED[key] = hit
        weakref.finalize(problem, _SHARED.pop, key, None)
    return hit[1]
