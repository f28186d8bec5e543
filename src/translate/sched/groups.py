"""PodGroups and CompositePodGroups as the PodGroup cycle reads them (solver.cluster.podgroup.facts).

Fields whose gate is off are read as the API server would have stored them: without
TopologyAwareWorkloadScheduling a PodGroup has no schedulingConstraints, without CompositePodGroup no
parent (and CompositePodGroups are not served at all).
"""

from __future__ import annotations

from typing import Any

from ...model.cluster.podgroup import (
    COMPOSITE,
    COMPOSITE_GATE,
    GENERIC_WORKLOAD,
    POD_GROUP,
    PREEMPTION_POLICY_GATE,
    TOPOLOGY_AWARE,
    WORKLOAD_PREEMPTION,
    GroupFact,
    Groups,
)
from ...model.features import FeatureGates
from ..kube import KubeObject, ObjectSet
from .priority import Priorities


def group_facts(objects: ObjectSet, gates: FeatureGates) -> Groups | None:
    """None while GenericWorkload is off: kube-scheduler then knows no PodGroups."""
    if not gates.enabled(GENERIC_WORKLOAD):
        return None
    read = (GENERIC_WORKLOAD, TOPOLOGY_AWARE, COMPOSITE_GATE, WORKLOAD_PREEMPTION, PREEMPTION_POLICY_GATE)
    on = frozenset(g for g in read if gates.enabled(g))
    topology = TOPOLOGY_AWARE in on
    composite = COMPOSITE_GATE in on
    priorities = Priorities(objects)
    policy = PREEMPTION_POLICY_GATE in on
    pod_groups = {}
    for obj in objects.of_kind(POD_GROUP):
        fact = _fact(obj, POD_GROUP, topology, composite, priorities, policy)
        pod_groups[fact.key] = fact
    composites = {}
    if composite:
        for obj in objects.of_kind(COMPOSITE):
            fact = _fact(obj, COMPOSITE, topology, composite, priorities, policy)
            composites[fact.key] = fact
    return Groups(pod_groups, composites, on)


def _fact(
    obj: KubeObject, kind: str, topology: bool, composite: bool, priorities: Priorities, policy: bool
) -> GroupFact:
    spec: Any = getattr(obj.model, "spec", None)
    scheduling = getattr(spec, "scheduling_policy", None)
    gang = getattr(scheduling, "gang", None) if scheduling is not None else None
    minimum = None
    if gang is not None:
        minimum = getattr(gang, "min_count" if kind == POD_GROUP else "min_group_count", None) or 0
    key = ""
    constraints = getattr(spec, "scheduling_constraints", None) if topology else None
    for constraint in getattr(constraints, "topology", None) or ():
        key = getattr(constraint, "key", "") or ""
        break  # upstream reads the first constraint only
    parent = (getattr(spec, "parent_composite_pod_group_name", None) or "") if composite else ""
    priority = getattr(spec, "priority", None)
    preemption = (getattr(spec, "preemption_policy", None) or "") if policy else ""
    if spec is not None and (priority is None or (policy and not preemption)):
        # The priority admission plugin resolves a PodGroup's class as it does a pod's.
        resolved = priorities.of(obj.model)
        priority = resolved.value if priority is None else priority
        preemption = preemption or (resolved.preemption_policy if policy else "")
    if policy and not preemption:
        preemption = "PreemptLowerPriority"
    mode = getattr(spec, "disruption_mode", None)
    disrupt_all = getattr(mode, "all", None) is not None
    uid = getattr(getattr(obj.model, "metadata", None), "uid", None) or ""
    return GroupFact(
        kind, obj.namespace, obj.name, minimum, key, parent, priority or 0, preemption, disrupt_all, uid
    )
