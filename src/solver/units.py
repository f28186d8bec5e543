"""The scheduler's loop over units and nodes, shared by every engine that answers node by node.

Units (pods) one at a time, in the scheduler's order; for each, the nodes in
order: a claim the unit shares that is already allocated elsewhere rules a node
out, then the node's allocatable resources, then the engine's search for the
unit's pending claims on that node, then the node resources its devices map to
(DRANodeAllocatableResources). The first node that takes the unit wins and what
it allocated is in use for the units after it. Gangs that cannot reach their
minimum give back what their members took and the run starts over without them.

An engine plugs in one function, the search on one node (`NodeSearch`); what it
returns (`NodeAnswer`) says whether it allocated, proved that nothing fits,
stopped with the allocator's error, or ran out of budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from .engines import Budget
from .node_fit import shortfalls, unit_demand
from .node_selector import for_allocation, terms_match
from .problem import Claim, Device, InUse, NodeView, Problem, Unit
from .solution import ClaimAllocation, NodeOutcome, Solution, Status, UnitOutcome

__all__ = ["NodeAnswer", "NodeSearch", "State", "Taken", "solve_units", "summary"]


@dataclass(frozen=True)
class Taken:
    """One result as later units see it: the device, and what it holds of it."""

    device: Device
    admin: bool
    shared: bool
    consumed: Mapping[str, Fraction] | None  # by fully-qualified capacity name, for shares


@dataclass(frozen=True)
class NodeAnswer:
    """What an engine's search on one node found."""

    status: Status
    allocations: tuple[ClaimAllocation, ...] = ()
    taken: tuple[Taken, ...] = ()
    message: str = ""
    steps: int = 0
    per_node: bool = False  # an error that only makes this node unusable (invalid pools)
    proof: str = ""  # optimal | feasible, for engines that prove (see Solution.proof)
    decided_by: str = ""  # set when another engine than the answering one could not decide
    note: str = ""  # why decided_by is set


# The search on one node: (problem, unit, the node's view, pending claims in order, in-use state,
# budget, deadline) -> answer.
NodeSearch = Callable[[Problem, Unit, NodeView, Sequence[Claim], InUse, Budget, "float | None"], NodeAnswer]


@dataclass
class State:
    """In-use state that grows as units are allocated."""

    exclusive: set[str] = field(default_factory=set)
    shared: set[str] = field(default_factory=set)
    capacity: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    allocations: dict[int, ClaimAllocation] = field(default_factory=dict)
    node_used: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, problem: Problem) -> State:
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

    def commit(self, answer: NodeAnswer) -> None:
        for taken in answer.taken:
            if taken.admin:
                continue
            ref = taken.device.ref
            if taken.shared:
                self.shared.add(ref)
                sums = self.capacity.setdefault(ref, {})
                for name, value in (taken.consumed or {}).items():
                    sums[name] = sums.get(name, Fraction(0)) + value
            else:
                self.exclusive.add(ref)
        for allocation in answer.allocations:
            self.allocations[allocation.claim] = allocation

    def charge(self, node: str, demand: Mapping[str, int]) -> None:
        used = self.node_used.setdefault(node, {})
        for resource, value in demand.items():
            used[resource] = used.get(resource, 0) + value


def solve_units(
    problem: Problem, budget: Budget, engine: str, search: NodeSearch, proves: bool = False
) -> Solution:
    """Every unit in order; `proves` engines also say whether each answer is proven (Solution.proof)."""
    deadline = time.monotonic() + budget.seconds if budget.seconds is not None else None
    # Gangs that cannot reach their minimum release what their members took, and the pods after
    # them are scheduled again without them: a fixed point, reached after at most one pass per gang.
    refused: dict[int, str] = {}
    while True:
        state = State.of(problem)
        outcomes = [
            UnitOutcome(unit.id, Status.UNSATISFIABLE, message=refused[unit.id])
            if unit.id in refused
            else _solve_unit(problem, unit, state, budget, deadline, search)
            for unit in problem.units
        ]
        short = short_gangs(problem, outcomes)
        if not short:
            if proves:
                outcomes = [_with_proof(o) for o in outcomes]
            return Solution(engine, tuple(outcomes))
        for unit in problem.units:
            if unit.gang is not None and unit.gang.name in short:
                refused[unit.id] = short[unit.gang.name]


