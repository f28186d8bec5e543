"""The batch planner: every pending pod placed at once, the most pods (by priority) first, then the chosen
objective; or kube-scheduler's own placement, one pod at a time (`greedy`), to compare with.

One time budget (`--time-limit`, a Deadline) covers every phase after the input is read, in this order:
1. kube-scheduler's pass (the greedy engine's cycle, pod after pod): the placement the plan never falls
   below. If it cannot finish in the budget the answer is what it placed so far, `unknown`.
2. building the model: classes of interchangeable pods (classes.py), where each may go by the scheduler's
   filters (static.py), one CP-SAT model (model.py: placement patterns where the claims allow, pool.py;
   each node's devices otherwise, dra_node.py; rules between pods, interplay.py);
3. solving it in stages from kube-scheduler's placement (solve.py, hints.py), keeping time back for
4. checking: the model's plan decoded to pods and devices (decode.py), replayed on the scheduler's state
   (its filters check every planned pod, and say why the pods left pending fit nowhere) and checked by the
   Solution validator (check.py); and for the explanations and the output.
When the budget ends before the model matches kube-scheduler's placement, the answer is that placement.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any

from ....model.cluster import names
from ....model.node.planned import KubeletFacts
from ....model.problem import Problem
from ....model.solution import Solution, Status
from ... import registry
from ...deadline import Deadline
from ...engines import Budget
from ...greedy import GreedyEngine
from ...result_annotations import printing_seconds
from ..scheduler import Run
from .check import PlanError, finish
from .classes import PodClass, classes
from .decode import Placement, decode
from .hints import from_solution
from .interplay import interplay
from .kubelet import kubelet_nodes, rejections
from .model import PlanModel, build
from .objective import OBJECTIVES, placement_levels, secondary
from .progress import Progress
from .reasons import pending_reasons
from .solve import Goal, Stage, run_stages
from .static import reach, setup
from .summary import priority_of

__all__ = ["OBJECTIVES", "PlanError", "PlanOptions", "PlanResult", "plan"]

log = logging.getLogger("kubefit")


@dataclass(frozen=True)
class PlanOptions:
    engine: str = "cpsat"
    objective: str = "pack"
    time_limit: float | None = 60.0
    workers: int = 1
    progress: bool | Progress = False
    optional_nodes: tuple[str, ...] = ()  # capacity planning: nodes that exist only if the plan opens them
    # Capacity planning: every pod of at least this priority must be placed (None: as many as fit).
    require_priority: int | None = None
    # Plan interchangeable GPUs by placement patterns where the claims allow it (patterns.py, pool.py).
    pooling: bool = True
    # A budget the caller spends too (capacity planning, compare); else `time_limit` from the call.
    deadline: Deadline | None = None
    # The answer prints every pod (-o json|yaml): kube-scheduler's own answer (`greedy`) with its
    # annotations, whose printing the budget keeps time for.
    document: bool = False
    # The nodes whose kubelet the input describes admit the plan's pods (their facts read from the input).
    kubelet: KubeletFacts | None = None


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
    paths: dict[str, int] = field(default_factory=dict)  # how the placed pods were planned -> pods
    baseline: Solution | None = None  # kube-scheduler's placement, as the plan started from it


def plan(
    problem: Problem, options: PlanOptions, built: Any = None, baseline: Solution | None = None
) -> PlanResult:
    """`built` (translate's Built, with the objects) lets explain say why the pods left pending fit nowhere;
    `baseline` is kube-scheduler's placement when the caller has it already."""
    clock = options.deadline or Deadline(options.time_limit)
    progress = options.progress if isinstance(options.progress, Progress) else Progress(False)
    progress.deadline = clock
    # The engine's plan is kube-scheduler's own pass ("pass": greedy), or the model started from it.
    passing = registry.planner(options.engine) == "pass"
    annotated = passing and options.document
    greedy = baseline if baseline is not None else kube_scheduler(problem, clock, progress, annotated)
    if passing or greedy.cut:
        result = _kube_schedulers(problem, greedy, clock, options.engine)
        progress.enter("printing")
        log.info("plan: %s", progress.timings())
        return result
    return Planner(problem, options, built, greedy, clock, progress).run()


def kube_scheduler(
    problem: Problem, clock: Deadline, progress: Progress, annotated: bool = False
) -> Solution:
    """kube-scheduler's pass over the pending pods, stopped (Solution.cut) where the budget ends, less the
    time printing the answer takes (`annotated`: with kube-scheduler's annotations on every pod)."""
    progress.enter("kube-scheduler's pass")
    cutoff = None if clock.end is None else clock.end - printing(problem)
    cost = printing_seconds if annotated else None
    return GreedyEngine().solve(problem, Budget(cutoff=cutoff, tried=progress.tried, printing=cost))


def _kube_schedulers(problem: Problem, greedy: Solution, clock: Deadline, engine: str) -> PlanResult:
    placements = greedy_placements(greedy)
    if not greedy.cut:
        return PlanResult(
            engine, greedy, "heuristic", clock.elapsed(), placements=placements, baseline=greedy
        )
    tried = len(problem.units) - greedy.cut
    note = (
        f"the time limit ran out during kube-scheduler's pass: it reached {tried} of {len(problem.units)} "
        f"pods and placed {len(placements)}; the other {greedy.cut} were not tried, nothing is proven"
    )
    solution = greedy if registry.planner(engine) == "pass" else as_plan(greedy)
    return PlanResult(engine, solution, "unknown", clock.elapsed(), placements=placements, note=note)


def as_plan(greedy: Solution) -> Solution:
    """kube-scheduler's placement as a plan's answer: its pods without the record of each node's verdicts
    and scores (kube-scheduler's own answer, `--engine greedy` or `allocate`, shows them; at 1,000 nodes
    printing them takes longer than the pass), but for what the pod's status shows (a pod held out of
    the queue, a nominated node)."""
    units = tuple(
        o if o.record is None or o.record.gated or o.record.nominated else replace(o, record=None)
        for o in greedy.units
    )
    return Solution("plan", units, greedy.evictions, greedy.cut)


def printing(problem: Problem) -> float:
    """Seconds kept back at the end of the budget for printing the answer's objects (claims, pods,
    events: about 0.3 CPU ms a pod, 0.7 ms on a loaded machine)."""
    return 0.2 + 0.001 * len(problem.units)


class Planner:
    def __init__(
        self,
        problem: Problem,
        options: PlanOptions,
        built: Any,
        greedy: Solution,
        clock: Deadline,
        progress: Progress,
    ) -> None:
        self.problem = problem
        self.options = options
        self.built = built
        self.greedy = greedy
        self.clock = clock
        self.progress = progress
        self.notes: list[str] = []

    def run(self) -> PlanResult:
        problem, options, clock = self.problem, self.options, self.clock
        self.progress.enter("building")
        run = setup(problem)
        groups = classes(problem, run.pods, problem.units, run.dra)
        unclaimed = without_dra(run, groups)
        reaches = [reach(run, c, with_scores=options.objective == "scheduler") for c in groups]
        pm = build(
            run,
            groups,
            reaches,
            options.optional_nodes,
            pooling=options.pooling,
            shared=options.objective == "pack",
            deadline=clock,
        )
        if pm is None:
            return self.fallback("the time ran out while the model was being built")
        interplay(pm)
        if options.require_priority is not None:
            for cls in groups:
                if cls.priority >= options.require_priority:
                    pm.model.add(pm.placed(cls) == cls.count)
        stages = self.stages(pm)
        kubelets = kubelet_nodes(options.kubelet)
        hint = from_solution(pm, self.greedy)
        reserve = after_solving(problem)
        rejected: dict[int, str] = {}
        placements: dict[int, Placement] = {}
        outcome = None
        for _ in range(KUBELET_ROUNDS):
            outcome = run_stages(
                pm, stages, clock.left(reserve), options.workers, self.progress, hint, self.counts()
            )
            placements = decode(pm, outcome.values) if outcome.values is not None else {}
            rejected = rejections(options.kubelet, problem, placements, kubelets) if options.kubelet else {}
            if not rejected or outcome.values is None:
                break
            refuse(pm, outcome.values, {placements[u].node for u in rejected})
            hint = dict(enumerate(outcome.values))
        assert outcome is not None
        reasons = {
            unit: f"{why} (the kubelet of node {placements.pop(unit).node}, where the plan would put it)"
            for unit, why in rejected.items()
        }
        bound = bound_of(pm, outcome.stages) if outcome.values is not None else None
        # kube-scheduler's placement stands when the model fell short of it within the time, unless it
        # preempted running pods (a plan evicts nobody) or a kubelet admits what kube-scheduler places.
        greedy = self.greedy
        if (
            not pm.optional
            and not kubelets
            and not greedy.evictions
            and placed_vector(problem, placements) < placed_vector(problem, greedy_placements(greedy))
        ):
            why = "the time ran out before the model matched kube-scheduler's placement"
            return self.fallback(why, bound, outcome.stages)
        self.progress.enter("checking")
        proven = outcome.status == "optimal"
        solution, checked = finish(
            problem, placements, reaches, groups, reasons, unclaimed, proven, clock.end
        )
        opened = tuple(n for n in options.optional_nodes if any(p.node == n for p in placements.values()))
        messages = self.explained(solution, groups)
        taken = paths(pm, placements)
        log.info("plan: pods placed by %s", ", ".join(f"{k} {v}" for k, v in sorted(taken.items())) or "none")
        self.progress.enter("printing")
        log.info("plan: %s", self.progress.timings())
        return PlanResult(
            self.options.engine,
            solution,
            outcome.status,
            clock.elapsed(),
            outcome.stages,
            placements,
            bound,
            "; ".join([*self.notes, *checked]),
            opened,
            messages,
            taken,
            greedy,
        )

    def stages(self, pm: PlanModel) -> list[Goal]:
        """Each priority's pods placed, highest first, each stage also preferring the lower priorities'
        pods so that its plans stay whole when the time runs out; then the objective. Capacity planning
        puts the fewest new nodes first when pods are required."""
        levels = placement_levels(pm)
        stages: list[Goal] = []
        for i, (p, expr) in enumerate(levels):
            lower = sum(e for _, e in levels[i + 1 :])
            weight = sum(c.count for c in pm.classes if c.priority < p) + 1
            stages.append(Goal(f"priority {p}", expr, True, weight, lower))
        if pm.optional:
            at = 0 if self.options.require_priority is not None else len(stages)
            stages.insert(at, Goal("new nodes", sum(pm.optional.values()), False))
        expr, maximize = secondary(pm, self.options.objective)
        stages.append(Goal(self.options.objective, expr, maximize))
        return stages

    def counts(self) -> dict[str, int]:
        """kube-scheduler's pods placed per stage name (the progress line compares)."""
        placed = greedy_placements(self.greedy)
        out: dict[str, int] = {}
        for unit in placed:
            name = f"priority {priority_of(self.problem, unit)}"
            out[name] = out.get(name, 0) + 1
        return out

    def fallback(self, why: str, bound: int | None = None, stages: list[Stage] | None = None) -> PlanResult:
        """kube-scheduler's placement as the plan: what it placed stands, with its own reasons for the
        pods it left pending; nothing better is proven (a model that proved it optimal would have matched
        it)."""
        greedy = self.greedy
        placements = greedy_placements(greedy)
        return PlanResult(
            self.options.engine,
            Solution("plan", as_plan(greedy).units),
            "feasible",
            self.clock.elapsed(),
            stages or [],
            placements,
            bound,
            "; ".join([*self.notes, f"{why}: this is kube-scheduler's placement"]),
            paths={"kube-scheduler": len(placements)},
            baseline=greedy,
        )

    def explained(self, solution: Solution, groups: list[PodClass]) -> dict[int, str]:
        """explain's minimal reasons for the pods left pending, in at most a quarter of the budget (they
        add detail to the scheduler's own message; the plan does not wait long for them)."""
        if self.built is None:
            return {}
        self.progress.enter("explaining")
        left = self.clock.left(after_solving(self.problem) / 2)
        if left is not None and self.clock.seconds is not None:
            left = min(left, EXPLAINING * self.clock.seconds)
            if left <= 0:
                return {}
        return pending_reasons(self.built, solution, groups, left)


KUBELET_ROUNDS = 20
EXPLAINING = 0.25  # the share of the budget explanations may take at most


def after_solving(problem: Problem) -> float:
    """Seconds kept back from solving for checking, explaining and printing the plan (about what they
    take per pod here, with room for a slower machine); explanations stop at half of it, which leaves
    printing what `printing` keeps back for it."""
    return 0.5 + 0.002 * len(problem.units)


def bound_of(pm: PlanModel, stages: list[Stage]) -> int:
    """The most pods a (lexicographically best) plan places, as far as the stages proved: a level whose
    stage did not finish counts all its pods."""
    proven = {s.name: s.bound for s in stages if s.name.startswith("priority") and s.status != "unknown"}
    total = 0
    for p, _ in placement_levels(pm):
        level = sum(c.count for c in pm.classes if c.priority == p)
        total += min(level, proven.get(f"priority {p}", level))
    return total


def paths(pm: PlanModel, placements: dict[int, Placement]) -> dict[str, int]:
    """Placed pods by how the model planned their node: `pooled` (GPUs shared across nodes by patterns),
    `patterns` (a node's own GPUs by patterns), `per-node` (each device), `no devices`."""
    pool = pm.pool
    linked = set(pool.linked) if pool is not None else set()
    out: dict[str, int] = {}
    for unit, placed in placements.items():
        if placed.node in pm.dra:
            path = "per-node"
        elif placed.node in linked:
            path = "patterns"
        elif any(placed.allocations):
            path = "pooled"
        else:
            path = "no devices"
        del unit
        out[path] = out.get(path, 0) + 1
    return out


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


def greedy_placements(greedy: Solution) -> dict[int, Placement]:
    return {
        o.unit: Placement(o.unit, o.node, o.allocations) for o in greedy.units if o.status == Status.ALLOCATED
    }


def placed_vector(problem: Problem, placements: dict[int, Placement]) -> list[int]:
    """Pods placed per priority, highest first (compared lexicographically)."""
    priorities = {unit.id: priority_of(problem, unit.id) for unit in problem.units}
    levels = sorted(set(priorities.values()), reverse=True)
    return [sum(1 for u in placements if priorities[u] == p) for p in levels]
