"""What engines that answer node by node share: the search on one node and its answer, the in-use
state that grows as units are allocated, and the checks around a node's search.

The loop over pods and nodes is kube-scheduler's own (`solver.cluster.scheduler.solve_units`,
which each engine calls with its search): every unit (a pod's claims) goes through its
scheduling cycle, where the DynamicResources plugin runs the engine's search on each node. An
engine plugs in one function, the search on one node (`NodeSearch`); what it returns
(`NodeAnswer`) says whether it allocated, proved that nothing fits, stopped with the allocator's
error, or ran out of budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ..model.node_selector import for_allocation, terms_match
from ..model.problem import Claim, Device, InUse, NodeView, Problem, Unit
from ..model.solution import ClaimAllocation, Status, UnitOutcome
from .engines import Budget
from .node_fit import shortfalls

__all__ = ["NodeAnswer", "NodeSearch", "State", "Taken"]


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
