"""What the PodGroup cycle reads about PodGroups and CompositePodGroups (scheduling.k8s.io), as plain data.

`minimum` is the gang policy's minCount (a PodGroup) or minGroupCount (a CompositePodGroup); None for the
basic policy. `topology_key` is spec.schedulingConstraints.topology[0].key (upstream honours only the
first constraint); `parent` the parent CompositePodGroup's name (same namespace). `priority` and
`preemption_policy` are spec.priority and spec.preemptionPolicy as admission stored them (from the
PriorityClass when unset; the policy only while PodGroupPreemptionPolicy is on, else ""); `disrupt_all`
is spec.disruptionMode.all: the group is preempted as one unit.
"""

from __future__ import annotations

from dataclasses import dataclass

POD_GROUP = "PodGroup"
COMPOSITE = "CompositePodGroup"

# Gates the cycle reads (kube-scheduler's features.Features for these plugins).
GENERIC_WORKLOAD = "GenericWorkload"
TOPOLOGY_AWARE = "TopologyAwareWorkloadScheduling"
COMPOSITE_GATE = "CompositePodGroup"
WORKLOAD_PREEMPTION = "WorkloadAwarePreemption"
PREEMPTION_POLICY_GATE = "PodGroupPreemptionPolicy"


@dataclass(frozen=True)
class GroupFact:
    kind: str  # POD_GROUP or COMPOSITE
    namespace: str
    name: str
    minimum: int | None = None  # gang policy's minCount / minGroupCount; None: basic policy
    topology_key: str = ""
    parent: str = ""  # the parent CompositePodGroup's name
    priority: int = 0
    preemption_policy: str = ""
    disrupt_all: bool = False
    uid: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def gang(self) -> bool:
        return self.minimum is not None

    @property
    def min_count(self) -> int:
        """getMinCount: the gang's minimum, 1 for the basic policy."""
        return self.minimum if self.minimum is not None else 1


@dataclass(frozen=True)
class Groups:
    """The cluster's PodGroups and CompositePodGroups by `namespace/name`, and the gates that shape the
    cycle."""

    pod_groups: dict[str, GroupFact]
    composites: dict[str, GroupFact]
    gates: frozenset[str] = frozenset()

    def on(self, gate: str) -> bool:
        return gate in self.gates

    def parent_of(self, fact: GroupFact) -> GroupFact | None:
        """The parent CompositePodGroup (only while CompositePodGroup is on; None for a root)."""
        if not fact.parent or not self.on(COMPOSITE_GATE):
            return None
        return self.composites.get(f"{fact.namespace}/{fact.parent}")

    def root_of(self, fact: GroupFact) -> GroupFact:
        seen = {fact.key}
        current = fact
        while True:
            parent = self.parent_of(current)
            if parent is None or parent.key in seen:
                return current
            seen.add(parent.key)
            current = parent

    def children_of(self, composite: GroupFact) -> list[GroupFact]:
        """A CompositePodGroup's children (CompositePodGroups and PodGroups), by name: the order the cycle
        visits them in."""
        kids = [
            g
            for g in (*self.composites.values(), *self.pod_groups.values())
            if g.namespace == composite.namespace and g.parent == composite.name
        ]
        return sorted(kids, key=lambda g: (g.name, g.kind))
