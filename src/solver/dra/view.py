"""What the structured allocator works out for one Allocate(node, claims) call before and beside its
search: the checks it makes before searching (with its errors, in its order), each slot's frozen
device list, which devices a slot may select, capacity fits, derived attributes, and what a pool's
counters and compatibility groups allow given what is allocated already.

Every engine reads the same view, so all of them stop with the same errors and start from the same
candidates: greedy's search extends it (`solver.greedy.allocator`), cpsat and asp turn it into
constraints and facts, explain and pools read it to word their answers.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from ..attributes import DistinctState, MatchState
from ..capacity import CapacityError, fit
from .errors import AllocationError
from .shared import GroupState, shared


@dataclass
class SlotData:
    key: SlotKey
    slot: Slot
    count: int
    all_devices: list[int] = field(default_factory=list)


class AllocatorView:
    """One Allocate(node, claims) call, as far as it is the same for every search."""

    def __init__(self, problem: Problem, view: NodeView, claims: Sequence[Claim], in_use: InUse) -> None:
        self.p = problem
        self.view = view
        self.claims = list(claims)
        self.in_use = in_use
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
        self.request_keys: dict[SlotKey, int] = {}
        # By the pool view's id (the view holds its pools for as long as the search runs):
        self.allocated: dict[int, tuple[int, ...]] = {}  # its allocated counter-drawing devices
        self.slots: dict[SlotKey, SlotData] = {}
        # Shares a search has handed out in this call so far (device ref -> capacity name -> consumed):
        # capacity fits count them; only greedy's search fills it.
        self.allocating_capacity: dict[str, dict[str, Fraction]] = {}
        self.available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.groups: dict[tuple[str, str], GroupState] = {}
        self.match: list[list[MatchState | DistinctState]] = []

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

    def validate_slot(self, claim: Claim, key: SlotKey, slot: Slot) -> SlotData:
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
            return SlotData(key, slot, slot.count)
        if slot.mode != "All":
            raise AllocationError(f"{who}: unsupported count mode {slot.mode}")
        data = SlotData(key, slot, 0)
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

    def attribute(self, data: SlotData, device: Device, name: str) -> AttrValue | None:
        for derived in data.slot.derived:
            if derived.name == name:
                value = self.p.derived.get((data.key, device.id, name))
                if isinstance(value, str):
                    raise AllocationError(value)
                return value
        return device.lookup_attribute(name)

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

    def group_state(self, pool: PoolView, counter_set: str) -> GroupState:
        key = (pool.ref, counter_set)
        if key not in self.groups:
            self.groups[key] = self.shared.seed(pool, self.allocated_in(pool), counter_set)
        return self.groups[key]

    def peers_grouped(self, device: Device) -> bool:
        """With the feature off, a device may not join a counter set whose allocated peer declared groups."""
        pool = self.pool_of[device.id]
        sets = {use.counter_set for use in device.consumes}
        for d in self.allocated_in(pool):
            if any(u.groups and u.counter_set in sets for u in self.devices[d].consumes):
                return True
        return False

    def check(self) -> None:
        """Everything the allocator checks before it searches, with its errors (other engines reuse it)."""
        if self.view.error:
            raise AllocationError(f"gather pool information: {self.view.error}")
        self.prepare()


def admits(state: GroupState, groups: frozenset[str]) -> bool:
    """Whether a counter set's group state (has members, all group-less, common groups) takes a device."""
    has_members, all_empty, common = state
    if not has_members:
        return True
    if not groups:
        return all_empty
    if all_empty:
        return False
    return bool(common & groups)
