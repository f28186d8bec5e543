"""Each node's outcome of a pod's last cycle, as the Solution reports it: passed (with the DRA search's
steps there), rejected with the filter's reasons (or PreFilter's, for nodes it ruled out), or undecided.

A scheduling run reports a few hundred nodes for each of its pods, mostly the same outcomes from pod to
pod: equal outcomes are one shared (immutable) object.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..solution import NodeOutcome, Status
from .cycle import CycleResult
from .framework import NodeInfo

_Key = tuple[str, Status, tuple[str, ...] | None, int]


class NodeOutcomes:
    """`position`: each node's place in the snapshot, the order of the nodes a cycle is given."""

    def __init__(self, position: Mapping[str, int]) -> None:
        self.position = position
        self.known: dict[_Key, NodeOutcome] = {}

    def of(self, result: CycleResult, nodes: Sequence[NodeInfo]) -> tuple[NodeOutcome, ...]:
        """The outcomes of the nodes the cycle looked at, in `nodes` order (the snapshot's)."""
        out = []
        answers, statuses, filters = result.answers, result.statuses, result.filters
        undecided = result.undecided
        ruled_out = tuple(result.pre_filter.values()) if result.pre_filter else None
        names: Iterable[str]
        if ruled_out is None:
            # Only the nodes Filter looked at have an outcome (often a few of many).
            names = sorted(filters.keys() | statuses.keys(), key=self.position.__getitem__)
        else:
            names = [n.name for n in nodes]
        for name in names:
            status = statuses.get(name)
            key: _Key
            if status is None and ruled_out is not None and name not in filters:
                key = (name, Status.UNSATISFIABLE, ruled_out, 0)
            else:
                answer = answers.get(name)
                steps = answer.steps if answer is not None else 0
                if status is not None:
                    kind = Status.UNKNOWN if name in undecided else Status.UNSATISFIABLE
                    key = (name, kind, status.reasons, steps)
                elif name in filters:
                    key = (name, Status.ALLOCATED, None, steps)
                else:
                    continue
            found = self.known.get(key)
            if found is None:
                _, kind, reasons, steps = key
                if reasons is None:
                    found = NodeOutcome(name, kind, steps=steps)
                else:
                    found = NodeOutcome(name, kind, ", ".join(reasons), steps, reasons)
                self.known[key] = found
            out.append(found)
        return tuple(out)
