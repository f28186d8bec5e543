"""An engine-independent check that a Solution is consistent with its Problem.

Every engine must obey the same allocator rules, and a slip in one engine's
bookkeeping (counters, capacity, undo on backtracking) only shows up as a wrong
answer. So this module recomputes each rule from the Problem's facts over the
final allocation, never searching and sharing no state code with any engine:
only the common semantics (capacity.py, attributes.py, node_selector.py).

Units are checked in order, as the scheduler allocates them: what an earlier unit
allocated is in use for the later ones, on top of `problem.in_use`. Inside a unit
the claims are taken in the unit's order, because the allocator's in-use rules
depend on it (an admin-access pick blocks later non-admin claims of the same
batch, not earlier ones).

Only what any correct engine must respect is checked, not what first-fit would
have picked: which devices, which firstAvailable alternative and which node were
chosen are free, and so are CEL errors on devices a different search order would
have evaluated (only the errors of chosen devices, and of every candidate of an
All request, are certain). Unallocated units are not second-guessed.

Violation kinds (stable identifiers):
    structure             the Solution does not fit the Problem's shape (units, claims, slots, ids)
    node                  wrong node, a device the node cannot use, a shared claim placed elsewhere
    count                 wrong number of devices for a request (ExactCount / All)
    result-limit          more results than AllocationResultsMaxSize in one claim
    subrequest            firstAvailable choice or result naming is wrong
    selectable            a device the slot's selectors do not accept (or the slot is unusable)
    admin-access          the result's adminAccess flag, or an admin device reused within its claim
    exclusive             a device given twice, or one that is already in use
    taint                 an untolerated NoSchedule / NoExecute taint
    counters              a pool's shared counters overdrawn, or counters without the feature
    compatibility-groups  devices on one counter set without a common compatibility group
    capacity              consumable capacity: share flags, consumed amounts, policy, totals
    constraint            matchAttribute / distinctAttribute not satisfied
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ..model.claim_holds import release_evicted
from ..model.node_selector import SelectorError, creation_error, for_allocation, terms_match
from ..model.problem import (
    AttrValue,
    Claim,
    Device,
    NodeView,
    PoolView,
    Problem,
    Selectable,
    Slot,
    SlotKey,
    Unit,
)
from ..model.solution import ClaimAllocation, DeviceResult, Solution, Status, UnitOutcome
from .attributes import ValueSet, as_set, intersect, scalar_distinct, scalar_equal
from .capacity import CapacityError, consumed_amount, device_capacity, fit, resolve_requests, violates
from .claim_use import status_problem

__all__ = ["Violation", "validate"]


@dataclass(frozen=True)
class Violation:
    unit: int
    claim: int | None
    kind: str
    message: str

    def __str__(self) -> str:
        return f"unit {self.unit}: {self.kind}: {self.message}"


def validate(problem: Problem, solution: Solution) -> list[Violation]:
    """Every way `solution` breaks the allocator's rules for `problem`; empty when it is consistent."""
    return _Validator(problem).run(solution)


@dataclass
class _Held:
    """What is in use before the unit being checked (existing allocations plus earlier units)."""

    exclusive: set[str]
    shared: set[str]  # devices with a live share
    capacity: dict[str, dict[str, Fraction]]  # device -> fully-qualified capacity name -> consumed
    allocations: dict[int, ClaimAllocation] = field(default_factory=dict)

    def allocated(self, ref: str) -> bool:
        return ref in self.exclusive or ref in self.shared or ref in self.capacity

    def has_shares(self, ref: str) -> bool:
        return ref in self.shared or ref in self.capacity


@dataclass
class _Pick:
    """One result of the unit, with the facts the checks need."""

    order: int  # position of its claim among the unit's pending claims
    claim: Claim
    result: DeviceResult
    slot: Slot
    device: Device
    multi: bool  # a share of a multi-allocatable device
    consumed: dict[str, Fraction] | None = None  # by fully-qualified name, once computed

    @property
    def admin(self) -> bool:
        return bool(self.slot.admin_access)


