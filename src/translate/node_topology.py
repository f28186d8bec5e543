"""NodeTopology (kubefit.io/v1alpha1): the CPU, NUMA and memory layout of one node.

No Kubernetes object carries this; the kubelet reads it from cAdvisor. kubefit
reads it from this kind (or from sysfs / cAdvisor machine info).
"""

from __future__ import annotations

from pydantic import Field

from ..model.cpuset import MAX_CPUS
from .model_base import KubefitModel, ObjectModel, QuantityText

# The topology manager's NUMA masks are 64-bit (bitmask.BitMask): NUMA node ids are 0 to 63.
MAX_NUMA_NODES = 64


class CPU(KubefitModel):
    """One logical CPU (hardware thread)."""

    id: int
    core: int
    socket: int
    numa: int
    uncore_cache: int = Field(default=0, alias="uncoreCache")


class NUMAMemory(KubefitModel):
    """Memory and huge pages of one NUMA node."""

    numa: int
    capacity: QuantityText = "0"
    hugepages_2mi: QuantityText = Field(default="0", alias="hugepages-2Mi")
    hugepages_1gi: QuantityText = Field(default="0", alias="hugepages-1Gi")


class NodeTopologySpec(KubefitModel):
    # No Linux machine has more CPUs (NR_CPUS): a longer list is refused before its CPUs are made.
    cpus: list[CPU] = Field(max_length=MAX_CPUS)
    memory: list[NUMAMemory] = Field(default_factory=list)
    # distances[i][j]: the ACPI SLIT distance from NUMA node i to j (prefer-closest-numa-nodes).
    distances: dict[int, list[int]] = Field(default_factory=dict)


class NodeTopology(ObjectModel):
    api_version: str = Field(default="kubefit.io/v1alpha1", alias="apiVersion")
    kind: str = "NodeTopology"
    spec: NodeTopologySpec
