"""The batch planner: every pending pod placed at once, the most pods (by priority) first, then the chosen
objective; or kube-scheduler's own placement, one pod at a time (`greedy`), to compare with.

cpsat plans as pipeline: classes of interchangeable pods (classes.py), where each may go by the
scheduler's filters (static.py), one model (model.py, dra_node.py, interplay.py) solved in stages
(solve.py) from kube-scheduler's placement (hints.py), decoded to pods and devices (decode.py), and
replayed on the scheduler's state (replay.py): its filters check every planned pod, and say why the pods
left pending fit nowhere.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ...engines import Budget
from ...greedy import GreedyEngine
from ...problem import Problem
from ...solution import Solution, Status, UnitOutcome
from ...validate import validate
from .. import names
from ..scheduler import Run
from .classes import PodClass, classes
from .decode import Placement, decode
from .hints import from_solution
from .interplay import interplay
from .kubelet import kubelet_nodes, rejections
from .model import PlanModel, build
from .objective import OBJECTIVES, placement_levels, secondary
from .reasons import pending_reasons
from .replay import replay, violations, why_pending
from .solve import Progress, Stage, run_stages
from .static import Reach, reach, setup
from .summary import priority_of

__all__ = ["OBJECTIVES", "PlanError", "PlanOptions", "PlanResult", "plan"]


class PlanError(RuntimeError):
    """A plan that the scheduler's filters or the Solution validator reject: a bug, never an answer."""


@dataclass(frozen=True)
class PlanOptions:
    engine: str = "cpsat"
    objective: str = "pack"
    time_limit: float | None = 60.0
    workers: int = 1
    progress: bool = False
    optional_nodes: tuple[str, ...] = ()  # capacity planning: nodes that exist only if the plan opens them
    # Capacity planning: every pod of at least this priority must be placed (None: as many as fit).
    require_priority: int | None = None
    # Plan interchangeable GPUs by placement patterns where nothing else binds (patterns.py); the
    # objectives other than pack look at single nodes, so they plan every node on its own.
    pooling: bool = True


@dataclass
class PlanResult:
    engine: str
    solution: Solution
    status: str  # optimal | feasible | unknown | heuristic (greedy proves nothing)
    seconds: float
    stages: list[Stage] = field(default_factory=list)
    placements: dict[int, Placement] = field(default_factory=dict)
    bound: int | None = None  # the most pods any plan places, as far as proven (placement stages summed)
    note: str = ""
    opened: tuple[str, ...] = ()  # optional nodes the plan uses
    messages: dict[int, str] = field(default_factory=dict)  # pending unit -> explain's summary


