"""Workload-aware preemption (KEP-5710): DefaultPreemption's PodGroupPostFilter and the PodGroupEvaluator
(pkg/scheduler/framework/preemption/podgrouppreemption.go).

When a group's cycle ends Unschedulable, the group, not a pod, is the preemptor and the whole cluster
its domain. Every pod of lower priority than the group is a potential victim (a pod of a PodGroup counts
with its group's priority; the pods of a group whose disruptionMode is `all` are one victim). All of
them leave the snapshot, the group's scheduling algorithm runs once more; if the group fits, the victims
are put back one at a time, most important first (budget-violating ones before the others), and a
victim stays put when every pod the algorithm placed still passes its filters on its node. The rest are
evicted and each placed pod is nominated to its node; the group waits for the next cycle.

The victims' DRA devices are never freed in this dry run: with DRAPreemption off nothing is, and with it
on DynamicResources' PreFilter extensions do nothing for a preemptor in a PodGroup (notes/23p.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ....model.cluster.facts import DisruptionBudget, Pod
from ....model.cluster.podgroup import GroupFact, Groups
from ..framework import Code, NodeInfo, Snapshot, Status
from ..preemption.budgets import violates
from ..preemption.eligibility import NEVER, PREEMPT_NEVER, TERMINATING_VICTIM, terminating_by_preemption
from ..preemption.ordering import start_ns

PREFIX = "pod group preemption: "
NO_VICTIMS = "No preemption victims found for incoming preemptor"
WITH_TOPOLOGY = "not supported with topology constraints"


@dataclass
class Victim:
    """A preemption unit: one pod, or every scheduled pod of a PodGroup with disruptionMode `all`."""

    pods: list[Pod]
    priority: int
    group: str = ""  # namespace/name of the PodGroup preempted as a whole

    @property
    def earliest(self) -> int:
        return min(start_ns(p.start_time) for p in self.pods)

    def importance(self) -> tuple[int, int, int, int, str]:
        """moreImportantVictim as a sort key, most important first: priority, a whole group before a
        pod, an earlier start (a pod) or more pods then an earlier start (groups); the smallest UID
        last, so that the order is total."""
        size = len(self.pods) if self.group else 0
        return (-self.priority, 0 if self.group else 1, -size, self.earliest, min(p.uid for p in self.pods))


@dataclass(frozen=True)
class Assignment:
    """A pod the rerun algorithm placed (ProposedAssignment): its unit and node."""

    unit: int
    node: str


@dataclass
class Outcome:
    """What the post filter decided: a status (None: success), the victims to evict (most important
    first) and the node each preemptor pod is nominated to."""

    status: Status | None
    victims: list[Victim] = field(default_factory=list)
    nominations: dict[int, str] = field(default_factory=dict)


Rerun = Callable[[], tuple[Status | None, list[Assignment]]]
Fits = Callable[[Sequence[Assignment]], bool]


def preemptor_policy(root: GroupFact, groups: Groups, pods: Sequence[Pod], policy_gate: bool) -> str:
    """resolvePreemptionPolicy: the group's own policy with PodGroupPreemptionPolicy, else Never when any
    of its pods says Never."""
    if policy_gate:
        return root.preemption_policy or "PreemptLowerPriority"
    return (
        PREEMPT_NEVER if any(p.preemption_policy == PREEMPT_NEVER for p in pods) else "PreemptLowerPriority"
    )


def _chain(pod: Pod, groups: Groups) -> list[GroupFact]:
    """The pod's PodGroup and its CompositePodGroup ancestors (while that gate is on), leaf first."""
    fact = groups.pod_groups.get(f"{pod.namespace}/{pod.pod_group}") if pod.pod_group else None
    out: list[GroupFact] = []
    while fact is not None and fact not in out:
        out.append(fact)
        fact = groups.parent_of(fact)
    return out


def group_priority(pod: Pod, groups: Groups) -> int:
    """getPodPriority: a pod of a known PodGroup preempts and is preempted with its hierarchy root's
    priority."""
    chain = _chain(pod, groups)
    return chain[-1].priority if chain else pod.priority


