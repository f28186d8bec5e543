"""The InitiallyScheduled conditions of a PodGroup cycle (submitPodGroupResult, submitCompositePodGroupResult,
updatePodGroupCondition), and the group objects allocate writes with them.

Every group of the tree gets one: True with reason Scheduled when its result is a success, False with
Unschedulable when it was rejected (waiting on a preemption too), False with SchedulerError otherwise; the
message is its status's. A group whose stored condition is already True keeps it: a later cycle for more
pods never takes it back. kubefit writes no lastTransitionTime (no clock in a dry run), as for pods.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from ....model.cluster.record import GroupCondition, Record
from ....model.solution import UnitOutcome
from ..framework import Code
from .algorithm import GroupResult
from .info import GroupInfo

SCHEDULED, UNSCHEDULABLE, SCHEDULER_ERROR = "Scheduled", "Unschedulable", "SchedulerError"


def cycle_conditions(root: GroupInfo, results: Mapping[str, GroupResult]) -> tuple[GroupCondition, ...]:
    out = []
    for info in root.walk():
        result = results.get(info.key)
        if result is None:
            continue
        kind = info.fact.kind
        status = result.status
        if status is None:
            state, reason, message = "True", SCHEDULED, ""
        elif status.code == Code.ERROR:
            state, reason, message = "False", SCHEDULER_ERROR, status.message
        else:
            state, reason, message = "False", UNSCHEDULABLE, status.message
        cond_type = f"{kind}InitiallyScheduled"
        out.append(
            GroupCondition(kind, info.fact.namespace, info.fact.name, cond_type, state, reason, message)
        )
    return tuple(out)


def last_conditions(outcomes: Iterable[UnitOutcome]) -> dict[tuple[str, str, str], GroupCondition]:
    """Each group's condition from the last cycle that wrote one (outcomes in queue order; a unit's record
    is its last cycle's)."""
    found: dict[tuple[str, str, str], tuple[int, GroupCondition]] = {}
    for outcome in outcomes:
        record = outcome.record
        if not isinstance(record, Record):
            continue
        for c in record.group_conditions:
            key = (c.kind, c.namespace, c.name)
            if key not in found or record.attempts >= found[key][0]:
                found[key] = (record.attempts, c)
    return {k: v[1] for k, v in found.items()}


def with_condition(doc: dict[str, Any], condition: GroupCondition) -> dict[str, Any]:
    """The group's document with the condition set as SetStatusCondition would (a True one is kept)."""
    doc = copy.deepcopy(doc)
    conditions = doc.setdefault("status", {}).setdefault("conditions", [])
    existing = next((c for c in conditions if c.get("type") == condition.type), None)
    if existing is not None and existing.get("status") == "True" and condition.status != "True":
        return doc
    entry: dict[str, Any] = {
        "type": condition.type,
        "status": condition.status,
        "reason": condition.reason,
        "message": condition.message,
    }
    generation = (doc.get("metadata") or {}).get("generation")
    if generation is not None:
        entry["observedGeneration"] = generation
    if existing is not None:
        conditions[conditions.index(existing)] = {**existing, **entry}
    else:
        conditions.append(entry)
    return doc