def plan(
    problem: Problem, options: PlanOptions, built: Any = None, baseline: Solution | None = None
) -> PlanResult:
    """`built` (translate's Built, with the objects) lets the kubelets the input describes admit the plan;
    `baseline` is kube-scheduler's placement when the caller has it already."""
    start = time.monotonic()
    deadline = start + options.time_limit if options.time_limit is not None else None

    def left() -> float | None:
        return max(0.0, deadline - time.monotonic()) if deadline is not None else None

    if options.engine == "greedy":
        alone = baseline or GreedyEngine().solve(problem, Budget(seconds=options.time_limit))
        return PlanResult(
            "greedy", alone, "heuristic", time.monotonic() - start, placements=_greedy_placements(alone)
        )
    run = setup(problem)
    groups = classes(problem, run.pods, problem.units, run.dra)
    unclaimed = without_dra(run, groups)
    reaches = [reach(run, c, with_scores=options.objective == "scheduler") for c in groups]
    pm = build(
        run, groups, reaches, options.optional_nodes, pooling=options.pooling and options.objective == "pack"
    )
    interplay(pm)
    if options.require_priority is not None:
        for cls in groups:
            if cls.priority >= options.require_priority:
                pm.model.add(pm.placed(cls) == cls.count)
    stages: list[tuple[str, Any, bool]] = [(f"priority {p}", e, True) for p, e in placement_levels(pm)]
    if pm.optional:
        # Capacity planning: with pods required, the fewest new nodes for them come before placing more of
        # the others; with a cap, the most pods come first.
        at = 0 if options.require_priority is not None else len(stages)
        stages.insert(at, ("new nodes", sum(pm.optional.values()), False))
    expr, maximize = secondary(pm, options.objective)
    stages.append((options.objective, expr, maximize))
    progress = Progress(options.progress)
    kubelets = kubelet_nodes(built) if built is not None else set()
    greedy = baseline
    hint = from_solution(pm, greedy) if greedy is not None else None
    # Without kube-scheduler's placement at hand the model first runs alone for a share of the time: most
    # plans are proven optimal at once, and kube-scheduler's cycle (often the slower part) is not needed.
    probe = greedy is None
    notes: list[str] = []
    for _ in range(KUBELET_ROUNDS):
        budget = left()
        if probe and budget is not None:
            budget = min(budget, max(1.0, budget / 4))
        outcome = run_stages(pm, stages, budget, options.workers, progress, hint)
        if probe and outcome.status != "optimal":
            remaining = left()
            greedy = GreedyEngine().solve(
                problem, Budget(seconds=remaining / 2 if remaining is not None else None)
            )
            hint = from_solution(pm, greedy)
            outcome = run_stages(pm, stages, left(), options.workers, progress, hint)
        probe = False
        placements = decode(pm, outcome.values) if outcome.values is not None else {}
        rejected = rejections(built, placements, kubelets) if kubelets else {}
        if not rejected or outcome.values is None:
            break
        refuse(pm, outcome.values, {placements[u].node for u in rejected})
        hint = dict(enumerate(outcome.values))
    reasons: dict[int, str] = {}
    for unit, why in rejected.items():
        reasons[unit] = (
            f"{why} (the kubelet of node {placements.pop(unit).node}, where the plan would put it)"
        )
    # kube-scheduler's placement stands in when the model fell short of it within the time, unless it
    # preempted running pods (a plan evicts nobody) or a kubelet admits what kube-scheduler places.
    if (
        greedy is not None
        and not pm.optional
        and not kubelets
        and not greedy.evictions
        and _placed_vector(problem, placements) < _placed_vector(problem, _greedy_placements(greedy))
    ):
        placements = _greedy_placements(greedy)
        notes.append(
            "the time ran out before the model matched kube-scheduler's placement: this is kube-scheduler's"
        )
    solution, checked = finish(problem, placements, reaches, groups, reasons, unclaimed)
    bound = sum(s.bound for s in outcome.stages if s.name.startswith("priority")) if outcome.stages else None
    if outcome.values is None:
        bound = None
    opened = tuple(n for n in options.optional_nodes if any(p.node == n for p in placements.values()))
    messages = pending_reasons(built, solution, groups, left()) if built is not None else {}
    return PlanResult(
        "cpsat",
        solution,
        outcome.status,
        time.monotonic() - start,
        outcome.stages,
        placements,
        bound,
        "; ".join([*notes, *checked]),
        opened,
        messages,
    )


KUBELET_ROUNDS = 20


def without_dra(run: Run, groups: list[PodClass]) -> frozenset[int]:
    """Units whose scheduler profile does not run DynamicResources (its gate off, or the plugin disabled):
    kube-scheduler places them without looking at their claims, and so does the plan."""
    out: set[int] = set()
    for cls in groups:
        fw = run.frameworks.get(run.cluster.scheduler_name or cls.pod.scheduler_name)
        if fw is not None and fw.plugin(names.DYNAMIC_RESOURCES) is None:
            cls.claims = [[] for _ in cls.pods]
            out.update(u.id for u in cls.units)
    return frozenset(out)


def refuse(pm: PlanModel, values: list[int], nodes: set[str]) -> None:
    """On each node, not all of the pods the plan put there: some class gets fewer."""
    for node in sorted(nodes):
        placed = [(cls, var) for cls, var in pm.on_node(node) if values[var.index] > 0]
        fewer = []
        for cls, var in placed:
            lit = pm.model.new_bool_var(f"fewer_k{cls.index}_{node}")
            pm.model.add(var <= values[var.index] - 1).only_enforce_if(lit)
            fewer.append(lit)
        pm.model.add_bool_or(fewer)


def _greedy_placements(greedy: Solution) -> dict[int, Placement]:
    return {
        o.unit: Placement(o.unit, o.node, o.allocations) for o in greedy.units if o.status == Status.ALLOCATED
    }


