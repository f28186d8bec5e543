"""The framework runtime: one profile's plugins, and how each extension point runs them (frameworkImpl).

Statuses carry the plugin that set them. Filter plugins run in order and stop at the first
that rejects the node (the later ones are not evaluated, as upstream); a filter that fails
with anything but a rejection is an error of the whole cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...model.cluster import names
from ...model.cluster.facts import Pod
from ...model.cluster.points import (
    FILTER,
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    PLACEMENT_FEASIBLE,
    PLACEMENT_GENERATE,
    PLACEMENT_SCORE,
    POD_GROUP_POST_FILTER,
    POST_FILTER,
    PRE_ENQUEUE,
    PRE_FILTER,
    PRE_SCORE,
    QUEUE_SORT,
    RESERVE,
    SCORE,
)
from ...model.cluster.profile import Profile, expand
from ...model.cluster.record import NodeScores
from .framework import Code, CycleState, Handle, NodeInfo, Plugin, Status, error, unresolvable
from .plugins import REGISTRY, plugin_class

if TYPE_CHECKING:
    from .memo import NodeMemo


class FrameworkError(Exception):
    """A plugin failed with an error (not a rejection): the cycle stops, as upstream's would."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status


@dataclass
class PreFilterOutcome:
    allowed: set[str] | None = None  # node names PreFilter results allow (None: all)
    status: Status | None = None  # a rejection of every node
    plugins: tuple[str, ...] = ()  # plugins that rejected, or that narrowed the nodes


