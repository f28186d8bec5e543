"""Upstream's versioned feature-gate specs for the gates kubefit honours, as data.

Read from kubernetes/kubernetes at UPSTREAM_COMMIT (the 1.38 development branch, after 1.37 shipped):
`pkg/features/kube_features.go` (`defaultVersionedKubernetesFeatureGates` and
`defaultKubernetesFeatureGateDependencies`) and, for the scheduler's gates, which that file takes
from `staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go` (the same specs). Gates upstream
had removed by that commit keep the specs of the last revision that had them, with the release that
dropped them and the pull request that did (REMOVED). DRAPreemption (KEP-5690) is not upstream yet.

Each spec is (version, default, stage, locked, min compatibility version): from `version` on, until a
later spec, the gate has that default and stage; `locked` gates cannot be set to anything else; a spec
with a min compatibility version applies only when the component's --min-compatibility-version (one
release before the emulated one unless set) is at least that.
"""

from __future__ import annotations

from typing import NamedTuple

UPSTREAM_REPO = "kubernetes/kubernetes"
UPSTREAM_COMMIT = "ead35706ec68f83822a56d53b1577fa8a185ca14"
UPSTREAM_FILES = (
    "pkg/features/kube_features.go",
    "staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go",
)

# The releases whose defaults kubefit carries (a 1.37 component emulates down to 1.34), newest last.
RELEASES = ("1.34", "1.35", "1.36", "1.37")

ALPHA, BETA, GA, DEPRECATED = "ALPHA", "BETA", "GA", "DEPRECATED"


class Spec(NamedTuple):
    version: str
    default: bool
    stage: str
    locked: bool = False
    min_compatibility: str = ""


SPECS: dict[str, tuple[Spec, ...]] = {
    "CompositePodGroup": (Spec("1.37", False, ALPHA),),
    "CPUManagerPolicyAlphaOptions": (Spec("1.23", False, ALPHA),),
    "CPUManagerPolicyBetaOptions": (Spec("1.23", True, BETA),),
    "CPUManagerPolicyOptions": (
        Spec("1.22", False, ALPHA),
        Spec("1.23", True, BETA),
        Spec("1.33", True, GA, locked=True),
    ),
    "DRAAdminAccess": (
        Spec("1.32", False, ALPHA),
        Spec("1.34", True, BETA),
        Spec("1.36", True, GA, locked=True),
    ),
    "DRAConsumableCapacity": (Spec("1.34", False, ALPHA), Spec("1.36", True, BETA)),
    "DRADerivedAttributes": (Spec("1.37", False, ALPHA),),
    "DRADeviceBindingConditions": (Spec("1.34", False, ALPHA), Spec("1.36", True, BETA)),
    "DRADeviceCompatibilityGroups": (Spec("1.37", False, ALPHA),),
    "DRADeviceTaintRules": (
        Spec("1.35", False, ALPHA),
        Spec("1.36", False, BETA),
        Spec("1.37", True, GA),
    ),
    "DRADeviceTaints": (Spec("1.33", False, ALPHA), Spec("1.36", True, BETA), Spec("1.37", True, GA)),
    "DRAExtendedResource": (
        Spec("1.34", False, ALPHA),
        Spec("1.36", True, BETA),
        Spec("1.37", True, GA, locked=True),
    ),
    "DRAFractionalCapacityRange": (
        Spec("1.37", False, BETA),
        Spec("1.37", True, BETA, min_compatibility="1.37"),
    ),
    "DRAListTypeAttributes": (Spec("1.36", False, ALPHA),),
    "DRANodeAllocatableResources": (Spec("1.36", False, ALPHA),),
    "DRAOptionalNodeOperations": (Spec("1.37", False, ALPHA),),
    "DRAPartitionableDevices": (Spec("1.33", False, ALPHA), Spec("1.36", True, BETA)),
    "DRAPrioritizedList": (
        Spec("1.33", False, ALPHA),
        Spec("1.34", True, BETA),
        Spec("1.36", True, GA),
        Spec("1.37", True, GA, locked=True),
    ),
    "DRAResourceClaimDeviceStatus": (
        Spec("1.32", False, ALPHA),
        Spec("1.33", True, BETA),
        Spec("1.37", True, GA, locked=True),
    ),
    "DRASchedulerFilterTimeout": (Spec("1.34", True, BETA),),
    "DRAWorkloadResourceClaims": (Spec("1.36", False, ALPHA), Spec("1.37", False, BETA)),
    "DynamicResourceAllocation": (
        Spec("1.26", False, ALPHA),
        Spec("1.32", False, BETA),
        Spec("1.34", True, GA),
        Spec("1.35", True, GA, locked=True),
    ),
    "GenericWorkload": (Spec("1.35", False, ALPHA), Spec("1.37", False, BETA)),
    "InPlacePodVerticalScaling": (
        Spec("1.27", False, ALPHA),
        Spec("1.33", True, BETA),
        Spec("1.35", True, GA, locked=True),
    ),
    "InPlacePodVerticalScalingExclusiveCPUs": (Spec("1.32", False, ALPHA),),
    "NodeDeclaredFeatures": (
        Spec("1.35", False, ALPHA),
        Spec("1.36", True, BETA),
        Spec("1.37", True, GA, locked=True),
    ),
    "PodLevelResourceManagers": (Spec("1.36", False, ALPHA), Spec("1.37", False, BETA)),
    "PodLevelResources": (Spec("1.32", False, ALPHA), Spec("1.34", True, BETA)),
    "StorageCapacityScoring": (Spec("1.33", False, ALPHA), Spec("1.37", True, BETA)),
    "PodGroupPreemptionPolicy": (Spec("1.37", False, ALPHA),),
    "TopologyAwareWorkloadScheduling": (Spec("1.36", False, ALPHA),),
    "TopologyManagerPolicyAlphaOptions": (Spec("1.26", False, ALPHA),),
    "TopologyManagerPolicyBetaOptions": (Spec("1.26", False, BETA), Spec("1.28", True, BETA)),
    "TopologyManagerPolicyOptions": (
        Spec("1.26", False, ALPHA),
        Spec("1.28", True, BETA),
        Spec("1.32", True, GA, locked=True),
    ),
    # Removed upstream before UPSTREAM_COMMIT (see REMOVED): the specs of the last revision with them.
    "GangScheduling": (Spec("1.35", False, ALPHA),),
    "WorkloadAwarePreemption": (Spec("1.36", False, ALPHA),),
    "MemoryManager": (
        Spec("1.21", False, ALPHA),
        Spec("1.22", True, BETA),
        Spec("1.32", True, GA, locked=True),
    ),
    "SidecarContainers": (
        Spec("1.28", False, ALPHA),
        Spec("1.29", True, BETA),
        Spec("1.33", True, GA, locked=True),
    ),
    # Not upstream at UPSTREAM_COMMIT: KEP-5690 targets 1.38 as alpha (see PREVIEW).
    "DRAPreemption": (Spec("1.38", False, ALPHA),),
}


