"""kube-scheduler over a whole cluster: the queue, one cycle per pod, assumed placements, preemption.

Pods are taken in queue order (PrioritySort: priority, then creation — the order of the
Problem's units). Each is scheduled by the profile its schedulerName names, one cycle at a
time; a placed pod is assumed on its node and later cycles see it. A pod that fits nowhere
may preempt (DefaultPreemption): its victims are evicted at once and it is nominated to the
node. Pods that did not fit are tried again once the cluster changed in a way that can help
them (pods evicted; a pod placed, for pods held back by pod affinity or topology spread),
as the scheduling queue moves them back on those events, until nothing changes. PodGroups
with a gang policy that cannot reach their minimum give back what their members took, and
the run starts over without them.

This is where an engine's search on one node meets the scheduler: the queue here drives the run's
state (`run_state`), the pod cycle (`cycle`) and the PodGroup cycle (`podgroup.cycles`).
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from dataclasses import replace

from ...model.cluster import names
from ...model.cluster.record import Record
from ...model.problem import Problem, Unit
from ...model.solution import NodeOutcome, Solution, Status, UnitOutcome
from ..engines import Budget
from ..units import NodeAnswer, NodeSearch, short_gangs
from .framework import Code
from .plugins.dynamic_resources import AllocatorError
from .podgroup.cycles import GroupCycles
from .run_state import RunState
from .runtime import FrameworkError

# The PodScheduled condition's message for a pod held back by its scheduling gates.
SCHEDULING_GATED = "Scheduling is blocked due to non-empty scheduling gates"

# Rejections that a pod placed elsewhere can lift (the queue moves such pods back on pod-add events).
_POD_EVENTS = frozenset({names.INTER_POD_AFFINITY, names.POD_TOPOLOGY_SPREAD})


def solve_units(
    problem: Problem, budget: Budget, engine: str, search: NodeSearch, proves: bool = False
) -> Solution:
    """Every unit through kube-scheduler's cycle, the engine's `search` deciding DRA on each node;
    `proves` engines also say whether each answer is proven (Solution.proof)."""
    deadline = time.monotonic() + budget.seconds if budget.seconds is not None else None
    if budget.cutoff is not None:
        # Where the queue stops, a search under way stops too (one pod's search can outlast any budget):
        # that pod is left undecided, as the pods after it are.
        deadline = budget.cutoff if deadline is None else min(deadline, budget.cutoff)
    refused: dict[int, str] = {}
    with _old_objects_left_alone():
        while True:
            run = Run(problem, budget, search, deadline, refused)
            outcomes = run.all()
            short = short_gangs(problem, outcomes)
            if run.cut:
                # No time to start over without the short gangs: their members wait, undecided.
                outcomes = [_unreached(o) if _in(problem, o, short) else o for o in outcomes]
                short = {}
            if not short:
                if proves:
                    outcomes = [_with_proof(o) for o in outcomes]
                return Solution(engine, tuple(outcomes), tuple(run.evictions), run.cut)
            for unit in problem.units:
                if unit.gang is not None and unit.gang.name in short:
                    refused[unit.id] = short[unit.gang.name]


# Why a pod the queue did not reach before the cutoff (a plan's time limit) has no answer.
NOT_REACHED = "not scheduled: the time limit ran out before kube-scheduler's pass reached it"


def _unreached(outcome: UnitOutcome) -> UnitOutcome:
    return UnitOutcome(outcome.unit, Status.UNKNOWN, message=NOT_REACHED)


def _in(problem: Problem, outcome: UnitOutcome, gangs: dict[str, str]) -> bool:
    gang = problem.units[outcome.unit].gang
    return gang is not None and gang.name in gangs


@contextlib.contextmanager
def _old_objects_left_alone() -> Iterator[None]:
    """No full pass of the cyclic garbage collector while the run lasts: a run makes many small objects,
    and each full pass would walk the millions there are before it (the whole cluster's facts) again.
    Young objects are still collected; the thresholds are put back after."""
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], _NEVER)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


# A count of young-generation passes that is never reached.
_NEVER = 2**31 - 1


def _with_proof(outcome: UnitOutcome) -> UnitOutcome:
    proof = {
        Status.UNSATISFIABLE: "infeasible",
        Status.UNKNOWN: "unknown",
        Status.ALLOCATED: outcome.proof or "optimal",
        Status.ERROR: "",
    }[outcome.status]
    return replace(outcome, proof=proof)


class Run(RunState):
    """One pass of the queue over every unit, with its own snapshot, DRA state and nominations; the pods
    of a PodGroup go through the group's cycle."""

    def __init__(
        self,
        problem: Problem,
        budget: Budget,
        search: NodeSearch,
        deadline: float | None,
        refused: dict[int, str],
    ) -> None:
        super().__init__(problem, budget, search, deadline, refused)
        groups = self.cluster.groups
        self.group_cycles = GroupCycles(self, groups) if groups is not None else None

    # --- the queue ---------------------------------------------------------------------------------

    def all(self) -> list[UnitOutcome]:
        outcomes: dict[int, UnitOutcome] = {}
        # Pods that did not fit, waiting for a change that can help them: unit -> (pods placed and pods
        # evicted when it was last tried, whether a pod placed later can lift its rejections).
        waiting: dict[int, tuple[int, int, bool]] = {}
        tries: dict[int, int] = {}
        queue = [u.id for u in self.problem.units]
        cutoff = self.budget.cutoff
        cost = self.budget.printing
        printing = 0.0  # seconds that printing the outcomes so far will take (kept back from the cutoff)
        for _ in range(len(queue) + 2):
            self.pass_no += 1
            for uid in queue:
                unit = self.problem.units[uid]
                if cutoff is not None and (self.cut or time.monotonic() + printing >= cutoff):
                    # A pod tried before keeps that answer; one never tried has none.
                    if uid not in outcomes:
                        outcomes[uid] = _unreached(UnitOutcome(uid, Status.UNKNOWN))
                        self.cut += 1
                    waiting.pop(uid, None)
                    continue
                tries[uid] = tries.get(uid, 0) + 1
                if self.budget.tried is not None:
                    self.budget.tried(len(tries), len(self.problem.units))
                before = (self.clock[0], self.clock[1])
                outcome = self.one(unit, tries[uid])
                if cost is not None:
                    printing += cost(outcome) - (cost(outcomes[uid]) if uid in outcomes else 0.0)
                outcomes[uid] = outcome
                waiting.pop(uid, None)
                if outcome.status == Status.ALLOCATED:
                    self.placed[uid] = outcome
                    self.clock[0] += 1
                elif (
                    outcome.status == Status.UNSATISFIABLE
                    and uid not in self.refused
                    and not self.unit_evicted(uid)
                ):
                    waiting[uid] = (before[0], before[1], _pod_events(outcome))
            # The queue moves a pod back when pods are evicted, or when a pod is placed and the pod waits
            # for pod affinity or topology spread; in queue order.
            queue = [
                u.id
                for u in self.problem.units
                if u.id in waiting
                and (
                    self.clock[1] > waiting[u.id][1]
                    or (waiting[u.id][2] and self.clock[0] > waiting[u.id][0])
                )
            ]
            if self.group_cycles is not None:
                queue = self.group_cycles.with_mates(queue, waiting)
            if not queue:
                break
        for uid, outcome in list(outcomes.items()):
            if self.unit_evicted(uid):
                outcomes[uid] = self.evicted_outcome(uid, outcome)
        return [outcomes[u.id] for u in self.problem.units]

    # --- one pod -----------------------------------------------------------------------------------

    def one(self, unit: Unit, attempt: int) -> UnitOutcome:
        if unit.id in self.refused:
            return UnitOutcome(unit.id, Status.UNSATISFIABLE, message=self.refused[unit.id])
        if unit.error:
            return UnitOutcome(unit.id, Status.ERROR, message=unit.error)
        pod = self.pods[unit.id]
        profile = self.cluster.scheduler_name or pod.scheduler_name
        fw = self.frameworks.get(profile)
        if fw is None:
            message = (
                f'pod names scheduler "{profile}", which has no profile in the KubeSchedulerConfiguration: '
                "kube-scheduler leaves it to that scheduler"
            )
            return UnitOutcome(unit.id, Status.UNKNOWN, message=message)
        for plugin in fw.pre_enqueue:
            gate = getattr(plugin, "pre_enqueue", None)
            status = gate(pod) if gate is not None else None
            if status is not None and status.code != Code.SUCCESS:
                record = Record(profile=profile, gated=status.message, attempts=attempt, gated_by=plugin.name)
                message = SCHEDULING_GATED if plugin.name == names.SCHEDULING_GATES else status.message
                return UnitOutcome(unit.id, Status.UNSATISFIABLE, message=message, record=record)
        if self.group_cycles is not None and self.group_cycles.handles(pod):
            return self.group_cycles.outcome(unit, attempt, profile)
        nodes = self.candidates(unit)
        steps = self.dra.steps
        self.current = unit.id
        try:
            result = self.cycles[profile].run(pod, nodes, self.nominated, post_filter=bool(unit.pod))
        except AllocatorError as e:
            outcome = NodeOutcome(e.node, Status.ERROR, e.answer.message, e.answer.steps)
            return UnitOutcome(unit.id, Status.ERROR, e.node, message=e.answer.message, nodes=(outcome,))
        except FrameworkError as e:
            return UnitOutcome(unit.id, Status.ERROR, message=e.status.message)
        finally:
            self.current = -1
        return self.outcome(unit, pod, result, nodes, self.dra.steps - steps, attempt, profile)


def _pod_events(outcome: UnitOutcome) -> bool:
    record = outcome.record
    if not isinstance(record, Record):
        return False
    if record.rejected_by is not None:
        return not record.rejected_by.isdisjoint(_POD_EVENTS)
    return any(
        plugin in _POD_EVENTS
        for verdicts in record.filters.values()
        for plugin, v in verdicts.items()
        if v != "passed"
    )


__all__ = ["NodeAnswer", "Run", "solve_units"]