class Framework:
    """A profile made runnable: plugin instances per extension point, in order."""

    def __init__(
        self,
        profile: Profile,
        handle: Handle,
        factories: Mapping[str, Callable[[Handle, object], Plugin]] | None = None,
    ) -> None:
        self.profile = profile
        self.handle = handle
        made: dict[str, Plugin] = {}
        points_of = dict(names.POINTS_OF)
        for name, factory in (factories or {}).items():
            # Plugins a caller brings (tests' fakes) implement the points their class declares.
            if name not in points_of:
                made[name] = factory(handle, profile.args_of(name))
                points_of[name] = made[name].points
        expanded = expand(profile, points_of)
        self.weights = dict(expanded.weights)
        self.placement_weights = dict(expanded.placement_weights)

        def get(name: str) -> Plugin | None:
            if name in names.INERT or (name not in REGISTRY and not (factories and name in factories)):
                return None
            if name not in made:
                factory = (factories or {}).get(name)
                args = profile.args_of(name)
                made[name] = factory(handle, args) if factory else plugin_class(name)(handle, args)
            return made[name]

        def at(point: str) -> list[Plugin]:
            out = []
            for name in expanded.at(point):
                plugin = get(name)
                if plugin is not None and point in plugin.points:
                    out.append(plugin)
            return out

        self.pre_enqueue = at(PRE_ENQUEUE)
        self.queue_sort = at(QUEUE_SORT)
        self.pre_filter = at(PRE_FILTER)
        self.filter = at(FILTER)
        self.post_filter = at(POST_FILTER)
        self.pre_score = at(PRE_SCORE)
        self.score = at(SCORE)
        self.reserve = at(RESERVE)
        # The PodGroup cycle's points (run by podgroup.runtime).
        self.placement_generate = at(PLACEMENT_GENERATE)
        self.placement_feasible = at(PLACEMENT_FEASIBLE)
        self.placement_score = at(PLACEMENT_SCORE)
        self.pod_group_post_filter = at(POD_GROUP_POST_FILTER)
        self.plugins = made

    @property
    def percentage_of_nodes_to_score(self) -> int | None:
        return self.profile.percentage_of_nodes_to_score

    def plugin(self, name: str) -> Plugin | None:
        return self.plugins.get(name)

    # --- PreFilter ------------------------------------------------------------------------------------

    def run_pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> PreFilterOutcome:
        """RunPreFilterPlugins. An Unschedulable rejection lets the later plugins run (preemption needs
        their state) and the last one stands; UnschedulableAndUnresolvable, or narrowing to no node,
        ends the run; any other code is an error."""
        allowed: set[str] | None = None
        narrowing: list[str] = []
        rejection: Status | None = None
        for plugin in self.pre_filter:
            result, status = plugin.pre_filter(state, pod, nodes)
            if status is not None and status.code != Code.SUCCESS:
                if status.code == Code.SKIP:
                    state.skip_filter.add(plugin.name)
                    continue
                status = status.with_plugin(plugin.name)
                if status.code == Code.UNRESOLVABLE:
                    return PreFilterOutcome(None, status, (plugin.name,))
                if status.code == Code.UNSCHEDULABLE:
                    rejection = status
                    continue
                raise FrameworkError(
                    error(f'running PreFilter plugin "{plugin.name}": {status.message}').with_plugin(
                        plugin.name
                    )
                )
            if result is not None:
                narrowing.append(plugin.name)
                allowed = set(result) if allowed is None else allowed & result
                if not allowed:
                    named = sorted(narrowing)
                    if len(named) == 1:
                        msg = f"node(s) didn't satisfy plugin {named[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) [{' '.join(named)}] simultaneously"
                    return PreFilterOutcome(allowed, unresolvable(msg), tuple(named))
        if rejection is not None:
            return PreFilterOutcome(allowed, rejection, (rejection.plugin,))
        return PreFilterOutcome(allowed, None, tuple(narrowing))

    def add_pod(self, state: CycleState, pod: Pod, added: Pod, node: NodeInfo) -> None:
        """RunPreFilterExtensionAddPod (skipped plugins too have nothing to update)."""
        self._extensions(state, "AddPod", lambda p: p.add_pod(state, pod, added, node))

    def remove_pod(self, state: CycleState, pod: Pod, removed: Pod, node: NodeInfo) -> None:
        self._extensions(state, "RemovePod", lambda p: p.remove_pod(state, pod, removed, node))

    def _extensions(self, state: CycleState, what: str, call: Callable[[Plugin], Status | None]) -> None:
        for plugin in self.pre_filter:
            if plugin.name in state.skip_filter or not plugin.has_extensions:
                continue
            status = call(plugin)
            if status is not None and status.code != Code.SUCCESS:
                raise FrameworkError(
                    error(f'running {what} on PreFilter plugin "{plugin.name}": {status.message}')
                )

    # --- Filter ---------------------------------------------------------------------------------------

    def run_filters(
        self, state: CycleState, pod: Pod, node: NodeInfo, record: dict[str, str] | None = None
    ) -> Status | None:
        """The first rejection (None: every filter passed). `record` gets "passed" or the reason per
        plugin evaluated."""
        skip = state.skip_filter
        for plugin in self.filter:
            if plugin.name in skip:
                continue
            status = plugin.filter(state, pod, node)
            if status is None or status.code == Code.SUCCESS:
                if record is not None:
                    record[plugin.name] = "passed"
                continue
            if not status.rejected:
                raise FrameworkError(
                    error(f'running "{plugin.name}" filter plugin: {status.message}').with_plugin(plugin.name)
                )
            status = status.with_plugin(plugin.name)
            if record is not None:
                record[plugin.name] = status.message
            return status
        return None

    def run_filters_with_nominated(
        self,
        state: CycleState,
        pod: Pod,
        node: NodeInfo,
        nominated: Sequence[Pod],
        record: dict[str, str] | None = None,
    ) -> Status | None:
        """RunFilterPluginsWithNominatedPods: with the nominated pods of at least the pod's priority added
        to the node first, then (when that passes) without them, since they may never get there."""
        added = nominated_to_add(pod, nominated)
        if not added:
            return self.run_filters(state, pod, node, record)
        with_them = node.clone()
        cloned = state.clone()
        for p in added:
            with_them.add_pod(p)
            self.add_pod(cloned, pod, p, with_them)
        # The record keeps the verdicts of the run that decided: the first when it rejects, else the second.
        first: dict[str, str] | None = {} if record is not None else None
        status = self.run_filters(cloned, pod, with_them, first)
        if status is not None:
            if record is not None and first is not None:
                record.update(first)
            return status
        for plugin in self.filter:
            # A plugin may keep what it found with the nominated pods for the pass without them.
            carry = getattr(plugin, "carry_over", None)
            if carry is not None and plugin.name not in state.skip_filter:
                carry(cloned, state, node.name)
        return self.run_filters(state, pod, node, record)

    # --- PostFilter -----------------------------------------------------------------------------------

    def run_post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[str | None, Status | None]:
        """RunPostFilterPlugins: the first plugin that makes the pod schedulable later wins (its nominated
        node, and its status when that says something); one that finds it unresolvable ends the run;
        otherwise the rejections' reasons, joined, with the last nomination a rejecting plugin decided
        (None: the pod's stays as it is)."""
        reasons: list[str] = []
        rejector = ""
        decided: str | None = None
        for plugin in self.post_filter:
            nominated, status = plugin.post_filter(state, pod, statuses)
            if status is None or status.code == Code.SUCCESS:
                return nominated, status
            if status.code == Code.UNRESOLVABLE:
                return nominated, status.with_plugin(plugin.name)
            if not status.rejected:
                return None, status.with_plugin(plugin.name)
            reasons += status.reasons
            rejector = rejector or plugin.name
            decided = nominated if nominated is not None else decided
        if not self.post_filter:
            return None, None
        return decided, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)

    # --- Score ----------------------------------------------------------------------------------------

    def run_scores(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], memo: NodeMemo | None = None
    ) -> list[NodeScores]:
        """PreScore, Score, NormalizeScore and weights; one NodeScores per node, in `nodes` order. As
        upstream: every plugin scores, then every plugin normalizes, then the scores are checked. With a
        memo, raw scores of unchanged nodes are reused, and nodes with the same scores share their maps."""
        for plugin in self.pre_score:
            status = plugin.pre_score(state, pod, nodes)
            if status is None or status.code == Code.SUCCESS:
                continue
            if status.code == Code.SKIP:
                state.skip_score.add(plugin.name)
                continue
            raise FrameworkError(error(f'running PreScore plugin "{plugin.name}": {status.message}'))
        plugins = [p for p in self.score if p.name not in state.skip_score]
        order = [n.name for n in nodes]
        if memo is not None:
            columns = memo.scores(state, pod, nodes, plugins)
        else:
            columns = [[plugin.score(state, pod, n) for n in nodes] for plugin in plugins]
        for i, plugin in enumerate(plugins):
            if not plugin.normalizes:
                continue
            by_node = dict(zip(order, columns[i], strict=True))
            status = plugin.normalize(state, pod, by_node)
            if status is not None and status.code != Code.SUCCESS:
                raise FrameworkError(
                    error(
                        f'running Normalize on Score plugins: plugin "{plugin.name}" failed with: '
                        f"{status.message}"
                    )
                )
            columns[i] = list(map(by_node.__getitem__, order))
        names = [p.name for p in plugins]
        weights = [self.weights.get(name, 1) for name in names]
        interned = memo.interned(names, weights) if memo is not None else {}
        # A node's NodeScores of an earlier cycle, kept while its scores are the same (records share it).
        last: dict[str, NodeScores] = memo.node_scores(names, weights) if memo is not None else {}
        out = []
        rows = zip(*columns, strict=True) if columns else [()] * len(order)
        for name, values in zip(order, rows, strict=True):
            assembled = interned.get(values)
            if assembled is None:
                assembled = _assemble(names, weights, values)
                interned[values] = assembled
            made = last.get(name)
            if made is None or made.plugin is not assembled[0]:
                made = last[name] = NodeScores(name, *assembled)
            out.append(made)
        return out

    # --- Reserve --------------------------------------------------------------------------------------

    def run_reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        """RunReservePluginsReserve, and on a failure RunReservePluginsUnreserve: every reserve plugin
        unreserves, in reverse order. A rejection is returned; any other failure is an error."""
        for plugin in self.reserve:
            status = plugin.reserve(state, pod, node)
            if status is None or status.code == Code.SUCCESS:
                continue
            for done in reversed(self.reserve):
                done.unreserve(state, pod, node)
            if status.rejected:
                return status.with_plugin(plugin.name)
            raise FrameworkError(error(f'running Reserve plugin "{plugin.name}": {status.message}'))
        return None


def nominated_to_add(pod: Pod, nominated: Sequence[Pod]) -> list[Pod]:
    """The nominated pods a Filter counts on their node: others of at least the pod's priority."""
    return [p for p in nominated if p.key != pod.key and p.priority >= pod.priority]


def _assemble(
    names: Sequence[str], weights: Sequence[int], values: Sequence[int]
) -> tuple[dict[str, int], dict[str, int], int]:
    """A node's scores per plugin, weighted, and their total; a score out of range fails the cycle."""
    plugin: dict[str, int] = {}
    weighted: dict[str, int] = {}
    total = 0
    for name, weight, value in zip(names, weights, values, strict=True):
        if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
            raise FrameworkError(
                error(
                    f'applying score defaultWeights on Score plugins: plugin "{name}" '
                    f"returns an invalid score {value}, it should in the range of "
                    f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                )
            )
        plugin[name] = value
        weighted[name] = value * weight
        total += value * weight
    return plugin, weighted, total
