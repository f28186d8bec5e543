"""The CPU manager's static policy (cpumanager/policy_static.go): reserved CPUs, which containers
get exclusive CPUs, their topology hints, and the allocation itself."""

from __future__ import annotations

from ....model.cpuset import format_cpuset
from ....model.errors import InputError
from ....model.node.problem import APP, INIT, ContainerFacts, CPUSet, CPUState, KubeletPolicy, PodFacts
from .. import bitmask
from ..admission import SMTAlignmentError, UnexpectedAdmissionError
from ..bitmask import Hint
from ..topology import CPUTopology
from .accumulator import NotEnoughCPUs
from .cpu_distributed import take_distributed
from .cpu_packed import take_packed
from .state import CPUAssignments

Hints = dict[str, list[Hint]]


class StaticCPUPolicy:
    name = "static"

    def __init__(self, topo: CPUTopology, policy: KubeletPolicy) -> None:
        self.topo = topo
        self.policy = policy
        self.full_pcpus = policy.option("full-pcpus-only")
        self.group = topo.cpus_per_core
        self.reserved = self._reserved()
        # Siblings of reserved CPUs: full-pcpus-only must not hand out a core split by a reservation.
        self.reserved_physical = topo.siblings(self.reserved)
        self.reusable: dict[str, set[int]] = {}

    # --- CPU selection ---------------------------------------------------------------------------

    def take(self, available: frozenset[int] | set[int], count: int) -> CPUSet:
        spread = self.policy.option("distribute-cpus-across-cores")
        if self.policy.option("distribute-cpus-across-numa"):
            group = self.group if self.full_pcpus else 1
            return take_distributed(self.topo, available, count, group, spread)
        uncore = self.policy.option("prefer-align-cpus-by-uncorecache")
        return take_packed(self.topo, available, count, spread, uncore)

    def _reserved(self) -> CPUSet:
        if self.policy.reserved_cpus is not None:
            return self.policy.reserved_cpus & self.topo.all
        if self.policy.reserved_cpu_count == 0:
            return frozenset()
        try:
            return self.take(self.topo.all, self.policy.reserved_cpu_count)
        except NotEnoughCPUs as e:
            raise InputError(
                f"KubeletConfiguration: unable to reserve the required amount of CPUs: {e}"
            ) from e

    # --- state -----------------------------------------------------------------------------------

    def start(self, given: CPUState | None) -> CPUAssignments:
        """The state the policy starts from, validated as the kubelet does before it runs."""
        strict = self.policy.option("strict-cpu-reservation")
        if given is None or (not given.default and not given.entries and not given.pod_entries):
            initial = self.topo.all - self.reserved if strict else self.topo.all
            return CPUAssignments("static", set(initial))
        state = CPUAssignments.of(given)
        problems = []
        if given.policy != "static":
            problems.append(
                f'configured policy "static" differs from state checkpoint policy "{given.policy}"'
            )
        default = frozenset(state.default)
        if not default:
            problems.append("default cpuset cannot be empty")
        if strict and self.reserved & default:
            problems.append(
                f'some of strictly reserved cpus: "{format_cpuset(self.reserved & default)}" are present in '
                f'defaultCpuSet: "{format_cpuset(default)}"'
            )
        if not strict and not self.reserved <= default:
            problems.append(
                f'not all reserved cpus: "{format_cpuset(self.reserved)}" are present in defaultCpuSet: '
                f'"{format_cpuset(default)}"'
            )
        total: set[int] = set(default)
        for uid, containers in state.entries.items():
            for name, cpus in containers.items():
                if cpus & default:
                    problems.append(
                        f'container id: {uid}/{name} cpuset: "{format_cpuset(cpus)}" overlaps with default '
                        f'cpuset "{format_cpuset(default)}"'
                    )
                total |= cpus
        for cpus in state.pod_entries.values():
            total |= cpus
        if strict:
            total |= self.reserved
        if total != set(self.topo.all):
            problems.append(
                f'current set of available CPUs "{format_cpuset(self.topo.all)}" doesn\'t match with CPUs in '
                f'state "{format_cpuset(total)}"'
            )
        if problems:
            raise InputError("cpu_manager_state: " + "; ".join(problems))
        return state

    def available(self, state: CPUAssignments) -> set[int]:
        return state.default - self.reserved

    # --- which containers are exclusive ------------------------------------------------------------

    def guaranteed_cpus(self, pod: PodFacts, container: ContainerFacts) -> int:
        if pod.qos != "Guaranteed":
            return 0
        if pod.pod_level and not (self.policy.pod_level_managers and container.own_guaranteed):
            return 0
        milli = container.cpu_request
        if milli is None or milli % 1000 != 0:
            return 0
        return milli // 1000

    def pod_guaranteed_cpus(self, pod: PodFacts) -> int:
        init_peak = sidecars = apps = 0
        for c in pod.containers:
            if c.cpu_request is None:
                continue
            n = self.guaranteed_cpus(pod, c)
            if c.kind == APP:
                apps += n
            elif c.kind == INIT:
                init_peak = max(init_peak, sidecars + n)
            else:
                sidecars += n
        return max(init_peak, apps + sidecars)

    # --- hints -----------------------------------------------------------------------------------

    def generate_hints(
        self, available: set[int] | CPUSet, reusable: set[int] | CPUSet, request: int
    ) -> list[Hint]:
        numas = self.topo.ids("numa")
        min_size = len(numas)
        found: list[int] = []

        def visit(mask: int) -> None:
            nonlocal min_size
            nodes = bitmask.bits(mask)
            if len(self.topo.cpus_in("numa", nodes)) >= request and len(nodes) < min_size:
                min_size = len(nodes)
            if any(not mask >> self.topo.of(c, "numa") & 1 for c in reusable):
                return
            matching = len(reusable) + sum(1 for c in available if mask >> self.topo.of(c, "numa") & 1)
            if matching >= request:
                found.append(mask)

        bitmask.iterate(numas, visit)
        return [Hint(m, bitmask.count(m) == min_size or self._socket_aligned(m, min_size)) for m in found]

    def _socket_aligned(self, mask: int, min_size: int) -> bool:
        if not self.policy.option("align-by-socket"):
            return False
        per_socket = self.topo.num_numa // self.topo.num_sockets if self.topo.num_sockets else 0
        if per_socket == 0:
            return False
        min_sockets = (min_size + per_socket - 1) // per_socket
        return len(self.topo.sockets_of_numa(bitmask.bits(mask))) == min_sockets

    def hints(self, state: CPUAssignments, pod: PodFacts, container: ContainerFacts) -> Hints | None:
        requested = self.guaranteed_cpus(pod, container)
        if requested == 0:
            return None
        allocated = state.get(pod.uid, container.name)
        if allocated is not None:
            if len(allocated) != requested:
                return {"cpu": []}
            return {"cpu": self.generate_hints(allocated, frozenset(), requested)}
        reusable = self.reusable.get(pod.uid, set())
        return {"cpu": self.generate_hints(self.available(state), reusable, requested)}

    def pod_hints(self, state: CPUAssignments, pod: PodFacts) -> Hints | None:
        requested = self.pod_guaranteed_cpus(pod)
        if requested == 0:
            return None
        assigned: set[int] = set()
        for c in pod.containers:
            allocated = state.get(pod.uid, c.name)
            if allocated is None:
                continue
            if len(allocated) != self.guaranteed_cpus(pod, c):
                return {"cpu": []}
            assigned |= allocated
        if len(assigned) == requested:
            return {"cpu": self.generate_hints(assigned, frozenset(), requested)}
        reusable = self.reusable.get(pod.uid, set()) | assigned
        return {"cpu": self.generate_hints(self.available(state), reusable, requested)}

    # --- allocation ------------------------------------------------------------------------------

    def check_smt(self, state: CPUAssignments, count: int) -> None:
        if not self.full_pcpus:
            return
        if count % self.group != 0:
            raise SMTAlignmentError(count, self.group)
        physical = len(state.default - self.reserved_physical)
        if count > physical:
            raise SMTAlignmentError(count, self.group, physical)

    def allocate(self, state: CPUAssignments, pod: PodFacts, container: ContainerFacts, hint: Hint) -> None:
        count = self.guaranteed_cpus(pod, container)
        if count == 0:
            return
        self.check_smt(state, count)
        existing = state.get(pod.uid, container.name)
        if existing is not None:
            self.update_reusable(pod, container, existing)
            return
        cpus = self.allocate_cpus(state, count, hint.mask, self.reusable.get(pod.uid, set()))
        state.set(pod.uid, container.name, cpus)
        self.update_reusable(pod, container, cpus)

    def allocate_cpus(
        self, state: CPUAssignments, count: int, mask: int | None, reusable: set[int]
    ) -> CPUSet:
        allocatable = self.available(state) | reusable
        result: set[int] = set()
        try:
            if mask is not None:
                aligned = self._aligned(mask, allocatable)
                result |= self.take(aligned, min(count, len(aligned)))
            result |= self.take(allocatable - result, count - len(result))
        except NotEnoughCPUs as e:
            raise UnexpectedAdmissionError(str(e)) from e
        state.default -= result
        return frozenset(result)

    def _aligned(self, mask: int, allocatable: set[int]) -> set[int]:
        nodes = bitmask.bits(mask)
        if self.policy.option("align-by-socket"):
            return allocatable & self.topo.cpus_in("socket", self.topo.sockets_of_numa(nodes))
        return allocatable & self.topo.cpus_in("numa", nodes)

    def update_reusable(self, pod: PodFacts, container: ContainerFacts, cpus: CPUSet) -> None:
        # Only the pod being admitted keeps reusable CPUs.
        for uid in [u for u in self.reusable if u != pod.uid]:
            del self.reusable[uid]
        reusable = self.reusable.setdefault(pod.uid, set())
        if container.kind == INIT:
            reusable |= cpus
        else:  # app containers and sidecars keep their CPUs for the pod's lifetime
            reusable -= cpus
