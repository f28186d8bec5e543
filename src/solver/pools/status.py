"""One pool's status, field by field as a ResourcePoolStatusRequest reports it (resource.k8s.io/v1alpha3).

Upstream: `calculatePoolStatus` and `computePoolViews` in kube-controller-manager's
`pkg/controller/resourcepoolstatusrequest`. An incomplete pool reports only its
identity and the reason (`PoolIncomplete:`), as upstream does. For a complete pool:
devices of its newest generation; allocated ones (held by a claim's non-admin result);
unavailable ones, which are free but which the allocator would not give out, each with
its reason (an untolerated taint, or a pool the allocator refuses as a whole); the rest
available. The partition summary counts exactly what can still be allocated
(allocatable.py); a view that cannot be computed leaves the counts valid and sets
`validationError` instead, keeping the first problem found.

Where the controller's code and the API's documentation part, the documentation is
followed: a tainted device that is allocated counts as allocated only (the code counts
it twice and clamps availableDevices at 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model.pools import PoolFacts, PoolRequest
from ...model.problem import Problem
from .allocatable import Solver, blocked
from .partitions import PartitionGroup, partition_groups
from .shareable import Shareable, shareable_summary

POOL_INCOMPLETE = "PoolIncomplete:"
MAX_ERROR_BYTES = 256  # +k8s:maxBytes on validationError


@dataclass(frozen=True)
class PartitionStatus:
    attribute: str
    type: str
    total: int
    allocatable: int
    devices: tuple[str, ...]  # names of devices that can be allocated together, that many


@dataclass(frozen=True)
class PoolStatus:
    driver: str
    pool: str
    generation: int
    node_name: str | None
    slices: int | None = None  # the counts are None for an incomplete pool
    total: int | None = None
    allocated: int | None = None
    available: int | None = None
    unavailable: int | None = None
    partitions: tuple[PartitionStatus, ...] | None = None
    shareable: Shareable | None = None
    validation_error: str | None = None
    why_unavailable: tuple[tuple[str, str], ...] = ()  # (device name, reason), in slice order

    @property
    def ref(self) -> str:
        return f"{self.driver}/{self.pool}"


def pool_status(problem: Problem, facts: PoolFacts, request: PoolRequest, solver: Solver) -> PoolStatus:
    if not facts.complete:
        return PoolStatus(
            facts.driver,
            facts.pool,
            facts.generation,
            facts.node_name,
            validation_error=_error(
                f"{POOL_INCOMPLETE} pool {facts.ref} is incomplete: observed {facts.slices}/"
                f"{facts.expected} slices at generation {facts.generation}"
            ),
        )
    devices = [problem.devices[d] for d in facts.devices]
    allocated = [d for d in devices if problem.in_use.allocated(d.ref)]
    whole = _pool_refused(facts)
    why = []
    for device in devices:
        if problem.in_use.allocated(device.ref):
            continue
        reason = whole or blocked(problem, device)
        if reason:
            why.append((device.name, reason))
    error = ""
    partitions = None
    if facts.view.state == "invalid":
        error = whole  # the pool's data is what is wrong: nothing of it can be allocated
    elif problem.on("PartitionableDevices"):
        groups, error = partition_groups(facts, problem.devices, request.default_attribute)
        if groups is not None:
            partitions = [_partition(problem, facts, solver, group) for group in groups]
    shareable, shareable_error = shareable_summary(problem, facts)
    error = error or shareable_error
    return PoolStatus(
        facts.driver,
        facts.pool,
        facts.generation,
        facts.node_name,
        slices=facts.slices,
        total=len(devices),
        allocated=len(allocated),
        available=len(devices) - len(allocated) - len(why),
        unavailable=len(why),
        # A view that fails leaves no partial summary behind, as upstream drops it.
        partitions=tuple(partitions) if partitions is not None and not error else None,
        shareable=shareable,
        validation_error=_error(error) if error else None,
        why_unavailable=tuple(why),
    )


def _partition(problem: Problem, facts: PoolFacts, solver: Solver, group: PartitionGroup) -> PartitionStatus:
    most = solver.most(facts.view, group.devices)
    names = tuple(problem.devices[d].name for d in most.devices)
    return PartitionStatus(group.attribute, group.type, len(group.devices), most.count, names)


def _pool_refused(facts: PoolFacts) -> str:
    """Why the allocator gives out nothing of the pool ("" when it would)."""
    view = facts.view
    if view.state == "invalid":
        return f"resource pool {facts.ref} is currently invalid: {view.reason}"
    if view.state == "incomplete" and facts.slices > facts.expected:
        # The controller only minds missing slices; the allocator wants the announced count exactly.
        return (
            f"resource pool {facts.ref} is incomplete for the scheduler: {facts.slices} slices at "
            f"generation {facts.generation}, {facts.expected} announced"
        )
    if view.state == "incomplete":
        # The status sees every slice; the allocator skips some (a feature gate hides them from it).
        return f"resource pool {facts.ref} is incomplete for the scheduler: feature gates hide slices of it"
    return ""


def _error(message: str) -> str:
    data = message.encode()
    return data[:MAX_ERROR_BYTES].decode(errors="ignore") if len(data) > MAX_ERROR_BYTES else message
