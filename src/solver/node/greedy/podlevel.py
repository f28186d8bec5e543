"""Pod-level resource managers at pod scope (KEP-5526): the pod's `.spec.resources` buys one
NUMA-aligned bubble of CPUs (and memory); containers that are Guaranteed on their own get exclusive
slices of it, every other container shares what is left (the pod shared pool).

A pod whose shared pool would be empty is refused with EmptyPodSharedPoolError, in the CPU
manager's words, then the memory manager's.
"""

from __future__ import annotations

from typing import Protocol

from ....model.node.problem import APP, INIT, SIDECAR, Block, KubeletPolicy, PodFacts
from ..admission import EmptyPodSharedPoolError, UnexpectedAdmissionError
from ..bitmask import Hint
from .accumulator import NotEnoughCPUs
from .cpu_static import StaticCPUPolicy
from .memory_static import StaticMemoryPolicy
from .state import CPUAssignments, MemoryAssignments


class Managers(Protocol):
    """What the pod scope reads and changes of the kubelet's admission (`admit.Admitter`): the policy, the
    CPU and memory managers and their assignments."""

    @property
    def policy(self) -> KubeletPolicy: ...

    @property
    def cpu(self) -> StaticCPUPolicy | None: ...

    @property
    def cpus(self) -> CPUAssignments: ...

    @property
    def memory(self) -> StaticMemoryPolicy | None: ...

    @property
    def mem(self) -> MemoryAssignments: ...


def applies(admitter: Managers, pod: PodFacts) -> bool:
    policy = admitter.policy
    return (
        admitter.cpu is not None
        and policy.pod_level_managers
        and policy.topology_scope == "pod"
        and pod.qos == "Guaranteed"
        and budget(pod) > 0
    )


def budget(pod: PodFacts) -> int:
    milli = pod.pod_cpu_request
    if milli is None or milli % 1000:
        return 0
    return milli // 1000


def cpu_pool_problem(admitter: Managers, pod: PodFacts) -> EmptyPodSharedPoolError | None:
    """The CPU manager's validatePodScopeResources: an exclusive init container larger than what the
    sidecars leave, a shared init container with nothing left, or shared containers beside exclusive
    ones that take the whole budget."""
    assert admitter.cpu is not None
    total = budget(pod)
    exclusive = 0  # of the containers that run for the pod's lifetime (sidecars, then apps)
    shared: list[str] = []
    for c in pod.containers:
        n = admitter.cpu.guaranteed_cpus(pod, c)
        if c.kind == INIT:
            pool = total - exclusive
            if n > pool:
                return EmptyPodSharedPoolError(
                    f"pod rejected, largest exclusive init container requests {n} cpus, but only {pool} "
                    "available",
                    f"init container {c.name} needs {n} exclusive CPUs; the pod's sidecars leave {pool} of "
                    f"its {total}",
                )
            if n == 0 and exclusive >= total:
                return EmptyPodSharedPoolError(
                    "pod rejected, pod has shared init containers but no cpus available for them",
                    f"init container {c.name} would run on no CPU: the sidecars use all {total} of the pod's",
                )
        elif n == 0:
            shared.append(c.name)
        else:
            exclusive += n
    if shared and exclusive >= total:
        return EmptyPodSharedPoolError(
            "pod rejected, sum of exclusive container cpu requests equals pod budget, leaving no cpus for "
            "shared containers",
            f"{', '.join(shared)} would share no CPU: exclusive containers take all {total} of the pod's",
        )
    return None


# Go keeps these amounts in uint64, where a budget smaller than what sidecars take wraps around.
_UINT64 = 2**64


def memory_pool_problem(pod: PodFacts) -> EmptyPodSharedPoolError | None:
    """The memory manager's validatePodScopeResources, per memory resource (in name order, where Go's
    map order is random)."""
    totals = {r: size for r, size in sorted(pod.pod_memory) if size > 0}
    exclusive: dict[str, int] = {}
    shared: list[str] = []
    for c in pod.containers:
        # A container holds exclusive memory only when it is Guaranteed on its own.
        requests = dict(c.memory) if c.own_guaranteed else {}
        if c.kind == INIT:
            if requests:
                for r, size in totals.items():
                    pool = (size - exclusive.get(r, 0)) % _UINT64
                    wanted = requests.get(r, 0)
                    if wanted > pool:
                        return EmptyPodSharedPoolError(
                            f"pod rejected, largest exclusive init container requests {wanted} of {r}, but "
                            f"only {pool} available",
                            f"init container {c.name}",
                        )
            else:
                for r, size in totals.items():
                    if exclusive.get(r, 0) >= size:
                        return EmptyPodSharedPoolError(
                            f"pod rejected, pod has shared init containers but no {r} available for them",
                            f"init container {c.name}: the sidecars hold all {size} bytes of the pod's {r}",
                        )
        elif not requests:
            shared.append(c.name)
        else:
            for r, size in requests.items():
                exclusive[r] = exclusive.get(r, 0) + size
    for r, size in totals.items():
        if shared and exclusive.get(r, 0) >= size:
            return EmptyPodSharedPoolError(
                f"pod rejected, sum of exclusive container {r} requests equals pod budget, leaving no memory "
                "for shared containers",
                f"{', '.join(shared)} would share no {r}: exclusive containers hold all {size} bytes of the "
                "pod's",
            )
    return None


