"""What one run of kube-scheduler's queue has decided so far, and how each decision changes it.

The snapshot with the pods assumed on their nodes, the DRA state, the claims each pod holds, the
nominations and the evictions; a pod's cycle result turned into its outcome (the pod assumed where it
fits, nominated where preemption made room), and DefaultPreemption's decisions carried out. The queue
that drives a run (`scheduler`) and the PodGroup cycle (`podgroup.cycles`) both act through it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from operator import attrgetter

from ...model.claim_holds import ClaimHold
from ...model.cluster.facts import Cluster, Node, Pod
from ...model.cluster.profile import Configuration, default_profile
from ...model.cluster.record import Eviction, Record
from ...model.problem import Problem, Unit
from ...model.solution import Status, UnitOutcome
from ..adjustment import Adjustment
from ..engines import Budget
from ..units import NodeSearch
from . import memo
from .cycle import Cycle, CycleResult
from .dra import DraContext, hold_of
from .framework import Handle, NodeInfo, Snapshot
from .holdings import Holdings
from .node_outcomes import NodeOutcomes
from .runtime import Framework, nominated_to_add

_DECIDED_BY = attrgetter("decided_by")


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


class RunState:
    """What one pass of the queue has decided so far: its own snapshot, DRA state, nominations and
    evictions (the queue that drives it is `scheduler.Run`)."""

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
        self.node_outcomes = NodeOutcomes({n.name: i for i, n in enumerate(self.snapshot.nodes)})
        self._candidates: dict[tuple[str, ...], list[NodeInfo]] = {}

    def unit_evicted(self, uid: int) -> bool:
        key = self.pods[uid].key
        return any(e.victim.key == key for e in self.evictions)

    def evicted_outcome(self, uid: int, outcome: UnitOutcome) -> UnitOutcome:
        eviction = next(e for e in self.evictions if e.victim.key == self.pods[uid].key)
        message = f"preempted by pod {eviction.preemptor.key} on node {eviction.node}"
        return replace(outcome, status=Status.UNSATISFIABLE, node="", allocations=(), message=message)

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