def _placed_vector(problem: Problem, placements: dict[int, Placement]) -> list[int]:
    """Pods placed per priority, highest first (compared lexicographically)."""
    priorities = {unit.id: priority_of(problem, unit.id) for unit in problem.units}
    levels = sorted(set(priorities.values()), reverse=True)
    return [sum(1 for u in placements if priorities[u] == p) for p in levels]


def finish(
    problem: Problem,
    placements: dict[int, Placement],
    reaches: list[Reach],
    groups: list[PodClass],
    reasons: dict[int, str] | None = None,
    unclaimed: frozenset[int] = frozenset(),
) -> tuple[Solution, list[str]]:
    """The plan as a Solution, checked by the scheduler's filters and the Solution validator. A pod a
    filter rejects where the model put it (the model is stricter than the filters by design, so this is a
    safety net) is left pending, and so are the other members of its gang; the notes say which."""
    notes: list[str] = []
    gang_of = {u.id: u.gang.name for u in problem.units if u.gang is not None}
    for _ in range(len(problem.units) + 1):
        state = replay(problem, placements)
        broken = violations(state, placements)
        if not broken:
            break
        gangs = {gang_of[u] for u in broken if u in gang_of}
        for uid, why in broken.items():
            notes.append(f"left pending after the filters' check: {why}")
            placements.pop(uid, None)
        for uid in [u for u in placements if gang_of.get(u) in gangs]:
            placements.pop(uid)
    error_of = {u.id: r.error for cls, r in zip(groups, reaches, strict=True) for u in cls.units if r.error}
    error_of.update(reasons or {})
    error_of.update(_short_gangs(problem, placements))
    outcomes = []
    for unit in problem.units:
        placed = placements.get(unit.id)
        if placed is not None:
            outcomes.append(UnitOutcome(unit.id, Status.ALLOCATED, placed.node, placed.allocations))
        elif unit.id in error_of:
            status = Status.ERROR if unit.error and unit.error == error_of[unit.id] else Status.UNSATISFIABLE
            outcomes.append(UnitOutcome(unit.id, status, message=error_of[unit.id]))
        else:
            outcomes.append(UnitOutcome(unit.id, Status.UNSATISFIABLE, message=why_pending(state, unit)))
    solution = Solution("plan", tuple(outcomes))
    # Pods whose scheduler does not run DynamicResources are placed without their claims, as it places
    # them: the allocator's rules have nothing to check there.
    checked_units = tuple(
        UnitOutcome(o.unit, Status.UNSATISFIABLE) if o.unit in unclaimed else o for o in solution.units
    )
    invalid = validate(problem, Solution("plan", checked_units))
    if invalid:
        # A safety net like the filters' above: never print a plan the validator refuses. Such pods wait
        # (with their gangs), and the plan is checked again.
        broken_units = {v.unit for v in invalid}
        for v in invalid:
            notes.append(f"left pending after the validator's check: {v}")
        gangs = {gang_of[u] for u in broken_units if u in gang_of}
        kept = {u: p for u, p in placements.items() if u not in broken_units and gang_of.get(u) not in gangs}
        if len(kept) == len(placements):
            raise PlanError("the plan breaks the allocator's rules: " + "; ".join(map(str, invalid[:5])))
        solution, more = finish(problem, kept, reaches, groups, reasons, unclaimed)
        return solution, [*notes, *more]
    return solution, notes


def _short_gangs(problem: Problem, placements: dict[int, Placement]) -> dict[int, str]:
    """Members left pending because their gang cannot reach its minimum in the plan."""
    placed: dict[str, int] = {}
    for unit in problem.units:
        if unit.gang is not None:
            placed[unit.gang.name] = placed.get(unit.gang.name, 0) + (unit.id in placements)
    out = {}
    for unit in problem.units:
        gang = unit.gang
        if gang is None or unit.id in placements or gang.bound + placed[gang.name] >= gang.min_count:
            continue
        out[unit.id] = (
            f'pod group "{gang.name}" needs {gang.min_count} pods placed together, and the plan cannot place '
            "that many beside the pods it places"
        )
    return out
