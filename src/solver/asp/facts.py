"""The facts of one Allocate(node, claims) call, from the Problem, for the rules in `rules/`.

The allocator's pre-search validation runs first (`solver.dra.AllocatorView.check`, so errors read the
same). Then each request slot gets its candidate devices: what the selectors accept and nothing about
the device alone rules out (binding conditions, the partitionable gate, a capacity request it cannot
take). Everything that depends on what else is picked — in-use state, taints, counters, groups,
capacity sums, constraints — is left to the rules, so that an explanation can name it.

Identifiers are local and numbered in search order (slots, then devices by first-fit rank, then pools,
counter sets, holders and taints by first appearance), so nodes of the same shape give the same facts
and one answer serves them all. Pairs whose evaluation would make the scheduler stop with an error (a
CEL error, a refused capacity request, a constraint violated in All mode) are never candidates; they
are listed as hazards, because only the search order decides whether the scheduler meets them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...model.node_selector import selector_hazard
from ...model.problem import (
    Claim,
    Device,
    InUse,
    NodeView,
    Problem,
    SelectableTable,
)
from ..capacity import CapacityError, fit
from ..dra import AllocationError, AllocatorView
from . import canonical
from . import schema as s
from .amounts import TooLarge
from .claim_facts import ClaimFacts
from .counter_facts import CounterFacts
from .gathered import Holders, NodeFacts, SlotInfo

__all__ = ["TooLarge", "gather"]


class Builder(ClaimFacts, CounterFacts):
    """Gathers the facts in two passes: candidates in Problem ids, then numbered facts."""

    # --- pass 1: candidates, in Problem ids ----------------------------------------------------------

    def slots(self) -> None:
        nf = self.nf
        for pool in nf.view.pools:
            for d in pool.devices:
                self.pool_of[d] = pool
                if pool.state == "complete":
                    self.rank.setdefault(d, len(self.rank))
        nf.rank = self.rank
        for ci, claim in enumerate(nf.claims):
            for ri, request in enumerate(claim.requests):
                for si, slot in enumerate(request.slots):
                    nf.slots.append(SlotInfo((claim.id, ri, si), slot, ci, ri, si, request.first_available))
        for position, info in enumerate(nf.slots):
            if info.slot.mode == "All":
                self.all_candidates(position, info)
            else:
                self.exact_candidates(position, info)
        self.selector_hazards()

    def selector_hazards(self) -> None:
        for position, ds in self.nf.candidates.items():
            info = self.nf.slots[position]
            hazard = selector_hazard(self.nf.claims[info.claim], info.slot, (self.p.devices[d] for d in ds))
            if hazard is not None:
                self.nf.hazards.append(hazard)
                return

    def exact_candidates(self, position: int, info: SlotInfo) -> None:
        p = self.p
        admin = bool(info.slot.admin_access)
        out: list[int] = []
        table = p.selectable
        column = table.column_of(info.key) if isinstance(table, SelectableTable) else None
        for d in self.rank:
            device = p.devices[d]
            outcome = column.get(d, False) if column is not None else False
            if column is None or outcome.__class__ is tuple:
                outcome = table.get((info.key, d), False)  # an error, worded
            if not p.on("DeviceBindingAndStatus") and device.binding_conditions:
                continue
            if not admin and device.ref in self.nf.in_use.exclusive:
                # The search skips it before evaluating anything: never an error, only held.
                if outcome is True and self.takeable(position, info, device, quiet=True):
                    out.append(d)
                continue
            if isinstance(outcome, str):
                self.nf.hazards.append(outcome)
                continue
            if outcome and self.takeable(position, info, device):
                out.append(d)
        self.nf.candidates[position] = out

    def all_candidates(self, position: int, info: SlotInfo) -> None:
        frozen = self.nf.allocator.slots[info.key].all_devices
        self.listed[position] = list(frozen)
        self.nf.candidates[position] = [
            d for d in frozen if self.takeable(position, info, self.p.devices[d], all_mode=True)
        ]

    def takeable(
        self, position: int, info: SlotInfo, device: Device, all_mode: bool = False, quiet: bool = False
    ) -> bool:
        """What rules a (slot, device) pair out on its own; errors it would raise become hazards (unless
        `quiet`: the search never evaluates a device it skips as in use)."""
        p = self.p
        hazards = [] if quiet else self.nf.hazards
        allocator = self.nf.allocator
        if device.consumes and not p.on("PartitionableDevices"):
            return False
        multi = allocator.multi(device)
        existing = device.ref in self.nf.in_use.shared_capacity
        if (
            device.consumes
            and not p.on("CompatibilityGroups")
            and not (multi and existing)
            and allocator.peers_grouped(device)
        ):
            return False
        if p.on("ConsumableCapacity"):
            try:
                if multi:
                    # What existing shares leave is the capacity rule's business.
                    consumed = fit(
                        device, info.slot.capacity_requests, {}, {}, p.on("FractionalCapacityRange")
                    )
                else:
                    consumed = allocator.capacity_fit(info.key, device.id, self.nf.claims[info.claim])
            except (CapacityError, AllocationError) as e:
                hazards.append(str(e))
                return False
            if consumed is None:
                return False
            if multi:
                self.share_use[(position, device.id)] = consumed
        claim = self.nf.claims[info.claim]
        data = allocator.slots[info.key]
        for index, constraint in enumerate(claim.constraints):
            if not constraint.applies_to(info.slot):
                continue
            if all_mode:
                hazards.append(
                    f"claim {claim.ref}, request {info.slot.name}: all devices are taken under a constraint"
                )
            try:
                value = allocator.attribute(data, device, constraint.attribute)
            except AllocationError as e:
                hazards.append(str(e))
                return False
            self.values[(position, device.id, index)] = value
        return True

    # --- pass 2: numbering and facts -----------------------------------------------------------------

    def number(self) -> None:
        used = {d for ds in self.nf.candidates.values() for d in ds}
        used |= {d for ds in self.listed.values() for d in ds}
        order = sorted(used, key=self.rank.__getitem__)
        if self.canonical and not canonical.order_matters(self):
            order = canonical.order(self, order)
        for d in order:
            self.local[d] = len(self.nf.devices)
            self.nf.devices.append(d)

    def emit(self) -> None:
        nf = self.nf
        p = self.p
        self.add(s.MaxResults, n=p.max_results)
        for position, info in enumerate(nf.slots):
            self.slot_facts(position, info)
        for d in nf.devices:
            self.device_facts(d)
        self.constraint_facts()
        self.counter_facts()
        self.capacity_facts()
        if self.first_fit:
            self.levels()


def gather(
    problem: Problem,
    view: NodeView,
    claims: Sequence[Claim],
    in_use: InUse,
    holders: Holders | None = None,
    first_fit: bool = True,
    canonical: bool = False,
) -> NodeFacts:
    """Raises AllocationError for what the allocator rejects before searching, TooLarge for amounts
    clingo cannot hold. `first_fit`: with the priorities of the first-fit order; `canonical`: devices
    and values numbered so that nodes of the same shape give equal facts (for explanations: the first-fit
    order is then lost)."""
    allocator = AllocatorView(problem, view, claims, in_use)
    allocator.check()
    nf = NodeFacts(problem, view, list(claims), in_use, allocator)
    builder = Builder(nf, holders, first_fit, canonical)
    builder.slots()
    builder.number()
    builder.emit()
    return nf
