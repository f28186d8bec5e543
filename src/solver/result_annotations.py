"""kube-scheduler's decision on a pod as annotations, in the spirit of kube-scheduler-simulator's: JSON
strings `{"<node>": {"<Plugin>": "<value>"}}` for the filter verdicts and scores of every node a cycle
evaluated, the node selected or nominated, the victims; and what an engine that proves its answers says
about a unit.

A run reports a few hundred nodes for each of thousands of pods, and most nodes' verdicts and scores are
the same objects from pod to pod (the cycle's memo and score interning share them): each node's part of
the text is made once per object and the annotations are joined from the parts. The text is what
`json.dumps(value, separators=(",", ":"), ensure_ascii=False)` gives for the whole mapping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import compress, repeat
from operator import add, attrgetter, is_, itemgetter
from typing import Any

from ..model.solution import UnitOutcome

# What an engine that proves its answers (cpsat) says about the unit behind an object: its
# Proof (optimal, feasible, infeasible, unknown) and, where greedy could not decide, who did and why.
SOLVER_STATUS_ANNOTATION = "kubefit.io/solver-status"
DECIDED_BY_ANNOTATION = "kubefit.io/decided-by"

FILTER_RESULT = "kubefit.io/filter-result"
PREFILTER_RESULT = "kubefit.io/prefilter-result"
PRE_ENQUEUE_RESULT = "kubefit.io/preenqueue-result"
SCORE_RESULT = "kubefit.io/score-result"
FINAL_SCORE_RESULT = "kubefit.io/finalscore-result"
SELECTED_NODE = "kubefit.io/selected-node"
NOMINATED_NODE = "kubefit.io/nominated-node"
VICTIMS = "kubefit.io/preemption-victims"
PREEMPTED_BY = "kubefit.io/preempted-by"
POD_GROUP = "kubefit.io/pod-group"
PLACEMENT_RESULT = "kubefit.io/placement-result"


# CPU seconds to write one node's verdicts or scores on a pod and print them as JSON, with room for a
# loaded machine (measured: 2-4.5 microseconds on 50 to 500 nodes).
PRINTING_PER_ENTRY = 6e-6


def printing_seconds(outcome: UnitOutcome) -> float:
    """What printing the scheduler's annotations on the outcome's pod takes, about."""
    record = outcome.record
    if record is None or record.gated:
        return 0.0
    return PRINTING_PER_ENTRY * (len(record.filters) + len(record.ranked))


def annotate(doc: dict[str, Any], outcome: UnitOutcome) -> None:
    notes = {}
    if outcome.proof:
        notes[SOLVER_STATUS_ANNOTATION] = outcome.proof
    if outcome.decided_by:
        notes[DECIDED_BY_ANNOTATION] = (
            f"{outcome.decided_by}: {outcome.note}" if outcome.note else outcome.decided_by
        )
    if notes:
        doc.setdefault("metadata", {}).setdefault("annotations", {}).update(notes)


class SchedulerAnnotations:
    """Writes the scheduler's result annotations on pods; one writer per rendering keeps the parts it made."""

    def __init__(self) -> None:
        # id of a node's verdicts (scores) -> (the map, kept alive so the id stays its own; its text)
        self._verdicts: dict[Hashable, tuple[Any, str]] = {}
        self._scores: dict[Hashable, tuple[Any, str]] = {}
        self._finals: dict[Hashable, tuple[Any, str]] = {}
        self._names: dict[str, str] = {}  # node -> its name as a key: '"<node>":'
        # The last pod's verdicts by node and their text: pods that repeat a cycle share its verdicts.
        self._last: tuple[Any, str] | None = None

    def write(self, doc: dict[str, Any], outcome: UnitOutcome) -> None:
        record = outcome.record
        if record is None:
            return
        notes: dict[str, str] = {}
        if record.gated:
            notes[PRE_ENQUEUE_RESULT] = record.gated
            doc.setdefault("metadata", {}).setdefault("annotations", {}).update(notes)
            return
        if record.pre_filter:
            notes[PREFILTER_RESULT] = _json(record.pre_filter)
        if self._last is None or self._last[0] is not record.filters:
            filters = record.filters
            verdicts = list(filters.values())
            self._last = (
                filters,
                self._by_node(list(filters), verdicts, list(map(id, verdicts)), self._verdicts, _json),
            )
        notes[FILTER_RESULT] = self._last[1]
        ranked = record.ranked
        if ranked:
            nodes = list(map(_NODE, ranked))
            scores = list(map(_PLUGIN, ranked))
            notes[SCORE_RESULT] = self._by_node(nodes, scores, list(map(id, scores)), self._scores, _texts)
            weighted = list(map(_WEIGHTED, ranked))
            finals = list(zip(map(id, weighted), map(_TOTAL, ranked), strict=True))
            notes[FINAL_SCORE_RESULT] = self._by_node(nodes, weighted, finals, self._finals, _final)
        if record.selected:
            notes[SELECTED_NODE] = record.selected
        if record.nominated and not record.selected:
            notes[NOMINATED_NODE] = record.nominated
        if record.victims:
            notes[VICTIMS] = _json(list(record.victims))
        if getattr(record, "pod_group", ""):
            notes[POD_GROUP] = record.pod_group
            if record.placements:
                notes[PLACEMENT_RESULT] = _json(placement_result(record.placements))
        doc.setdefault("metadata", {}).setdefault("annotations", {}).update(notes)

    def _by_node(
        self,
        nodes: Sequence[str],
        values: Sequence[Any],
        keys: Sequence[Hashable],
        made: dict[Hashable, tuple[Any, str]],
        text: Callable[[Any, Any], str],
    ) -> str:
        """`_json(dict(zip(nodes, values)))` with each node's part written as `text` writes it, once per key
        in `made` (the keys name the parts: the identity of a shared map)."""
        names = list(map(self._names.get, nodes))
        for i in compress(range(len(names)), map(is_, names, repeat(None))):
            names[i] = self._names[nodes[i]] = _json(nodes[i]) + ":"
        parts: list[Any] = list(map(made.get, keys))
        if None in parts:
            for i in compress(range(len(parts)), map(is_, parts, repeat(None))):
                parts[i] = made[keys[i]] = (values[i], text(values[i], keys[i]))
        return "{" + ",".join(map(add, names, map(_TEXT, parts))) + "}"


