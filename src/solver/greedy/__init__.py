"""The greedy engine: what Kubernetes itself does.

Units (pods) one at a time, in the scheduler's order; for each, the nodes in
order, running the structured allocator's first-fit search on each until one
succeeds; what a unit allocates is in use for the units after it. A node whose
search runs over the step or time budget answers "unknown", never "does not fit".
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from ..engines import ENGINE_FEATURES, Budget
from ..node_fit import shortfalls, unit_demand
from ..node_selector import for_allocation, terms_match
from ..problem import InUse, Problem, Unit
from ..solution import ClaimAllocation, NodeOutcome, Solution, Status, UnitOutcome
from .allocator import AllocationError, BudgetExceeded, NodeAllocator

__all__ = ["GreedyEngine"]


@dataclass
class _State:
    """In-use state that grows as units are allocated."""

    exclusive: set[str] = field(default_factory=set)
    shared: set[str] = field(default_factory=set)
    capacity: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    allocations: dict[int, ClaimAllocation] = field(default_factory=dict)
    node_used: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, problem: Problem) -> _State:
        in_use = problem.in_use
        return cls(
            set(in_use.exclusive),
            set(in_use.shared),
            {k: dict(v) for k, v in in_use.shared_capacity.items()},
            node_used={name: dict(node.requested) for name, node in problem.nodes.items()},
        )

    def freeze(self) -> InUse:
        return InUse(
            frozenset(self.exclusive), {k: dict(v) for k, v in self.capacity.items()}, frozenset(self.shared)
        )


class GreedyEngine:
    name = "greedy"

    def supports(self) -> frozenset[str]:
        return ENGINE_FEATURES

    def solve(self, problem: Problem, budget: Budget | None = None) -> Solution:
        budget = budget or Budget()
        deadline = time.monotonic() + budget.seconds if budget.seconds is not None else None
        # Gangs that cannot reach their minimum release what their members took, and the pods after
        # them are scheduled again without them: a fixed point, reached after at most one pass per gang.
        refused: dict[int, str] = {}
        while True:
            state = _State.of(problem)
            outcomes = [
                UnitOutcome(unit.id, Status.UNSATISFIABLE, message=refused[unit.id])
                if unit.id in refused
                else self.solve_unit(problem, unit, state, budget, deadline)
                for unit in problem.units
            ]
            short = short_gangs(problem, outcomes)
            if not short:
                return Solution(self.name, tuple(outcomes))
            for unit in problem.units:
                if unit.gang is not None and unit.gang.name in short:
                    refused[unit.id] = short[unit.gang.name]

    def solve_unit(
        self, problem: Problem, unit: Unit, state: _State, budget: Budget, deadline: float | None
    ) -> UnitOutcome:
        if unit.error:
            return UnitOutcome(unit.id, Status.ERROR, message=unit.error)
        pending = [c for c in unit.claims if not problem.claims[c].allocated and c not in state.allocations]
        nodes: list[NodeOutcome] = []
        total_steps = 0
        for node in unit.nodes:
            where = self.placement_conflict(problem, unit, node, state)
            if where:
                nodes.append(NodeOutcome(node, Status.UNSATISFIABLE, where))
                continue
            short = self.shortfalls(problem, node, state, unit.requests)
            if short:
                nodes.append(NodeOutcome(node, Status.UNSATISFIABLE, ", ".join(short), reasons=short))
                continue
            if not pending:
                self.charge(state, node, unit.requests)
                return UnitOutcome(unit.id, Status.ALLOCATED, node, nodes=tuple(nodes))
            if deadline is not None and time.monotonic() > deadline:
                nodes.append(NodeOutcome(node, Status.UNKNOWN, "time limit reached"))
                continue
            allocator = NodeAllocator(
                problem,
                problem.views[node],
                [problem.claims[c] for c in pending],
                state.freeze(),
                budget.steps,
            )
            try:
                done = allocator.run()
            except AllocationError as e:
                total_steps += allocator.steps
                if e.per_node:
                    nodes.append(NodeOutcome(node, Status.ERROR, str(e), allocator.steps))
                    continue
                return UnitOutcome(
                    unit.id,
                    Status.ERROR,
                    node,
                    message=str(e),
                    nodes=(*nodes, NodeOutcome(node, Status.ERROR, str(e), allocator.steps)),
                    steps=total_steps,
                )
            except BudgetExceeded:
                total_steps += allocator.steps
                nodes.append(
                    NodeOutcome(
                        node, Status.UNKNOWN, f"search stopped at its limit of {budget.steps} steps", allocator.steps
                    )
                )
                continue
            total_steps += allocator.steps
            if done:
                allocations = allocator.allocations()
                demand = unit_demand(problem, unit, allocations)
                short = self.shortfalls(problem, node, state, demand)
                if short:
                    # Devices mapped to node resources (cpu, memory) need room on the node too.
                    nodes.append(
                        NodeOutcome(node, Status.UNSATISFIABLE, ", ".join(short), allocator.steps, short)
                    )
                    continue
                self.commit(allocator, allocations, state)
                self.charge(state, node, demand)
                nodes.append(NodeOutcome(node, Status.ALLOCATED, steps=allocator.steps))
                return UnitOutcome(
                    unit.id, Status.ALLOCATED, node, tuple(allocations), nodes=tuple(nodes), steps=total_steps
                )
            nodes.append(
                NodeOutcome(node, Status.UNSATISFIABLE, "cannot allocate all claims", allocator.steps)
            )
        # A node-level error (invalid pools) only makes that node unschedulable, as in the scheduler.
        status = Status.UNKNOWN if any(n.status == Status.UNKNOWN for n in nodes) else Status.UNSATISFIABLE
        message = summary(unit, nodes)
        if status == Status.UNKNOWN:
            message = f"undecided, not a proof that it does not fit: {message}"
        return UnitOutcome(unit.id, status, message=message, nodes=tuple(nodes), steps=total_steps)

    @staticmethod
    def placement_conflict(problem: Problem, unit: Unit, node: str, state: _State) -> str:
        """A claim the unit shares is already allocated somewhere this node cannot use."""
        labels = problem.nodes[node].labels if node in problem.nodes else {}
        for c in unit.claims:
            claim = problem.claims[c]
            selector = claim.allocated_selector if claim.allocated else None
            earlier = state.allocations.get(c)
            if earlier is not None:
                devices = [problem.devices[r.device] for r in earlier.results]
                selector = for_allocation(devices, earlier.node)
            if (
                (claim.allocated or earlier is not None)
                and selector is not None
                and not terms_match(selector, node, labels)
            ):
                return f"claim {claim.ref} is allocated for another node"
        return ""

    @staticmethod
    def shortfalls(
        problem: Problem, node: str, state: _State, demand: dict[str, int] | Mapping[str, int]
    ) -> tuple[str, ...]:
        fact = problem.nodes.get(node)
        return shortfalls(fact, state.node_used.get(node, {}), demand) if fact is not None else ()

    @staticmethod
    def charge(state: _State, node: str, demand: Mapping[str, int]) -> None:
        used = state.node_used.setdefault(node, {})
        for resource, value in demand.items():
            used[resource] = used.get(resource, 0) + value

    @staticmethod
    def commit(allocator: NodeAllocator, allocations: list[ClaimAllocation], state: _State) -> None:
        for device, admin, shared, consumed in allocator.taken():
            if admin:
                continue
            if shared:
                state.shared.add(device.ref)
                sums = state.capacity.setdefault(device.ref, {})
                for name, value in (consumed or {}).items():
                    sums[name] = sums.get(name, Fraction(0)) + value
            else:
                state.exclusive.add(device.ref)
        for allocation in allocations:
            state.allocations[allocation.claim] = allocation


def short_gangs(problem: Problem, outcomes: list[UnitOutcome]) -> dict[str, str]:
    """Gangs some of whose pods were placed, but fewer than the minimum: gang -> why all wait."""
    placed: dict[str, int] = {}
    gangs = {}
    for unit, outcome in zip(problem.units, outcomes, strict=True):
        if unit.gang is None:
            continue
        gangs[unit.gang.name] = unit.gang
        placed[unit.gang.name] = placed.get(unit.gang.name, 0) + (outcome.status == Status.ALLOCATED)
    out = {}
    for name, gang in gangs.items():
        total = gang.bound + placed[name]
        if placed[name] and total < gang.min_count:
            out[name] = f'pod group "{name}" needs {gang.min_count} pods placed together and only {total} fit'
    return out


def summary(unit: Unit, nodes: list[NodeOutcome] | tuple[NodeOutcome, ...]) -> str:
    """kube-scheduler's FailedScheduling summary: `0/N nodes are available: ...`."""
    reasons: dict[str, int] = {}
    for reason in unit.excluded.values():
        reasons[reason] = reasons.get(reason, 0) + 1
    for outcome in nodes:
        for reason in outcome.reasons or (outcome.message,):
            reasons[reason] = reasons.get(reason, 0) + 1
    total = len(unit.excluded) + len(nodes)
    parts = ", ".join(
        f"{count} {reason}" for reason, count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f"0/{total} nodes are available: {parts}." if parts else f"0/{total} nodes are available."
