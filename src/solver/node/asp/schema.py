"""The typed schema between Python and the kubelet's rules: one clorm predicate class per input predicate
of `rules/node/input.lp`, where the meaning of each is documented; the classes only fix names, arities
and field types, so that facts are built as objects and never as text."""

from __future__ import annotations

from clorm import ConstantField, Predicate, field

# --- the machine and the kubelet's configuration -------------------------------------------------------


class Cpu(Predicate, name="cpu"):
    cpu: int
    core: int
    socket: int
    numa: int
    uncore: int


class Numa(Predicate, name="numa"):
    numa: int


class CpusPerCore(Predicate, name="cpus_per_core"):
    n: int


class Mask(Predicate, name="mask"):
    mask: int


class TopologyPolicy(Predicate, name="topology_policy"):
    policy: str = field(ConstantField)


class Option(Predicate, name="option"):
    option: str = field(ConstantField)


class Reserved(Predicate, name="reserved"):
    cpu: int


class Closeness(Predicate, name="closeness"):
    mask: int
    rank: int


class Default(Predicate, name="default"):
    cpu: int


# --- the pod -------------------------------------------------------------------------------------------


class SlotKind(Predicate, name="slot"):
    slot: int
    kind: str = field(ConstantField)  # init | sidecar | app


class Guaranteed(Predicate, name="guaranteed"):
    pass


class CpuRequest(Predicate, name="cpu_request"):
    slot: int
    milli: int


class PodResources(Predicate, name="pod_resources"):
    pass


class PodLevelManagers(Predicate, name="pod_level_managers"):
    pass


class OwnGuaranteed(Predicate, name="own_guaranteed"):
    slot: int


class Bubble(Predicate, name="bubble"):
    slot: int


class Fixed(Predicate, name="fixed"):
    slot: int
    cpu: int


class PodShare(Predicate, name="pod_share"):
    index: int
    kind: str = field(ConstantField)
    n: int


# --- the memory manager --------------------------------------------------------------------------------


class MemGroup(Predicate, name="mem_group"):
    group: int


class MemSlot(Predicate, name="mem_slot"):
    slot: int
    group: int


class MemRequest(Predicate, name="mem_request"):
    group: int
    resource: str
    amount: int


class MemFixed(Predicate, name="mem_fixed"):
    group: int
    mask: int


class MemStatic(Predicate, name="mem_static"):
    group: int
    mask: int
    preferred: int


class MemFree(Predicate, name="mem_free"):
    mask: int
    resource: str
    amount: int


class MemAllocatable(Predicate, name="mem_allocatable"):
    mask: int
    resource: str
    amount: int


class MemFreeRank(Predicate, name="mem_free_rank"):
    mask: int
    rank: int


class NumaUsed(Predicate, name="numa_used"):
    numa: int


class NumaGrouped(Predicate, name="numa_grouped"):
    numa: int
    mask: int


# --- the topology manager ------------------------------------------------------------------------------


class UnitFact(Predicate, name="unit"):
    unit: int


class UnitSlot(Predicate, name="unit_slot"):
    unit: int
    slot: int


class CpuUnit(Predicate, name="cpu_unit"):
    unit: int
    slot: int


class MemUnit(Predicate, name="mem_unit"):
    unit: int
    group: int


class StaticResource(Predicate, name="static_resource"):
    unit: int
    resource: str


class StaticHint(Predicate, name="static_hint"):
    unit: int
    resource: str
    mask: int
    preferred: int


# --- explanations and solving --------------------------------------------------------------------------


class KubeletCpu(Predicate, name="kubelet_cpu"):
    slot: int
    cpu: int


class KubeletSlot(Predicate, name="kubelet_slot"):
    slot: int


class KubeletMask(Predicate, name="kubelet_mask"):
    slot: int
    group: int
    mask: int


class TwinCore(Predicate, name="twin_core"):
    first: int
    second: int


class TwinCpu(Predicate, name="twin_cpu"):
    first: int
    second: int


class TwinUncore(Predicate, name="twin_uncore"):
    first: int
    second: int


class LeastDomains(Predicate, name="least_domains"):
    slot: int
    level: str = field(ConstantField)
    n: int


class StartAssign(Predicate, name="start_assign"):
    slot: int
    cpu: int


class StartMerged(Predicate, name="start_merged"):
    unit: int
    mask: int


class StartPreferred(Predicate, name="start_preferred"):
    unit: int


class StartBlock(Predicate, name="start_block"):
    group: int
    mask: int
