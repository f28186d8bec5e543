"""The PodGroup scheduling algorithm (pkg/scheduler/algorithm_podgroup.go), over one group or tree.

Without TopologyAwareWorkloadScheduling a PodGroup's pods are tried one after the other over every
node (the default algorithm). With it, PlacementGenerate plugins make candidate placements, the default
algorithm runs within each (every pod placed in one is taken back before the next), the feasible ones
are scored and the best wins; a placement that holds the pods' nominated node is tried first and kept
when the group fits there. A CompositePodGroup (CompositePodGroup gate) generates its own placements and
schedules its children recursively within each, its PlacementFeasible plugins counting the children
that succeed against minGroupCount.

PlacementFeasible decides after every pod: Unschedulable ends the group's attempt, Wait goes on (and is
the group's answer if nothing better comes), Success makes the group feasible. Everything placed is
taken back when the root's attempt ends; the caller assumes the winners.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ....model.cluster.podgroup import COMPOSITE_GATE, TOPOLOGY_AWARE, Groups
from ....model.cluster.record import PlacementRecord
from ..cycle import CycleResult
from ..framework import Code, NodeInfo, Status, error, unschedulable
from ..runtime import Framework
from . import runtime
from .info import GroupInfo, Placement, Proposed

Revert = Callable[[], None]

NOMINATED_EMPTY = "nominated placement is feasible but no pending pod was scheduled"


@dataclass
class PodResult:
    unit: int
    status: Status | None  # None: the pod fits (and was assumed)
    result: CycleResult | None = None  # the pod's cycle (None: it failed before one ran)
    node: str = ""
    steps: int = 0
    proposed: Proposed | None = None
    nodes: tuple[NodeInfo, ...] = ()  # the nodes its cycle looked at


@dataclass
class GroupResult:
    info: GroupInfo
    status: Status | None  # None: the group is schedulable
    pods: list[PodResult] = field(default_factory=list)
    any_scheduled: bool = False
    placements: list[PlacementRecord] = field(default_factory=list)


class Trials(Protocol):
    """What the algorithm needs of the scheduler: one pod's cycle within a placement (assumed when it fits,
    with the function that takes it back), and assuming a pod result again."""

    def attempt(self, unit: int, placement: Placement) -> tuple[PodResult, Revert | None]: ...

    def assume(self, result: PodResult) -> Revert: ...


class Reverts(list[Revert]):
    def revert(self) -> None:
        """Last in, first out: later assumptions may depend on earlier ones."""
        while self:
            self.pop()()


def placement_fit_error(status: Status, placements: int) -> Status:
    """podGroupFitError with placement context."""
    reason = status.message
    if placements:
        reason = f"0/{placements} placements are available, first placement status: {reason}"
    return Status(Code.UNSCHEDULABLE, (reason,), status.plugin)


class Algorithm:
    def __init__(
        self, fw: Framework, groups: Groups, trials: Trials, every: Placement, rng: random.Random | None
    ) -> None:
        self.fw = fw
        self.groups = groups
        self.trials = trials
        self.every = every
        self.rng = rng

    # --- the root ------------------------------------------------------------------------------------

    def run_root(self, root: GroupInfo) -> dict[str, GroupResult]:
        """RunRootSchedulingAlgorithm: every group's result, everything assumed taken back."""
        results: dict[str, GroupResult] = {}
        result, reverts = self.recursive(root, self.every, results)
        try:
            if result.status is None and not result.any_scheduled:
                # The framework requires at least one pod scheduled for a success.
                result.status = unschedulable("no pods were schedulable")
            results[root.key] = result
        finally:
            reverts.revert()
        self._complete(root, results, None)
        return results

    def recursive(
        self, info: GroupInfo, parent: Placement, results: dict[str, GroupResult]
    ) -> tuple[GroupResult, Reverts]:
        if not info.composite:
            result, reverts = self.pod_group(info, parent)
            results[info.key] = result
            return result, reverts
        # A CompositePodGroup needs TopologyAwareWorkloadScheduling: it always runs the placement algorithm.
        return self.composite(info, parent, results)

    def pod_group(self, info: GroupInfo, parent: Placement) -> tuple[GroupResult, Reverts]:
        if self.groups.on(TOPOLOGY_AWARE):
            return self.placements(info, parent)
        return self.default(info, parent)

    # --- one PodGroup within one placement -------------------------------------------------------------

    def progress(self, info: GroupInfo, scheduled: int, remaining: int) -> tuple[bool, Status | None]:
        """podGroupPotentiallyFeasible: whether to go on, and the group's status so far."""
        status = runtime.feasible(self.fw, info, scheduled, remaining)
        if status is None:
            return True, None
        if status.code == Code.ERROR:
            return False, error(f"failed to evaluate placement feasibility: {status.message}")
        if status.code == Code.WAIT:
            return True, Status(Code.UNSCHEDULABLE, status.reasons, status.plugin)
        return False, Status(Code.UNSCHEDULABLE, status.reasons, status.plugin)

    def default(self, info: GroupInfo, placement: Placement) -> tuple[GroupResult, Reverts]:
        reverts = Reverts()
        scheduled = len(info.scheduled)
        remaining = len(info.queued)
        go, status = self.progress(info, scheduled, remaining)
        result = GroupResult(info, status)
        if not go:
            return result, reverts
        any_scheduled = False
        for unit in info.queued:
            pod, revert = self.trials.attempt(unit, placement)
            result.pods.append(pod)
            if revert is not None:
                reverts.append(revert)
            if pod.status is not None and not pod.status.rejected:
                result.status = error(f"failed to schedule other pod from a pod group: {pod.status.message}")
                break
            remaining -= 1
            if pod.status is None:
                scheduled += 1
            go, result.status = self.progress(info, scheduled, remaining)
            if not go:
                break
            any_scheduled = any_scheduled or pod.status is None
        result.any_scheduled = any_scheduled
        if result.status is not None:
            reverts.revert()
            result.any_scheduled = False
        return result, reverts

    # --- placements ------------------------------------------------------------------------------------

    def placements(self, info: GroupInfo, parent: Placement) -> tuple[GroupResult, Reverts]:
        made, status = runtime.generate(self.fw, info, parent)
        if status is not None:
            return GroupResult(info, status), Reverts()
        records: list[PlacementRecord] = []
        first: GroupResult | None = None
        feasible: list[tuple[Placement, GroupResult]] = []
        nominated = self.nominated(made, info) if self.groups.parent_of(info.fact) is None else None
        if nominated is not None:
            result = self.evaluate(info, nominated, records)
            if result.status is not None and result.status.code == Code.ERROR:
                return result, Reverts()
            first = result
            if result.status is None and result.any_scheduled:
                feasible.append((nominated, result))
        if not feasible:
            for placement in made:
                if placement is nominated:
                    continue
                result = self.evaluate(info, placement, records)
                if result.status is not None and result.status.code == Code.ERROR:
                    return result, Reverts()
                first = first or result
                if result.status is None:
                    feasible.append((placement, result))
        if not feasible:
            if first is None:
                # kubefit's words: no placement was generated (no node has the topology label).
                reason = unschedulable(f'no node has the topology label "{info.fact.topology_key}"')
                return GroupResult(info, placement_fit_error(reason, 0), placements=records), Reverts()
            report = first.status or unschedulable(NOMINATED_EMPTY)
            first.status = placement_fit_error(report, len(made))
            first.placements = records
            return first, Reverts()
        best, status = self.best(info, feasible, records)
        if status is not None:
            return GroupResult(info, status, placements=records), Reverts()
        result = dict(feasible)[best]
        result.placements = records
        reverts = Reverts()
        if self.groups.on(COMPOSITE_GATE):
            # The chosen pods are assumed again so that the groups evaluated next see them.
            reverts = self.assume_subtree(info, {info.key: result})
        return result, reverts

    def evaluate(self, info: GroupInfo, placement: Placement, records: list[PlacementRecord]) -> GroupResult:
        result, reverts = self.default(info, placement)
        reverts.revert()
        records.append(_record(placement, result))
        return result

    def nominated(self, made: Sequence[Placement], info: GroupInfo) -> Placement | None:
        """The one placement holding the pods' nominated nodes (None when none or several do)."""
        wanted = {self.trials_pod_nomination(u) for u in info.queued} - {""}
        if not wanted:
            return None
        matched = [p for p in made if any(n.name in wanted for n in p.nodes)]
        return matched[0] if len(matched) == 1 else None

    def trials_pod_nomination(self, unit: int) -> str:
        nomination: Callable[[int], str] | None = getattr(self.trials, "nomination", None)
        return nomination(unit) if nomination is not None else ""

    def best(
        self,
        info: GroupInfo,
        feasible: Sequence[tuple[Placement, GroupResult]],
        records: list[PlacementRecord],
        subtree: Sequence[dict[str, GroupResult]] | None = None,
    ) -> tuple[Placement, Status | None]:
        if len(feasible) == 1:
            _select(records, feasible[0][0])
            return feasible[0][0], None
        candidates = []
        for i, (placement, result) in enumerate(feasible):
            leaves = subtree[i] if subtree is not None else {info.key: result}
            proposed = [p.proposed for r in successful_leaves(info, leaves) for p in r.pods if p.proposed]
            candidates.append((placement, proposed))
        scores, status = runtime.score(self.fw, info, candidates)
        if status is not None:
            return feasible[0][0], status
        top = max(s.total for s in scores)
        tied = [s.placement for s in scores if s.total == top]
        chosen = tied[0] if self.rng is None or len(tied) == 1 else self.rng.choice(tied)
        for s in scores:
            for i, record in enumerate(records):
                if record.name == s.placement.label and record.feasible:
                    records[i] = PlacementRecord(
                        record.name, record.nodes, True, "", dict(s.plugin), s.total, False
                    )
        _select(records, chosen)
        return chosen, None

    # --- CompositePodGroups ------------------------------------------------------------------------

    def composite(
        self, info: GroupInfo, parent: Placement, results: dict[str, GroupResult]
    ) -> tuple[GroupResult, Reverts]:
        made, status = runtime.generate(self.fw, info, parent)
        if status is not None:
            out = GroupResult(info, status)
            results[info.key] = out
            return out, Reverts()
        records: list[PlacementRecord] = []
        first: dict[str, GroupResult] | None = None
        feasible: list[tuple[Placement, GroupResult]] = []
        subtrees: list[dict[str, GroupResult]] = []
        for placement in made:
            subtree: dict[str, GroupResult] = {}
            result, reverts = self.composite_default(info, placement, subtree)
            reverts.revert()
            records.append(_record(placement, result))
            if result.status is not None and result.status.code == Code.ERROR:
                results.update(subtree)
                return result, Reverts()
            first = first if first is not None else subtree
            if result.status is None:
                feasible.append((placement, result))
                subtrees.append(subtree)
        if not feasible:
            if first is None:
                reason = unschedulable(f'no node has the topology label "{info.fact.topology_key}"')
                out = GroupResult(info, placement_fit_error(reason, 0), placements=records)
                results[info.key] = out
                return out, Reverts()
            root = first[info.key]
            root.status = placement_fit_error(root.status or unschedulable(""), len(made))
            root.placements = records
            results.update(first)
            return root, Reverts()
        best, status = self.best(info, feasible, records, subtrees)
        if status is not None:
            out = GroupResult(info, status, placements=records)
            results[info.key] = out
            return out, Reverts()
        chosen = subtrees[[p for p, _ in feasible].index(best)]
        reverts = self.assume_subtree(info, chosen)
        results.update(chosen)
        chosen[info.key].placements = records
        return chosen[info.key], reverts

    def composite_default(
        self, info: GroupInfo, placement: Placement, results: dict[str, GroupResult]
    ) -> tuple[GroupResult, Reverts]:
        reverts = Reverts()
        scheduled, remaining = 0, len(info.children)
        go, status = self.progress(info, scheduled, remaining)
        out = GroupResult(info, status)
        results[info.key] = out
        if not go:
            return out, reverts
        any_scheduled = False
        for child in info.children:
            result, child_reverts = self.recursive(child, placement, results)
            if result.status is not None and result.status.code == Code.ERROR:
                out.status = error(
                    f"composite pod group evaluation failed due to child error: {result.status.message}"
                )
                reverts.extend(child_reverts)
                reverts.revert()
                return out, reverts
            any_scheduled = any_scheduled or result.any_scheduled
            reverts.extend(child_reverts)
            remaining -= 1
            if result.status is None:
                scheduled += 1
            go, status = self.progress(info, scheduled, remaining)
            if not go:
                break
        out.status = status
        out.any_scheduled = any_scheduled
        if out.status is not None:
            reverts.revert()
            out.any_scheduled = False
        return out, reverts

    def assume_subtree(self, info: GroupInfo, results: dict[str, GroupResult]) -> Reverts:
        reverts = Reverts()
        for leaf in successful_leaves(info, results):
            for pod in leaf.pods:
                if pod.status is None and pod.node:
                    reverts.append(self.trials.assume(pod))
        return reverts

    # --- completing the results ----------------------------------------------------------------------

    def _complete(self, info: GroupInfo, results: dict[str, GroupResult], parent: GroupResult | None) -> None:
        """completeCompositePodGroupAlgorithmResultMap: a parent's failure is its children's too."""
        result = results.get(info.key)
        if result is None:
            result = results[info.key] = GroupResult(info, parent.status if parent is not None else None)
        elif (parent is not None and parent.status is not None and result.status is None) or (
            parent is not None and parent.status is not None and parent.status.code == Code.ERROR
        ):
            result.status = parent.status
        for child in info.children:
            self._complete(child, results, result)


def successful_leaves(root: GroupInfo, results: dict[str, GroupResult]) -> Iterator[GroupResult]:
    """The PodGroups below `root` whose result, and every ancestor's, is a success."""
    result = results.get(root.key)
    if result is None or result.status is not None:
        return
    for child in root.children:
        yield from successful_leaves(child, results)
    if result.pods:
        yield result


def _record(placement: Placement, result: GroupResult) -> PlacementRecord:
    nodes = tuple(n.name for n in placement.nodes)
    if result.status is None:
        return PlacementRecord(placement.label, nodes, True)
    return PlacementRecord(placement.label, nodes, False, result.status.message)


def _select(records: list[PlacementRecord], chosen: Placement) -> None:
    for i, record in enumerate(records):
        if record.name == chosen.label and record.feasible:
            records[i] = PlacementRecord(
                record.name, record.nodes, True, "", record.scores, record.total, True
            )
