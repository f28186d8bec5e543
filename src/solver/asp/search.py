"""The asp search on one node: the allocator's own checks, then the rules, first-fit optimized.

Where some pair of request and device would make the scheduler stop with an error (a CEL error, a
refused capacity request, a constraint violated in All mode), only the search order decides whether
the scheduler meets it before an answer; greedy's first-fit search (the scheduler's order) then runs
first and its error, if any, is the answer. Otherwise, and when greedy finds no error, the rules
decide: the first-fit optimum is exactly the allocation greedy returns (hazard pairs are never in it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from clorm import Predicate

from ...model.problem import Claim, InUse, NodeView, Problem, Unit
from ...model.solution import ClaimAllocation, DeviceResult, Status
from ..capacity import as_published
from ..dra import AllocationError
from ..engines import Budget
from ..greedy import search_node as greedy_search
from ..units import NodeAnswer, Taken
from .control import Answer, Outcome, Program
from .facts import TooLarge, gather
from .gathered import NodeFacts


@dataclass
class Cache:
    """Answers by facts: nodes of the same shape (in local identifiers) are solved once."""

    answers: dict[frozenset[Predicate], Answer] = field(default_factory=dict)
    solves: int = 0


def search_node(
    cache: Cache,
    problem: Problem,
    unit: Unit,
    view: NodeView,
    claims: Sequence[Claim],
    in_use: InUse,
    budget: Budget,
    deadline: float | None,
) -> NodeAnswer:
    try:
        nf = gather(problem, view, claims, in_use)
    except AllocationError as e:
        return NodeAnswer(Status.ERROR, message=str(e), per_node=e.per_node)
    except TooLarge as e:
        return NodeAnswer(Status.UNKNOWN, message=f"the asp engine cannot compare these amounts: {e}")
    if nf.hazards:
        greedy = greedy_search(problem, unit, view, claims, in_use, Budget(budget.steps), deadline)
        if greedy.status == Status.ERROR:
            return greedy  # the scheduler's error, met in its own search order
        if greedy.status == Status.UNKNOWN:
            return NodeAnswer(
                Status.UNKNOWN,
                message=f"first-fit {greedy.message}, and only its order decides whether the scheduler "
                f"stops with an error first: {nf.hazards[0]}",
            )
    key = nf.key()
    answer = cache.answers.get(key)
    if answer is None:
        answer = Program(nf.facts, first_fit=True).solve(deadline=deadline)
        cache.solves += 1
        if answer.outcome == Outcome.UNSATISFIABLE or answer.optimal:
            cache.answers[key] = answer  # proven answers only
    if answer.outcome == Outcome.UNSATISFIABLE:
        if any(pool.state == "invalid" for pool in view.pools):
            return NodeAnswer(Status.ERROR, message="invalid resource pools were encountered", per_node=True)
        return NodeAnswer(Status.UNSATISFIABLE, message="cannot allocate all claims")
    if answer.outcome == Outcome.UNKNOWN:
        return NodeAnswer(Status.UNKNOWN, message="time limit reached before the asp engine decided")
    allocations, taken = allocation(nf, answer)
    return NodeAnswer(Status.ALLOCATED, allocations, taken, proof="optimal" if answer.optimal else "feasible")


def allocation(nf: NodeFacts, answer: Answer) -> tuple[tuple[ClaimAllocation, ...], tuple[Taken, ...]]:
    """The model as the allocator reports it: results in search order, shares with their capacity."""
    devices = nf.problem.devices
    results: dict[int, list[DeviceResult]] = {ci: [] for ci in range(len(nf.claims))}
    chosen: dict[int, dict[int, int]] = {ci: {} for ci in range(len(nf.claims))}
    taken: list[Taken] = []
    for position in answer.chosen:
        info = nf.slots[position]
        if info.first_available:
            chosen[info.claim][info.request] = info.sub
    for position, local in answer.uses:  # sorted: slots in search order, devices by rank
        info = nf.slots[position]
        d = nf.devices[local]
        admin = bool(info.slot.admin_access)
        consumed = nf.shares.get((position, local))
        shared = consumed is not None
        published = as_published(devices[d], consumed) if consumed else None
        results[info.claim].append(
            DeviceResult(info.key, info.slot.result_name, d, admin, shared, published or None)
        )
        taken.append(Taken(devices[d], admin, shared, consumed))
    allocations = tuple(
        ClaimAllocation(claim.id, nf.view.node, tuple(results[ci]), chosen[ci])
        for ci, claim in enumerate(nf.claims)
    )
    return allocations, tuple(taken)
