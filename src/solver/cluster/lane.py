"""One class of pods' Filter verdicts on every node of the snapshot, kept in the snapshot's order (a lane),
so that a cycle pays for the nodes that changed and for little else.

A cycle filters nodes from where the last one stopped until it has found enough feasible nodes (all the
nodes when the pod fits nowhere). Pods with the same memo keys (memo.py) get the same verdict from a
node until the node changes, and between two cycles only a few nodes change: the lane holds each node's
verdict with the node's generation and version it was worked out at, which nodes passed, and how many
passed up to each position (rebuilt after a change). A pass over the snapshot finds the changed nodes by
comparing those stamps, walks the rotation from the start, runs the filters on the changed nodes it
reaches (in the cycle's order, exactly as the node-by-node loop would), and counts its way over the
unchanged stretches between them; the verdicts, the rejections and the feasible nodes of the nodes it
evaluated are then taken from the lane in slices. What the filters with effects left in the cycle state
for an unchanged node (DynamicResources' answers) is put back stretch by stretch, in the same order.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import partial
from itertools import accumulate, compress, repeat
from operator import is_, is_not, ne, or_
from typing import Any

from .framework import NodeInfo, Status

_NOT_NONE = partial(is_not, None)

# The cycle's record of a node's verdicts: plugin -> "passed" or the rejection.
Record = dict[str, str]
# Runs the filters on one node of the snapshot (by position), keeps the verdict, and returns it.
Evaluate = Callable[[int], "tuple[Status | None, Record]"]
# Puts back, for one filter with effects, what it left for the nodes of a stretch (in order).
LoadMany = Callable[[list[Any]], None]
# What a pass gives: the verdicts of the nodes it evaluated and their rejections (by node, in its
# order), and the nodes that passed. Never changed once made (cycles share them).
Evaluated = tuple[dict[str, Record], dict[str, Status], list[NodeInfo]]


class Lane:
    """Verdicts of one class of pods on the nodes of one snapshot, by the node's position."""

    def __init__(self, size: int, effects: int) -> None:
        # The node's generation and version a verdict holds for (generation None: no verdict to reuse).
        self.generations: list[int | None] = [None] * size
        self.versions: list[Any] = [None] * size
        self.statuses: list[Status | None] = [None] * size
        self.records: list[Record | None] = [None] * size
        self.passed: list[bool] = [False] * size
        # What each filter with effects left for each node (None: nothing).
        self.lefts: list[list[Any]] = [[None] * size for _ in range(effects)]
        # What a reader made of each node's verdict (node_outcomes.py), until the verdict changes.
        self.notes: list[Any] = [None] * size
        self._passed_before: list[int] | None = None  # passed[:i] counted, for each i (None: to rebuild)
        # The last pass over the whole snapshot, while no verdict changed since: (start, want, how many
        # nodes it evaluated, what it gave).
        self.last: tuple[int, int, int, Evaluated] | None = None

    # --- one node ------------------------------------------------------------------------------------

    def valid(self, i: int, generation: int, version: Any) -> bool:
        return self.generations[i] == generation and bool(self.versions[i] == version)

    def keep(
        self,
        i: int,
        generation: int | None,
        version: Any,
        status: Status | None,
        record: Record,
        lefts: Sequence[Any],
    ) -> None:
        """The verdict on node i (generation None: good for this cycle only)."""
        self.last = None
        self.generations[i] = generation
        self.versions[i] = version
        self.notes[i] = None
        self.statuses[i] = status
        self.records[i] = record
        if self.passed[i] != (status is None):
            self.passed[i] = status is None
            self._passed_before = None
        for column, left in zip(self.lefts, lefts, strict=True):
            column[i] = left

    # --- a pass over the whole snapshot ----------------------------------------------------------------

    def changed(self, generations: Sequence[int], versions: Sequence[Any]) -> list[int]:
        """The positions of the nodes whose verdict does not hold any more (given every node's generation
        and version now)."""
        differ = map(or_, map(ne, generations, self.generations), map(ne, versions, self.versions))
        return list(compress(range(len(generations)), differ))

    def walk(
        self, start: int, want: int, changed: list[int], evaluate: Evaluate, loads: Sequence[LoadMany | None]
    ) -> int:
        """How many nodes, in the rotation from `start`, a cycle that stops at `want` feasible nodes
        evaluates; the changed ones it reaches are evaluated on the way and the effects of the others
        put back, in that order."""
        n = len(self.generations)
        first = bisect_left(changed, start)
        found = 0
        at = 0  # the next position of the rotation not walked yet
        for i in (*changed[first:], *changed[:first]):
            position = (i - start) % n
            more = self._passed(start, at, position)
            if found + more >= want:
                end = self._nth(start, at, position, want - found) + 1
                self.load(loads, start, at, end)
                return end
            found += more
            self.load(loads, start, at, position)
            status, _ = evaluate(i)
            at = position + 1
            if status is None:
                found += 1
                if found >= want:
                    return at
        more = self._passed(start, at, n)
        end = self._nth(start, at, n, want - found) + 1 if found + more >= want else n
        self.load(loads, start, at, end)
        return end

    def again(self, start: int, want: int) -> Evaluated | None:
        """What the last pass gave, when this one is the same (from `start` until `want` nodes passed) and
        no node changed since; None otherwise. The effects it left are not put back (`load`)."""
        last = self.last
        if last is None or last[0] != start or last[1] != want:
            return None
        return last[3]

    def positions(self, start: int, end: int) -> list[tuple[int, int]]:
        """The first `end` nodes of the rotation from `start`, as ranges of positions in the snapshot's
        order."""
        return sorted(self._ranges(start, 0, end))

    def evaluated(self, names: Sequence[str], nodes: Sequence[NodeInfo], start: int, end: int) -> Evaluated:
        """The verdicts of the first `end` nodes of the rotation, their rejections, and the nodes that
        passed, in the rotation's order."""
        parts = self._ranges(start, 0, end)
        order = _slices(names, parts)
        statuses = _slices(self.statuses, parts)
        records = dict(zip(order, _slices(self.records, parts), strict=True))
        rejected = dict(compress(zip(order, statuses, strict=True), map(is_not, statuses, repeat(None))))
        passed = list(compress(_slices(nodes, parts), map(is_, statuses, repeat(None))))
        return records, rejected, passed

    # --- counting over unchanged stretches ------------------------------------------------------------

    def _before(self) -> list[int]:
        if self._passed_before is None:
            self._passed_before = [0, *accumulate(self.passed)]
        return self._passed_before

    def _passed(self, start: int, a: int, b: int) -> int:
        """Nodes that passed among rotation positions [a, b)."""
        before = self._before()
        return sum(before[hi] - before[lo] for lo, hi in self._ranges(start, a, b))

    def _nth(self, start: int, a: int, b: int, k: int) -> int:
        """The rotation position of the k-th node that passed among rotation positions [a, b) (k >= 1)."""
        before = self._before()
        for lo, hi in self._ranges(start, a, b):
            here = before[hi] - before[lo]
            if k <= here:
                i = bisect_left(before, before[lo] + k, lo + 1, hi + 1) - 1
                return (i - start) % len(self.generations)
            k -= here
        raise AssertionError("fewer nodes passed than counted")

    def _ranges(self, start: int, a: int, b: int) -> list[tuple[int, int]]:
        """Rotation positions [a, b) as ranges of node positions."""
        n = len(self.generations)
        if a >= b:
            return []
        lo = (start + a) % n
        if lo + b - a <= n:
            return [(lo, lo + b - a)]
        return [(lo, n), (0, lo + b - a - n)]

    def load(self, loads: Sequence[LoadMany | None], start: int, a: int, b: int) -> None:
        """Puts back what the filters with effects left for the nodes of rotation positions [a, b)."""
        for load, column in zip(loads, self.lefts, strict=True):
            if load is None or a >= b:
                continue
            lefts: list[Any] = []
            for lo, hi in self._ranges(start, a, b):
                lefts.extend(filter(_NOT_NONE, column[lo:hi]))
            if lefts:
                load(lefts)


def _slices(values: Sequence[Any], parts: Sequence[tuple[int, int]]) -> list[Any]:
    if len(parts) == 1:
        lo, hi = parts[0]
        return list(values[lo:hi])
    return [v for lo, hi in parts for v in values[lo:hi]]
