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
"""

from __future__ import annotations

import contextlib
import gc
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from operator import attrgetter

from ..adjustment import Adjustment
from ..claim_holds import ClaimHold
from ..engines import Budget
from ..problem import Problem, Unit
from ..solution import NodeOutcome, Solution, Status, UnitOutcome
from ..units import NodeAnswer, NodeSearch, short_gangs
from . import memo, names
from .cycle import Cycle, CycleResult
from .dra import DraContext, hold_of
from .facts import Cluster, Node, Pod
from .framework import Code, Handle, NodeInfo, Snapshot
from .holdings import Holdings
from .node_outcomes import NodeOutcomes
from .plugins.dynamic_resources import AllocatorError
from .podgroup.cycles import GroupCycles
from .profile import Configuration, default_profile
from .record import Eviction, Record
from .runtime import Framework, FrameworkError, nominated_to_add

# The PodScheduled condition's message for a pod held back by its scheduling gates.
SCHEDULING_GATED = "Scheduling is blocked due to non-empty scheduling gates"

# Rejections that a pod placed elsewhere can lift (the queue moves such pods back on pod-add events).
_POD_EVENTS = frozenset({names.INTER_POD_AFFINITY, names.POD_TOPOLOGY_SPREAD})
_DECIDED_BY = attrgetter("decided_by")


def schedule(
    problem: Problem, budget: Budget, engine: str, search: NodeSearch, proves: bool = False
) -> Solution:
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


def synthesized(problem: Problem) -> Cluster:
    """Cluster facts for a Problem built without them: its nodes, and a pod per unit with the unit's
    requests (what `--claims` allocates together, or a test's units)."""
    seen: dict[str, None] = {}
    for unit in problem.units:
        seen.update(dict.fromkeys(unit.nodes))
    nodes = []
    for name in seen:
        fact = problem.nodes.get(name)
        labels = dict(fact.labels) if fact is not None else {"kubernetes.io/hostname": name}
        allocatable = dict(fact.allocatable or {}) if fact is not None else {}
        nodes.append(Node(name, labels, allocatable=allocatable))
    pending = {u.id: pseudo_pod(u) for u in problem.units}
    return Cluster(tuple(nodes), pending=pending)


def pseudo_pod(unit: Unit) -> Pod:
    namespace, _, name = (unit.pod or f"/{unit.name}").partition("/")
    requests = {k: v for k, v in unit.requests.items() if k != "pods"}
    return Pod(namespace or "default", name or unit.name, f"unit-{unit.id}", requests=requests)


class Run:
    """One pass of the queue over every unit, with its own snapshot, DRA state and nominations."""

    def __init__(
        self,
        problem: Problem,
        budget: Budget,
        search: NodeSearch,
        deadline: float | None,
        refused: dict[int, str],
    ) -> None:
        self.problem = problem
        self.refused = refused
        self.budget = budget
        self.cut = 0  # pods not reached before budget.cutoff
        cluster = problem.cluster if problem.cluster is not None else synthesized(problem)
        self.cluster = cluster
        self.snapshot = Snapshot(NodeInfo(n) for n in cluster.nodes)
        for pod in cluster.bound:
            node = self.snapshot.get(pod.node_name)
            if node is not None:
                node.add_pod(pod)
        self.dra = DraContext(problem, search, budget, deadline)
        self.dra.reuse = memo.ENABLED
        self.holdings = Holdings(problem, cluster.bound)
        # Pod -> (node, the allocation its preemption was worked out with), held for it there while it
        # is nominated (DRAPreemption).
        self.nominations: dict[str, tuple[str, ClaimHold]] = {}
        self.pods: dict[int, Pod] = {u.id: cluster.pending.get(u.id) or pseudo_pod(u) for u in problem.units}
        self.units = {self.pods[u.id].key: u for u in problem.units}
        self.nominated: dict[str, list[Pod]] = {}
        for pod in self.pods.values():
            if pod.nominated_node:
                self.nominated.setdefault(pod.nominated_node, []).append(pod)
        self.evictions: list[Eviction] = []
        self.placed: dict[int, UnitOutcome] = {}
        self.clock = [0, 0]  # (pods placed, pods evicted) so far
        rng = random.Random(cluster.seed) if cluster.seed is not None else None
        self.rng = rng
        config = cluster.configuration or Configuration((default_profile(),))
        self.config = config
        self.frameworks: dict[str, Framework] = {}
        self.cycles: dict[str, Cycle] = {}
        for profile in config.profiles:
            handle = Handle(cluster, self.snapshot, problem)
            fw = Framework(profile, handle)
            handle.services.update(
                dra=self.dra,
                units=self.units,
                framework=fw,
                nominated=lambda node: list(self.nominated.get(node, ())),
                rng=rng,
                preempt=self.preempt,
                claims_of=self.holdings.claims_of,
                hold=self.holdings.hold,
                nomination=self.nomination,
                shares=lambda: self.dra.shares,
            )
            self.frameworks[profile.scheduler_name] = fw
            self.cycles[profile.scheduler_name] = Cycle(fw, config.percentage_of_nodes_to_score, rng)
        self.current: int = -1  # the unit being scheduled
        self.pass_no = 0  # passes of the queue so far (a PodGroup cycle's answers last one pass)
        groups = cluster.groups
        self.group_cycles = GroupCycles(self, groups) if groups is not None else None
        self.node_outcomes = NodeOutcomes({n.name: i for i, n in enumerate(self.snapshot.nodes)})
        self._candidates: dict[tuple[str, ...], list[NodeInfo]] = {}

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

    def unit_evicted(self, uid: int) -> bool:
        key = self.pods[uid].key
        return any(e.victim.key == key for e in self.evictions)

    def evicted_outcome(self, uid: int, outcome: UnitOutcome) -> UnitOutcome:
        eviction = next(e for e in self.evictions if e.victim.key == self.pods[uid].key)
        message = f"preempted by pod {eviction.preemptor.key} on node {eviction.node}"
        return replace(outcome, status=Status.UNSATISFIABLE, node="", allocations=(), message=message)

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

    def candidates(self, unit: Unit) -> list[NodeInfo]:
        """The snapshot's nodes the unit may use, in its order (units mostly name the same nodes: found
        once per list)."""
        found = self._candidates.get(unit.nodes)
        if found is None:
            allowed = set(unit.nodes)
            if self.cluster.candidates is not None:
                allowed &= set(self.cluster.candidates)
            found = self._candidates[unit.nodes] = [n for n in self.snapshot.nodes if n.name in allowed]
        return list(found)

    def outcome(
        self,
        unit: Unit,
        pod: Pod,
        result: CycleResult,
        nodes: Sequence[NodeInfo],
        steps: int,
        attempt: int,
        profile: str,
    ) -> UnitOutcome:
        deciders = list(filter(_DECIDED_BY, result.answers.values())) if self.dra.decided else []
        decided_by = deciders[0].decided_by if deciders else ""
        note = "; ".join(a.note for a in deciders if a.note)
        node_outcomes = self.node_outcomes.of(result, nodes)
        if result.node:
            placed = replace(pod, node_name=result.node, nominated_node="")
            self.snapshot.by_name[result.node].add_pod(placed, result.mapped)
            self.unnominate(pod)
            self.pods[unit.id] = placed
            answer = result.answer
            self.holdings.placed(placed, unit, answer.allocations if answer is not None else ())
            return UnitOutcome(
                unit.id,
                Status.ALLOCATED,
                result.node,
                answer.allocations if answer is not None else (),
                nodes=node_outcomes,
                steps=steps,
                proof=answer.proof if answer is not None else "",
                decided_by=decided_by,
                note=note,
                record=self.record(result, pod, attempt, profile),
            )
        if result.nominated is not None and result.nominated != pod.nominated_node:
            self.unnominate(pod, keep=result.nominated)
            nominee = replace(pod, nominated_node=result.nominated)
            self.pods[unit.id] = nominee
            if result.nominated:
                self.nominated.setdefault(result.nominated, []).append(nominee)
        status = Status.UNKNOWN if result.undecided else Status.UNSATISFIABLE
        message = result.message
        if status == Status.UNKNOWN:
            message = f"undecided, not a proof that it does not fit: {message}"
        return UnitOutcome(
            unit.id,
            status,
            message=message,
            nodes=node_outcomes,
            steps=steps,
            decided_by=decided_by,
            note=note,
            record=self.record(result, self.pods[unit.id], attempt, profile),
        )

    def record(self, result: CycleResult, pod: Pod, attempt: int, profile: str) -> Record:
        victims = tuple(e.victim.key for e in self.evictions if e.preemptor.key == pod.key)
        return Record(
            filters=result.filters,
            pre_filter=result.pre_filter,
            ranked=result.scores,  # never changed once the cycle made it: the record shares it
            selected=result.node,
            nominated=pod.nominated_node if not result.node else "",
            victims=victims,
            evaluated=result.evaluated,
            feasible=result.feasible,
            attempts=attempt,
            profile=profile,
            message=result.message if not result.node else "",
            rejected_by=result.rejected_by(),
        )

    # --- nominations and preemption ------------------------------------------------------------------

    def unnominate(self, pod: Pod, keep: str = "") -> None:
        """The pod nominated nowhere; the allocation held for it goes too, unless it is held on `keep`
        (the node it is being nominated to)."""
        if self.nominations.get(pod.key, ("",))[0] != keep or not keep:
            self.nominations.pop(pod.key, None)
        for node, pods in list(self.nominated.items()):
            kept = [p for p in pods if p.key != pod.key]
            if kept:
                self.nominated[node] = kept
            else:
                del self.nominated[node]

    def preempt(self, preemptor: Pod, node: str, victims: Sequence[Pod], cleared: Sequence[Pod]) -> None:
        """DefaultPreemption's decision carried out: victims evicted from the node (their devices freed),
        lower-priority pods nominated there lose their nomination."""
        info = self.snapshot.get(node)
        unit = self.units.get(preemptor.key)
        for victim in victims:
            if info is not None:
                info.remove_pod(victim)
            self.release(victim)
            self.evictions.append(
                Eviction(
                    victim, node, preemptor, unit.id if unit is not None else -1, preemptor.scheduler_name
                )
            )
            self.clock[1] += 1
        for pod in cleared:
            self.unnominate(pod)
            victim_unit = self.units.get(pod.key)
            if victim_unit is not None:
                self.pods[victim_unit.id] = replace(self.pods[victim_unit.id], nominated_node="")
        self.nominate_allocation(preemptor, node)

    def release(self, victim: Pod) -> None:
        """The claims that nothing reserves once the victim is gone are deallocated, their devices freed."""
        holds, claims = self.holdings.evict(victim)
        unit = self.units.get(victim.key)
        if unit is not None:
            self.placed.pop(unit.id, None)
        if holds or claims:
            self.dra.release(holds, claims)

    def nominate_allocation(self, preemptor: Pod, node: str) -> None:
        """DRAPreemption: the allocation the preemptor gets on its nominated node once its victims are gone
        (with the nominated pods of at least its priority there holding theirs), held for it there."""
        unit = self.units.get(preemptor.key)
        pending = self.dra.pending(unit) if unit is not None else []
        if unit is None or not pending or not self.problem.on("Preemption") or preemptor.pod_group:
            return
        held = tuple(
            self.nominations[p.key][1]
            for p in nominated_to_add(preemptor, self.nominated.get(node, ()))
            if self.nominations.get(p.key, ("", None))[0] == node
        )
        answer = self.dra.search_node(unit, node, pending, Adjustment(None, held) if held else None)
        if answer.status == Status.ALLOCATED:
            self.nominations[preemptor.key] = (node, hold_of(answer))

    def nomination(self, pod: Pod, node: str) -> ClaimHold | None:
        found = self.nominations.get(pod.key)
        return found[1] if found is not None and found[0] == node else None


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


__all__ = ["NodeAnswer", "Run", "schedule"]
