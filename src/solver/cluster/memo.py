"""Filter verdicts and raw scores reused from cycle to cycle (kubefit's own work-saving; upstream
recomputes them, and the answers are the same either way).

Pods made from one template ask the same of every node, and between two cycles only the nodes a pod
went to (or was evicted from) change. A plugin whose verdict on a node depends only on the node's
state and on a key of the pod says so (Plugin.memo_key); its verdict is kept per (key, node) and
reused while the node's NodeInfo.generation and the plugin's memo_versions stand. A cycle reuses a
node's whole Filter verdict (with what the plugins left in the cycle state for it) when every filter
that runs is memoizable: PodTopologySpread and InterPodAffinity, which count pods on other nodes,
never are. A node whose nominated pods join the check is evaluated as usual. The verdicts of a key are
kept in the snapshot's node order (lane.py), so that a cycle over every node works only on the nodes
that changed and takes the rest in slices. Scores are reused per
node for the memoizable score plugins, the others scored every time; normalizing and weighting run
every cycle, the resulting per-node score maps shared between cycles that reach the same values.

`ENABLED` False turns all of it off (and DRA's reuse of search answers): tests compare both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import compress, repeat
from operator import attrgetter, is_, itemgetter, ne, or_
from typing import Any

from ...model.cluster.facts import Pod
from ...model.cluster.points import FILTER, SCORE
from .framework import CycleState, NodeInfo, Plugin, Status
from .lane import Lane

ENABLED = True

_GENERATION = attrgetter("generation")
_NAME = attrgetter("name")

RunFilters = Callable[[CycleState, Pod, NodeInfo, "dict[str, str] | None"], "Status | None"]

# Scores after normalizing per plugin, weighted per plugin, and their total: shared by every node whose
# plugins' scores are the same values.
Assembled = tuple[dict[str, int], dict[str, int], int]


class _Versions:
    """A node's version for a set of plugins: the one plugin's, a tuple of several, or 0 for none."""

    def __init__(self, plugins: Sequence[Plugin]) -> None:
        found = [v for v in (p.memo_versions() for p in plugins) if v is not None]
        self.one: Mapping[str, int] | None = found[0] if len(found) == 1 else None
        self.many: list[Mapping[str, int]] | None = found if len(found) > 1 else None

    def of(self, name: str) -> Hashable:
        if self.one is not None:
            return self.one.get(name, 0)
        if self.many is not None:
            return tuple(v.get(name, 0) for v in self.many)
        return 0

    def all(self, names: Sequence[str]) -> list[Hashable]:
        if self.one is not None:
            return list(map(self.one.get, names, repeat(0)))
        if self.many is not None:
            return [self.of(name) for name in names]
        return [0] * len(names)


class Order:
    """The snapshot's nodes, their names and positions (what lanes are indexed by)."""

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self.nodes = list(nodes)
        self.names = [n.name for n in self.nodes]
        self.position = {name: i for i, name in enumerate(self.names)}

    def covers(self, nodes: Sequence[NodeInfo]) -> bool:
        """`nodes` are the snapshot's, all of them, in its order."""
        return len(nodes) == len(self.nodes) and all(map(is_, nodes, self.nodes))