def _whole(chain: Sequence[GroupFact]) -> GroupFact | None:
    """getHighestAllAncestor: the highest group of the hierarchy whose disruptionMode is `all`."""
    found = None
    for fact in chain:
        if fact.disrupt_all:
            found = fact
    return found


def ineligible(
    root: GroupFact, groups: Groups, pods: Sequence[Pod], snapshot: Snapshot, policy_gate: bool
) -> str:
    """preemptorEligibleToPreemptOthers: why the group may not preempt ("" when it may)."""
    if preemptor_policy(root, groups, pods, policy_gate) == PREEMPT_NEVER:
        return NEVER
    for name in sorted({p.nominated_node for p in pods if p.nominated_node}):
        node = snapshot.get(name)
        for other in node.pods if node is not None else ():
            if group_priority(other, groups) < root.priority and terminating_by_preemption(other):
                return TERMINATING_VICTIM
    return ""


def all_victims(snapshot: Snapshot, groups: Groups) -> list[Victim]:
    """newDomainForWorkloadPreemption: every pod on a node, the pods of a hierarchy with a group disrupted
    whole as one victim (under its highest such group), in node order."""
    out: list[Victim] = []
    whole: dict[tuple[str, str], Victim] = {}
    for node in snapshot.nodes:
        for pod in node.pods:
            chain = _chain(pod, groups)
            priority = chain[-1].priority if chain else pod.priority
            top = _whole(chain)
            if top is None:
                out.append(Victim([pod], priority))
                continue
            unit = whole.get((top.kind, top.key))
            if unit is None:
                unit = whole[(top.kind, top.key)] = Victim([], priority, top.key)
                out.append(unit)
            unit.pods.append(pod)
    return out


class Evaluator:
    """PodGroupEvaluator.selectVictimsOnDomain over the run's snapshot: it changes the snapshot while it
    works and leaves it as it found it."""

    def __init__(self, snapshot: Snapshot, budgets: Sequence[DisruptionBudget]) -> None:
        self.snapshot = snapshot
        self.budgets = budgets
        self.extra: dict[str, Mapping[str, int] | None] = {}

    def _remove(self, victim: Victim) -> None:
        for pod in victim.pods:
            node = self.snapshot.get(pod.node_name)
            if node is not None:
                self.extra.setdefault(pod.key, node.extra.get(pod.key))
                node.remove_pod(pod)

    def _add(self, victim: Victim) -> None:
        for pod in victim.pods:
            node: NodeInfo | None = self.snapshot.get(pod.node_name)
            if node is not None:
                node.add_pod(pod, self.extra.get(pod.key))

    def select(self, priority: int, candidates: Sequence[Victim], rerun: Rerun, fits: Fits) -> Outcome:
        potential = [v for v in candidates if v.priority < priority]
        if not potential:
            return Outcome(Status(Code.UNRESOLVABLE, (NO_VICTIMS,)))
        for victim in potential:
            self._remove(victim)
        gone = list(potential)
        try:
            status, assignments = rerun()
            if status is not None:
                return Outcome(status)
            ordered = sorted(potential, key=Victim.importance)
            violating, fine = self._split(ordered)
            chosen: list[Victim] = []
            for victim in (*violating, *fine):
                self._add(victim)
                gone.remove(victim)
                if not fits(assignments):
                    self._remove(victim)
                    gone.append(victim)
                    chosen.append(victim)
        finally:
            for victim in gone:
                self._add(victim)
        chosen.sort(key=Victim.importance)
        return Outcome(None, chosen, {a.unit: a.node for a in assignments})

    def _split(self, victims: Sequence[Victim]) -> tuple[list[Victim], list[Victim]]:
        """filterVictimsWithPDBViolation per unit: a unit violates when one of its pods would."""
        if not self.budgets:
            return [], list(victims)
        allowed = [b.disruptions_allowed for b in self.budgets]
        violating: list[Victim] = []
        fine: list[Victim] = []
        for victim in victims:
            hit = [violates(p, self.budgets, allowed) for p in victim.pods]
            (violating if any(hit) else fine).append(victim)
        return violating, fine


def victim_pods(victims: Sequence[Victim]) -> Iterator[Pod]:
    for victim in victims:
        yield from victim.pods
