"""The PodGroupPostFilter point of a PodGroup cycle (podGroupCycle, applyPodGroupPostFilterResult): run when
the root group's algorithm ended Unschedulable, with DefaultPreemption enabled there and the gate that
governs workload-aware preemption on (WorkloadAwarePreemption in 1.36, GenericWorkload from 1.37).

Its outcome changes every group's result of the tree: an error replaces their statuses; any other message
is appended to them as one more reason; a success leaves them Unschedulable ("waiting on preemption") and
nominates the pods the rerun algorithm placed. Victims are evicted here, at once, as kubefit does for pod
preemption.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from ....model.cluster import names
from ....model.cluster.podgroup import PREEMPTION_POLICY_GATE, WORKLOAD_PREEMPTION, Groups
from ....model.cluster.record import Eviction
from ..framework import Code, Status
from ..run_state import RunState
from .algorithm import Algorithm, GroupResult, Reverts, Trials, successful_leaves
from .info import GroupInfo, Placement
from .preemption import (
    PREFIX,
    WITH_TOPOLOGY,
    Assignment,
    Evaluator,
    Outcome,
    all_victims,
    ineligible,
    victim_pods,
)


class GroupCycle(Trials, Protocol):
    """What the point needs of the PodGroup cycle that runs it (`cycles.GroupCycles`): the scheduler's run,
    the groups, the profile the cycle runs under, and its trials."""

    @property
    def run(self) -> RunState: ...

    @property
    def groups(self) -> Groups: ...

    @property
    def profile(self) -> str: ...


def post_filter(cycles: GroupCycle, root: GroupInfo, results: dict[str, GroupResult]) -> dict[int, str]:
    """Runs the point when it applies, updates `results`, and returns the nominations (unit -> node)."""
    run = cycles.run
    groups = cycles.groups
    fw = run.frameworks[cycles.profile]
    status = results[root.key].status
    if status is None or status.code != Code.UNSCHEDULABLE or not groups.on(WORKLOAD_PREEMPTION):
        return {}
    if not any(p.name == names.DEFAULT_PREEMPTION for p in fw.pod_group_post_filter):
        return {}
    outcome = _preempt(cycles, root)
    _apply(results, outcome.status)
    if outcome.status is not None:
        return {}
    _evict(cycles, root, outcome)
    for uid, node in outcome.nominations.items():
        pod = run.pods[uid]
        run.unnominate(pod, keep=node)
        nominee = replace(pod, nominated_node=node)
        run.pods[uid] = nominee
        run.nominated.setdefault(node, []).append(nominee)
    return dict(outcome.nominations)


def _preempt(cycles: GroupCycle, root: GroupInfo) -> Outcome:
    run = cycles.run
    groups = cycles.groups
    if root.fact.topology_key:
        return Outcome(Status(Code.UNSCHEDULABLE, (PREFIX + WITH_TOPOLOGY,)))
    pods = [run.pods[u] for leaf in root.leaves() for u in leaf.queued]
    why = ineligible(root.fact, groups, pods, run.snapshot, groups.on(PREEMPTION_POLICY_GATE))
    if why:
        return Outcome(Status(Code.UNSCHEDULABLE, (PREFIX + why,)))

    def rerun() -> tuple[Status | None, list[Assignment]]:
        every = Placement("", tuple(run.snapshot.nodes))
        algorithm = Algorithm(run.frameworks[cycles.profile], groups, cycles, every, run.rng)
        results = algorithm.run_root(root)
        placed = [
            Assignment(p.unit, p.node)
            for leaf in successful_leaves(root, results)
            for p in leaf.pods
            if p.status is None and p.node
        ]
        return results[root.key].status, placed

    def fits(assignments: Sequence[Assignment]) -> bool:
        """Every placed pod passes its node's filters again, the earlier ones assumed."""
        reverts = Reverts()
        try:
            for a in assignments:
                result, revert = cycles.attempt(a.unit, Placement("", (run.snapshot.by_name[a.node],)))
                if revert is not None:
                    reverts.append(revert)
                if result.status is not None:
                    return False
            return True
        finally:
            reverts.revert()

    evaluator = Evaluator(run.snapshot, run.cluster.budgets)
    outcome = evaluator.select(root.fact.priority, all_victims(run.snapshot, groups), rerun, fits)
    if outcome.status is not None and outcome.status.message:
        outcome.status = Status(outcome.status.code, (PREFIX + outcome.status.message,))
    return outcome


def _apply(results: dict[str, GroupResult], status: Status | None) -> None:
    if status is None or not status.message:
        return
    for result in results.values():
        if status.code == Code.ERROR:
            result.status = status
        elif result.status is not None:
            result.status = Status(
                result.status.code, (*result.status.reasons, status.message), result.status.plugin
            )


def _evict(cycles: GroupCycle, root: GroupInfo, outcome: Outcome) -> None:
    run = cycles.run
    first_unit = next(u for leaf in root.leaves() for u in leaf.queued)
    first = run.pods[first_unit]
    for pod in victim_pods(outcome.victims):
        node = run.snapshot.get(pod.node_name)
        if node is not None:
            node.remove_pod(pod)
        run.release(pod)
        run.evictions.append(
            Eviction(pod, pod.node_name, first, first_unit, first.scheduler_name, root.key, root.fact.uid)
        )
        run.clock[1] += 1
