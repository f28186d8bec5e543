"""A checker of node admission answers, independent of every engine.

It replays the admitted pods in order on its own accounting of the node and reports every rule an
answer breaks: exclusive CPUs of the requested size, never reserved nor held twice at once (init
containers' CPUs may be reused, sidecars' not), under full-pcpus-only a request of whole cores' worth
that the free CPUs outside the reserved CPUs' cores cover (what the kubelet checks: its allocation may
still end on part of a core), the NUMA alignment
the topology manager policy demands (a preferred hint: narrowest by capacity; single-numa-node: one
node), memory blocks on the container's hint that fit the free memory and the NUMA grouping rules,
and the shared pool left behind. It does not judge *which* valid answer was chosen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations

from ...model.cpuset import format_cpuset
from ...model.node.problem import APP, INIT, SIDECAR, ContainerFacts, NodeProblem, PodFacts
from ...model.node.solution import NodeSolution, PodAdmission
from .topology import CPUTopology


@dataclass
class _Memory:
    free: dict[tuple[int, str], int] = field(default_factory=dict)  # (node, resource) -> bytes
    cells: dict[int, tuple[int, ...]] = field(default_factory=dict)  # node -> its group when used
    used: set[int] = field(default_factory=set)


def _exclusive_count(problem: NodeProblem, pod: PodFacts, c: ContainerFacts) -> int:
    if problem.policy.cpu_policy != "static" or pod.qos != "Guaranteed":
        return 0
    if pod.pod_level and not (problem.policy.pod_level_managers and c.own_guaranteed):
        return 0
    if c.cpu_request is None or c.cpu_request % 1000:
        return 0
    return c.cpu_request // 1000


def _min_nodes(topo: CPUTopology, nodes: list[int], request: int) -> int:
    for k in range(1, len(nodes) + 1):
        if any(len(topo.cpus_in("numa", combo)) >= request for combo in combinations(nodes, k)):
            return k
    return len(nodes)


class Checker:
    def __init__(self, problem: NodeProblem, reserved: frozenset[int]) -> None:
        self.problem = problem
        self.topo = CPUTopology(problem.machine)
        self.reserved = reserved
        policy = problem.policy
        self.strict = policy.option("strict-cpu-reservation")
        state = problem.cpu_state
        if state is not None and (state.default or state.entries or state.pod_entries):
            self.held: set[int] = {c for _, _, cpus in state.entries for c in cpus}
            self.held |= {c for _, cpus in state.pod_entries for c in cpus}
        else:
            self.held = set()
        self.memory = self._memory()
        self.problems: list[str] = []
        self.taken: set[int] = set()  # what the pod being checked took so far

    def _memory(self) -> _Memory:
        mem = _Memory()
        given = self.problem.memory_state
        if given is not None and given.machine:
            for node, s in given.machine:
                for resource, table in s.memory:
                    mem.free[(node, resource)] = table.free
                if s.assignments:
                    mem.used.add(node)
                    mem.cells[node] = s.cells
            return mem
        reserved: dict[tuple[int, str], int] = {}
        for node, resource, size in self.problem.policy.reserved_memory:
            reserved[(node, resource)] = size
        for m in self.problem.machine.memory:
            pages = sum(size for _, size in m.hugepages)
            mem.free[(m.numa, "memory")] = m.capacity - pages - reserved.get((m.numa, "memory"), 0)
            for resource, size in m.hugepages:
                mem.free[(m.numa, resource)] = size - reserved.get((m.numa, resource), 0)
        return mem

    def fail(self, pod: PodFacts, text: str) -> None:
        self.problems.append(f"pod {pod.ref}: {text}")

    def check(self, solution: NodeSolution) -> list[str]:
        for a in solution.admissions:
            if a.admitted:
                self.pod(a)
            shared = self.topo.all - self.held - (self.reserved if self.strict else frozenset())
            if self.problem.policy.cpu_policy == "static" and a.default_cpus != shared:
                self.fail(
                    a.pod,
                    f"shared pool {format_cpuset(a.default_cpus)} should be {format_cpuset(shared)}",
                )
        return self.problems

    # --- one pod -------------------------------------------------------------------------------------

    def pod(self, a: PodAdmission) -> None:
        pod = a.pod
        by_name = {c.name: c for c in a.containers}
        free = set(self.topo.all) - self.held - self.reserved
        if a.pod_cpus:
            self._bubble(a, free)
        running: list[tuple[str, frozenset[int]]] = []  # sidecars, then app containers
        taken: set[int] = set()
        self.taken = taken
        for c in pod.containers:
            got = by_name.get(c.name)
            n = _exclusive_count(self.problem, pod, c)
            if got is None:
                self.fail(pod, f"container {c.name} missing from the answer")
                continue
            if a.pod_cpus:
                if not got.cpus <= a.pod_cpus:
                    self.fail(pod, f"container {c.name}: CPUs {format_cpuset(got.cpus)} outside the pod's")
                continue
            if n == 0 or not got.exclusive:
                if n:
                    self.fail(pod, f"container {c.name} should have {n} exclusive CPUs")
                continue
            self._exclusive(pod, c, n, got.cpus, free, running, a)
            taken |= got.cpus
            if c.kind in (SIDECAR, APP):
                running.append((c.name, got.cpus))
        self.held |= taken
        self._memory_blocks(a)

    def _bubble(self, a: PodAdmission, free: set[int]) -> None:
        pod = a.pod
        if not a.pod_cpus <= free:
            self.fail(pod, f"pod CPUs {format_cpuset(a.pod_cpus - free)} are not free")
        self._aligned(pod, "the pod", a.pod_cpus, a.numa_affinity, len(a.pod_cpus))
        self.held |= a.pod_cpus

    def _exclusive(
        self,
        pod: PodFacts,
        c: ContainerFacts,
        n: int,
        cpus: frozenset[int],
        free: set[int],
        running: list[tuple[str, frozenset[int]]],
        a: PodAdmission,
    ) -> None:
        if len(cpus) != n:
            self.fail(pod, f"container {c.name} has {len(cpus)} exclusive CPUs, requested {n}")
        if cpus & self.reserved:
            self.fail(pod, f"container {c.name} holds reserved CPUs {format_cpuset(cpus & self.reserved)}")
        outside = cpus - free
        if outside:
            self.fail(pod, f"container {c.name} holds CPUs {format_cpuset(outside)} that are not free")
        live = running if c.kind == APP else [(name, s) for name, s in running if name in self._sidecars(pod)]
        for name, other in live:
            if cpus & other:
                self.fail(pod, f"containers {name} and {c.name} share CPUs {format_cpuset(cpus & other)}")
        per_core = self.topo.cpus_per_core
        if self.problem.policy.option("full-pcpus-only") and per_core > 1:
            physical = free - self.topo.siblings(self.reserved) - self.taken
            if n % per_core or n > len(physical):
                self.fail(
                    pod,
                    f"container {c.name}: {n} CPUs are not whole cores out of the {len(physical)} free "
                    "physical CPUs (full-pcpus-only)",
                )
        hint = next((x.numa_affinity for x in a.containers if x.name == c.name), None)
        request = n
        if self.problem.policy.topology_scope == "pod":
            hint, request = a.numa_affinity, self._pod_request(pod)
        self._aligned(pod, f"container {c.name}", cpus, hint, request)

    def _pod_request(self, pod: PodFacts) -> int:
        init_peak = sidecars = apps = 0
        for c in pod.containers:
            n = _exclusive_count(self.problem, pod, c)
            if c.kind == INIT:
                init_peak = max(init_peak, sidecars + n)
            elif c.kind == SIDECAR:
                sidecars += n
            else:
                apps += n
        return max(init_peak, sidecars + apps)

    @staticmethod
    def _sidecars(pod: PodFacts) -> set[str]:
        return {c.name for c in pod.containers if c.kind == SIDECAR}

    def _aligned(
        self, pod: PodFacts, what: str, cpus: frozenset[int], hint: tuple[int, ...] | None, request: int
    ) -> None:
        policy = self.problem.policy.topology_policy
        if policy not in ("restricted", "single-numa-node"):
            return
        nodes = self.problem.machine.numa_nodes
        if hint is None:
            if policy == "single-numa-node" and len(nodes) == 1:
                return
            self.fail(pod, f"{what}: no NUMA affinity under topology policy {policy}")
            return
        if policy == "single-numa-node" and len(hint) != 1:
            self.fail(pod, f"{what}: NUMA affinity {list(hint)} spans several nodes (single-numa-node)")
        if self.problem.policy.option("align-by-socket"):
            inside = self.topo.cpus_in("socket", self.topo.sockets_of_numa(hint))
        else:
            inside = self.topo.cpus_in("numa", hint)
            least = _min_nodes(self.topo, list(nodes), request)
            if len(hint) != least:
                self.fail(pod, f"{what}: NUMA affinity {list(hint)} is not preferred (narrowest is {least})")
        if not cpus <= inside:
            self.fail(pod, f"{what}: CPUs {format_cpuset(cpus - inside)} outside NUMA affinity {list(hint)}")

    # --- memory ----------------------------------------------------------------------------------------

    def _memory_blocks(self, a: PodAdmission) -> None:
        pod = a.pod
        if pod.pod_level:
            return  # containers' blocks are slices of the pod's own (not in the answer)
        policy = self.problem.policy.topology_policy
        live: dict[tuple[tuple[int, ...], str], int] = {}
        peak: dict[tuple[tuple[int, ...], str], int] = {}
        kinds = {c.name: c.kind for c in pod.containers}
        for c in a.containers:
            kind = kinds.get(c.name, APP)
            for b in c.memory:
                nodes = tuple(sorted(b.numa))
                hint = c.numa_affinity
                aligned = policy in ("restricted", "single-numa-node")
                if aligned and hint is not None and nodes != tuple(sorted(hint)):
                    self.fail(pod, f"container {c.name}: {b.resource} on {list(nodes)}, hint {list(hint)}")
                self._groups(pod, c.name, nodes)
                key = (nodes, b.resource)
                now = live.get(key, 0) + b.size
                peak[key] = max(peak.get(key, 0), now)
                if kind != INIT:
                    live[key] = now
        for (nodes, resource), size in sorted(peak.items()):
            free = sum(self.memory.free.get((n, resource), 0) for n in nodes)
            if size > free:
                self.fail(pod, f"{resource} {size} on NUMA {list(nodes)} exceeds the free {free}")
            for n in nodes:
                take = min(size, self.memory.free.get((n, resource), 0))
                self.memory.free[(n, resource)] = self.memory.free.get((n, resource), 0) - take
                size -= take

    def _groups(self, pod: PodFacts, name: str, nodes: tuple[int, ...]) -> None:
        for n in nodes:
            group = self.memory.cells.get(n)
            if n in self.memory.used and group != nodes:
                self.fail(
                    pod, f"container {name}: memory on NUMA {list(nodes)} breaks group {list(group or ())}"
                )
            self.memory.used.add(n)
            self.memory.cells[n] = nodes


def check(problem: NodeProblem, solution: NodeSolution, reserved: Iterable[int] | None = None) -> list[str]:
    """Every rule the solution breaks (empty: valid). `reserved` defaults to the kubelet's choice."""
    if reserved is None:
        reserved = reserved_cpus(problem)
    return Checker(problem, frozenset(reserved)).check(solution)


def reserved_cpus(problem: NodeProblem) -> frozenset[int]:
    policy = problem.policy
    if policy.cpu_policy != "static":
        return frozenset()
    if policy.reserved_cpus is not None:
        return policy.reserved_cpus
    # The count is turned into CPUs by the kubelet's own topology-aware take (its definition).
    from .greedy.cpu_static import StaticCPUPolicy

    return StaticCPUPolicy(CPUTopology(problem.machine), policy).reserved
