"""One claim: what the allocator refuses before searching, the chosen subrequests, how many devices
each request got, and the result limit."""

from __future__ import annotations

from collections.abc import Mapping

from ...model.families import Family
from ...model.node_selector import creation_error
from ...model.problem import Claim, NodeView, Slot, SlotKey
from ...model.solution import ClaimAllocation, DeviceResult
from ..capacity import CapacityError, fit
from .base import STRUCTURE, Kind, Pick
from .capacity import CapacityChecks
from .constraints import ConstraintChecks
from .devices import DeviceChecks


class ClaimChecks(DeviceChecks, CapacityChecks, ConstraintChecks):
    def check_claim(
        self, order: int, claim: Claim, allocation: ClaimAllocation, view: NodeView
    ) -> list[Pick]:
        all_lists = self.check_claim_spec(claim, view)
        chosen = self.check_chosen(claim, allocation)
        if len(allocation.results) > self.p.max_results:
            limit = self.p.max_results
            self.fail(
                claim,
                Family.RESULT_LIMIT,
                f"{len(allocation.results)} results exceed the claim limit of {limit}",
            )
        picks: list[Pick] = []
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
            self.fail(claim, Family.NODE, error)
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
                self.fail(claim, Family.PRIORITIZED, text, request.name)
            for si, slot in enumerate(request.slots):
                name = slot.result_name
                if slot.capacity_requests is not None and not self.cc:
                    text = "has capacity requests, but the DRAConsumableCapacity feature is disabled"
                    self.fail(claim, Family.CAPACITY, text, name)
                if slot.selectors_without_cel >= 0:
                    self.fail(
                        claim,
                        Family.SELECTORS,
                        f"selector #{slot.selectors_without_cel}: no CEL expression",
                        name,
                    )
                elif slot.admin_access is not None and not self.p.on("AdminAccess"):
                    self.fail(
                        claim,
                        Family.ADMIN_ACCESS,
                        "admin access is requested, but the feature is disabled",
                        name,
                    )
                elif not slot.device_class or not slot.class_exists:
                    self.fail(
                        claim, Family.SELECTORS, f"device class {slot.device_class!r} does not exist", name
                    )
                elif slot.mode == "All":
                    all_lists[(claim.id, ri, si)] = self.all_devices(claim, (claim.id, ri, si), slot, view)
                elif slot.mode != "ExactCount":
                    self.fail(claim, Family.COUNT, f"unsupported count mode {slot.mode}", name)
        for i, constraint in enumerate(claim.constraints):
            if constraint.kind == "invalid":
                self.fail(claim, Family.ATTRIBUTES, f"constraint #{i} is empty")
        return all_lists

    def all_devices(self, claim: Claim, key: SlotKey, slot: Slot, view: NodeView) -> list[int] | None:
        """The devices an All request must get, frozen before the search; None after an error."""
        for pool in view.pools:
            if pool.state != "complete":
                what = "being updated" if pool.state == "incomplete" else "invalid"
                text = f"asks for all devices, but resource pool {pool.ref} is currently {what}"
                self.fail(claim, Family.COUNT, text, slot.result_name)
                return None
        out: list[int] = []
        for d in (d for pool in view.pools for d in pool.devices):
            outcome = self.selectable(key, d, view)
            if isinstance(outcome, str):
                self.flag(claim.id, Family.SELECTORS, outcome)
                return None
            if outcome and self.cc:
                device = self.p.devices[d]
                # Only devices that could never take the request are left out (0c8a1b07); one used up
                # by existing shares stays in the list, so the request cannot have been allocated.
                try:
                    outcome = fit(device, slot.capacity_requests, {}, {}, self.fractional) is not None
                except CapacityError as e:
                    self.fail(claim, Family.CAPACITY, str(e), slot.result_name)
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
                    claim, Family.PRIORITIZED, f"a choice is recorded for request #{ri}, which does not exist"
                )
        for ri, request in enumerate(claim.requests):
            sub = allocation.chosen.get(ri)
            if not request.first_available:
                if sub not in (None, 0):
                    self.fail(
                        claim, Family.PRIORITIZED, f"has no subrequests, but #{sub} is chosen", request.name
                    )
                chosen[ri] = 0
            elif sub is None:
                self.fail(claim, Family.PRIORITIZED, "no subrequest is chosen", request.name)
            elif not 0 <= sub < len(request.slots):
                self.fail(claim, Family.PRIORITIZED, f"chosen subrequest #{sub} does not exist", request.name)
            else:
                chosen[ri] = sub
        return chosen

    def pick_of(
        self, order: int, claim: Claim, result: DeviceResult, chosen: Mapping[int, int]
    ) -> Pick | None:
        c, ri, si = result.slot
        if c != claim.id or not 0 <= ri < len(claim.requests) or not 0 <= si < len(claim.requests[ri].slots):
            self.fail(claim, STRUCTURE, f"a result names slot {result.slot}, not one of the claim's own")
            return None
        if not 0 <= result.device < len(self.p.devices):
            self.fail(claim, STRUCTURE, f"a result names unknown device #{result.device}")
            return None
        request = claim.requests[ri]
        slot, device = request.slots[si], self.p.devices[result.device]
        pick = Pick(order, claim, result, slot, device, self.cc and device.allow_multiple_allocations)
        if ri in chosen and chosen[ri] != si:
            other = request.slots[chosen[ri]].result_name
            self.bad(
                pick, Family.PRIORITIZED, f"is allocated for subrequest {slot.name}, but {other} was chosen"
            )
        if result.request != slot.result_name:
            kind: Kind = Family.PRIORITIZED if request.first_available else STRUCTURE
            self.bad(pick, kind, f"has a result named {result.request!r}, not {slot.result_name!r}")
        if result.admin_access != pick.admin:
            self.bad(
                pick, Family.ADMIN_ACCESS, f"has adminAccess {result.admin_access}, the request {pick.admin}"
            )
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
                self.fail(claim, Family.COUNT, text, name)
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
                self.fail(claim, Family.COUNT, f"device(s) {', '.join(twice)} picked more than once", name)
            return
        expected = all_lists.get(key)
        if expected is None:
            return  # unsupported mode or an error, reported already
        if not expected:
            self.fail(claim, Family.COUNT, f"asks for all devices, but node {view.node} offers none", name)
            return
        want = [self.p.devices[d].ref for d in expected]
        missing = [r for r in want if r not in refs]
        extra = [r for r in refs if r not in want]
        twice = sorted({r for r in refs if refs.count(r) > 1})
        for what, which in (("misses", missing), ("adds", extra), ("repeats", twice)):
            if which:
                text = f"allocation mode All {what} device(s) {', '.join(which)}"
                text += f" (all devices: {', '.join(want)})"
                self.fail(claim, Family.COUNT, text, name)
