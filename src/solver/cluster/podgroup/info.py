"""The cycle's view of one group: a PodGroup's pods still to schedule and those already on nodes, or a
CompositePodGroup's children (framework.PodGroupInfo); and the placements the cycle tries (fwk.Placement)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ....model.cluster.facts import Pod
from ....model.cluster.podgroup import COMPOSITE, GroupFact
from ..framework import NodeInfo


@dataclass(frozen=True)
class Placement:
    """A candidate set of nodes for a group: one topology domain, or every node (name "")."""

    name: str
    nodes: tuple[NodeInfo, ...]

    @property
    def label(self) -> str:
        return self.name or "(all nodes)"


@dataclass
class GroupInfo:
    fact: GroupFact
    children: list[GroupInfo] = field(default_factory=list)
    queued: list[int] = field(default_factory=list)  # units of the pods to schedule, in queue order
    scheduled: list[Pod] = field(default_factory=list)  # members already on nodes (bound or assumed)

    @property
    def key(self) -> str:
        return self.fact.key

    @property
    def composite(self) -> bool:
        return self.fact.kind == COMPOSITE

    def leaves(self) -> Iterator[GroupInfo]:
        if not self.composite:
            yield self
            return
        for child in self.children:
            yield from child.leaves()

    def walk(self) -> Iterator[GroupInfo]:
        yield self
        for child in self.children:
            yield from child.walk()

    def scheduled_pods(self) -> list[Pod]:
        """Members on nodes, of this PodGroup or of every PodGroup below this CompositePodGroup."""
        return [p for leaf in self.leaves() for p in leaf.scheduled]


@dataclass(frozen=True)
class Proposed:
    """A pod the cycle placed in a placement: PodGroupAssignments' ProposedAssignment."""

    pod: Pod
    node: str
