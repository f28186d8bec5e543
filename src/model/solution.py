"""What an engine answers: for each unit, where its claims were allocated and to which devices, or why not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .cluster.record import Eviction, Record


class Status(StrEnum):
    """The outcome of a unit (and, combined, of a whole Solution).

    allocated   every claim of the unit got devices
    unsatisfiable  no allocation exists on any node tried (proven by the engine's search)
    error       the scheduler would fail with an error (bad request, CEL error, ...)
    unknown     the engine ran out of its step or time budget before deciding
    """

    ALLOCATED = "allocated"
    UNSATISFIABLE = "unsatisfiable"
    ERROR = "error"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class DeviceResult:
    slot: tuple[int, int, int]  # (claim, request index, subrequest index)
    request: str  # "req" or "req/sub"
    device: int
    admin_access: bool = False
    shared: bool = False  # a share of a multi-allocatable device (gets a shareID)
    # Consumed capacity keyed by the name as the device publishes it; None for exclusive devices.
    consumed_capacity: Mapping[str, Fraction] | None = None


@dataclass(frozen=True)
class ClaimAllocation:
    claim: int
    node: str
    results: tuple[DeviceResult, ...]
    # request index -> chosen subrequest index, for firstAvailable requests
    chosen: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class NodeOutcome:
    node: str
    status: Status
    message: str = ""
    steps: int = 0
    # Several independent reasons (the scheduler counts each one in its summary).
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class UnitOutcome:
    unit: int
    status: Status
    node: str = ""
    allocations: tuple[ClaimAllocation, ...] = ()
    message: str = ""  # the error, or why nothing fits
    nodes: tuple[NodeOutcome, ...] = ()
    steps: int = 0
    # Engines that prove their answers (cpsat) say how far (see Proof); "" for engines that do not.
    proof: str = ""
    # When the engine that answered is not the one that decided (greedy gave up, cpsat proved), its name,
    # and `note` says why.
    decided_by: str = ""
    note: str = ""
    # What kube-scheduler's cycle decided (filter verdicts, scores, preemption), when a cycle ran.
    record: Record | None = None
    # The plugin whose error an ERROR carries, named before it in the event as the framework names it;
    # "" for the scheduler's own errors (a PodGroup that fails validation), which are printed as they are.
    error_plugin: str = "DynamicResources"


class Proof(StrEnum):
    """How far an optimizing engine got with a unit (UnitOutcome.proof, `kubefit.io/solver-status`).

    optimal     allocated, and no better allocation exists for the objective on the node chosen
    feasible    allocated, but the time limit ran out before the allocation was proven best
    infeasible  proven: no allocation exists on any node tried
    unknown     the time limit ran out before anything was proven (never read as "does not fit")
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Solution:
    engine: str
    units: tuple[UnitOutcome, ...]
    evictions: tuple[Eviction, ...] = ()  # pods preempted to make room
    cut: int = 0  # pods the queue never reached before Budget.cutoff

    @property
    def status(self) -> Status:
        """allocated only if every unit is; otherwise the worst outcome among them."""
        order = [Status.ERROR, Status.UNKNOWN, Status.UNSATISFIABLE, Status.ALLOCATED]
        for status in order:
            if any(u.status == status for u in self.units):
                return status
        return Status.ALLOCATED

    @property
    def proof(self) -> str:
        """The weakest proof among the units ("" when the engine proves nothing)."""
        proofs = [u.proof for u in self.units if u.proof]
        for proof in (Proof.UNKNOWN, Proof.INFEASIBLE, Proof.FEASIBLE, Proof.OPTIMAL):
            if proof in proofs:
                return str(proof)
        return ""

    def allocation_of(self, claim: int) -> ClaimAllocation | None:
        for unit in self.units:
            for allocation in unit.allocations:
                if allocation.claim == claim:
                    return allocation
        return None
