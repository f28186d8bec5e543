"""SelectVictimsOnNode: the fewest, least important pods to evict from one node for the preemptor.

Works on a copy of the node and of the cycle state: every pod of lower priority than the
preemptor comes off the node (the PreFilter extensions told of each removal); if the preemptor
still does not fit, the node cannot help. Otherwise the pods are put back one at a time, most
important first, those whose eviction would violate a PodDisruptionBudget before the others, and
each that leaves the preemptor without room is a victim. Pods are re-added with the node resources
their devices map to, as the snapshot held them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ....model.cluster.facts import DisruptionBudget, Pod
from ..framework import Code, CycleState, NodeInfo, Status
from ..runtime import Framework, FrameworkError
from .budgets import split_by_budget
from .ordering import by_importance

NO_VICTIMS = "No preemption victims found for incoming pod"
NOTHING_TO_EVICT = Status(Code.UNRESOLVABLE, (NO_VICTIMS,))


@dataclass(frozen=True)
class Selection:
    """Victims most important first, how many of them violate a budget, and why the node cannot
    help (None when it can)."""

    victims: tuple[Pod, ...] = ()
    pdb_violations: int = 0
    status: Status | None = None


def may_preempt(victim: Pod, preemptor: Pod) -> bool:
    """isPreemptionAllowed with the default IsEligiblePod: only lower priorities."""
    return victim.priority < preemptor.priority


def may_preempt_on(node: NodeInfo, preemptor: Pod) -> bool:
    """Some pod on the node may be preempted for the preemptor (may_preempt of the node's lowest)."""
    lowest = node.lowest_priority()
    return lowest is not None and lowest < preemptor.priority


class _Dryrun:
    """One node's copy and cycle state, kept in step as pods leave and come back."""

    def __init__(
        self, framework: Framework, state: CycleState, pod: Pod, node: NodeInfo, nominated: Sequence[Pod]
    ) -> None:
        self.framework = framework
        self.state = state
        self.pod = pod
        self.node = node
        self.nominated = nominated
        self.mapped: dict[str, Mapping[str, int] | None] = {}

    def remove(self, victim: Pod) -> None:
        self.mapped.setdefault(victim.key, self.node.extra.get(victim.key))
        self.node.remove_pod(victim)
        self.framework.remove_pod(self.state, self.pod, victim, self.node)

    def add(self, victim: Pod) -> None:
        self.node.add_pod(victim, self.mapped.get(victim.key))
        self.framework.add_pod(self.state, self.pod, victim, self.node)

    def fits(self) -> Status | None:
        """None when the preemptor fits; a filter that fails with an error counts as not fitting."""
        try:
            return self.framework.run_filters_with_nominated(self.state, self.pod, self.node, self.nominated)
        except FrameworkError as failed:
            return failed.status


def select_victims(
    framework: Framework,
    state: CycleState,
    pod: Pod,
    node: NodeInfo,
    budgets: Sequence[DisruptionBudget],
    nominated: Sequence[Pod],
) -> Selection:
    """`state` and `node` are the caller's copies: they are changed."""
    potential = [p for p in node.pods if may_preempt(p, pod)]
    if not potential:
        return Selection(status=NOTHING_TO_EVICT)
    run = _Dryrun(framework, state, pod, node, nominated)
    try:
        for victim in potential:
            run.remove(victim)
        status = run.fits()
        if status is not None:
            return Selection(status=status)
        ordered = by_importance(potential)
        violating, fine = split_by_budget(ordered, budgets)
        victims: list[Pod] = []
        violations = 0
        for victim in violating:
            if not _reprieved(run, victim):
                victims.append(victim)
                violations += 1
        for victim in fine:
            if not _reprieved(run, victim):
                victims.append(victim)
    except FrameworkError as failed:
        return Selection(status=failed.status)
    if violating and fine:
        victims = by_importance(victims)
    return Selection(tuple(victims), violations)


def _reprieved(run: _Dryrun, victim: Pod) -> bool:
    run.add(victim)
    if run.fits() is None:
        return True
    run.remove(victim)
    return False
