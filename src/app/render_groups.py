"""The PodGroups and CompositePodGroups allocate writes: those whose claims were generated here (with
status.resourceClaimStatuses naming them) and those a PodGroup cycle ran for (with its InitiallyScheduled
condition, podgroup.conditions)."""

from __future__ import annotations

import copy
from typing import Any

from ..model.problem import Problem
from ..model.solution import Solution
from ..solver.cluster.podgroup.conditions import last_conditions, with_condition
from ..translate.dra.build import Built
from .written import dump, uid_of


def group_objects(built: Built, problem: Problem, solution: Solution) -> list[dict[str, Any]]:
    generated: dict[tuple[str, str], list[dict[str, str]]] = {}
    for unit in problem.units:
        for c in unit.claims:
            source = built.claims[c]
            if source.pod_group and source.generated:
                entries = generated.setdefault((source.namespace, source.pod_group), [])
                entry = {"name": source.pod_claim, "resourceClaimName": source.name}
                if entry not in entries:
                    entries.append(entry)
    conditions = last_conditions(solution.units)
    keys = {("PodGroup", ns, name) for ns, name in generated} | set(conditions)
    out = []
    for kind, namespace, name in sorted(keys):
        group = built.objects.get(kind, name, namespace)
        if group is None:
            continue
        doc = copy.deepcopy(dump(group.model))
        doc["apiVersion"] = group.written_api_version
        doc.setdefault("metadata", {})["uid"] = uid_of(group)
        entries = generated.get((namespace, name), []) if kind == "PodGroup" else []
        if entries:
            statuses = doc.setdefault("status", {}).setdefault("resourceClaimStatuses", [])
            statuses += [e for e in entries if e not in statuses]
        if (kind, namespace, name) in conditions:
            doc = with_condition(doc, conditions[(kind, namespace, name)])
        out.append(doc)
    return out