def cpu_hints(admitter: Managers, pod: PodFacts) -> dict[str, list[Hint] | None]:
    assert admitter.cpu is not None
    if cpu_pool_problem(admitter, pod) is not None:
        return {"cpu": []}
    existing = admitter.cpus.pod_entries.get(pod.uid)
    count = budget(pod)
    if existing is not None:
        if len(existing) != count:
            return {"cpu": []}
        return {"cpu": admitter.cpu.generate_hints(existing, frozenset(), count)}
    return {"cpu": admitter.cpu.generate_hints(admitter.cpu.available(admitter.cpus), frozenset(), count)}


def memory_hints(admitter: Managers, pod: PodFacts) -> dict[str, list[Hint] | None] | None:
    if admitter.memory is None or not pod.pod_memory:
        return None
    if memory_pool_problem(pod) is not None:
        return {r: [] for r, size in pod.pod_memory if size > 0}
    existing = admitter.mem.pod_entries.get(pod.uid)
    if existing is not None:
        return {b.resource: [Hint(_mask(b.numa), True)] for b in existing}
    return dict(admitter.memory.calculate(admitter.mem, pod, dict(pod.pod_memory)))


def _mask(nodes: tuple[int, ...]) -> int:
    out = 0
    for n in nodes:
        out |= 1 << n
    return out


def allocate(admitter: Managers, pod: PodFacts, hint: Hint) -> None:
    cpu = admitter.cpu
    assert cpu is not None
    problem = cpu_pool_problem(admitter, pod)
    if problem is not None:
        raise problem
    state = admitter.cpus
    count = budget(pod)
    cpu.check_smt(state, count)
    bubble = state.pod_entries.get(pod.uid)
    if bubble is None:
        bubble = cpu.allocate_cpus(state, count, hint.mask, set())
        state.pod_entries[pod.uid] = bubble
    sidecars: set[int] = set()
    apps: set[int] = set()
    shared_users = []
    for c in pod.containers:
        n = cpu.guaranteed_cpus(pod, c)
        existing = state.get(pod.uid, c.name)
        try:
            if c.kind == INIT:
                cpus = existing or (
                    cpu.take(set(bubble) - sidecars, n) if n else frozenset(set(bubble) - sidecars)
                )
            elif n:
                cpus = existing or cpu.take(set(bubble) - sidecars - apps, n)
                (sidecars if c.kind == SIDECAR else apps).update(cpus)
            else:
                shared_users.append(c)
                continue
        except NotEnoughCPUs as e:
            # Containers asking for more than the bubble holds (the API server refuses such a pod).
            raise UnexpectedAdmissionError(str(e)) from e
        state.set(pod.uid, c.name, cpus)
    pool = frozenset(set(bubble) - sidecars - apps)
    for c in shared_users:
        state.set(pod.uid, c.name, pool)
    _allocate_memory(admitter, pod, hint)


def _allocate_memory(admitter: Managers, pod: PodFacts, hint: Hint) -> None:
    memory = admitter.memory
    if memory is None or not pod.pod_memory:
        return
    problem = memory_pool_problem(pod)
    if problem is not None:
        raise problem
    state = admitter.mem
    if pod.uid not in state.pod_entries:
        requested = dict(pod.pod_memory)
        mask = memory.choose_mask(state, pod, requested, hint)
        nodes = [i for i in range(mask.bit_length()) if mask >> i & 1]
        blocks = []
        for resource, size in sorted(requested.items()):
            blocks.append(Block(resource, size, tuple(nodes)))
            memory._consume_nodes(state, nodes, resource, size)
        state.pod_entries[pod.uid] = blocks
    nodes_of_pod = state.pod_entries[pod.uid][0].numa if state.pod_entries[pod.uid] else ()
    for c in pod.containers:
        if (
            c.own_guaranteed
            and c.memory
            and state.blocks(pod.uid, c.name) is None
            and c.kind in (INIT, SIDECAR, APP)
        ):
            state.entries.setdefault(pod.uid, {})[c.name] = [
                Block(r, s, nodes_of_pod) for r, s in sorted(c.memory)
            ]
