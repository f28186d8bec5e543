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
from collections.abc import Mapping
from typing import Any

from .solution import UnitOutcome

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
        # id of a node's verdicts or scores -> (the object, kept alive so the id stays its own; its text)
        self._parts: dict[int, tuple[Any, str]] = {}
        self._finals: dict[tuple[int, int], tuple[Any, str]] = {}
        self._names: dict[str, str] = {}

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
        notes[FILTER_RESULT] = self._by_node({n: self._part(v, _json) for n, v in record.filters.items()})
        if record.scores:
            notes[SCORE_RESULT] = self._by_node({n: self._part(s, _texts) for n, s in record.scores.items()})
            notes[FINAL_SCORE_RESULT] = self._by_node(
                {n: self._final(s, record.totals[n]) for n, s in record.weighted.items()}
            )
        if record.selected:
            notes[SELECTED_NODE] = record.selected
        if record.nominated and not record.selected:
            notes[NOMINATED_NODE] = record.nominated
        if record.victims:
            notes[VICTIMS] = _json(list(record.victims))
        doc.setdefault("metadata", {}).setdefault("annotations", {}).update(notes)

    def _part(self, value: Mapping[str, Any], text: Any) -> str:
        found = self._parts.get(id(value))
        if found is None:
            found = self._parts[id(value)] = (value, text(value))
        return found[1]

    def _final(self, weighted: Mapping[str, int], total: int) -> str:
        key = (id(weighted), total)
        found = self._finals.get(key)
        if found is None:
            value = {**{p: str(v) for p, v in weighted.items()}, "total": str(total)}
            found = self._finals[key] = (weighted, _json(value))
        return found[1]

    def _by_node(self, parts: Mapping[str, str]) -> str:
        """The JSON object of the nodes' texts (made already), as `_json` would write the whole mapping."""
        names = self._names
        items = []
        for node, text in parts.items():
            name = names.get(node)
            if name is None:
                name = names[node] = _json(node)
            items.append(f"{name}:{text}")
        return "{" + ",".join(items) + "}"


def _texts(scores: Mapping[str, int]) -> str:
    return _json({p: str(v) for p, v in scores.items()})


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
