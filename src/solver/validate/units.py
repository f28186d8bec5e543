"""The Solution unit by unit, in the scheduler's order: each unit's node and claims, then what it
allocated is in use for the units after it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

from ...model.claim_holds import release_evicted
from ...model.families import Family
from ...model.node_selector import SelectorError, for_allocation, terms_match
from ...model.problem import Problem, Unit
from ...model.solution import ClaimAllocation, Solution, Status, UnitOutcome
from ..claim_use import status_problem
from .base import STRUCTURE, Pick, Violation
from .claims import ClaimChecks
from .counters import CounterChecks, add_draws


def validate(problem: Problem, solution: Solution) -> list[Violation]:
    """Every way `solution` breaks the allocator's rules for `problem`; empty when it is consistent."""
    return Validator(problem).run(solution)


class Validator(ClaimChecks, CounterChecks):
    def run(self, solution: Solution) -> list[Violation]:
        # Pods preempted to make room free the claims nothing reserves any more.
        gone = {e.victim.key: e.victim.claims for e in solution.evictions}
        release_evicted(self.p.holds, gone, self.held.exclusive, self.held.shared, self.held.capacity)
        seen: set[int] = set()
        last = -1  # the highest unit answered so far (units are answered in order)
        for outcome in solution.units:
            self.unit = outcome.unit
            if not 0 <= outcome.unit < len(self.p.units):
                self.flag(None, STRUCTURE, f"the solution answers unit {outcome.unit}, which does not exist")
            elif outcome.unit in seen:
                self.flag(None, STRUCTURE, f"unit {outcome.unit} is answered twice")
            else:
                if outcome.unit < last:
                    self.flag(None, STRUCTURE, f"unit {outcome.unit} is answered after unit {last}")
                last = max(last, outcome.unit)
                seen.add(outcome.unit)
                self.check_unit(self.p.units[outcome.unit], outcome)
        for unit in self.p.units:
            if unit.id not in seen:
                self.unit = unit.id
                self.flag(None, STRUCTURE, f"unit {unit.name} has no outcome in the solution")
        return self.out

    def check_unit(self, unit: Unit, outcome: UnitOutcome) -> None:
        if outcome.status != Status.ALLOCATED:
            if outcome.allocations:
                self.flag(None, STRUCTURE, f"unit {unit.name} is {outcome.status} but carries allocations")
            return
        if unit.error:
            self.flag(
                None, STRUCTURE, f"unit {unit.name} cannot be scheduled ({unit.error}), yet is allocated"
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
            self.flag(
                None, Family.NODE, f"unit {unit.name} is placed on node {node!r}{why}, not one it may use"
            )
        allocations: dict[int, ClaimAllocation] = {}
        for allocation in outcome.allocations:
            c = allocation.claim
            ref = claims[c].ref if 0 <= c < len(claims) else f"#{c}"
            if c not in pending:
                self.flag(None, STRUCTURE, f"claim {ref} is not a pending claim of unit {unit.name}")
            elif c in allocations:
                self.flag(c, STRUCTURE, f"claim {ref} is allocated twice")
            else:
                allocations[c] = allocation
            if allocation.node != node:
                self.flag(
                    c,
                    Family.NODE,
                    f"claim {ref} is allocated on node {allocation.node!r}, its unit on {node!r}",
                )
        for c in pending:
            if c not in allocations:
                self.fail(claims[c], STRUCTURE, "a claim of the allocated unit has no allocation")
        self.check_placement(unit, node)
        view = self.p.views.get(node)
        if view is None:
            if pending:
                self.flag(None, Family.NODE, f"the problem has no view of node {node!r}")
            self.held.allocations.update(allocations)
            return
        if view.error and pending:
            self.flag(None, Family.NODE, f"node {node}: gather pool information: {view.error}")
        picks: list[Pick] = []
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
                self.fail(
                    claim, Family.NODE, f"allocated for another node, so the unit cannot go to node {node}"
                )
            elif claim.allocated:
                # Timeouts depend on the scheduler's bindingTimeout, which a Solution does not carry.
                why = status_problem(self.p, claim, node, math.inf)
                if why:
                    self.fail(claim, Family.NODE, f"{why}, so the unit cannot go to node {node}")

    def commit(self, picks: Sequence[Pick], allocations: Mapping[int, ClaimAllocation]) -> None:
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
                for left in self.drawn_from.get(pick.device.id, ()):
                    add_draws(left, pick.device, -1)
        self.held.allocations.update(allocations)
