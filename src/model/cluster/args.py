"""Plugin arguments (kubescheduler.config.k8s.io/v1 *Args) as the plugins read them, with the v1 defaults.

`kubefit.translate.sched.config` reads them from a KubeSchedulerConfiguration and checks
them as the scheduler's config validation does; without one, these defaults apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..claim_status import BINDING_TIMEOUT
from ..terms import NodeSelectorTerm, PreferredNodeTerm


@dataclass(frozen=True)
class ResourceSpec:
    name: str
    weight: int = 1


@dataclass(frozen=True)
class ShapePoint:
    utilization: int  # 0-100
    score: int  # 0-10


DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"


@dataclass(frozen=True)
class ScoringStrategy:
    type: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES
    shape: tuple[ShapePoint, ...] = ()  # RequestedToCapacityRatio only


@dataclass(frozen=True)
class NodeResourcesFitArgs:
    ignored_resources: frozenset[str] = frozenset()
    ignored_resource_groups: frozenset[str] = frozenset()
    scoring_strategy: ScoringStrategy = ScoringStrategy()


@dataclass(frozen=True)
class NodeResourcesBalancedAllocationArgs:
    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES


@dataclass(frozen=True)
class NodeAffinityArgs:
    """addedAffinity: required terms every pod must also match (None: none) and preferred terms."""

    added_required: tuple[NodeSelectorTerm, ...] | None = None
    added_preferred: tuple[PreferredNodeTerm, ...] = ()


@dataclass(frozen=True)
class DefaultSpreadConstraint:
    """A PodTopologySpreadArgs default constraint (it has no selector: the pod's own is derived)."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str


SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

# The system default constraints (podtopologyspread.systemDefaultConstraints).
SYSTEM_DEFAULT_CONSTRAINTS = (
    DefaultSpreadConstraint(3, "kubernetes.io/hostname", "ScheduleAnyway"),
    DefaultSpreadConstraint(5, "topology.kubernetes.io/zone", "ScheduleAnyway"),
)


@dataclass(frozen=True)
class PodTopologySpreadArgs:
    default_constraints: tuple[DefaultSpreadConstraint, ...] = ()
    defaulting_type: str = SYSTEM_DEFAULTING


@dataclass(frozen=True)
class InterPodAffinityArgs:
    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False


@dataclass(frozen=True)
class DefaultPreemptionArgs:
    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100


@dataclass(frozen=True)
class DynamicResourcesArgs:
    filter_timeout_seconds: float = 10.0
    binding_timeout_seconds: float = BINDING_TIMEOUT


# Plugin name -> its args type, for the plugins that take args.
ARGS_TYPES: dict[str, type] = {
    "NodeResourcesFit": NodeResourcesFitArgs,
    "NodeResourcesBalancedAllocation": NodeResourcesBalancedAllocationArgs,
    "NodeAffinity": NodeAffinityArgs,
    "PodTopologySpread": PodTopologySpreadArgs,
    "InterPodAffinity": InterPodAffinityArgs,
    "DefaultPreemption": DefaultPreemptionArgs,
    "DynamicResources": DynamicResourcesArgs,
}