def _with_proof(outcome: UnitOutcome) -> UnitOutcome:
    proof = {
        Status.UNSATISFIABLE: "infeasible",
        Status.UNKNOWN: "unknown",
        Status.ALLOCATED: outcome.proof or "optimal",
        Status.ERROR: "",
    }[outcome.status]
    return replace(outcome, proof=proof)


def _solve_unit(
    problem: Problem, unit: Unit, state: State, budget: Budget, deadline: float | None, search: NodeSearch
) -> UnitOutcome:
    if unit.error:
        return UnitOutcome(unit.id, Status.ERROR, message=unit.error)
    pending = [c for c in unit.claims if not problem.claims[c].allocated and c not in state.allocations]
    nodes: list[NodeOutcome] = []
    total_steps = 0
    deciders: list[NodeAnswer] = []
    for node in unit.nodes:
        where = placement_conflict(problem, unit, node, state)
        if where:
            nodes.append(NodeOutcome(node, Status.UNSATISFIABLE, where))
            continue
        short = node_shortfalls(problem, node, state, unit.requests)
        if short:
            nodes.append(NodeOutcome(node, Status.UNSATISFIABLE, ", ".join(short), reasons=short))
            continue
        if not pending:
            state.charge(node, unit.requests)
            return UnitOutcome(unit.id, Status.ALLOCATED, node, nodes=tuple(nodes))
        if deadline is not None and time.monotonic() > deadline:
            nodes.append(NodeOutcome(node, Status.UNKNOWN, "time limit reached"))
            continue
        answer = search(
            problem,
            unit,
            problem.views[node],
            [problem.claims[c] for c in pending],
            state.freeze(),
            budget,
            deadline,
        )
        total_steps += answer.steps
        if answer.decided_by:
            deciders.append(answer)
        decided_by, note = _decided(deciders)
        if answer.status == Status.ERROR:
            outcome = NodeOutcome(node, Status.ERROR, answer.message, answer.steps)
            if answer.per_node:
                nodes.append(outcome)
                continue
            return UnitOutcome(
                unit.id,
                Status.ERROR,
                node,
                message=answer.message,
                nodes=(*nodes, outcome),
                steps=total_steps,
                decided_by=decided_by,
                note=note,
            )
        if answer.status != Status.ALLOCATED:
            nodes.append(NodeOutcome(node, answer.status, answer.message, answer.steps))
            continue
        demand = unit_demand(problem, unit, answer.allocations)
        short = node_shortfalls(problem, node, state, demand)
        if short:
            # Devices mapped to node resources (cpu, memory) need room on the node too.
            nodes.append(NodeOutcome(node, Status.UNSATISFIABLE, ", ".join(short), answer.steps, short))
            continue
        state.commit(answer)
        state.charge(node, demand)
        nodes.append(NodeOutcome(node, Status.ALLOCATED, steps=answer.steps))
        return UnitOutcome(
            unit.id,
            Status.ALLOCATED,
            node,
            answer.allocations,
            nodes=tuple(nodes),
            steps=total_steps,
            proof=answer.proof,
            decided_by=decided_by,
            note=note,
        )
    # A node-level error (invalid pools) only makes that node unschedulable, as in the scheduler.
    status = Status.UNKNOWN if any(n.status == Status.UNKNOWN for n in nodes) else Status.UNSATISFIABLE
    decided_by, note = _decided(deciders)
    message = summary(unit, nodes)
    if status == Status.UNKNOWN:
        message = f"undecided, not a proof that it does not fit: {message}"
    return UnitOutcome(
        unit.id,
        status,
        message=message,
        nodes=tuple(nodes),
        steps=total_steps,
        decided_by=decided_by,
        note=note,
    )


def _decided(answers: Sequence[NodeAnswer]) -> tuple[str, str]:
    """(decided_by, note) of a unit, from the nodes where another engine could not decide."""
    if not answers:
        return "", ""
    return answers[0].decided_by, "; ".join(a.note for a in answers if a.note)


def placement_conflict(problem: Problem, unit: Unit, node: str, state: State) -> str:
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


def node_shortfalls(problem: Problem, node: str, state: State, demand: Mapping[str, int]) -> tuple[str, ...]:
    fact = problem.nodes.get(node)
    return shortfalls(fact, state.node_used.get(node, {}), demand) if fact is not None else ()


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