class Filters:
    """One cycle's Filter runs through the memo: the verdicts of pods with the same keys."""

    def __init__(
        self,
        run_filters: RunFilters,
        state: CycleState,
        pod: Pod,
        lane: Lane,
        order: Order,
        versions: _Versions,
        effects: list[Plugin],
    ) -> None:
        self.run_filters = run_filters
        self.state = state
        self.pod = pod
        self.lane = lane
        self.order = order
        self.versions = versions
        self.effects = effects
        self.loaders = [p.memo_loader(state) for p in effects]
        self.unsettled: tuple[int, int] | None = None  # a pass whose effects are not put back yet

    def run(self, node: NodeInfo) -> tuple[Status | None, dict[str, str]]:
        """The node's first rejection (None: it passes) and the verdict of each plugin that ran."""
        i = self.order.position.get(node.name)
        if i is None or self.order.nodes[i] is not node:
            record: dict[str, str] = {}
            return self.run_filters(self.state, self.pod, node, record), record
        lane = self.lane
        version = self.versions.of(node.name)
        if not lane.valid(i, node.generation, version):
            return self._evaluate(i, node, version)
        for loader, lefts in zip(self.loaders, lane.lefts, strict=True):
            left = lefts[i]
            if loader is not None and left is not None:
                loader(left)
        return lane.statuses[i], lane.records[i]  # type: ignore[return-value]

    def whole(
        self, start: int, want: int
    ) -> tuple[dict[str, dict[str, str]], dict[str, Status], list[NodeInfo]]:
        """The cycle's Filter over every node of the snapshot (see lane.py), from `start` until `want` nodes
        passed: the verdicts and rejections of the nodes it evaluated, and the nodes that passed."""
        order, lane = self.order, self.lane
        versions = self.versions.all(order.names)
        changed = lane.changed(list(map(_GENERATION, order.nodes)), versions)
        if not changed:
            again = lane.again(start, want)
            if again is not None:
                # What the filters left for these nodes is put back when the cycle needs it (`settle`):
                # a pod that repeats a failed cycle takes its result without.
                self.unsettled = (start, lane.last[2]) if lane.last is not None else None
                return again
        loads = [p.memo_load_many(self.state) for p in self.effects]
        end = lane.walk(start, want, changed, lambda i: self._evaluate(i, order.nodes[i], versions[i]), loads)
        got = lane.evaluated(order.names, order.nodes, start, end)
        lane.last = (start, want, end, got)
        return got

    def settle(self) -> None:
        """Puts back what the filters left for the nodes of a pass taken from the lane, if not done yet."""
        if self.unsettled is not None:
            start, end = self.unsettled
            self.unsettled = None
            self.lane.load([p.memo_load_many(self.state) for p in self.effects], start, 0, end)

    def _evaluate(self, i: int, node: NodeInfo, version: Any) -> tuple[Status | None, dict[str, str]]:
        record: dict[str, str] = {}
        status = self.run_filters(self.state, self.pod, node, record)
        generation: int | None = node.generation
        lefts: list[Any] = [None] * len(self.effects)
        for k, plugin in enumerate(self.effects):
            if plugin.name in record:
                ok, left = plugin.memo_save(self.state, node)
                if not ok:
                    # Good for this cycle only.
                    generation, lefts = None, [None] * len(self.effects)
                    break
                lefts[k] = left
        self.lane.keep(i, generation, version, status, record, lefts)
        return status, record


class _RawScores:
    """The memoizable score plugins' raw scores of each node of the snapshot (by position) for one set of
    keys, with the node's generation and version they hold for."""

    def __init__(self, size: int) -> None:
        self.generations: list[int | None] = [None] * size
        self.versions: list[Hashable] = [None] * size
        self.rows: list[tuple[int, ...]] = [()] * size

    def missing(self, at: list[int], generations: list[int], versions: list[Hashable]) -> list[int]:
        """Which of the nodes at positions `at` (with their generations and versions now) have no scores
        that hold, by their place in `at`."""
        held = map(
            or_,
            map(ne, generations, map(self.generations.__getitem__, at)),
            map(ne, versions, map(self.versions.__getitem__, at)),
        )
        return list(compress(range(len(at)), held))

    def keep(self, i: int, generation: int, version: Hashable, row: tuple[int, ...]) -> None:
        self.generations[i] = generation
        self.versions[i] = version
        self.rows[i] = row


