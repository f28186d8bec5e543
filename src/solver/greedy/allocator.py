"""The structured allocator's search for one node, reproduced exactly.

Claims in order, requests in order, a firstAvailable request's subrequests in
order, devices in first-fit order as combinations (the k-th device of a request
is only sought after the (k-1)-th); every tentative choice reserves counters,
capacity, compatibility-group narrowing and constraint state, and gives all of it
back exactly when the search backtracks. The first complete solution wins.
Errors carry the allocator's own wording so a Kubernetes user recognises them.

What every search on the same Problem would work out again (device refs, what a
pool's counters have left for a given set of allocated devices, capacity fits of
unshared devices) comes from `solver.dra.shared`, and the checks before the search from its
`AllocatorView`; a counter check looks only at the counters
the device draws on, keeping count of how many of the pool's are exceeded.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ...model.problem import Claim, Device, InUse, NodeView, PoolView, Problem, Slot, SlotKey
from ...model.solution import ClaimAllocation, DeviceResult
from ..attributes import DistinctState, MatchState
from ..capacity import as_published
from ..dra import AllocationError, AllocatorView, BudgetExceeded, SlotData, admits
from ..dra.shared import Number, fold


class _TooLarge(Exception):
    """Allocation results would exceed the per-claim limit (lets firstAvailable try a smaller alternative)."""


@dataclass
class _Found:
    device: int
    slot: SlotData
    shared: bool
    consumed: dict[str, Fraction] | None


Undo = Callable[[], None]


class NodeAllocator(AllocatorView):
    """One Allocate(node, claims) call: the first-fit search over the allocator's view of it."""

    def __init__(
        self,
        problem: Problem,
        view: NodeView,
        claims: Sequence[Claim],
        in_use: InUse,
        step_limit: int | None = None,
        device_limit: int | None = None,
        deadline: float | None = None,
    ) -> None:
        super().__init__(problem, view, claims, in_use)
        self.step_limit = step_limit
        self.steps = 0
        self.device_limit = device_limit
        self.tried = 0
        self.deadline = deadline
        self.open: dict[tuple[SlotKey, int], list[int]] = {}  # (slot, pool) -> positions not ruled out
        # By the pool view's id (the view holds its pools for as long as the search runs):
        self.rooms: dict[int, dict[str, dict[str, Number]]] = {}  # its counters left (shared)
        self.over: dict[int, int] = {}  # its counters that what is allocated and chosen exceeds
        self.consumed_counters: dict[int, dict[str, dict[str, Number]]] = {}  # set -> counter -> drawn
        self.chosen: dict[tuple[int, int], int] = {}
        self.results: list[list[_Found]] = [[] for _ in self.claims]
        self.allocating: dict[str, set[int]] = {}  # device ref -> claim positions using it exclusively
        self.allocating_shares: dict[str, int] = {}

    # --- in use ---------------------------------------------------------------------------------------

    def in_use_by_any(self, ref: str) -> bool:
        return ref in self.in_use.exclusive or bool(self.allocating.get(ref))

    def capacity_in_use(self, ref: str) -> bool:
        return ref in self.in_use.shared_capacity or ref in self.allocating_capacity

    # --- counters -------------------------------------------------------------------------------------

    def room(self, pool: PoolView) -> dict[str, dict[str, Number]]:
        """`available` as the search compares it (shared, never changed); `over` starts counting the
        counters already exceeded."""
        found = self.rooms.get(id(pool))
        if found is None:
            found, self.over[id(pool)] = self.shared.room(pool, self.allocated_in(pool))
            self.rooms[id(pool)] = found
        return found

    def take_counters(self, device: Device, sign: int) -> None:
        """Adds (or gives back) what the device draws; `over` follows how many of the pool's counters the
        chosen devices exceed, so that a check looks only at the counters the device changes."""
        pool = self.pool_of[device.id]
        left = self.room(pool)
        consumed = self.consumed_counters.setdefault(id(pool), {})
        over = self.over[id(pool)]
        for name, draws in self.shared.draws(device.id):
            counters = consumed.setdefault(name, {})
            limits = left.get(name)
            for counter, value in draws:
                old = counters.get(counter, 0)
                new = old + value if sign > 0 else old - value
                counters[counter] = new
                limit = limits.get(counter) if limits is not None else None
                if limit is not None:
                    over += (limit < new) - (limit < old)
        self.over[id(pool)] = over

    def counters_fit(self, device: Device) -> bool:
        """Every counter of the device's pool covers what is allocated and chosen, the device included."""
        self.take_counters(device, +1)
        if self.over[id(self.pool_of[device.id])]:
            self.take_counters(device, -1)
            return False
        return True

    # --- compatibility groups -------------------------------------------------------------------------

    def take_groups(self, device: Device) -> Undo | None:
        """Narrow every counter set's group intersection for the device, or None if one refuses it."""
        pool = self.pool_of[device.id]
        saved: list[tuple[tuple[str, str], tuple[bool, bool, frozenset[str]]]] = []
        for use in device.consumes:
            state = self.group_state(pool, use.counter_set)
            groups = frozenset(use.groups)
            if not admits(state, groups):
                for key, old in saved:
                    self.groups[key] = old
                return None
            key = (pool.ref, use.counter_set)
            saved.append((key, state))
            self.groups[key] = fold(state, groups)

        def undo() -> None:
            for key, old in saved:
                self.groups[key] = old

        return undo

    # --- one device -------------------------------------------------------------------------------------

    def allocate_device(self, ci: int, data: SlotData, d: int, must: bool) -> Undo | None:
        claim = self.claims[ci]
        slot = data.slot
        device = self.devices[d]
        ref = self.ref(d)
        multi = self.multi(device)
        admin = bool(slot.admin_access)
        if not multi and admin and ci in self.allocating.get(ref, ()):
            return None
        if not admin and self.in_use_by_any(ref):
            return None
        if not multi and not admin and ref in self.in_use.shared:
            return None  # a live share keeps a device from being handed out exclusively
        if not self.on("PartitionableDevices") and device.consumes:
            return None
        skip_counters = multi and self.capacity_in_use(ref)
        undo_groups: Undo | None = None
        counted = False
        if not skip_counters and device.consumes:
            if not self.counters_fit(device):
                return None
            counted = True
            if self.on("CompatibilityGroups"):
                undo_groups = self.take_groups(device)
                if undo_groups is None:
                    self.take_counters(device, -1)
                    return None
            elif self.peers_grouped(device):
                self.take_counters(device, -1)
                return None

        def release() -> None:
            if undo_groups is not None:
                undo_groups()
            if counted:
                self.take_counters(device, -1)

        if self.on("DeviceTaints") and _taint_blocks(device, slot):
            release()
            return None
        states = self.match[ci]
        added: list[MatchState | DistinctState] = []
        for i, constraint in enumerate(claim.constraints):
            if not constraint.applies_to(slot):
                continue
            if not states[i].add(self.attribute(data, device, constraint.attribute)):
                for state in added:
                    state.remove()
                release()
                if must:
                    raise AllocationError(
                        f"claim {claim.ref}, request {slot.name}: cannot add device {ref} because "
                        "a claim constraint would not be satisfied"
                    )
                return None
            added.append(states[i])
        consumed = None
        if self.on("ConsumableCapacity"):
            consumed = self.capacity_fit(data.key, d, claim)
            if consumed is None:
                for state in added:
                    state.remove()
                release()
                return None
        if not multi:
            self.allocating.setdefault(ref, set()).add(ci)
        else:
            # Shares are counted, not inferred from their sums: a device publishing no capacity
            # still has a share open (and its counters charged) until the last share is undone.
            self.allocating_shares[ref] = self.allocating_shares.get(ref, 0) + 1
            sums = self.allocating_capacity.setdefault(ref, {})
            for name, value in (consumed or {}).items():
                sums[name] = sums.get(name, Fraction(0)) + value
        self.results[ci].append(_Found(d, data, multi, consumed if multi else None))

        def undo() -> None:
            self.results[ci].pop()
            if not multi:
                self.allocating[ref].discard(ci)
            else:
                sums = self.allocating_capacity[ref]
                for name, value in (consumed or {}).items():
                    sums[name] -= value
                self.allocating_shares[ref] -= 1
                if not self.allocating_shares[ref]:
                    del self.allocating_shares[ref]
                    del self.allocating_capacity[ref]
            for state in added:
                state.remove()
            release()

        return undo

    # --- the search ------------------------------------------------------------------------------------

    def step(self) -> None:
        self.steps += 1
        if self.step_limit is not None and self.steps > self.step_limit:
            raise BudgetExceeded()
        # The clock now and then here too: a search whose steps try few devices each (capacity to
        # share, backtracking over claims) would otherwise never reach _count's reading of it.
        if self.deadline is not None and not self.steps & 1023 and time.monotonic() > self.deadline:
            raise BudgetExceeded()

    def allocate_one(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: tuple[int, int]) -> bool:
        self.step()
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.requests):
            try:
                return self.allocate_one(ci + 1, 0, 0, 0, False, (0, 0))
            except _TooLarge:
                return False
        request = claim.requests[ri]
        if request.first_available and not in_sub:
            all_too_large = True
            for sub in range(len(request.slots)):
                try:
                    ok = self.allocate_one(ci, ri, sub, 0, True, (0, 0))
                except _TooLarge:
                    continue
                all_too_large = False
                if ok:
                    self.chosen[(ci, ri)] = sub
                    return True
            if all_too_large:
                raise _TooLarge()
            return False
        data = self.slots[(claim.id, ri, si)]
        if data.slot.mode == "All" and not data.all_devices:
            return False
        if di >= data.count:
            return self.allocate_one(ci, ri + 1, 0, 0, False, (0, 0))
        if len(self.results[ci]) + data.count - di > self.p.max_results:
            raise _TooLarge()
        if data.slot.mode == "All":
            undo = self.allocate_device(ci, data, data.all_devices[di], True)
            if undo is None:
                return False
            try:
                if self.allocate_one(ci, ri, si, di + 1, in_sub, (0, 0)):
                    return True
            except BaseException:
                undo()
                raise
            undo()
            return False
        return self.search(ci, ri, si, di, in_sub, start, data)

    def search(
        self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: tuple[int, int], data: SlotData
    ) -> bool:
        admin = bool(data.slot.admin_access)
        pools = self.view.pools
        claim = self.claims[ci]
        key = data.key
        exclusive = self.in_use.exclusive
        allocating = self.allocating
        # The slot's column, read here for the devices it decides plainly (`selectable` does the rest).
        column = self.column(key) if self.bindable and not self.view.unreachable else None
        for pi in range(start[0], len(pools)):
            pool = pools[pi]
            if pool.state != "complete":
                continue
            first = start[1] if pi == start[0] else 0
            pool_refs = self.shared.device_refs(pool)
            for index in self._scan(key, pi, pool, first, column):
                d = pool.devices[index]
                ref = pool_refs[index]
                if admin:
                    if ci in allocating.get(ref, ()):
                        continue
                elif ref in exclusive or allocating.get(ref):
                    continue
                if column is not None:
                    outcome = column.get(d, False)
                    if outcome is not True and not self.selectable(key, d):  # an error: raised there
                        continue
                elif not self.selectable(key, d):
                    continue
                if self.consumable and self.capacity_fit(key, d, claim) is None:
                    continue
                undo = self.allocate_device(ci, data, d, False)
                if undo is None:
                    continue
                try:
                    done = self.allocate_one(ci, ri, si, di + 1, in_sub, (pi, index + 1))
                except BaseException:
                    undo()
                    raise
                if done:
                    return True
                undo()
        return False

    def _scan(
        self, key: SlotKey, pi: int, pool: PoolView, first: int, column: Mapping[int, object] | None
    ) -> Iterator[int]:
        """The positions of the pool's devices from `first` on that the search looks at: those the
        slot's column does not rule out (all of them without one). Every device passed counts as
        tried, as if looked at: a budget runs out where it would."""
        if column is None:
            positions: Sequence[int] = range(first, len(pool.devices))
        else:
            found = self.open.get((key, pi))
            if found is None:
                # Most devices of a node are not of the slot's class: a node's search looks at each of
                # them once per device picked before.
                get = column.get
                found = [i for i, d in enumerate(pool.devices) if get(d, False) is not False]
                self.open[(key, pi)] = found
            positions = found[bisect_left(found, first) :]
        passed = first
        for index in positions:
            self._count(index + 1 - passed)
            passed = index + 1
            yield index
        self._count(len(pool.devices) - passed)

    def _count(self, tried: int) -> None:
        before = self.tried
        self.tried = before + tried
        if self.device_limit is not None and self.tried > self.device_limit:
            raise BudgetExceeded()
        # The clock is read now and then only: a step can scan thousands of devices.
        deadline = self.deadline
        if deadline is not None and before >> 10 != self.tried >> 10 and time.monotonic() > deadline:
            raise BudgetExceeded()

    def run(self) -> bool:
        """Search for an allocation; raises AllocationError or BudgetExceeded."""
        self.check()
        try:
            done = self.allocate_one(0, 0, 0, 0, False, (0, 0))
        except _TooLarge:
            raise AllocationError("allocation max size exceeded") from None
        if not done and any(pool.state == "invalid" for pool in self.view.pools):
            raise AllocationError("invalid resource pools were encountered", per_node=True)
        return done

    def taken(self) -> list[tuple[Device, bool, bool, dict[str, Fraction] | None]]:
        """(device, admin, shared, consumed by fully-qualified name) for every device of the solution."""
        return [
            (self.devices[f.device], bool(f.slot.slot.admin_access), f.shared, f.consumed)
            for results in self.results
            for f in results
        ]

    def allocations(self) -> list[ClaimAllocation]:
        out = []
        for ci, claim in enumerate(self.claims):
            results = []
            for found in self.results[ci]:
                device = self.devices[found.device]
                consumed = as_published(device, found.consumed) if found.shared and found.consumed else None
                results.append(
                    DeviceResult(
                        found.slot.key,
                        found.slot.slot.result_name,
                        found.device,
                        bool(found.slot.slot.admin_access),
                        found.shared,
                        consumed or None,
                    )
                )
            chosen = {ri: sub for (c, ri), sub in self.chosen.items() if c == ci}
            out.append(ClaimAllocation(claim.id, self.view.node, tuple(results), chosen))
        return out


def _taint_blocks(device: Device, slot: Slot) -> bool:
    for taint in device.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(
            t.tolerates(taint) for t in slot.tolerations
        ):
            return True
    return False
