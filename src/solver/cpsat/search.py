"""The cpsat search on one node: the allocator's own checks, greedy's answer, then the model.

Greedy (the scheduler's first-fit search) runs first, for two reasons:
- its allocation is the hint CP-SAT starts from (under first-fit it is the answer when it finishes,
  and the model then only has to prove it); it gets a small step budget (`hint_steps`), so that
  where first-fit search explodes, cpsat does not pay for it, and when it stops there the answer
  says that cpsat decided;
- when some pair of request and device would make the scheduler stop with an error (a CEL error,
  a refused capacity request, a constraint violated in All mode), only the search order decides
  whether the scheduler meets it before an answer, so greedy then runs with the whole step budget
  and its error, if any, is the answer. If it cannot finish, the answer is unknown.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ...model.problem import Claim, InUse, NodeView, Problem, Unit
from ...model.solution import ClaimAllocation, DeviceResult, Status
from ..capacity import as_published
from ..dra import AllocationError
from ..engines import Budget
from ..greedy import search_node as greedy_search
from ..units import NodeAnswer, Taken
from .build import build
from .facts import NodeFacts, gather
from .model import NodeModel
from .objective import optimize
from .scale import AmountsTooLarge
from .solve import WORKERS, Outcome, Runner

log = logging.getLogger("kubefit")


def hint_devices(facts: NodeFacts) -> int:
    """... and the devices it may try: a pass without backtracking scans each slot's candidates at
    most once."""
    return 100 + sum(2 * len(s.candidates) for s in facts.slots if not s.all_mode)


def hint_steps(facts: NodeFacts) -> int:
    """Greedy's budget when it only provides the hint: a step places one device (the devices it
    skips on the way cost no step, only time), so a few steps per wanted device are enough when
    first-fit hardly backtracks (then its answer is the one to prove), and cheap when it does: each
    step scans the candidates, so a budget that grew with them cost seconds on a 1,000-device node
    (benchmarks/cpsat_scaling.py)."""
    return 50 + sum(2 * min(s.count, len(s.candidates)) for s in facts.slots if not s.all_mode)


@dataclass
class Options:
    objective: str = "first-fit"
    hint: bool = True  # start from greedy's answer (tests turn it off to check the model alone)
    workers: int = WORKERS
    dump_model: str | None = None
    dumped: list[str] = field(default_factory=list)
    solves: int = 0  # CP-SAT runs so far (for benchmarks)


def search_node(
    options: Options,
    problem: Problem,
    unit: Unit,
    view: NodeView,
    claims: Sequence[Claim],
    in_use: InUse,
    budget: Budget,
    deadline: float | None,
) -> NodeAnswer:
    try:
        facts = gather(problem, view, claims, in_use)
    except AllocationError as e:
        return NodeAnswer(Status.ERROR, message=str(e), per_node=e.per_node)
    greedy: NodeAnswer | None = None
    if facts.hazards:
        greedy = greedy_search(problem, unit, view, claims, in_use, Budget(budget.steps), deadline)
        if greedy.status == Status.UNKNOWN:
            return NodeAnswer(
                Status.UNKNOWN,
                message=f"first-fit {greedy.message}, and only its order decides whether the scheduler "
                f"stops with an error first: {facts.hazards[0]}",
            )
    elif options.hint:
        steps = hint_steps(facts)
        steps = min(budget.steps, steps) if budget.steps is not None else steps
        budget_for_hint = Budget(steps, devices=hint_devices(facts))
        greedy = greedy_search(problem, unit, view, claims, in_use, budget_for_hint, deadline)
    if greedy is not None and greedy.status == Status.ERROR:
        return greedy  # the scheduler's error, met in its own search order
    try:
        nm = build(facts)
    except AmountsTooLarge as e:
        # First-fit's search is exact on such amounts: it decides, with its whole budget.
        if greedy is None or greedy.status == Status.UNKNOWN:
            greedy = greedy_search(problem, unit, view, claims, in_use, Budget(budget.steps), deadline)
        return _decided_by_greedy(greedy, view.node, str(e))
    runner = Runner(nm, deadline, options.workers)
    if greedy is not None and greedy.status == Status.ALLOCATED:
        runner.hint_picks(_picks(facts, greedy))
    _dump(options, nm, unit, view.node)
    outcome = optimize(runner, options.objective)
    options.solves += runner.solves
    answer = _answer(facts, nm, runner, outcome)
    if greedy is not None and greedy.status == Status.UNKNOWN and answer.status != Status.UNKNOWN:
        what = "found the allocation" if answer.status == Status.ALLOCATED else "proved that nothing fits"
        note = f"node {view.node}: greedy's first-fit {greedy.message}; cpsat {what}"
        return NodeAnswer(
            answer.status,
            answer.allocations,
            answer.taken,
            answer.message,
            per_node=answer.per_node,
            proof=answer.proof,
            decided_by="cpsat",
            note=note,
        )
    return answer


def _decided_by_greedy(greedy: NodeAnswer, node: str, why: str) -> NodeAnswer:
    """The node's amounts do not fit CP-SAT's integers: first-fit's answer stands (unknown beyond its
    budget)."""
    note = f"node {node}: {why} do not fit CP-SAT's 64-bit integers; greedy's first-fit search decided"
    return replace(greedy, decided_by="greedy" if greedy.status != Status.UNKNOWN else "", note=note)


def _answer(facts: NodeFacts, nm: NodeModel, runner: Runner, outcome: Outcome) -> NodeAnswer:
    if outcome == Outcome.INFEASIBLE:
        if any(pool.state == "invalid" for pool in facts.view.pools):
            return NodeAnswer(Status.ERROR, message="invalid resource pools were encountered", per_node=True)
        return NodeAnswer(Status.UNSATISFIABLE, message="cannot allocate all claims")
    if runner.values is None:
        return NodeAnswer(Status.UNKNOWN, message="time limit reached before cpsat decided")
    allocations, taken = allocation(facts, nm, runner)
    return NodeAnswer(Status.ALLOCATED, allocations, taken, proof=str(outcome))


def allocation(
    facts: NodeFacts, nm: NodeModel, runner: Runner
) -> tuple[tuple[ClaimAllocation, ...], tuple[Taken, ...]]:
    """The incumbent as the allocator reports it: results in search order, shares with their capacity."""
    devices = facts.problem.devices
    results: dict[int, list[DeviceResult]] = {ci: [] for ci in range(len(facts.claims))}
    chosen: dict[int, dict[int, int]] = {ci: {} for ci in range(len(facts.claims))}
    taken: list[Taken] = []
    for s in facts.slots:
        if not runner.value(nm.chosen[s.position]):
            continue
        if s.first_available:
            chosen[s.claim][s.request] = s.sub
        for d in s.candidates:
            if not runner.value(nm.use[(s.position, d)]):
                continue
            shared = d in facts.multi
            consumed = s.consumed.get(d) if shared else None
            published = as_published(devices[d], consumed) if consumed else None
            results[s.claim].append(
                DeviceResult(s.key, s.slot.result_name, d, s.admin, shared, published or None)
            )
            taken.append(Taken(devices[d], s.admin, shared, consumed))
    allocations = tuple(
        ClaimAllocation(claim.id, facts.view.node, tuple(results[ci]), chosen[ci])
        for ci, claim in enumerate(facts.claims)
    )
    return allocations, tuple(taken)


def _picks(facts: NodeFacts, answer: NodeAnswer) -> set[tuple[int, int]]:
    """Greedy's allocation as (slot position, device) picks."""
    position = {s.key: s.position for s in facts.slots}
    return {(position[r.slot], r.device) for a in answer.allocations for r in a.results}


def _dump(options: Options, nm: NodeModel, unit: Unit, node: str) -> None:
    """The model as built, with greedy's hint: the first goes to the file named, later ones (more units
    or nodes) beside it, numbered."""
    if options.dump_model is None:
        return
    path = Path(options.dump_model)
    if options.dumped:
        path = path.with_name(f"{path.stem}.{len(options.dumped) + 1}{path.suffix}")
    nm.model.name = f"unit {unit.name}, node {node}"
    if not nm.model.export_to_file(str(path)):
        log.warning("could not write the model to %s", path)
    options.dumped.append(str(path))
    log.info("wrote the model of unit %s on node %s to %s", unit.name, node, path)