class NodeMemo:
    """What one framework's cycles of a scheduling run reuse (a new run starts empty)."""

    def __init__(self, filters: Sequence[Plugin], run_filters: RunFilters, nodes: Sequence[NodeInfo]) -> None:
        self.filter_plugins = filters
        self.run_filters = run_filters
        self.order = Order(nodes)  # the snapshot's nodes
        self.verdicts: dict[Hashable, Lane] = {}
        self.raw: dict[Hashable, _RawScores] = {}
        self.assembled: dict[Hashable, dict[tuple[int, ...], Assembled]] = {}
        self.by_node: dict[Hashable, dict[str, Any]] = {}

    def filters(self, state: CycleState, pod: Pod) -> Filters | None:
        """The cycle's memoized Filter, or None when some filter that runs is not memoizable."""
        if not ENABLED:
            return None
        parts: list[tuple[str, Hashable]] = []
        running: list[Plugin] = []
        for plugin in self.filter_plugins:
            if plugin.name in state.skip_filter:
                continue
            key = plugin.memo_key(state, pod, FILTER)
            if key is None:
                return None
            parts.append((plugin.name, key))
            running.append(plugin)
        effects = [p for p in running if type(p).memo_loader is not Plugin.memo_loader]
        lane = self.verdicts.get(tuple(parts))
        if lane is None:
            lane = self.verdicts[tuple(parts)] = Lane(len(self.order.nodes), len(effects))
        return Filters(self.run_filters, state, pod, lane, self.order, _Versions(running), effects)

    def scores(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], plugins: Sequence[Plugin]
    ) -> list[list[int]]:
        """Each plugin's raw score of each node (in `nodes` order), plugin after plugin as the framework
        scores them; memoizable plugins only score the nodes whose state changed."""
        keys = [p.memo_key(state, pod, SCORE) for p in plugins] if ENABLED else [None] * len(plugins)
        kept = [i for i, key in enumerate(keys) if key is not None]
        if not kept:
            return [[p.score(state, pod, n) for n in nodes] for p in plugins]
        versions = _Versions([plugins[i] for i in kept])
        key = tuple((plugins[i].name, keys[i]) for i in kept)
        raw = self.raw.get(key)
        if raw is None:
            raw = self.raw[key] = _RawScores(len(self.order.nodes))
        names = list(map(_NAME, nodes))
        at = list(map(self.order.position.get, names, repeat(-1)))
        if -1 in at or not all(map(is_, map(self.order.nodes.__getitem__, at), nodes)):
            # Nodes of another snapshot: scored as they are.
            return [[p.score(state, pod, n) for n in nodes] for p in plugins]
        generations = list(map(_GENERATION, nodes))
        now = versions.all(names)
        missing = raw.missing(at, generations, now)
        out: list[list[int]] = []
        fresh: list[list[int]] = []
        for i, plugin in enumerate(plugins):
            if keys[i] is None:
                out.append([plugin.score(state, pod, n) for n in nodes])
            else:
                fresh.append([plugin.score(state, pod, nodes[k]) for k in missing])
                out.append([])
        for j, k in enumerate(missing):
            raw.keep(at[k], generations[k], now[k], tuple(computed[j] for computed in fresh))
        rows = list(map(raw.rows.__getitem__, at))
        for j, index in enumerate(kept):
            # A column at a time (zip over hundreds of rows steps each row's iterator per value).
            out[index] = list(map(itemgetter(j), rows))
        return out

    def interned(self, plugins: Sequence[str], weights: Sequence[int]) -> dict[tuple[int, ...], Assembled]:
        """Assembled scores by the plugins' normalized values, for one profile's plugins and weights."""
        if not ENABLED:
            return {}
        return self.assembled.setdefault((tuple(plugins), tuple(weights)), {})

    def node_scores(self, plugins: Sequence[str], weights: Sequence[int]) -> dict[str, Any]:
        """Each node's last NodeScores (runtime.py) for one profile's plugins and weights: a node whose
        assembled scores are the same objects again gets the same NodeScores."""
        if not ENABLED:
            return {}
        return self.by_node.setdefault((tuple(plugins), tuple(weights)), {})
