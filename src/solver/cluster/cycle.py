"""One scheduling cycle (schedulePod): PreFilter, Filter over the nodes from where the last cycle stopped
until enough feasible ones are found, Score, host selection, Reserve; PostFilter when nothing fits.

Host selection: kubefit takes the first node with the highest total in the order the cycle evaluated the
nodes (the snapshot's node order, starting where the previous cycle stopped), unless a seed is given: then
it samples uniformly among them (reservoir sampling, as releases before the score heap did). The newest
upstream pops the root of a heap keyed on the total, random tie-breakers being drawn only for nodes that
extenders scored: among equal totals its root depends on the heap's layout (tests/scenarios/sched/
SKIPPED-cycle.md).

Filter verdicts and raw scores of nodes that did not change since an earlier cycle of a pod asking the same
are reused (memo.py): the same verdicts, with less work.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from ...model.cluster.facts import Pod
from ...model.cluster.record import NodeScores
from ..units import NodeAnswer
from .fit_error import fit_error_message
from .framework import CycleState, NodeInfo, Status, unresolvable
from .lane import Lane
from .memo import Filters, NodeMemo
from .plugins.dynamic_resources import NAME as DRA
from .plugins.dynamic_resources import CycleData
from .runtime import Framework, FrameworkError, nominated_to_add

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
BASE_PERCENTAGE_OF_NODES_TO_SCORE = 50

_PLUGIN = attrgetter("plugin")


def num_feasible_nodes_to_find(percentage: int | None, global_percentage: int, num_all: int) -> int:
    """How many feasible nodes a cycle looks for before it stops filtering (numFeasibleNodesToFind)."""
    if num_all < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all
    pct = percentage if percentage is not None else global_percentage
    if pct == 0:
        pct = max(BASE_PERCENTAGE_OF_NODES_TO_SCORE - num_all // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    found = num_all * pct // 100
    return max(found, MIN_FEASIBLE_NODES_TO_FIND)


@dataclass
class CycleResult:
    node: str = ""
    answer: NodeAnswer | None = None  # the DRA allocation on the chosen node
    mapped: dict[str, int] = field(default_factory=dict)  # node resources its devices map to
    filters: dict[str, dict[str, str]] = field(default_factory=dict)  # node -> plugin -> passed|reason
    statuses: dict[str, Status] = field(default_factory=dict)  # node -> why it was rejected
    pre_filter: dict[str, str] = field(default_factory=dict)  # plugin -> rejection or narrowing
    scores: list[NodeScores] = field(default_factory=list)
    message: str = ""  # the FitError when nothing fits
    nominated: str | None = None  # the pod's nominated node after PostFilter (None: unchanged, "": cleared)
    undecided: dict[str, str] = field(default_factory=dict)  # nodes the engine could not decide
    answers: dict[str, NodeAnswer] = field(default_factory=dict)  # every DRA answer of the cycle
    evaluated: int = 0
    feasible: int = 0
    # The memo's lane that made the Filter pass and the rotation it evaluated (start, nodes), when a lane
    # made it alone: the verdicts are the lane's and every rejection is in `statuses`.
    window: tuple[Lane, int, int] | None = None
    _rejected_by: frozenset[str] | None = field(default=None, repr=False, compare=False)

    def rejected_by(self) -> frozenset[str]:
        """The filters that turned some node away (each node's verdicts map looked at once: nodes share
        them, and pods that repeat a cycle share its result)."""
        if self._rejected_by is None and self.window is not None:
            self._rejected_by = frozenset(map(_PLUGIN, self.statuses.values()))
        elif self._rejected_by is None:
            records = self.filters.values()
            distinct = dict(zip(map(id, records), records, strict=True)).values()
            self._rejected_by = frozenset(
                p for verdicts in distinct for p, v in verdicts.items() if v != "passed"
            )
        return self._rejected_by


class Cycle:
    """Runs cycles for one framework; `next_start` carries over from cycle to cycle, as upstream's."""

    def __init__(self, framework: Framework, global_percentage: int, rng: random.Random | None) -> None:
        self.fw = framework
        self.global_percentage = global_percentage
        self.rng = rng
        self.next_start = 0
        self.memo = NodeMemo(framework.filter, framework.run_filters, framework.handle.snapshot.nodes)
        # Cycles that found no node, by the verdicts of their pass and what else the pod's failure
        # depends on (see _again).
        self.failed: dict[tuple[Lane, Hashable], tuple[dict[str, dict[str, str]], CycleResult]] = {}

    def run(
        self,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        nominated: dict[str, list[Pod]],
        post_filter: bool = True,
    ) -> CycleResult:
        """One cycle for the pod over `nodes`; `post_filter` False: no preemption (claims allocated without
        a pod, where there is nothing to preempt for)."""
        fw = self.fw
        out = CycleResult()
        state = CycleState()
        pre = fw.run_pre_filter(state, pod, nodes)
        if pre.status is not None:
            for plugin in pre.plugins:
                out.pre_filter[plugin] = pre.status.message
            everything = {n.name: pre.status for n in nodes}
            if post_filter:
                self._post_filter(out, state, pod, everything)
            out.message = fit_error_message(len(nodes), {}, pre.status, pre.status.message, out.message)
            self._collect(out, state)
            return out
        absent: Status | None = None
        candidates = list(nodes)
        if pre.allowed is not None:
            candidates = [n for n in nodes if n.name in pre.allowed]
            absent = unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(pre.plugins))}]")
            for plugin in pre.plugins:
                out.pre_filter[plugin] = absent.message
        # The nominated node is looked up among all the nodes, before PreFilter's narrowing applies.
        feasible = self._nominated_first(out, state, pod, nodes, nominated)
        memo = self.memo.filters(state, pod) if candidates else None
        if not feasible:
            feasible = self._filter(out, state, pod, candidates, nominated, len(nodes), memo)
        out.feasible = len(feasible)
        key = None
        if not feasible and absent is None:
            key = self._failure_key(pod, post_filter, memo, out, nominated)
            if key is not None and key in self.failed and self.failed[key][0] is out.filters:
                return self.failed[key][1]
        if memo is not None:
            memo.settle()
        if not feasible:
            everything = dict(out.statuses)
            if absent is not None:
                for n in nodes:
                    everything.setdefault(n.name, absent)
            steps = self._steps()
            if post_filter:
                self._post_filter(out, state, pod, everything)
            out.message = fit_error_message(len(nodes), out.statuses, absent, "", out.message)
            self._collect(out, state)
            if key is not None and not out.nominated and self._steps() == steps:
                self.failed[key] = (out.filters, out)
            return out
        if len(feasible) > 1:
            out.scores = fw.run_scores(state, pod, feasible, self.memo)
            out.node = self._select(out.scores)
        else:
            out.node = feasible[0].name
            # Upstream takes a lone feasible node without scoring it; kubefit scores it anyway, for the
            # record, but a scoring failure cannot fail the cycle as it does not upstream.
            with contextlib.suppress(FrameworkError):
                out.scores = fw.run_scores(state, pod, feasible, self.memo)
        self._collect(out, state)
        data: CycleData | None = state.read(DRA)
        if data is not None:
            out.answer = data.concrete(out.node)
            out.mapped = dict(data.mapped.get(out.node, {}))
        status = fw.run_reserve(state, pod, out.node)
        if status is not None:
            # A Reserve rejection is the FitError of the one node the cycle chose; no PostFilter.
            out.message = fit_error_message(1, {out.node: status})
            out.statuses = {out.node: status}
            out.node = ""
            out.window = None  # the rejection is not the lane's
        return out

    def _nominated_first(
        self,
        out: CycleResult,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        nominated: dict[str, list[Pod]],
    ) -> list[NodeInfo]:
        """evaluateNominatedNode: a node nominated by an earlier preemption is tried first, alone. When it
        fails, its status stays in the diagnosis (the full pass may evaluate it again)."""
        if not pod.nominated_node:
            return []
        node = next((n for n in nodes if n.name == pod.nominated_node), None)
        if node is None:
            return []
        record: dict[str, str] = {}
        status = self.fw.run_filters_with_nominated(state, pod, node, nominated.get(node.name, ()), record)
        out.filters[node.name] = record
        if status is not None:
            out.statuses[node.name] = status
            return []
        out.evaluated = 1
        return [node]

    def _filter(
        self,
        out: CycleResult,
        state: CycleState,
        pod: Pod,
        nodes: list[NodeInfo],
        nominated: dict[str, list[Pod]],
        num_all: int,
        memo: Filters | None,
    ) -> list[NodeInfo]:
        """findNodesThatPassFilters, one node after the other from `next_start` (upstream with parallelism
        1). A profile without Score plugins looks for one feasible node only."""
        feasible: list[NodeInfo] = []
        if nodes:
            want = 1
            if self.fw.score:
                want = num_feasible_nodes_to_find(
                    self.fw.percentage_of_nodes_to_score, self.global_percentage, len(nodes)
                )
            count = len(nodes)
            start = self.next_start % count
            if (
                memo is not None
                and not out.filters
                and not out.statuses
                and memo.order.covers(nodes)
                and not any(nominated_to_add(pod, waiting) for waiting in nominated.values())
            ):
                # Every node of the snapshot, none with nominated pods that count: the same pass, by the
                # memo's lane.
                out.filters, out.statuses, feasible = memo.whole(start, want)
                if memo.lane.last is not None:
                    out.window = (memo.lane, start, memo.lane.last[2])
            else:
                feasible = self._filter_each(out, state, pod, nodes, nominated, memo, start, want)
        # processedNodes counts every status of the diagnosis, a failed nominated node's too.
        out.evaluated = len(feasible) + len(out.statuses)
        self.next_start = (self.next_start + out.evaluated) % max(num_all, 1)
        return feasible

    def _filter_each(
        self,
        out: CycleResult,
        state: CycleState,
        pod: Pod,
        nodes: list[NodeInfo],
        nominated: dict[str, list[Pod]],
        memo: Filters | None,
        start: int,
        want: int,
    ) -> list[NodeInfo]:
        feasible: list[NodeInfo] = []
        count = len(nodes)
        for i in range(count):
            node = nodes[(start + i) % count]
            waiting = nominated.get(node.name, ())
            if memo is not None and not (waiting and nominated_to_add(pod, waiting)):
                status, record = memo.run(node)
            else:
                record = {}
                status = self.fw.run_filters_with_nominated(state, pod, node, waiting, record)
            out.filters[node.name] = record
            if status is None:
                feasible.append(node)
                if len(feasible) >= want:
                    break
            else:
                out.statuses[node.name] = status
        return feasible

    def _failure_key(
        self,
        pod: Pod,
        post_filter: bool,
        memo: Filters | None,
        out: CycleResult,
        nominated: dict[str, list[Pod]],
    ) -> tuple[Lane, Hashable] | None:
        """What a failed cycle is kept by, so that a pod that repeats it gets its result (and the work of
        PostFilter and of the FitError is done once for a run of pods that fit nowhere), or None when
        the cycle cannot be kept. A pod repeats it when its Filter pass is that cycle's, taken from the
        memo's lane because no node changed since (the same verdicts, by the identity of their map),
        and its preemption would go the same way: the same priority and preemption policy, no pod
        nominated anywhere, no random draws; the cycle kept preempted nothing and searched for no
        devices in PostFilter (whose dry run would otherwise run again).
        """
        if (
            memo is None
            or self.rng is not None
            or pod.nominated_node
            or any(nominated.values())
            or out.pre_filter
            or memo.lane.last is None
            or memo.lane.last[3][0] is not out.filters
        ):
            return None
        return memo.lane, (pod.priority, pod.preemption_policy, post_filter)

    def _steps(self) -> int:
        """The DRA searches' steps so far (0 without DRA)."""
        dra = self.fw.handle.services.get("dra")
        return int(getattr(dra, "steps", 0))

    def _select(self, scores: list[NodeScores]) -> str:
        best = max(s.total for s in scores)
        tied = [s.node for s in scores if s.total == best]
        if self.rng is None or len(tied) == 1:
            return tied[0]
        chosen = tied[0]
        for i, node in enumerate(tied[1:], start=2):
            if self.rng.randrange(i) == 0:
                chosen = node
        return chosen

    def _post_filter(
        self, out: CycleResult, state: CycleState, pod: Pod, statuses: dict[str, Status]
    ) -> None:
        nominated, status = self.fw.run_post_filter(state, pod, statuses)
        out.nominated = nominated
        out.message = status.message if status is not None else ""

    @staticmethod
    def _collect(out: CycleResult, state: CycleState) -> None:
        data: CycleData | None = state.read(DRA)
        if data is not None:
            out.undecided.update(data.undecided)
            out.answers.update(data.seen)
