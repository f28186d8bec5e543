"""`kubefit allocate`: schedule the pending pods as kube-scheduler does (or allocate the named claims
together) and print the pods with spec.nodeName and the scheduler's decision, the claims with their
allocation, and a table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model.terminal import lines_text
from ..output import table
from ..runtime import process
from ..solver.deadline import Deadline
from . import names
from .loading import load_valid
from .requests import EXIT_NO_FIT, EXIT_OK, Answer, Input, Scheduling


@dataclass(frozen=True)
class AllocateRequest:
    input: Input
    fmt: str  # json, yaml, table or wide (the table and every pod's ranked nodes)
    engine: str = "greedy"
    deadline: Deadline = field(default_factory=lambda: Deadline(None, waiting=True))
    steps: int = 1_000_000  # search steps per node before answering unknown
    node: str | None = None  # allocate on this node only
    claims: tuple[str, ...] | None = None  # these claims ([namespace/]name) together, in order
    objective: str | None = None  # cpsat: which allocation to prefer
    dump_model: str | None = None  # cpsat: write the model here
    scheduling: Scheduling = field(default_factory=Scheduling)
    explain: bool = True  # FailedScheduling events carry explain's summary of the reasons


def allocate(request: AllocateRequest) -> Answer:
    from ..model.solution import Status
    from ..solver import engines
    from ..translate.dra.build import build
    from .render import render_list

    gates = request.input.gates
    objects = load_valid(request.input, api_problems_are_errors=False, meanwhile=process.scheduling_imports())
    names.check_node(objects, request.node)
    names.check_claims(objects, request.claims)
    names.check_scheduler_name(objects, gates, request.scheduling.scheduler_name)
    request.deadline.begin()
    process.collect_no_more()
    claims = list(request.claims) if request.claims is not None else None
    s = request.scheduling
    built = build(objects, gates, request.node, claims, s.seed, s.scheduler_name, s.now)
    options = {"objective": request.objective, "dump_model": request.dump_model}
    engine = engines.get(request.engine, **{k: v for k, v in options.items() if v})
    engines.check_supported(engine, built.problem)
    # One budget for the run after reading: the scheduler's run, then the reasons with what is left.
    clock = request.deadline
    solution = engine.solve(built.problem, engines.Budget(request.steps, clock.left()))
    process.keep(built, solution)
    messages = None
    if request.explain:
        # Only units proven not to fit: an allocator error already says exactly what stopped it, and
        # a unit the budget left undecided would only spend the budget again.
        failed = frozenset(o.unit for o in solution.units if o.status == Status.UNSATISFIABLE)
        if failed:
            from ..solver.explain import Options, explain

            why = Options(clock.left(), request.steps, failed)
            messages = {u.unit: u.summary for u in explain(built, solution, why) if not u.fits}
    doc = render_list(built, solution, messages, lazy=True)  # made as it is written, if it is
    fmt = request.fmt
    text = allocation_table(built, solution, messages)
    if fmt == "wide":
        from ..solver.cluster.report import scores_text

        text += scores_text(built.problem, solution)
    process.settle()
    notes = tuple(
        f"{built.problem.units[unit.unit].name}: {unit.message}"
        for unit in solution.units
        if unit.status != Status.ALLOCATED
    )
    code = EXIT_OK if solution.status == Status.ALLOCATED else EXIT_NO_FIT
    return Answer(doc, text, code, "table" if fmt == "wide" else fmt, notes=notes)


def allocation_table(built: Any, solution: Any, summaries: dict[int, str] | None = None) -> str:
    from ..solver.cluster.report import evictions
    from .render import with_summary

    problem = built.problem
    rows = []
    # A pod placed and preempted later in the run is listed with the other pods preempted.
    gone = {e.victim.key for e in solution.evictions}
    for outcome in solution.units:
        unit = problem.units[outcome.unit]
        if unit.pod and unit.pod in gone:
            continue
        if not outcome.allocations:
            rows.append([unit.name, str(outcome.status), outcome.node or "-", "-", "-", "-"])
        for allocation in outcome.allocations:
            claim = problem.claims[allocation.claim]
            for r in allocation.results or ():
                device = problem.devices[r.device]
                rows.append(
                    [
                        unit.name,
                        str(outcome.status),
                        outcome.node,
                        claim.ref,
                        r.request,
                        f"{device.driver}/{device.pool}/{device.name}",
                    ]
                )
    evicted, lines = evictions(solution)
    text = table(["UNIT", "STATUS", "NODE", "CLAIM", "REQUEST", "DEVICE"], rows + evicted)
    messages = [
        f"{problem.units[o.unit].name}: {with_summary(o.message, (summaries or {}).get(o.unit))}"
        for o in solution.units
        if o.message and problem.units[o.unit].pod not in gone
    ]
    messages += lines
    # Where greedy gave up and another engine settled it, say who decided (as the YAML annotates).
    messages += [
        f"{problem.units[o.unit].name}: decided by {o.decided_by}" + (f": {o.note}" if o.note else "")
        for o in solution.units
        if o.decided_by
    ]
    return text + ("\n" + lines_text(messages) if messages else "")
