"""The planning verbs' requests (`plan`, `compare`): what both take, their checks, and the planner's options
from them, with the one budget every phase spends (`--time-limit`, a Deadline)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model.errors import InputError
from ..model.solution import Status
from ..runtime import process
from ..solver import registry
from ..solver.cluster.plan.capacity import MAX_COPIES
from ..solver.cluster.plan.planner import PlanOptions, PlanResult
from ..solver.cluster.plan.progress import Progress
from ..solver.cluster.plan.summary import priority_of
from ..solver.deadline import Deadline
from .loading import load_valid
from .requests import Input

# CP-SAT's threads each hold a copy of the model: more than this many only cost memory.
MAX_WORKERS = 256

# (paths) -> Built: load, validate and build the Problem, as the other verbs do.
Builder = Callable[[list[str]], Any]


@dataclass(frozen=True)
class Planning:
    """What `plan` and `compare` both take."""

    input: Input
    fmt: str
    objective: str = "pack"  # after the most pods: pack, spread or scheduler
    # One budget for everything after reading (the command line's default: 60 s).
    deadline: Deadline = field(default_factory=lambda: Deadline(60.0, waiting=True))
    workers: int = 1  # CP-SAT workers
    progress: bool | None = None  # progress lines on stderr (None: when stderr is a terminal)


@dataclass(frozen=True)
class PlanRequest(Planning):
    """`plan`: `fmt` json, yaml, table or wide (the summary, then every pod)."""

    engine: str = "cpsat"
    template: str | None = None  # a Node with its ResourceSlices, to add copies of
    max_new_nodes: int | None = None  # at most this many copies
    min_priority: int | None = None  # capacity planning: only pods of at least this priority must fit


def builder(source: Input) -> Builder:
    """Load, validate and build the Problem of `source` (or of other paths: the input with node copies)."""
    from ..translate.dra.build import build

    gates = source.gates

    def make(paths: list[str]) -> Any:
        objects = load_valid(Input(tuple(paths), source.strict, gates), False)
        built = build(objects, gates, None, None, None, None)
        process.keep(built)
        process.settle()  # the planner shows its progress from here on
        return built

    return make


def check(request: Planning) -> None:
    """Flags the parser cannot check alone."""
    if not 1 <= request.workers <= MAX_WORKERS:
        raise InputError(f"--workers {request.workers}: from 1 to {MAX_WORKERS}")
    if not isinstance(request, PlanRequest):
        return
    template = request.template
    for flag, value in (("--max-new-nodes", request.max_new_nodes), ("--min-priority", request.min_priority)):
        if value is not None and not template:
            raise InputError(f"{flag} plans capacity: it needs --node-template")
    if request.max_new_nodes is not None and not 0 <= request.max_new_nodes <= MAX_COPIES:
        # Each copy is a node with its slices, built and planned: as many as the search for the fewest
        # may add at most.
        raise InputError(f"--max-new-nodes {request.max_new_nodes}: from 0 to {MAX_COPIES}")
    if template:
        registry.check_capacity(request.engine)


def options(request: Planning, engine: str, progress: Progress, clock: Deadline, **more: Any) -> PlanOptions:
    seconds = request.deadline.seconds
    return PlanOptions(engine, request.objective, seconds, request.workers, progress, deadline=clock, **more)


def progress_of(request: Planning) -> Progress:
    return Progress(request.progress if request.progress is not None else sys.stderr.isatty())


def all_placed(result: PlanResult, min_priority: int | None, built: Any) -> bool:
    return all(
        o.status == Status.ALLOCATED
        for o in result.solution.units
        if min_priority is None or priority_of(built.problem, o.unit) >= min_priority
    )