class Removal(NamedTuple):
    release: str  # the first release without the gate
    merged_into: str  # the gate that governs the feature from then on ("" when it is simply always on)
    source: str


REMOVED: dict[str, Removal] = {
    "GangScheduling": Removal(
        "1.37",
        "GenericWorkload",
        "kubernetes/kubernetes#139520 merged GangScheduling and WorkloadAwarePreemption into GenericWorkload",
    ),
    "MemoryManager": Removal(
        "1.36", "", "kubernetes/kubernetes#136381 removed the gate (GA and locked since 1.32)"
    ),
    "WorkloadAwarePreemption": Removal(
        "1.37",
        "GenericWorkload",
        "kubernetes/kubernetes#139520 merged GangScheduling and WorkloadAwarePreemption into GenericWorkload",
    ),
    "SidecarContainers": Removal(
        "1.37", "", "kubernetes/kubernetes#137755 removed the gate (GA and locked since 1.33)"
    ),
}

# Gates kubefit implements before any release has them: off by default, settable at every release
# kubefit carries (upstream would call them PreAlpha there), never switched on by AllAlpha.
PREVIEW: dict[str, str] = {
    "DRAPreemption": "KEP-5690 targets Kubernetes 1.38 as alpha; no release has the gate yet",
}

# defaultKubernetesFeatureGateDependencies, between gates of SPECS: a gate may be on only while the
# gates it depends on are (GangScheduling's from the 1.35 revision that had it). The workload gates'
# dependencies are the ones their code assumes (the PodGroup API for both; "CPG requires
# TopologyAwareWorkloadScheduling" in pkg/scheduler/algorithm_podgroup.go).
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "DRAAdminAccess": ("DynamicResourceAllocation",),
    "DRAConsumableCapacity": ("DynamicResourceAllocation",),
    "DRADerivedAttributes": ("DynamicResourceAllocation",),
    "DRADeviceBindingConditions": ("DynamicResourceAllocation", "DRAResourceClaimDeviceStatus"),
    "DRADeviceCompatibilityGroups": ("DynamicResourceAllocation", "DRAPartitionableDevices"),
    "DRADeviceTaintRules": ("DRADeviceTaints",),
    "DRADeviceTaints": ("DynamicResourceAllocation",),
    "DRAExtendedResource": ("DynamicResourceAllocation",),
    "DRAFractionalCapacityRange": ("DRAConsumableCapacity",),
    "DRAListTypeAttributes": ("DynamicResourceAllocation",),
    "DRANodeAllocatableResources": ("DynamicResourceAllocation",),
    "DRAOptionalNodeOperations": ("DynamicResourceAllocation", "NodeDeclaredFeatures"),
    "DRAPartitionableDevices": ("DynamicResourceAllocation",),
    "DRAPrioritizedList": ("DynamicResourceAllocation",),
    "DRASchedulerFilterTimeout": ("DynamicResourceAllocation",),
    "CompositePodGroup": ("GenericWorkload", "TopologyAwareWorkloadScheduling"),
    "DRAWorkloadResourceClaims": ("DynamicResourceAllocation", "GenericWorkload"),
    "GangScheduling": ("GenericWorkload",),
    "InPlacePodVerticalScalingExclusiveCPUs": ("InPlacePodVerticalScaling",),
    "PodLevelResourceManagers": ("PodLevelResources",),
    "PodGroupPreemptionPolicy": ("GenericWorkload",),
    "TopologyAwareWorkloadScheduling": ("GenericWorkload",),
    "WorkloadAwarePreemption": ("GenericWorkload",),
}
