"""The structured allocator's search for one node, reproduced exactly.

Claims in order, requests in order, a firstAvailable request's subrequests in
order, devices in first-fit order as combinations (the k-th device of a request
is only sought after the (k-1)-th); every tentative choice reserves counters,
capacity, compatibility-group narrowing and constraint state, and gives all of it
back exactly when the search backtracks. The first complete solution wins.
Errors carry the allocator's own wording so a Kubernetes user recognises them.

What every search on the same Problem would work out again (device refs, what a
pool's counters have left for a given set of allocated devices, capacity fits of
unshared devices) comes from `shared`; a counter check looks only at the counters
the device draws on, keeping count of how many of the pool's are exceeded.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ...model.problem import (
    AttrValue,
    Claim,
    Device,
    InUse,
    NodeView,
    PoolView,
    Problem,
    SelectableTable,
    Slot,
    SlotKey,
)
from ...model.solution import ClaimAllocation, DeviceResult
from ..attributes import DistinctState, MatchState
from ..capacity import CapacityError, as_published, fit
from .shared import Number, fold, shared


class AllocationError(Exception):
    """The allocator stops with an error (not merely "does not fit")."""

    def __init__(self, message: str, per_node: bool = False) -> None:
        super().__init__(message)
        self.per_node = per_node  # only this node fails (ErrFailedAllocationOnNode): the others are tried


class BudgetExceeded(Exception):
    pass


class _TooLarge(Exception):
    """Allocation results would exceed the per-claim limit (lets firstAvailable try a smaller alternative)."""


@dataclass
class _SlotData:
    key: SlotKey
    slot: Slot
    count: int
    all_devices: list[int] = field(default_factory=list)


@dataclass
class _Found:
    device: int
    slot: _SlotData
    shared: bool
    consumed: dict[str, Fraction] | None


Undo = Callable[[], None]


class NodeAllocator:
    """One Allocate(node, claims) call."""

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
        self.p = problem
        self.view = view
        self.claims = list(claims)
        self.in_use = in_use
        self.step_limit = step_limit
        self.steps = 0
        self.device_limit = device_limit
        self.tried = 0
        self.deadline = deadline
        self.on = problem.features.__contains__
        self.devices = problem.devices
        self.shared = shared(problem)
        self.ref = self.shared.ref
        self.pool_of: dict[int, PoolView] = self.shared.pool_of(view)
        self.consumable = self.on("ConsumableCapacity")
        self.fractional = self.on("FractionalCapacityRange")
        self.bindable = self.on("DeviceBindingAndStatus")
        self.table = problem.selectable if isinstance(problem.selectable, SelectableTable) else None
        self.columns: dict[SlotKey, dict[int, bool | str | tuple[str]] | None] = {}
        self.open: dict[tuple[SlotKey, int], list[int]] = {}  # (slot, pool) -> positions not ruled out
        self.request_keys: dict[SlotKey, int] = {}
        # By the pool view's id (the view holds its pools for as long as the search runs):
        self.allocated: dict[int, tuple[int, ...]] = {}  # its allocated counter-drawing devices
        self.rooms: dict[int, dict[str, dict[str, Number]]] = {}  # its counters left (shared)
        self.over: dict[int, int] = {}  # its counters that what is allocated and chosen exceeds
        self.consumed_counters: dict[int, dict[str, dict[str, Number]]] = {}  # set -> counter -> drawn
        self.slots: dict[SlotKey, _SlotData] = {}
        self.chosen: dict[tuple[int, int], int] = {}
        self.results: list[list[_Found]] = [[] for _ in self.claims]
        self.allocating: dict[str, set[int]] = {}  # device ref -> claim positions using it exclusively
        self.allocating_capacity: dict[str, dict[str, Fraction]] = {}
        self.allocating_shares: dict[str, int] = {}
        self.available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.groups: dict[tuple[str, str], tuple[bool, bool, frozenset[str]]] = {}
        self.match: list[list[MatchState | DistinctState]] = []
        self.share_ids = 0

    # --- validation before the search --------------------------------------------------------------

    def prepare(self) -> None:
        """Check every claim and request as the allocator does before searching (its errors, its order)."""
        lists = self.on("ListTypeAttributes")
        for claim in self.claims:
            minimum = 0
            for ri, request in enumerate(claim.requests):
                if request.first_available and not self.on("PrioritizedList"):
                    raise AllocationError(
                        f"claim {claim.ref}, request {request.name}: has subrequests, but the "
                        "DRAPrioritizedList feature is disabled"
                    )
                if not self.on("ConsumableCapacity"):
                    for slot in request.slots:
                        if slot.capacity_requests is not None:
                            what = f"subrequest {slot.name}" if slot.parent else f"request {slot.name}"
                            raise AllocationError(
                                f"claim {claim.ref}, {what}: has capacity requests, but the "
                                "DRAConsumableCapacity feature is disabled"
                            )
                smallest: int | None = None
                for si, slot in enumerate(request.slots):
                    data = self.validate_slot(claim, (claim.id, ri, si), slot)
                    self.slots[(claim.id, ri, si)] = data
                    smallest = data.count if smallest is None else min(smallest, data.count)
                if (smallest or 0) > self.p.max_results - minimum:
                    raise AllocationError(
                        f"claim {claim.ref}, request {request.name}: number of requested devices "
                        f"{minimum + (smallest or 0)} exceeds the claim limit of {self.p.max_results}"
                    )
                minimum += smallest or 0
            states: list[MatchState | DistinctState] = []
            for i, constraint in enumerate(claim.constraints):
                if constraint.kind == "invalid":
                    raise AllocationError(
                        f"claim {claim.ref}, constraint #{i}: empty constraint (unsupported constraint type?)"
                    )
                states.append(MatchState(lists) if constraint.kind == "match" else DistinctState(lists))
            self.match.append(states)

    def validate_slot(self, claim: Claim, key: SlotKey, slot: Slot) -> _SlotData:
        who = f"claim {claim.ref}, request {slot.name}"
        if slot.selectors_without_cel >= 0:
            raise AllocationError(
                f"{who}, selector #{slot.selectors_without_cel}: CEL expression empty "
                "(unsupported selector type?)"
            )
        if not self.on("AdminAccess") and slot.admin_access is not None:
            raise AllocationError(f"{who}: admin access is requested, but the feature is disabled")
        if not slot.device_class:
            raise AllocationError(f"{who}: missing device class name (unsupported request type?)")
        if not slot.class_exists:
            raise AllocationError(
                f"{who}: could not retrieve device class {slot.device_class}: "
                f'deviceclass.resource.k8s.io "{slot.device_class}" not found'
            )
        if slot.mode == "ExactCount":
            if slot.count > 2**63 - 1:
                raise AllocationError(f"{who}: exact count {slot.count} is too large")
            return _SlotData(key, slot, slot.count)
        if slot.mode != "All":
            raise AllocationError(f"{who}: unsupported count mode {slot.mode}")
        data = _SlotData(key, slot, 0)
        for pool in self.view.pools:
            # Only this node's allocation fails (kubernetes#141898 wraps ErrFailedAllocationOnNode).
            if pool.state == "incomplete":
                raise AllocationError(
                    f"{who}: asks for all devices, but resource pool {pool.ref} is currently being updated",
                    per_node=True,
                )
            if pool.state == "invalid":
                raise AllocationError(
                    f"{who}: asks for all devices, but resource pool {pool.ref} is currently invalid",
                    per_node=True,
                )
            for d in pool.devices:
                if not self.selectable(key, d):
                    continue
                # Only devices that could never take the request are left out; one whose capacity
                # is used up by existing shares stays in the list and makes the request fail (0c8a1b07
                # no longer lets All shrink silently to the devices with room left).
                if self.on("ConsumableCapacity") and self.capacity_fit(key, d, claim, fresh=True) is None:
                    continue
                data.all_devices.append(d)
        data.count = len(data.all_devices)
        return data

    # --- facts ----------------------------------------------------------------------------------------

    def selectable(self, key: SlotKey, d: int) -> bool:
        if not self.bindable and self.devices[d].binding_conditions:
            return False
        outcome = self._outcome(key, d)
        if isinstance(outcome, str):
            raise AllocationError(outcome)
        if not outcome:
            return False
        return d not in self.view.unreachable

    def column(self, key: SlotKey) -> dict[int, bool | str | tuple[str]] | None:
        """The slot's column of a selectability table (None: the problem has none)."""
        if key not in self.columns:
            self.columns[key] = self.table.column_of(key) if self.table is not None else None
        return self.columns[key]

    def _outcome(self, key: SlotKey, d: int) -> bool | str:
        """problem.selectable's outcome for the pair, read straight from the slot's column of a table."""
        if self.table is None:
            return self.p.selectable.get((key, d), False)
        column = self.column(key)
        if column is None:
            return False
        outcome = column.get(d, False)
        # A selector's error is worded with its claim on lookup.
        return self.table[(key, d)] if isinstance(outcome, tuple) else outcome

    def capacity_fit(
        self, key: SlotKey, d: int, claim: Claim, fresh: bool = False
    ) -> dict[str, Fraction] | None:
        device = self.devices[d]
        slot = self.p.slot(key)
        ref = self.ref(d)
        existing = {} if fresh else self.in_use.shared_capacity.get(ref, {})
        allocating = {} if fresh else self.allocating_capacity.get(ref, {})
        if not existing and not allocating:
            # No share to count: the same answer for every search (kept per device and request).
            if key not in self.request_keys:
                requests = slot.capacity_requests
                self.request_keys[key] = self.shared.requests_id(requests)
            consumed, failed = self.shared.fit_alone(
                device, slot.capacity_requests, self.request_keys[key], self.fractional
            )
            if failed is not None:
                raise AllocationError(f"claim {claim.ref}, request {slot.result_name}: {failed}")
            return consumed
        try:
            return fit(device, slot.capacity_requests, existing, allocating, self.fractional)
        except CapacityError as e:
            raise AllocationError(f"claim {claim.ref}, request {slot.result_name}: {e}") from None

    def attribute(self, data: _SlotData, device: Device, name: str) -> AttrValue | None:
        for derived in data.slot.derived:
            if derived.name == name:
                value = self.p.derived.get((data.key, device.id, name))
                if isinstance(value, str):
                    raise AllocationError(value)
                return value
        return device.lookup_attribute(name)

    # --- in use ---------------------------------------------------------------------------------------

    def in_use_by_any(self, ref: str) -> bool:
        return ref in self.in_use.exclusive or bool(self.allocating.get(ref))

    def capacity_in_use(self, ref: str) -> bool:
        return ref in self.in_use.shared_capacity or ref in self.allocating_capacity

    def multi(self, device: Device) -> bool:
        return self.on("ConsumableCapacity") and device.allow_multiple_allocations

    # --- counters -------------------------------------------------------------------------------------

    def allocated_in(self, pool: PoolView) -> tuple[int, ...]:
        """The pool's counter-drawing devices allocated already (in pool order)."""
        found = self.allocated.get(id(pool))
        if found is None:
            found = self.allocated[id(pool)] = self.shared.allocated(pool, self.in_use)
        return found

    def available(self, pool: PoolView) -> dict[str, dict[str, Fraction]]:
        cached = self.available_counters.get(pool.ref)
        if cached is None:
            cached = {name: dict(counters) for name, counters in pool.counter_sets.items()}
            for d in self.allocated_in(pool):
                for use in self.devices[d].consumes:
                    counter_set = cached.get(use.counter_set, {})
                    for counter, value in use.counters.items():
                        if counter in counter_set:
                            counter_set[counter] -= value
            self.available_counters[pool.ref] = cached
        return cached

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

    def group_state(self, pool: PoolView, counter_set: str) -> tuple[bool, bool, frozenset[str]]:
        key = (pool.ref, counter_set)
        if key not in self.groups:
            self.groups[key] = self.shared.seed(pool, self.allocated_in(pool), counter_set)
        return self.groups[key]

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

    def peers_grouped(self, device: Device) -> bool:
        """With the feature off, a device may not join a counter set whose allocated peer declared groups."""
        pool = self.pool_of[device.id]
        sets = {use.counter_set for use in device.consumes}
        for d in self.allocated_in(pool):
            if any(u.groups and u.counter_set in sets for u in self.devices[d].consumes):
                return True
        return False

    # --- one device -------------------------------------------------------------------------------------

    def allocate_device(self, ci: int, data: _SlotData, d: int, must: bool) -> Undo | None:
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
        self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: tuple[int, int], data: _SlotData
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

    def check(self) -> None:
        """Everything the allocator checks before it searches, with its errors (other engines reuse it)."""
        if self.view.error:
            raise AllocationError(f"gather pool information: {self.view.error}")
        self.prepare()

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


def admits(state: tuple[bool, bool, frozenset[str]], groups: frozenset[str]) -> bool:
    """Whether a counter set's group state (has members, all group-less, common groups) takes a device."""
    has_members, all_empty, common = state
    if not has_members:
        return True
    if not groups:
        return all_empty
    if all_empty:
        return False
    return bool(common & groups)


def _taint_blocks(device: Device, slot: Slot) -> bool:
    for taint in device.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(
            t.tolerates(taint) for t in slot.tolerations
        ):
            return True
    return False