class _Validator:
    def __init__(self, problem: Problem) -> None:
        self.p = problem
        held = problem.in_use
        self.held = _Held(
            set(held.exclusive), set(held.shared), {k: dict(v) for k, v in held.shared_capacity.items()}
        )
        self.out: list[Violation] = []
        self.unit = 0
        self.fractional = problem.on("FractionalCapacityRange")
        self.cc = problem.on("ConsumableCapacity")
        # Pools' counters left, and device -> the tallies it draws on (Validator.left).
        self._left: dict[tuple[str, tuple[int, ...]], dict[str, dict[str, Fraction]]] = {}
        self._drawn_from: dict[int, list[dict[str, dict[str, Fraction]]]] = {}

    def flag(self, claim: int | None, kind: str, message: str) -> None:
        self.out.append(Violation(self.unit, claim, kind, message))

    def fail(self, claim: Claim, kind: str, text: str, request: str = "") -> None:
        """A violation of one claim (or of one of its requests)."""
        where = f"claim {claim.ref}, request {request}" if request else f"claim {claim.ref}"
        self.flag(claim.id, kind, f"{where}: {text}")

    def bad(self, pick: _Pick, kind: str, text: str) -> None:
        """A violation of one result: `text` continues "claim c, request r: device d/p/n"."""
        self.fail(pick.claim, kind, f"device {pick.device.ref} {text}", pick.slot.result_name)

    def run(self, solution: Solution) -> list[Violation]:
        # Pods preempted to make room free the claims nothing reserves any more.
        gone = {e.victim.key: e.victim.claims for e in solution.evictions}
        release_evicted(self.p.holds, gone, self.held.exclusive, self.held.shared, self.held.capacity)
        seen: set[int] = set()
        last = -1  # the highest unit answered so far (units are answered in order)
        for outcome in solution.units:
            self.unit = outcome.unit
            if not 0 <= outcome.unit < len(self.p.units):
                self.flag(
                    None, "structure", f"the solution answers unit {outcome.unit}, which does not exist"
                )
            elif outcome.unit in seen:
                self.flag(None, "structure", f"unit {outcome.unit} is answered twice")
            else:
                if outcome.unit < last:
                    self.flag(None, "structure", f"unit {outcome.unit} is answered after unit {last}")
                last = max(last, outcome.unit)
                seen.add(outcome.unit)
                self.check_unit(self.p.units[outcome.unit], outcome)
        for unit in self.p.units:
            if unit.id not in seen:
                self.unit = unit.id
                self.flag(None, "structure", f"unit {unit.name} has no outcome in the solution")
        return self.out

    # --- one unit -------------------------------------------------------------------------------------

    def check_unit(self, unit: Unit, outcome: UnitOutcome) -> None:
        if outcome.status != Status.ALLOCATED:
            if outcome.allocations:
                self.flag(None, "structure", f"unit {unit.name} is {outcome.status} but carries allocations")
            return
        if unit.error:
            self.flag(
                None, "structure", f"unit {unit.name} cannot be scheduled ({unit.error}), yet is allocated"
            )
        claims = self.p.claims
        pending = [
            c
            for c in dict.fromkeys(unit.claims)
            if not claims[c].allocated and c not in self.held.allocations
        ]
        node = outcome.node
        if node not in unit.nodes:
            why = f" ({unit.excluded[node]})" if node in unit.excluded else ""
            self.flag(None, "node", f"unit {unit.name} is placed on node {node!r}{why}, not one it may use")
        allocations: dict[int, ClaimAllocation] = {}
        for allocation in outcome.allocations:
            c = allocation.claim
            ref = claims[c].ref if 0 <= c < len(claims) else f"#{c}"
            if c not in pending:
                self.flag(None, "structure", f"claim {ref} is not a pending claim of unit {unit.name}")
            elif c in allocations:
                self.flag(c, "structure", f"claim {ref} is allocated twice")
            else:
                allocations[c] = allocation
            if allocation.node != node:
                self.flag(
                    c, "node", f"claim {ref} is allocated on node {allocation.node!r}, its unit on {node!r}"
                )
        for c in pending:
            if c not in allocations:
                self.fail(claims[c], "structure", "a claim of the allocated unit has no allocation")
        self.check_placement(unit, node)
        view = self.p.views.get(node)
        if view is None:
            if pending:
                self.flag(None, "node", f"the problem has no view of node {node!r}")
            self.held.allocations.update(allocations)
            return
        if view.error and pending:
            self.flag(None, "node", f"node {node}: gather pool information: {view.error}")
        picks: list[_Pick] = []
        for order, c in enumerate(pending):
            if c in allocations:
                picks += self.check_claim(order, claims[c], allocations[c], view)
        self.check_in_use(picks)
        self.check_counters(picks, view)
        self.check_capacity_totals(picks)
        self.commit(picks, allocations)

    def check_placement(self, unit: Unit, node: str) -> None:
        """A claim the unit shares that is allocated already pins the unit to where that allocation works."""
        labels = self.p.nodes[node].labels if node in self.p.nodes else {}
        for c in unit.claims:
            claim, earlier = self.p.claims[c], self.held.allocations.get(c)
            if claim.allocated:
                selector = claim.allocated_selector
            elif earlier is not None:
                try:
                    selector = for_allocation(
                        [self.p.devices[r.device] for r in earlier.results], earlier.node
                    )
                except (SelectorError, IndexError):
                    continue  # already reported for the unit that allocated it
            else:
                continue
            if selector is not None and not terms_match(selector, node, labels):
                self.fail(claim, "node", f"allocated for another node, so the unit cannot go to node {node}")
            elif claim.allocated:
                # Timeouts depend on the scheduler's bindingTimeout, which a Solution does not carry.
                why = status_problem(self.p, claim, node, math.inf)
                if why:
                    self.fail(claim, "node", f"{why}, so the unit cannot go to node {node}")

    def commit(self, picks: Sequence[_Pick], allocations: Mapping[int, ClaimAllocation]) -> None:
        for pick in picks:
            if pick.admin:
                continue  # admin-access results block nobody in later units (the scheduler ignores them)
            ref = pick.device.ref
            newly = not self.held.allocated(ref)
            if pick.multi:
                self.held.shared.add(ref)
                sums = self.held.capacity.setdefault(ref, {})
                for name, value in (pick.consumed or {}).items():
                    sums[name] = sums.get(name, Fraction(0)) + value
            else:
                self.held.exclusive.add(ref)
            if newly:
                for left in self._drawn_from.get(pick.device.id, ()):
                    _add(left, pick.device, -1)
        self.held.allocations.update(allocations)

    # --- one claim ------------------------------------------------------------------------------------

    def check_claim(
        self, order: int, claim: Claim, allocation: ClaimAllocation, view: NodeView
    ) -> list[_Pick]:
        all_lists = self.check_claim_spec(claim, view)
        chosen = self.check_chosen(claim, allocation)
        if len(allocation.results) > self.p.max_results:
            limit = self.p.max_results
            self.fail(
                claim, "result-limit", f"{len(allocation.results)} results exceed the claim limit of {limit}"
            )
        picks: list[_Pick] = []
        by_slot: dict[SlotKey, list[int]] = {}
        for result in allocation.results:
            pick = self.pick_of(order, claim, result, chosen)
            if pick is not None:
                self.check_device(pick, view)
                self.check_share(pick)
                picks.append(pick)
                by_slot.setdefault(result.slot, []).append(result.device)
        error = creation_error(claim.name, [p.device for p in picks], view.node)
        if error is not None:
            self.fail(claim, "node", error)
        for ri, si in chosen.items():
            key = (claim.id, ri, si)
            self.check_count(claim, key, by_slot.get(key, []), all_lists, view)
        self.check_constraints(claim, picks)
        return picks

    def check_claim_spec(self, claim: Claim, view: NodeView) -> dict[SlotKey, list[int] | None]:
        """What the allocator refuses before searching (it errors, so nothing may be allocated);
        returns the frozen device list of every All-mode slot."""
        all_lists: dict[SlotKey, list[int] | None] = {}
        for ri, request in enumerate(claim.requests):
            if request.first_available and not self.p.on("PrioritizedList"):
                text = "has subrequests, but the DRAPrioritizedList feature is disabled"
                self.fail(claim, "subrequest", text, request.name)
            for si, slot in enumerate(request.slots):
                name = slot.result_name
                if slot.capacity_requests is not None and not self.cc:
                    text = "has capacity requests, but the DRAConsumableCapacity feature is disabled"
                    self.fail(claim, "capacity", text, name)
                if slot.selectors_without_cel >= 0:
                    self.fail(
                        claim,
                        "selectable",
                        f"selector #{slot.selectors_without_cel}: no CEL expression",
                        name,
                    )
                elif slot.admin_access is not None and not self.p.on("AdminAccess"):
                    self.fail(
                        claim, "admin-access", "admin access is requested, but the feature is disabled", name
                    )
                elif not slot.device_class or not slot.class_exists:
                    self.fail(claim, "selectable", f"device class {slot.device_class!r} does not exist", name)
                elif slot.mode == "All":
                    all_lists[(claim.id, ri, si)] = self.all_devices(claim, (claim.id, ri, si), slot, view)
                elif slot.mode != "ExactCount":
                    self.fail(claim, "count", f"unsupported count mode {slot.mode}", name)
        for i, constraint in enumerate(claim.constraints):
            if constraint.kind == "invalid":
                self.fail(claim, "constraint", f"constraint #{i} is empty")
        return all_lists

    def all_devices(self, claim: Claim, key: SlotKey, slot: Slot, view: NodeView) -> list[int] | None:
        """The devices an All request must get, frozen before the search; None after an error."""
        for pool in view.pools:
            if pool.state != "complete":
                what = "being updated" if pool.state == "incomplete" else "invalid"
                text = f"asks for all devices, but resource pool {pool.ref} is currently {what}"
                self.fail(claim, "count", text, slot.result_name)
                return None
        out: list[int] = []
        for d in (d for pool in view.pools for d in pool.devices):
            outcome = self.selectable(key, d, view)
            if isinstance(outcome, str):
                self.flag(claim.id, "selectable", outcome)
                return None
            if outcome and self.cc:
                device = self.p.devices[d]
                # Only devices that could never take the request are left out (0c8a1b07); one used up
                # by existing shares stays in the list, so the request cannot have been allocated.
                try:
                    outcome = fit(device, slot.capacity_requests, {}, {}, self.fractional) is not None
                except CapacityError as e:
                    self.fail(claim, "capacity", str(e), slot.result_name)
                    return None
            if outcome:
                out.append(d)
        return out

    def check_chosen(self, claim: Claim, allocation: ClaimAllocation) -> dict[int, int]:
        """Request index -> the one slot the allocation uses for it."""
        chosen: dict[int, int] = {}
        for ri in allocation.chosen:
            if not 0 <= ri < len(claim.requests):
                self.fail(
                    claim, "subrequest", f"a choice is recorded for request #{ri}, which does not exist"
                )
        for ri, request in enumerate(claim.requests):
            sub = allocation.chosen.get(ri)
            if not request.first_available:
                if sub not in (None, 0):
                    self.fail(claim, "subrequest", f"has no subrequests, but #{sub} is chosen", request.name)
                chosen[ri] = 0
            elif sub is None:
                self.fail(claim, "subrequest", "no subrequest is chosen", request.name)
            elif not 0 <= sub < len(request.slots):
                self.fail(claim, "subrequest", f"chosen subrequest #{sub} does not exist", request.name)
            else:
                chosen[ri] = sub
        return chosen

    def pick_of(
        self, order: int, claim: Claim, result: DeviceResult, chosen: Mapping[int, int]
    ) -> _Pick | None:
        c, ri, si = result.slot
        if c != claim.id or not 0 <= ri < len(claim.requests) or not 0 <= si < len(claim.requests[ri].slots):
            self.fail(claim, "structure", f"a result names slot {result.slot}, not one of the claim's own")
            return None
        if not 0 <= result.device < len(self.p.devices):
            self.fail(claim, "structure", f"a result names unknown device #{result.device}")
            return None
        request = claim.requests[ri]
        slot, device = request.slots[si], self.p.devices[result.device]
        pick = _Pick(order, claim, result, slot, device, self.cc and device.allow_multiple_allocations)
        if ri in chosen and chosen[ri] != si:
            other = request.slots[chosen[ri]].result_name
            self.bad(pick, "subrequest", f"is allocated for subrequest {slot.name}, but {other} was chosen")
        if result.request != slot.result_name:
            kind = "subrequest" if request.first_available else "structure"
            self.bad(pick, kind, f"has a result named {result.request!r}, not {slot.result_name!r}")
        if result.admin_access != pick.admin:
            self.bad(pick, "admin-access", f"has adminAccess {result.admin_access}, the request {pick.admin}")
        return pick

    def check_count(
        self,
        claim: Claim,
        key: SlotKey,
        got: list[int],
        all_lists: Mapping[SlotKey, list[int] | None],
        view: NodeView,
    ) -> None:
        slot = self.p.slot(key)
        name, refs = slot.result_name, [self.p.devices[d].ref for d in got]
        if slot.mode == "ExactCount":
            if len(got) != slot.count:
                text = f"{len(got)} device(s) allocated, but the request asks for exactly {slot.count}"
                self.fail(claim, "count", text, name)
            # One request picks distinct devices (the k-th after the (k-1)-th in first-fit order), so even a
            # multi-allocatable device is shared once per request; a repeated exclusive device is reported
            # as an exclusivity violation instead.
            twice = sorted(
                {
                    r
                    for d, r in zip(got, refs, strict=True)
                    if got.count(d) > 1 and self.cc and self.p.devices[d].allow_multiple_allocations
                }
            )
            if twice:
                self.fail(claim, "count", f"device(s) {', '.join(twice)} picked more than once", name)
            return
        expected = all_lists.get(key)
        if expected is None:
            return  # unsupported mode or an error, reported already
        if not expected:
            self.fail(claim, "count", f"asks for all devices, but node {view.node} offers none", name)
            return
        want = [self.p.devices[d].ref for d in expected]
        missing = [r for r in want if r not in refs]
        extra = [r for r in refs if r not in want]
        twice = sorted({r for r in refs if refs.count(r) > 1})
        for what, which in (("misses", missing), ("adds", extra), ("repeats", twice)):
            if which:
                text = f"allocation mode All {what} device(s) {', '.join(which)}"
                text += f" (all devices: {', '.join(want)})"
                self.fail(claim, "count", text, name)

    # --- one device -----------------------------------------------------------------------------------

    def selectable(self, key: SlotKey, d: int, view: NodeView) -> Selectable:
        """True / False / the scheduler's error, decided in the allocator's order."""
        if self.p.devices[d].binding_conditions and not self.p.on("DeviceBindingAndStatus"):
            return False
        outcome = self.p.selectable.get((key, d), False)
        return False if outcome is True and d in view.unreachable else outcome

    def check_device(self, pick: _Pick, view: NodeView) -> None:
        device, d = pick.device, pick.device.id
        pools = [pool for pool in view.pools if d in pool.devices]
        if not pools:
            self.bad(pick, "node", f"is not in any pool node {view.node} sees")
        elif pools[0].state != "complete":
            self.bad(
                pick, "node", f"is in pool {pools[0].ref}, which is {pools[0].state} on node {view.node}"
            )
        if d in view.unreachable:
            self.bad(pick, "node", f"is not usable from node {view.node}")
        if device.binding_conditions and not self.p.on("DeviceBindingAndStatus"):
            self.bad(pick, "selectable", "has binding conditions, but DeviceBindingAndStatus is off")
        outcome = self.p.selectable.get((pick.result.slot, d), False)
        if isinstance(outcome, str):
            self.bad(pick, "selectable", f"cannot be selected: {outcome}")
        elif not outcome:
            self.bad(pick, "selectable", "is not selected by the class and request")
        if device.consumes and not self.p.on("PartitionableDevices"):
            self.bad(pick, "counters", "consumes counters, but PartitionableDevices is off")
        if self.p.on("DeviceTaints"):
            for taint in device.taints:
                if taint.effect in ("NoSchedule", "NoExecute") and not any(
                    t.tolerates(taint) for t in pick.slot.tolerations
                ):
                    what = f"{taint.key}={taint.value}:{taint.effect}"
                    self.bad(pick, "taint", f"has taint {what}, which the request does not tolerate")

    def check_share(self, pick: _Pick) -> None:
        """The share flags and the capacity one result consumes (totals are checked per unit)."""
        result, device = pick.result, pick.device
        if not self.cc:
            if result.shared or result.consumed_capacity is not None:
                self.bad(pick, "capacity", "is shared, but ConsumableCapacity is off")
            return
        if pick.multi and not result.shared:
            self.bad(pick, "capacity", "is multi-allocatable, but given without a share")
        if not pick.multi and (result.shared or result.consumed_capacity is not None):
            self.bad(pick, "capacity", "is exclusive, but its result carries a share or consumed capacity")
        try:
            resolved = resolve_requests(pick.slot.capacity_requests, device)
            if resolved is None:
                names = ", ".join(sorted(pick.slot.capacity_requests or {}))
                self.bad(pick, "capacity", f"does not publish capacity {names}")
                return
            capacity = device_capacity(device)
            consumed = {
                n: consumed_amount(resolved.get(n), e.capacity, self.fractional) for n, e in capacity.items()
            }
        except CapacityError as e:
            self.fail(pick.claim, "capacity", str(e), pick.slot.result_name)
            return
        for name, amount in consumed.items():
            entry = capacity[name]
            if amount < 0:
                self.bad(pick, "capacity", f"would consume a negative amount of capacity {entry.published}")
                return
            if violates(amount, entry.capacity.policy, self.fractional):
                self.bad(
                    pick,
                    "capacity",
                    f"cannot take {_q(amount)} of capacity {entry.published} (request policy)",
                )
        pick.consumed = consumed
        if pick.multi:
            expected = {capacity[name].published: value for name, value in consumed.items()}
            got = dict(result.consumed_capacity or {})
            if got != expected:
                text = f"reports consumed capacity {_amounts(got)}, but the request consumes "
                self.bad(pick, "capacity", text + _amounts(expected))

    # --- across the unit ------------------------------------------------------------------------------

    def check_in_use(self, picks: Sequence[_Pick]) -> None:
        """Exclusive use, with the allocator's admin-access exceptions."""
        for i, pick in enumerate(picks):
            ref = pick.device.ref
            if not pick.admin and ref in self.held.exclusive:
                self.bad(pick, "exclusive", "is already allocated")
                continue
            if not pick.admin and not pick.multi and ref in self.held.shared:
                self.bad(pick, "exclusive", "has a live share, so it cannot be given exclusively")
                continue
            if pick.multi:
                continue
            for other in picks[:i]:
                if other.device.ref != ref or other.multi:
                    continue
                if other.order == pick.order:
                    kind = "admin-access" if pick.admin or other.admin else "exclusive"
                    self.bad(pick, kind, f"is allocated twice in claim {pick.claim.ref}")
                    break
                # Any earlier pick of this batch, admin or not, keeps a normal request off the device.
                if not pick.admin:
                    self.bad(pick, "exclusive", f"is already allocated to claim {other.claim.ref}")
                    break

    def check_counters(self, picks: Sequence[_Pick], view: NodeView) -> None:
        if not self.p.on("PartitionableDevices"):
            return  # counter-consuming devices are reported one by one
        pool_of = {d: pool for pool in view.pools if pool.state == "complete" for d in pool.devices}
        drawing: dict[str, list[_Pick]] = {}  # pool -> picks that draw on its counters, in order
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
        left = self._left.get(key)
        if left is None:
            left = {name: dict(counters) for name, counters in pool.counter_sets.items()}
            for d in pool.counter_devices:
                device = self.p.devices[d]
                if self.held.allocated(device.ref):
                    _add(left, device, -1)
                self._drawn_from.setdefault(d, []).append(left)
            self._left[key] = left
        return left

    def check_pool_counters(self, pool: PoolView, members: Sequence[_Pick]) -> None:
        left = self.left(pool)
        needed: dict[str, dict[str, Fraction]] = {}
        for pick in members:
            _add(needed, pick.device, +1)
        # The allocator re-checks every counter of the pool for each new device, so an already
        # exhausted counter blocks devices that do not even draw on it.
        for name, counters in left.items():
            for counter, value in counters.items():
                used = needed.get(name, {}).get(counter, Fraction(0))
                if used <= value:
                    continue
                culprits = [p for p in members if _draws(p.device, name, counter)]
                refs = ", ".join(p.device.ref for p in culprits)
                why = (
                    f"the new devices ({refs}) need {_q(used)}, {_q(value)} is left"
                    if culprits
                    else (f"it is already exhausted ({_q(value)} left)")
                )
                where = f"counter {counter} of counter set {name} in pool {pool.ref}"
                self.bad((culprits or list(members))[-1], "counters", f"overdraws {where}: {why}")

    def check_groups(self, pool: PoolView, members: Sequence[_Pick]) -> None:
        for name in dict.fromkeys(use.counter_set for p in members for use in p.device.consumes):
            # The allocator's running state, seeded from the allocated devices in pool order: a state
            # that is already inconsistent (a group-less peer beside grouped ones) is what it keeps.
            state: _Groups = None
            for d in pool.counter_devices:
                if self.held.allocated(self.p.devices[d].ref):
                    for use in self.p.devices[d].consumes:
                        if use.counter_set == name:
                            state = _joined(state, frozenset(use.groups))
            # Report the first new device the set does not admit.
            for pick, use in ((p, u) for p in members for u in p.device.consumes if u.counter_set == name):
                groups = frozenset(use.groups)
                if not _admitted(state, groups):
                    text = (
                        f"(groups {sorted(use.groups)}) shares no compatibility group with the other "
                        f"devices on counter set {name} of pool {pool.ref}"
                    )
                    self.bad(pick, "compatibility-groups", text)
                    break
                state = _joined(state, groups)

    def check_capacity_totals(self, picks: Sequence[_Pick]) -> None:
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
                    amounts = f"{_q(before)} in use + {_q(value)} allocated now > {_q(entry.capacity.value)}"
                    self.bad(pick, "capacity", f"capacity {entry.published} is exceeded: {amounts}")

    # --- constraints ----------------------------------------------------------------------------------

    def attribute(self, pick: _Pick, name: str) -> AttrValue | str | None:
        """The value a constraint sees: the slot's derived attribute shadows the physical one."""
        if any(derived.name == name for derived in pick.slot.derived):
            return self.p.derived.get((pick.result.slot, pick.device.id, name))
        return pick.device.lookup_attribute(name)

    def check_constraints(self, claim: Claim, picks: Sequence[_Pick]) -> None:
        lists = self.p.on("ListTypeAttributes")
        for i, constraint in enumerate(claim.constraints):
            if constraint.kind == "invalid":
                continue
            affected = [p for p in picks if constraint.applies_to(p.slot)]
            values = [self.attribute(p, constraint.attribute) for p in affected]
            errors = [(p, v) for p, v in zip(affected, values, strict=True) if isinstance(v, str)]
            if errors:
                self.bad(errors[0][0], "constraint", f"cannot be checked: {errors[0][1]}")
                continue
            known = [v for v in values if not isinstance(v, str)]
            at = (_match_breaks if constraint.kind == "match" else _distinct_breaks)(known, lists)
            if at is not None:
                what = "matchAttribute" if constraint.kind == "match" else "distinctAttribute"
                text = f"breaks constraint #{i} ({what} {constraint.attribute}, value {_show(known[at])})"
                self.bad(affected[at], "constraint", text)


