"""Hypothesis strategies for node admission problems: machines (upstream fixtures or generated
shapes), kubelet policies whose option combinations the kubelet accepts, pods, and (occupied=True)
machines already partly taken: reservedSystemCPUs that split cores, and a cpu_manager_state whose
containers hold CPUs scattered over the cores."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st
from node_fixtures import machine as fixture

from kubefit.model.node.problem import (
    APP,
    INIT,
    SIDECAR,
    ContainerFacts,
    CPUState,
    DeviceGroup,
    KubeletPolicy,
    Machine,
    NodeProblem,
    PodFacts,
)
from kubefit.solver.node.topology import CPUTopology
from kubefit.solver.node.validate import reserved_cpus
from kubefit.translate.node.synthetic import synthetic_machine

MI = 2**20
GI = 2**30
FIXTURES = (
    "returnMachineInfo",
    "topoDualSocketHT",
    "topoSingleSocketHT",
    "topoDualSocketNoHT",
    "memoryNUMA4",
)
TOPOLOGY_POLICIES = ("none", "best-effort", "restricted", "single-numa-node")


@st.composite
def machines(draw: st.DrawFn) -> Machine:
    if draw(st.booleans()):
        return fixture(draw(st.sampled_from(FIXTURES)))
    numa_per_socket = draw(st.integers(1, 2))
    cores = draw(st.integers(1, 4))
    return synthetic_machine(
        sockets=draw(st.integers(1, 2)),
        numa_per_socket=numa_per_socket,
        cores_per_numa=cores,
        threads=draw(st.integers(1, 2)),
        cores_per_uncore=draw(st.integers(1, cores)),
        memory_per_numa=draw(st.sampled_from([2 * GI, 4 * GI])),
        hugepages_1g_per_numa=draw(st.sampled_from([0, GI])),
    )


@st.composite
def policies(draw: st.DrawFn, machine: Machine, explicit_reserved: bool = False) -> KubeletPolicy:
    topo = CPUTopology(machine)
    topology = draw(st.sampled_from(TOPOLOGY_POLICIES))
    options: set[str] = set()
    layout = draw(st.sampled_from(["packed", "full", "numa", "numa-full", "cores", "uncore", "uncore-full"]))
    options |= {
        "packed": set(),
        "full": {"full-pcpus-only"},
        "numa": {"distribute-cpus-across-numa"},
        "numa-full": {"distribute-cpus-across-numa", "full-pcpus-only"},
        "cores": {"distribute-cpus-across-cores"},
        "uncore": {"prefer-align-cpus-by-uncorecache"},
        "uncore-full": {"prefer-align-cpus-by-uncorecache", "full-pcpus-only"},
    }[layout]
    if topology != "single-numa-node" and topo.num_sockets <= topo.num_numa and draw(st.booleans()):
        options.add("align-by-socket")
    if draw(st.booleans()):
        options.add("strict-cpu-reservation")
    reserved = draw(st.integers(0, min(2, len(machine.cpus) - 1)))
    chosen = None
    if explicit_reserved and reserved and draw(st.booleans()):
        # reservedSystemCPUs: any CPUs, often one thread of a core (the kubelet takes whole cores).
        ids = sorted(c.id for c in machine.cpus)
        chosen = frozenset(
            draw(st.lists(st.sampled_from(ids), min_size=reserved, max_size=reserved, unique=True))
        )
    memory = bool(machine.memory) and draw(st.booleans())
    reserved_memory = tuple((n.numa, "memory", 256 * MI) for n in machine.memory) if memory else ()
    return KubeletPolicy(
        cpu_policy="static",
        cpu_options=frozenset(options),
        reserved_cpus=chosen,
        reserved_cpu_count=reserved,
        topology_policy=topology,
        topology_scope=draw(st.sampled_from(["container", "pod"])),
        prefer_closest_numa=draw(st.booleans()),
        memory_policy="Static" if memory else "None",
        reserved_memory=reserved_memory,
    )


@st.composite
def device_groups(draw: st.DrawFn, name: str, nodes: tuple[int, ...]) -> tuple[DeviceGroup, ...]:
    """Now and then a claim whose allocated devices sit on given NUMA nodes (DRA numaNode)."""
    if draw(st.integers(0, 5)) > 0:
        return ()
    devices = draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=2))
    return (DeviceGroup(f"claim/default/{name}", tuple(frozenset({n}) for n in devices)),)


@st.composite
def containers(
    draw: st.DrawFn, name: str, kind: str, max_cpus: int, hugepages: bool, nodes: tuple[int, ...]
) -> ContainerFacts:
    shared = draw(st.integers(0, 5)) == 0
    cpu = draw(st.sampled_from([500, 1500])) if shared else 1000 * draw(st.integers(1, max(1, max_cpus)))
    memory: tuple[tuple[str, int], ...] = (("memory", draw(st.sampled_from([128, 512, 1024, 2048])) * MI),)
    if hugepages and draw(st.booleans()):
        memory += (("hugepages-1Gi", GI),)
    own = draw(st.integers(0, 3)) > 0
    return ContainerFacts(
        name, kind, cpu, cpu if own else None, memory, own, draw(device_groups(name, nodes))
    )


@st.composite
def pods(draw: st.DrawFn, index: int, max_cpus: int, hugepages: bool, nodes: tuple[int, ...]) -> PodFacts:
    kinds = draw(
        st.sampled_from([[APP], [APP], [APP, APP], [INIT, APP], [SIDECAR, APP], [INIT, SIDECAR, APP, APP]])
    )
    items = tuple(draw(containers(f"c{i}", kind, max_cpus, hugepages, nodes)) for i, kind in enumerate(kinds))
    qos = "Guaranteed" if draw(st.integers(0, 7)) > 0 else "Burstable"
    uid, name = f"pod{index}-uid", f"pod{index}"
    if draw(st.integers(0, 4)) == 0:
        # Pod-level resources: the pod's own budget; containers Guaranteed on their own, or sharing.
        budget = 1000 * draw(st.integers(1, max(1, max_cpus)))
        total = sum(size for c in items for r, size in c.memory if r == "memory")
        memory = (("memory", total + draw(st.sampled_from([0, 512])) * MI),)
        return PodFacts(uid, "default", name, qos, items, budget, memory)
    items = tuple(replace(c, cpu_limit=c.cpu_request, own_guaranteed=True) for c in items)
    return PodFacts(uid, "default", name, qos, items)


@st.composite
def occupied_state(draw: st.DrawFn, problem: NodeProblem) -> CPUState | None:
    """A cpu_manager_state in which another pod's containers hold some CPUs, wherever they are."""
    reserved = reserved_cpus(problem)
    free = sorted(c.id for c in problem.machine.cpus if c.id not in reserved)
    held = draw(st.lists(st.sampled_from(free), max_size=max(0, len(free) - 1), unique=True)) if free else []
    if not held:
        return None
    split = draw(st.integers(1, len(held)))
    entries = (("occupant-uid", "a", frozenset(held[:split])), ("occupant-uid", "b", frozenset(held[split:])))
    default = frozenset(c.id for c in problem.machine.cpus) - frozenset(held)
    if problem.policy.option("strict-cpu-reservation"):
        default -= reserved
    return CPUState("static", default, tuple(e for e in entries if e[2]))


@st.composite
def problems(draw: st.DrawFn, count: tuple[int, int] = (1, 6), occupied: bool = False) -> NodeProblem:
    machine = draw(machines())
    policy = draw(policies(machine, explicit_reserved=occupied))
    cpus = len(machine.cpus)
    hugepages = any(m.hugepages for m in machine.memory)
    n = draw(st.integers(*count))
    nodes = machine.numa_nodes
    items = tuple(draw(pods(i, max(1, cpus // 2), hugepages, nodes)) for i in range(n))
    problem = NodeProblem("node-1", machine, policy, items)
    if occupied:
        problem = replace(problem, cpu_state=draw(occupied_state(problem)))
    return problem


def last_pod_only(problem: NodeProblem) -> NodeProblem:
    """Every pod but the last as already running (both engines admit those as the kubelet did)."""
    items = tuple(replace(p, report=False) for p in problem.pods[:-1]) + problem.pods[-1:]
    return replace(problem, pods=items)
