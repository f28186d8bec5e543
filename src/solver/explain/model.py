"""What an explanation says: per unit, per node considered, the reasons it does not fit there.

A reason carries a stable id (the violation group of the rules it stands for, in Kubernetes names), a
kind, the objects and numbers involved, the message a user reads, and the short phrase the
scheduler-style summary line counts nodes by. `minimal` says the reasons of a node were shrunk until
dropping any one of them makes the rest satisfiable (false only when a time limit stopped it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...model.solution import ClaimAllocation


class Kind(StrEnum):
    """Reason kinds: the allocator's concerns first, then the scheduler's other filters."""

    DEVICE_REQUEST = "DeviceRequest"  # a request cannot get its devices (the candidate funnel)
    DEVICES_IN_USE = "DevicesInUse"  # devices another claim holds
    DEVICE_TAINT = "DeviceTaint"  # an untolerated device taint
    MATCH_ATTRIBUTE = "MatchAttribute"
    DISTINCT_ATTRIBUTE = "DistinctAttribute"
    COUNTER = "SharedCounter"  # partitionable devices' counters
    COMPATIBILITY = "CompatibilityGroups"
    CAPACITY = "ConsumableCapacity"
    CLAIM_LIMIT = "ClaimLimit"  # more results than a claim may hold
    UNREACHABLE = "NodeReachability"
    ALLOCATION_ERROR = "AllocationError"  # the scheduler stops with an error on this node
    NODE_EXCLUDED = (
        "NodeExcluded"  # a kube-scheduler filter (affinity, taints, ports, spread, ...) before DRA
    )
    NODE_RESOURCES = "NodeResources"  # Insufficient cpu, memory, pods
    MAPPED_RESOURCES = "DeviceNodeResources"  # node resources the allocated devices map to
    CLAIM_PLACEMENT = "ClaimPlacement"  # an allocated claim the node cannot use (allocated for another)
    POD_GROUP = "PodGroup"  # gang scheduling
    UNIT_ERROR = "SchedulingError"  # a missing claim or template
    UNDECIDED = "Undecided"  # a time limit


@dataclass(frozen=True)
class Reason:
    id: str
    kind: Kind
    message: str
    summary: str  # phrase after the node count in the summary line: "have no devices of class gpu"
    objects: Mapping[str, Any] = field(default_factory=dict)
    numbers: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": str(self.kind),
            "objects": dict(self.objects),
            "numbers": dict(self.numbers),
            "message": self.message,
        }


class Verdict(StrEnum):
    FITS = "fits"
    PREEMPTS = "preempts"  # fits only by evicting lower-priority pods (not "fits")
    DOES_NOT_FIT = "does-not-fit"
    ERROR = "error"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class NodeExplanation:
    node: str
    verdict: Verdict
    reasons: tuple[Reason, ...] = ()
    minimal: bool = True
    hints: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()  # the rules' violation groups behind the reasons (local identifiers)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "node": self.node,
            "fits": self.verdict == Verdict.FITS,
            "status": str(self.verdict),
        }
        if self.verdict != Verdict.FITS:
            out["minimal"] = self.minimal
            out["reasons"] = [r.as_dict() for r in self.reasons]
        if self.hints:
            out["hints"] = list(self.hints)
        return out


@dataclass(frozen=True)
class Victim:
    """A pod preempted for the unit: its priority and the PodDisruptionBudgets that cover it, each with
    the disruptions it allowed before the preemption."""

    pod: str  # namespace/name
    priority: int
    budgets: tuple[tuple[str, int], ...] = ()  # (name, disruptionsAllowed)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pod": self.pod, "priority": self.priority}
        if self.budgets:
            out["podDisruptionBudgets"] = [{"name": n, "disruptionsAllowed": a} for n, a in self.budgets]
        return out

    def text(self) -> str:
        budgets = ", ".join(
            f"PodDisruptionBudget {n} ({a} disruption{'s' if a != 1 else ''} allowed)"
            for n, a in self.budgets
        )
        return f"{self.pod} (priority {self.priority}{', ' + budgets if budgets else ''})"


@dataclass(frozen=True)
class UnitExplanation:
    unit: int
    name: str  # `pod ns/name` or `claims a, b`
    verdict: Verdict
    summary: str
    node: str = ""  # where it fits
    allocations: tuple[ClaimAllocation, ...] = ()
    nodes: tuple[NodeExplanation, ...] = ()
    reasons: tuple[Reason, ...] = ()  # about the unit as a whole (a missing claim)
    message: str = ""  # the engine's own answer
    victims: tuple[Victim, ...] = ()  # the pods preempted to place it (verdict PREEMPTS)
    # A PodGroup's pod: its group's placements (PlacementExplanation), domain by domain.
    placements: tuple[Any, ...] = ()

    @property
    def fits(self) -> bool:
        return self.verdict == Verdict.FITS