_TEXT = itemgetter(1)
_NODE, _PLUGIN, _WEIGHTED, _TOTAL = (attrgetter(a) for a in ("node", "plugin", "weighted", "total"))


def placement_result(placements: Mapping[str, Sequence[Any]]) -> dict[str, dict[str, Any]]:
    """A PodGroup cycle's placements by group: each placement's nodes, whether the group fit there (or
    why not), its placement scores (before weight) and total, and the one chosen."""
    out: dict[str, dict[str, Any]] = {}
    for group, records in placements.items():
        entries: dict[str, Any] = {}
        for r in records:
            entry: dict[str, Any] = {"nodes": list(r.nodes), "feasible": r.feasible}
            if r.status:
                entry["status"] = r.status
            if r.scores:
                entry["scores"] = {p: str(v) for p, v in r.scores.items()}
            if r.total is not None:
                entry["total"] = str(r.total)
            if r.selected:
                entry["selected"] = True
            entries[r.name] = entry
        out[group] = entries
    return out


def _texts(scores: Mapping[str, int], _: Hashable = None) -> str:
    return _json({p: str(v) for p, v in scores.items()})


def _final(weighted: Mapping[str, int], key: tuple[int, int]) -> str:
    """A node's weighted scores and their total (the second part of its key)."""
    total = key[1]
    return _json({**{p: str(v) for p, v in weighted.items()}, "total": str(total)})


def _json(value: Any, _: Hashable = None) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def group_status(outcome: UnitOutcome) -> bool:
    """The pod waits for its PodGroup, not for a node: its message is the group cycle's status (a pod that
    fit nowhere in the placement reported has its own FitError instead). Explain's per-pod summary would
    say it can run; it is left out."""
    record = outcome.record
    if record is None or not getattr(record, "pod_group", ""):
        return False
    return NODES_FIT_ERROR.match(outcome.message) is None


NODES_FIT_ERROR = re.compile(r"0/\d+ nodes are available")
