"""Facts of one node admission question: machine, kubelet policy, checkpointed state, pods.

Everything here is plain and immutable; engines never see YAML. Memory sizes are bytes, CPU
requests millicores; CPU sets are frozensets of logical CPU ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CPUSet = frozenset[int]

# Container kinds, in the order the kubelet allocates them.
INIT, SIDECAR, APP = "init", "sidecar", "app"


@dataclass(frozen=True)
class CPUInfo:
    """One logical CPU; `core` is machine-unique (the smallest CPU id of the core, as the kubelet)."""

    id: int
    core: int
    socket: int
    numa: int
    uncore: int


@dataclass(frozen=True)
class NUMAMemory:
    """Memory of one NUMA node: regular memory (MemTotal) and huge pages, in bytes."""

    numa: int
    capacity: int
    hugepages: tuple[tuple[str, int], ...] = ()  # (resource name, bytes), e.g. ("hugepages-1Gi", 2Gi)


@dataclass(frozen=True)
class Machine:
    cpus: tuple[CPUInfo, ...]
    memory: tuple[NUMAMemory, ...] = ()
    # distances[i] = SLIT distances from NUMA node i to every node, in node order.
    distances: tuple[tuple[int, tuple[int, ...]], ...] = ()

    @property
    def numa_nodes(self) -> tuple[int, ...]:
        return tuple(sorted({c.numa for c in self.cpus} | {m.numa for m in self.memory}))


@dataclass(frozen=True)
class KubeletPolicy:
    """The resource-manager settings of the kubelet (KubeletConfiguration plus feature gates)."""

    cpu_policy: str = "none"  # none | static
    cpu_options: frozenset[str] = frozenset()  # the boolean static-policy options set to true
    reserved_cpus: CPUSet | None = None  # reservedSystemCPUs, when given
    reserved_cpu_count: int = 0  # ceil(kubeReserved.cpu + systemReserved.cpu) otherwise
    topology_policy: str = "none"  # none | best-effort | restricted | single-numa-node
    topology_scope: str = "container"  # container | pod
    prefer_closest_numa: bool = False
    max_allowable_numa_nodes: int = 8
    memory_policy: str = "None"  # None | Static
    reserved_memory: tuple[tuple[int, str, int], ...] = ()  # (NUMA node, resource, bytes)
    pod_level_resources: bool = True  # PodLevelResources gate
    pod_level_managers: bool = True  # PodLevelResourceManagers gate

    def option(self, name: str) -> bool:
        return name in self.cpu_options


@dataclass(frozen=True)
class DeviceGroup:
    """The allocated devices of one claim a container uses, with the NUMA nodes each sits on."""

    name: str  # "claim/<namespace>/<claim>", the resource name its hints are recorded under
    devices: tuple[frozenset[int], ...]


@dataclass(frozen=True)
class ContainerFacts:
    name: str
    kind: str  # INIT | SIDECAR | APP
    cpu_request: int | None  # millicores; None when the container does not request cpu
    cpu_limit: int | None
    memory: tuple[tuple[str, int], ...] = ()  # requests of memory and hugepages-*, bytes
    own_guaranteed: bool = False  # requests == limits for cpu and memory on the container itself
    devices: tuple[DeviceGroup, ...] = ()


@dataclass(frozen=True)
class PodFacts:
    uid: str
    namespace: str
    name: str
    qos: str  # Guaranteed | Burstable | BestEffort
    containers: tuple[ContainerFacts, ...]
    # Pod-level resources (spec.resources) when the pod sets them and PodLevelResources is on.
    pod_cpu_request: int | None = None  # millicores
    pod_memory: tuple[tuple[str, int], ...] = ()
    report: bool = True  # False: a pod already running, admitted only to rebuild the managers' state

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def pod_level(self) -> bool:
        return self.pod_cpu_request is not None or bool(self.pod_memory)


@dataclass(frozen=True)
class MemoryTable:
    total: int
    system_reserved: int
    allocatable: int
    reserved: int
    free: int


@dataclass(frozen=True)
class NUMANodeState:
    assignments: int
    memory: tuple[tuple[str, MemoryTable], ...]  # resource -> table, sorted by resource
    cells: tuple[int, ...]


@dataclass(frozen=True)
class Block:
    resource: str
    size: int
    numa: tuple[int, ...]


@dataclass(frozen=True)
class CPUState:
    """cpu_manager_state: the shared pool, exclusive CPUs per container, pod-level bubbles."""

    policy: str
    default: CPUSet
    entries: tuple[tuple[str, str, CPUSet], ...] = ()  # (pod uid, container, cpus)
    pod_entries: tuple[tuple[str, CPUSet], ...] = ()


@dataclass(frozen=True)
class MemoryState:
    """memory_manager_state: per-NUMA accounting and the memory blocks of each container."""

    policy: str
    machine: tuple[tuple[int, NUMANodeState], ...] = ()
    entries: tuple[tuple[str, str, tuple[Block, ...]], ...] = ()
    pod_entries: tuple[tuple[str, tuple[Block, ...]], ...] = ()


@dataclass(frozen=True)
class NodeProblem:
    node: str
    machine: Machine
    policy: KubeletPolicy
    pods: tuple[PodFacts, ...]  # admitted in this order
    cpu_state: CPUState | None = None  # None: a fresh kubelet (no checkpoint)
    memory_state: MemoryState | None = None
    notes: tuple[str, ...] = field(default=())