# --- helpers ---------------------------------------------------------------------------------------------


def _match_breaks(values: Sequence[AttrValue | None], lists: bool) -> int | None:
    """Index of the first value that cannot join a matchAttribute with the ones before it."""
    if lists:
        common: ValueSet | None = None
        for i, value in enumerate(values):
            this = as_set(value)
            if this is None:
                return i
            common = this if common is None else intersect(common, this)
            if common is None:
                return i
        return None
    first = values[0] if values else None
    for i, value in enumerate(values):
        if first is None or first.kind is None:
            return 0
        if value is None or (i and not scalar_equal(first, value)):
            return i
    return None


def _distinct_breaks(values: Sequence[AttrValue | None], lists: bool) -> int | None:
    """Index of the first value that repeats one before it under distinctAttribute."""
    seen: list[AttrValue] = []
    for i, value in enumerate(values):
        if value is None or value.kind is None:
            return i
        if lists:
            this = as_set(value)
            if this is None or any(
                (other := as_set(old)) is not None and intersect(other, this) is not None for old in seen
            ):
                return i
        elif not scalar_distinct(seen, value):
            return i
        seen.append(value)
    return None


# A counter set's compatibility state: None before any member, _GROUPLESS while every member declared no
# group, else the groups all grouped members share (spec: DRADeviceCompatibilityGroups).
_GROUPLESS = "group-less"
_Groups = frozenset[str] | str | None


