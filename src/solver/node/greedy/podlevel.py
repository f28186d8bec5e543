"""Pod-level resource managers at pod scope (KEP-5526): the pod's `.spec.resources` buys one
NUMA-aligned bubble of CPUs (and memory); containers that are Guaranteed on their own get exclusive
slices of it, every other container shares what is left (the pod shared pool).

A pod whose shared pool would be empty is refused with EmptyPodSharedPoolError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..admission import EmptyPodSharedPoolError
from ..bitmask import Hint
from ..problem import APP, INIT, SIDECAR, Block, PodFacts

if TYPE_CHECKING:
    from .admit import Admitter


def applies(admitter: Admitter, pod: PodFacts) -> bool:
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


def shared_pool_problem(admitter: Admitter, pod: PodFacts) -> str | None:
    """Why the pod shared pool would be empty, or None."""
    assert admitter.cpu is not None
    total = budget(pod)
    sidecars = 0
    exclusive_long = 0
    shared_long: list[str] = []
    for c in pod.containers:
        n = admitter.cpu.guaranteed_cpus(pod, c)
        if c.kind == INIT:
            left = total - sidecars
            if n > left:
                return (
                    f"init container {c.name} needs {n} exclusive CPUs but only {left} of the pod's {total} "
                    "are left beside its sidecars"
                )
            if n == 0 and left <= 0:
                return (
                    f"init container {c.name} would run on no CPU: the sidecars use all {total} of the "
                    "pod's CPUs"
                )
        elif c.kind == SIDECAR:
            sidecars += n
            exclusive_long += n
        else:
            exclusive_long += n
        if c.kind != INIT and n == 0:
            shared_long.append(c.name)
    if exclusive_long > total:
        return f"containers need {exclusive_long} exclusive CPUs but the pod has {total}"
    if shared_long and exclusive_long >= total:
        return (
            f"containers {', '.join(shared_long)} would share no CPU: exclusive containers take all {total} "
            "of the pod's CPUs"
        )
    return None


def cpu_hints(admitter: Admitter, pod: PodFacts) -> dict[str, list[Hint] | None]:
    assert admitter.cpu is not None
    if shared_pool_problem(admitter, pod) is not None:
        return {"cpu": []}
    existing = admitter.cpus.pod_entries.get(pod.uid)
    count = budget(pod)
    if existing is not None:
        if len(existing) != count:
            return {"cpu": []}
        return {"cpu": admitter.cpu.generate_hints(existing, frozenset(), count)}
    return {"cpu": admitter.cpu.generate_hints(admitter.cpu.available(admitter.cpus), frozenset(), count)}


def memory_hints(admitter: Admitter, pod: PodFacts) -> dict[str, list[Hint] | None] | None:
    if admitter.memory is None or not pod.pod_memory:
        return None
    existing = admitter.mem.pod_entries.get(pod.uid)
    if existing is not None:
        return {b.resource: [Hint(_mask(b.numa), True)] for b in existing}
    return dict(admitter.memory.calculate(admitter.mem, pod, dict(pod.pod_memory)))


def _mask(nodes: tuple[int, ...]) -> int:
    out = 0
    for n in nodes:
        out |= 1 << n
    return out


def allocate(admitter: Admitter, pod: PodFacts, hint: Hint) -> None:
    cpu = admitter.cpu
    assert cpu is not None
    problem = shared_pool_problem(admitter, pod)
    if problem is not None:
        raise EmptyPodSharedPoolError(f"pod {pod.ref}: empty pod shared pool: {problem}")
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
        state.set(pod.uid, c.name, cpus)
    pool = frozenset(set(bubble) - sidecars - apps)
    for c in shared_users:
        state.set(pod.uid, c.name, pool)
    _allocate_memory(admitter, pod, hint)


def _allocate_memory(admitter: Admitter, pod: PodFacts, hint: Hint) -> None:
    memory = admitter.memory
    if memory is None or not pod.pod_memory:
        return
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
