"""The engine interfaces (a DRA engine, whose node search the cluster scheduler composes; a node
engine, the kubelet's admission), their budget, and the features each declares: asking an engine for a
feature it does not declare is an explicit error, never a silently wrong answer. Engines by name are
`registry`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..model.errors import KubefitError
from ..model.node.problem import NodeProblem
from ..model.node.solution import NodeSolution
from ..model.problem import Problem
from ..model.solution import Solution, UnitOutcome
from . import registry


class UnsupportedFeature(KubefitError):
    """The chosen engine cannot reason about something the problem uses."""


@dataclass(frozen=True)
class Budget:
    """How much work an engine may do before it answers "unknown"."""

    steps: int | None = None
    seconds: float | None = None
    # Devices greedy may try, counted across the whole search (each step scans many: a bound on
    # steps alone does not bound the time on a node with thousands of candidates).
    devices: int | None = None
    # A monotonic time at which kube-scheduler's queue stops taking pods: the pods not reached by then are
    # left undecided (Solution.cut), what was placed stands.
    cutoff: float | None = None
    # Told (pods tried, pods in all) as kube-scheduler's queue goes (a plan's progress line).
    tried: Callable[[int, int], None] | None = None
    # Seconds that printing a pod's outcome will take (its scheduler annotations): kept back from the
    # cutoff for the pods reached, so that the answer is out by then.
    printing: Callable[[UnitOutcome], float] | None = None


class Engine(Protocol):
    name: str

    def supports(self) -> frozenset[str]:
        """Problem features this engine models (see problem.FEATURES and ENGINE_FEATURES)."""
        ...

    def solve(self, problem: Problem, budget: Budget) -> Solution: ...


# Everything a DRA problem may use, beyond the plain allocator.
ENGINE_FEATURES = frozenset(
    {
        "AdminAccess",
        "PrioritizedList",
        "PartitionableDevices",
        "DeviceTaints",
        "DeviceBindingAndStatus",
        "ConsumableCapacity",
        "ListTypeAttributes",
        "CompatibilityGroups",
        "DerivedAttributes",
        "OptionalNodeOperations",
        "FractionalCapacityRange",
        "AllocationModeAll",
        "Constraints",
        "NodeResources",
        "NodeAllocatableResources",
        "GangScheduling",
    }
)


class NodeEngine(Protocol):
    """The kubelet's admission of the pods bound to one node, with which CPUs, NUMA nodes and memory."""

    name: str

    def admit(self, problem: NodeProblem) -> NodeSolution: ...


def names() -> list[str]:
    return registry.names()


def get(name: str, **options: Any) -> Engine:
    """The DRA engine registered under `name` (imported only when asked for), made with `options`."""
    factory: Callable[..., Engine] = registry.dra(name)
    try:
        return factory(**options)
    except TypeError:
        if not options:
            raise
        raise KubefitError(f"engine {name} does not take {', '.join(sorted(options))}") from None


def used_features(problem: Problem) -> frozenset[str]:
    """The modelling features a problem actually needs, to check against an engine."""
    used: set[str] = set()
    for claim in problem.claims:
        if claim.constraints:
            used.add("Constraints")
        for request in claim.requests:
            if request.first_available:
                used.add("PrioritizedList")
            for slot in request.slots:
                if slot.admin_access:
                    used.add("AdminAccess")
                if slot.mode == "All":
                    used.add("AllocationModeAll")
                if slot.capacity_requests:
                    used.add("ConsumableCapacity")
                if slot.derived:
                    used.add("DerivedAttributes")
    for device in problem.devices:
        if device.consumes:
            used.add("PartitionableDevices")
            if any(use.groups for use in device.consumes):
                used.add("CompatibilityGroups")
        if device.taints:
            used.add("DeviceTaints")
        if device.binding_conditions:
            used.add("DeviceBindingAndStatus")
        if device.allow_multiple_allocations:
            used.add("ConsumableCapacity")
        if any(v.is_list for v in device.attributes.values()):
            used.add("ListTypeAttributes")
        if device.skip_node_operations:
            used.add("OptionalNodeOperations")
        if device.node_allocatable:
            used.add("NodeAllocatableResources")
    for unit in problem.units:
        if unit.gang is not None:
            used.add("GangScheduling")
        if unit.requests and any(problem.nodes[n].allocatable is not None for n in unit.nodes):
            used.add("NodeResources")
    return frozenset(used)


def check_supported(engine: Engine, problem: Problem) -> None:
    if engine.supports() >= ENGINE_FEATURES:
        return  # nothing a problem may use is missing (used_features reads every device)
    missing = used_features(problem) - engine.supports()
    if missing:
        raise UnsupportedFeature(
            f"engine {engine.name} does not support {', '.join(sorted(missing))}, which this input uses; "
            f"try --engine greedy"
        )
