"""The PodGroup cycle inside a scheduling run (scheduleOnePodGroup, podGroupCycle, submitPodGroupResult).

When a pod of a PodGroup comes off the queue, its whole tree (the root CompositePodGroup, or the
PodGroup alone) is scheduled at once: every member that passed PreEnqueue and is not on a node yet
is tried, and the answers of all of them are kept for the rest of the queue's pass, so that the other
members get the same cycle's answer when their turn comes. A group that fits has its pods assumed
(their claims allocated, their nodes charged) before any other pod is scheduled; one that does not
leaves every member pending, each with upstream's FailedScheduling text: its own FitError when it fit
nowhere in the placement reported, the group's status otherwise.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from ....model.cluster.facts import Pod
from ....model.cluster.podgroup import COMPOSITE, GroupFact, Groups
from ....model.cluster.record import PlacementRecord, Record
from ....model.problem import Unit
from ....model.solution import Status as Outcome
from ....model.solution import UnitOutcome
from ..framework import Code, NodeInfo, Status, error, unresolvable, unschedulable
from ..plugins.dynamic_resources import AllocatorError
from ..run_state import RunState
from ..runtime import FrameworkError
from .algorithm import Algorithm, GroupResult, PodResult, Revert
from .conditions import cycle_conditions
from .info import GroupInfo, Placement, Proposed
from .post_filter import post_filter
from .validation import entity_key, validate

NO_NODES = "no nodes available to schedule pods"


class GroupCycles:
    def __init__(self, run: RunState, groups: Groups) -> None:
        self.run = run
        self.groups = groups
        self.members: dict[str, list[int]] = {}  # PodGroup -> its pending pods' units, in queue order
        for unit in run.problem.units:
            pod = run.pods[unit.id]
            if pod.pod_group:
                self.members.setdefault(f"{pod.namespace}/{pod.pod_group}", []).append(unit.id)
        self.bound: dict[str, list[Pod]] = {}
        cluster = run.cluster
        for pod in cluster.bound:
            if pod.pod_group:
                self.bound.setdefault(f"{pod.namespace}/{pod.pod_group}", []).append(pod)
        # Root group -> (the queue's pass, each member's answer) of its last cycle.
        self.done: dict[str, tuple[int, dict[int, UnitOutcome]]] = {}
        self.profile = ""
        self.assumed: set[str] = set()  # members a trial placed: their nominations are not counted again

    def handles(self, pod: Pod) -> bool:
        return bool(pod.pod_group) and f"{pod.namespace}/{pod.pod_group}" in self.groups.pod_groups

    def with_mates(self, queue: list[int], waiting: Collection[int]) -> list[int]:
        """The next pass's queue with the waiting members of every tree one of its units belongs to: the
        tree's cycle answers for all of them (after a preemption, the members tried after the evictions
        would otherwise keep their old answer)."""
        roots = {self._root(u) for u in queue} - {""}
        if not roots:
            return queue
        chosen = set(queue)
        mates = {u for u in waiting if u not in chosen and self._root(u) in roots}
        if not mates:
            return queue
        return [u.id for u in self.run.problem.units if u.id in chosen or u.id in mates]

    def _root(self, uid: int) -> str:
        pod = self.run.pods[uid]
        fact = self.groups.pod_groups.get(f"{pod.namespace}/{pod.pod_group}") if pod.pod_group else None
        return self.groups.root_of(fact).key if fact is not None else ""

    # --- one member off the queue --------------------------------------------------------------------

    def outcome(self, unit: Unit, attempt: int, profile: str) -> UnitOutcome:
        pod = self.run.pods[unit.id]
        root = self.groups.root_of(self.groups.pod_groups[f"{pod.namespace}/{pod.pod_group}"])
        done = self.done.get(root.key)
        if done is not None and done[0] == self.run.pass_no and unit.id in done[1]:
            return done[1][unit.id]
        outcomes = self.cycle(root, unit.id, attempt, profile)
        self.done[root.key] = (self.run.pass_no, outcomes)
        return outcomes.get(unit.id) or UnitOutcome(
            unit.id, Outcome.UNSATISFIABLE, message="pod group is unschedulable"
        )

    def cycle(self, root: GroupFact, current: int, attempt: int, profile: str) -> dict[int, UnitOutcome]:
        self.profile = profile
        info = self.tree(root, current)
        problem = validate(info, self.run.pods, self.groups)
        if problem:
            return {
                # The scheduler's own error (handlePodGroupFailureBeforeScheduling): no plugin named.
                u: UnitOutcome(u, Outcome.ERROR, message=problem, error_plugin="")
                for leaf in info.leaves()
                for u in leaf.queued
            }
        every = Placement("", tuple(self.run.snapshot.nodes))
        algorithm = Algorithm(self.run.frameworks[profile], self.groups, self, every, self.run.rng)
        results = algorithm.run_root(info)
        before = len(self.run.evictions)
        nominations = post_filter(self, info, results)
        outcomes = self.submit(info, results, attempt, profile)
        if nominations:
            victims = tuple(e.victim.key for e in self.run.evictions[before:])
            for uid, node in nominations.items():
                record = outcomes[uid].record
                if isinstance(record, Record):
                    record = replace(record, nominated=node, victims=victims)
                    outcomes[uid] = replace(outcomes[uid], record=record)
        return outcomes

    def tree(self, fact: GroupFact, current: int) -> GroupInfo:
        info = GroupInfo(fact)
        if fact.kind == COMPOSITE:
            info.children = [self.tree(child, current) for child in self.groups.children_of(fact)]
            return info
        info.scheduled = list(self.bound.get(fact.key, ()))
        for uid in self.members.get(fact.key, ()):
            placed = self.run.placed.get(uid)
            if placed is not None:
                info.scheduled.append(self.run.pods[uid])
            elif uid == current or self._queued(uid):
                info.queued.append(uid)
        return info

    def _queued(self, uid: int) -> bool:
        """A member the queue would hand to the cycle: schedulable at all, and past every PreEnqueue."""
        run = self.run
        unit = run.problem.units[uid]
        if uid in run.refused or unit.error or run.unit_evicted(uid):
            return False
        pod = run.pods[uid]
        fw = run.frameworks.get(run.cluster.scheduler_name or pod.scheduler_name)
        if fw is None:
            return True  # the validation names the mismatch
        for plugin in fw.pre_enqueue:
            gate = getattr(plugin, "pre_enqueue", None)
            status = gate(pod) if gate is not None else None
            if status is not None and status.code != Code.SUCCESS:
                return False
        return True

    # --- Trials: one pod's cycle within a placement ----------------------------------------------------

    def attempt(self, uid: int, placement: Placement) -> tuple[PodResult, Revert | None]:
        run = self.run
        unit = run.problem.units[uid]
        pod = run.pods[uid]
        names = {n.name for n in placement.nodes}
        nodes = [n for n in run.candidates(unit) if n.name in names]
        if not nodes:
            return PodResult(uid, unresolvable(NO_NODES)), None
        steps = run.dra.steps
        run.current = uid
        nominated = run.nominated
        if self.assumed and nominated:
            nominated = {n: [p for p in ps if p.key not in self.assumed] for n, ps in nominated.items()}
        try:
            result = run.cycles[self.profile].run(pod, nodes, nominated, post_filter=False)
        except AllocatorError as e:
            return PodResult(uid, error(e.answer.message), steps=run.dra.steps - steps), None
        except FrameworkError as e:
            return PodResult(uid, Status(Code.ERROR, (e.status.message,))), None
        finally:
            run.current = -1
        spent = run.dra.steps - steps
        if not result.node:
            return PodResult(
                uid, unschedulable(result.message), result, steps=spent, nodes=tuple(nodes)
            ), None
        # Reserve took the pod's devices; the snapshot charges its node, as assuming the pod does.
        placed = replace(pod, node_name=result.node, nominated_node="")
        run.snapshot.by_name[result.node].add_pod(placed, result.mapped)
        found = PodResult(uid, None, result, result.node, spent, Proposed(placed, result.node), tuple(nodes))
        return found, self._taken_back(found)

    def assume(self, result: PodResult) -> Revert:
        """A pod placed in an earlier trial assumed again: its devices and its node taken once more."""
        assert result.proposed is not None and result.result is not None
        if result.result.answer is not None:
            self.run.dra.commit(result.result.answer)
        self.run.snapshot.by_name[result.node].add_pod(result.proposed.pod, result.result.mapped)
        return self._taken_back(result)

    def nomination(self, uid: int) -> str:
        return self.run.pods[uid].nominated_node

    def _taken_back(self, result: PodResult) -> Revert:
        assert result.proposed is not None
        run = self.run
        node: NodeInfo = run.snapshot.by_name[result.node]
        placed = result.proposed.pod
        answer = result.result.answer if result.result is not None else None
        self.assumed.add(placed.key)

        def revert() -> None:
            self.assumed.discard(placed.key)
            node.remove_pod(placed)
            if answer is not None:
                run.dra.undo(answer)

        return revert

    # --- submitting the result ---------------------------------------------------------------------

    def submit(
        self, root: GroupInfo, results: dict[str, GroupResult], attempt: int, profile: str
    ) -> dict[int, UnitOutcome]:
        out: dict[int, UnitOutcome] = {}
        conditions = cycle_conditions(root, results)
        for leaf in root.leaves():
            result = results[leaf.key]
            placements = _placements(root, leaf, results)
            by_unit = {p.unit: p for p in result.pods}
            for uid in leaf.queued:
                outcome = self._pod_outcome(uid, result, by_unit.get(uid), attempt, profile)
                if outcome.record is not None:
                    record = replace(
                        outcome.record, pod_group=leaf.key, placements=placements, group_conditions=conditions
                    )
                    outcome = replace(outcome, record=record)
                out[uid] = outcome
        return out

    def _pod_outcome(
        self, uid: int, group: GroupResult, pod: PodResult | None, attempt: int, profile: str
    ) -> UnitOutcome:
        run = self.run
        unit = run.problem.units[uid]
        status = group.status
        if status is not None and status.code == Code.ERROR:
            own = (
                pod.status
                if pod is not None and pod.status is not None and pod.status.code == Code.ERROR
                else None
            )
            return UnitOutcome(
                uid, Outcome.ERROR, message=(own or status).message, record=self._record(attempt, profile)
            )
        if pod is None or pod.result is None:
            message = pod.status.message if pod is not None and pod.status is not None else _message(status)
            return UnitOutcome(
                uid, Outcome.UNSATISFIABLE, message=message, record=self._record(attempt, profile, message)
            )
        if pod.status is None and status is None:
            if pod.result.answer is not None:
                run.dra.commit(pod.result.answer)
            return run.outcome(unit, run.pods[uid], pod.result, pod.nodes, pod.steps, attempt, profile)
        if pod.status is None:
            failed = replace(pod.result, node="", answer=None, message=_message(status))
            outcome = run.outcome(unit, run.pods[uid], failed, pod.nodes, pod.steps, attempt, profile)
            return outcome
        return run.outcome(unit, run.pods[uid], pod.result, pod.nodes, pod.steps, attempt, profile)

    @staticmethod
    def _record(attempt: int, profile: str, message: str = "") -> Record:
        return Record(attempts=attempt, profile=profile, message=message)


def _message(status: Status | None) -> str:
    return status.message if status is not None else "pod group is unschedulable"


def _placements(
    root: GroupInfo, leaf: GroupInfo, results: dict[str, GroupResult]
) -> dict[str, tuple[PlacementRecord, ...]]:
    """The placements of the leaf's group and of every CompositePodGroup above it, by group."""
    out: dict[str, tuple[PlacementRecord, ...]] = {}
    for info in _path(root, leaf):
        result = results.get(info.key)
        if result is not None and result.placements:
            out[entity_key(info.fact)] = tuple(result.placements)
    return out


def _path(root: GroupInfo, leaf: GroupInfo) -> list[GroupInfo]:
    if root is leaf:
        return [root]
    for child in root.children:
        found = _path(child, leaf)
        if found:
            return [root, *found]
    return []