def _admitted(state: _Groups, groups: frozenset[str]) -> bool:
    if state is None:
        return True
    if isinstance(state, str):
        return not groups
    return bool(state & groups)


def _joined(state: _Groups, groups: frozenset[str]) -> _Groups:
    """A member joins (or is seeded): a group-less one leaves a grouped state as it is, and a grouped
    one a group-less state."""
    if state is None:
        return groups if groups else _GROUPLESS
    if isinstance(state, str) or not groups:
        return state
    return state & groups


def _add(totals: dict[str, dict[str, Fraction]], device: Device, sign: int) -> None:
    """Add (or take away) what a device draws on its pool's counters; `totals` of the new devices grow
    as needed, what is left of the published counters only covers counters that exist."""
    for use in device.consumes:
        counters = totals.setdefault(use.counter_set, {}) if sign > 0 else totals.get(use.counter_set, {})
        for counter, value in use.counters.items():
            if sign > 0 or counter in counters:
                counters[counter] = counters.get(counter, Fraction(0)) + sign * value


def _draws(device: Device, counter_set: str, counter: str) -> bool:
    return any(use.counter_set == counter_set and counter in use.counters for use in device.consumes)


def _q(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def _amounts(values: Mapping[str, Fraction]) -> str:
    return "{" + ", ".join(f"{k}: {_q(v)}" for k, v in sorted(values.items())) + "}"


def _show(value: AttrValue | None) -> str:
    if value is None:
        return "missing"
    if value.kind is None:
        return "empty"
    shown = ", ".join(str(v) for v in value.values)
    return f"[{shown}]" if value.is_list else shown
