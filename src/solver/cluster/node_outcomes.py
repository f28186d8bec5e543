"""Each node's outcome of a pod's last cycle, as the Solution reports it: passed (with the DRA search's
steps there), rejected with the filter's reasons (or PreFilter's, for nodes it ruled out), or undecided.

A scheduling run reports a few hundred nodes for each of its pods, mostly the same outcomes from pod to
pod: equal outcomes are one shared (immutable) object.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import is_, itemgetter
from typing import Any

from ...model.solution import NodeOutcome, Status
from ..units import NodeAnswer
from .cycle import CycleResult
from .framework import NodeInfo
from .framework import Status as Rejection
from .lane import Lane

_Key = tuple[str, Status, tuple[str, ...] | None, int]
_OUTCOME = itemgetter(2)
_MAX_KNOWN = 200_000


class NodeOutcomes:
    """`position`: each node's place in the snapshot, the order of the nodes a cycle is given."""

    def __init__(self, position: Mapping[str, int]) -> None:
        self.position = position
        self.names = sorted(position, key=position.__getitem__)
        self.known: dict[_Key, NodeOutcome] = {}
        # (node, the identities of its status and DRA answer) -> (the status, the answer, the outcome):
        # most nodes of a cycle show the same objects as in an earlier cycle (the memo's), kept alive here.
        self.by_identity: dict[tuple[str, int, int], tuple[Any, Any, NodeOutcome]] = {}
        self.last: tuple[CycleResult, tuple[NodeOutcome, ...]] | None = None  # pods that repeat a cycle

    def of(self, result: CycleResult, nodes: Sequence[NodeInfo]) -> tuple[NodeOutcome, ...]:
        """The outcomes of the nodes the cycle looked at, in `nodes` order (the snapshot's)."""
        if self.last is not None and self.last[0] is result:
            return self.last[1]
        made = self._of_cycle(result, nodes)
        self.last = (result, made)
        return made

    def _of_cycle(self, result: CycleResult, nodes: Sequence[NodeInfo]) -> tuple[NodeOutcome, ...]:
        statuses, filters = result.statuses, result.filters
        if result.pre_filter or result.undecided:
            return self._of(result, nodes)
        if result.window is not None:
            return self._of_lane(result, *result.window)
        # Only the nodes Filter looked at have an outcome (often a few of many).
        names = sorted(filters.keys() | statuses.keys(), key=self.position.__getitem__)
        held = list(map(statuses.get, names))
        answers = list(map(result.answers.get, names))
        keys = list(zip(names, map(id, held), map(id, answers), strict=True))
        known = list(map(self.by_identity.get, keys))
        missing = list(compress(range(len(known)), map(is_, known, repeat(None))))
        if len(self.by_identity) + len(missing) > _MAX_KNOWN:
            self.by_identity.clear()  # cycles that never meet the same objects again (nothing memoized)
        for i in missing:
            outcome = self._one(names[i], held[i], answers[i], Status.UNSATISFIABLE)
            known[i] = self.by_identity[keys[i]] = (held[i], answers[i], outcome)
        return tuple(map(_OUTCOME, known))  # type: ignore[arg-type]

    def _of_lane(self, result: CycleResult, lane: Lane, start: int, end: int) -> tuple[NodeOutcome, ...]:
        """The outcomes of a pass a memo lane made: each node's is kept with its verdict in the lane (a
        node's DRA answer goes with its verdict)."""
        notes, names, answers = lane.notes, self.names, result.answers
        out: list[NodeOutcome] = []
        for lo, hi in lane.positions(start, end):
            for i in compress(range(lo, hi), map(is_, notes[lo:hi], repeat(None))):
                name = names[i]
                notes[i] = self._one(name, lane.statuses[i], answers.get(name), Status.UNSATISFIABLE)
            out.extend(notes[lo:hi])
        return tuple(out)

    def _of(self, result: CycleResult, nodes: Sequence[NodeInfo]) -> tuple[NodeOutcome, ...]:
        out = []
        answers, statuses, filters = result.answers, result.statuses, result.filters
        undecided = result.undecided
        ruled_out = tuple(result.pre_filter.values()) if result.pre_filter else None
        names: Iterable[str]
        if ruled_out is None:
            names = sorted(filters.keys() | statuses.keys(), key=self.position.__getitem__)
        else:
            names = [n.name for n in nodes]
        for name in names:
            status = statuses.get(name)
            if status is None and ruled_out is not None and name not in filters:
                out.append(self._outcome((name, Status.UNSATISFIABLE, ruled_out, 0)))
            elif status is not None or name in filters:
                kind = Status.UNKNOWN if name in undecided else Status.UNSATISFIABLE
                out.append(self._one(name, status, answers.get(name), kind))
        return tuple(out)

    def _one(
        self, name: str, status: Rejection | None, answer: NodeAnswer | None, rejected: Status
    ) -> NodeOutcome:
        """A node Filter looked at: passed (with its DRA answer's steps) or `rejected` with its reasons."""
        steps = answer.steps if answer is not None else 0
        if status is None:
            return self._outcome((name, Status.ALLOCATED, None, steps))
        return self._outcome((name, rejected, status.reasons, steps))

    def _outcome(self, key: _Key) -> NodeOutcome:
        found = self.known.get(key)
        if found is None:
            name, kind, reasons, steps = key
            if reasons is None:
                found = NodeOutcome(name, kind, steps=steps)
            else:
                found = NodeOutcome(name, kind, ", ".join(reasons), steps, reasons)
            self.known[key] = found
        return found
