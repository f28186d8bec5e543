"""What the model of one pod admission is built from: the derived views computed before solving.

A *slot* is one container as the managers see it (how many exclusive CPUs, which memory the memory
manager places, what the state already holds for it). A *unit* is what the topology manager merges
one hint for: a container in container scope, the whole pod in pod scope. A *memory group* is a set of
slots whose memory blocks share one NUMA mask (one container, or the whole pod in pod scope).

Hints that no choice inside the pod can change (pod scope, pod-level bubbles, devices, allocations
already in the state) are taken from the kubelet's own hint providers; the hints of containers
admitted one after another (container scope) depend on what earlier containers took, so the model
states them as constraints.

Pod-level resource managers turn the pod into one slot, the bubble, whose CPUs the pod's containers
then share out (`podlevel.allocate`), and whose memory is the pod's `.spec.resources`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...model.node.problem import APP, INIT, SIDECAR, ContainerFacts, CPUSet, PodFacts
from . import bitmask
from .bitmask import Hint

if TYPE_CHECKING:
    from .greedy.admit import Admitter

BUBBLE = "(pod)"
CPU, MEMORY = "cpu", "memory"


@dataclass(frozen=True)
class Slot:
    index: int
    name: str
    kind: str  # INIT | SIDECAR | APP
    cpus: int  # exclusive CPUs (0: the shared pool)
    fixed_cpus: CPUSet | None  # already in cpu_manager_state (kept, as the kubelet keeps it)
    candidates: CPUSet  # CPUs it may get: the free pool, plus what earlier init containers held
    memory_group: int | None
    container: ContainerFacts | None  # None for the pod-level bubble


@dataclass(frozen=True)
class MemoryGroup:
    index: int
    slots: tuple[int, ...]
    request: tuple[tuple[str, int], ...]  # what its hint is computed for (bytes per resource)
    fixed_mask: int | None  # blocks already in memory_manager_state
    static: tuple[Hint, ...] | None  # the memory manager's hints when no choice in the pod changes them


@dataclass(frozen=True)
class Unit:
    index: int
    name: str
    slots: tuple[int, ...]
    # Hint lists that do not depend on choices inside the pod, by resource; () = cannot be satisfied.
    static: Mapping[str, tuple[Hint, ...]]
    cpu_slot: int | None  # container scope: the slot whose CPU hint the model states
    memory_group: int | None  # the memory group whose mask is this unit's memory hint


@dataclass
class PodView:
    pod: PodFacts
    pod_level: bool
    available: CPUSet  # the free pool minus reserved CPUs, as the kubelet counts it
    slots: list[Slot] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    groups: list[MemoryGroup] = field(default_factory=list)

    def conflicts(self, earlier: int, later: int) -> bool:
        """Whether two slots run at the same time and so may not share CPUs or memory: sidecars run
        for the pod's lifetime, app containers together; a completed init container's are reusable."""
        a, b = self.slots[earlier].kind, self.slots[later].kind
        return a == SIDECAR or (a == APP and b == APP)

    def phases(self) -> list[list[int]]:
        """The sets of slots alive together: each init container beside the sidecars started before
        it, then every sidecar with every app container."""
        out: list[list[int]] = []
        sidecars: list[int] = []
        apps: list[int] = []
        for s in self.slots:
            if s.kind == INIT:
                out.append([*sidecars, s.index])
            elif s.kind == SIDECAR:
                sidecars.append(s.index)
            else:
                apps.append(s.index)
        out.append(sidecars + apps)
        return [p for p in out if p]

    @property
    def exclusive(self) -> list[Slot]:
        return [s for s in self.slots if s.cpus > 0]


def _lists(hints: Mapping[str, Sequence[Hint] | None] | None) -> dict[str, tuple[Hint, ...]]:
    """A provider's answer as resource -> hint list, dropping "no preference" entries."""
    if not hints:
        return {}
    return {r: tuple(h) for r, h in hints.items() if h is not None}


def view(admitter: Admitter, pod: PodFacts) -> PodView:
    """The slots, units and memory groups of `pod` on the admitter's current state."""
    from .greedy import devices, podlevel

    policy = admitter.policy
    cpu = admitter.cpu
    available = frozenset(cpu.available(admitter.cpus)) if cpu is not None else frozenset()
    aligned = policy.topology_policy != "none"
    pv = PodView(
        pod, aligned and policy.topology_scope == "pod" and podlevel.applies(admitter, pod), available
    )
    nodes = admitter.numa.nodes
    if pv.pod_level:
        assert cpu is not None
        bubble = admitter.cpus.pod_entries.get(pod.uid)
        group = None
        memory_hints = podlevel.memory_hints(admitter, pod)
        if memory_hints is not None:
            existing = admitter.mem.pod_entries.get(pod.uid)
            fixed = bitmask.mask_of(existing[0].numa) if existing else None
            request = tuple(sorted(pod.pod_memory))
            pv.groups.append(MemoryGroup(0, (0,), request, fixed, _memory_list(memory_hints)))
            group = 0
        pv.slots.append(Slot(0, BUBBLE, APP, podlevel.budget(pod), bubble, bubble or available, group, None))
        static = _lists(podlevel.cpu_hints(admitter, pod)) | _lists(devices.pod_hints(pod, nodes))
        pv.units.append(Unit(0, "pod", (0,), static, None, group))
        return pv
    held_by_inits: set[int] = set()
    for i, c in enumerate(pod.containers):
        n = cpu.guaranteed_cpus(pod, c) if cpu is not None else 0
        held = admitter.cpus.get(pod.uid, c.name) if n else None
        candidates = held if held is not None else available | held_by_inits
        pv.slots.append(Slot(i, c.name, c.kind, n, held, frozenset(candidates), None, c))
        if held is not None and c.kind == INIT:
            held_by_inits |= held
    if aligned and policy.topology_scope == "pod":
        _pod_unit(admitter, pv)
        return pv
    for s in list(pv.slots):
        container = s.container
        assert container is not None
        group = _container_group(admitter, pv, s)
        static = _lists(devices.container_hints(container, nodes))
        cpu_slot: int | None = s.index if s.cpus else None
        if s.fixed_cpus is not None and cpu is not None:
            static |= _lists(cpu.hints(admitter.cpus, pod, container))
            cpu_slot = None
        pv.units.append(Unit(s.index, s.name, (s.index,), static, cpu_slot, group))
    return pv


def _memory_list(hints: Mapping[str, Sequence[Hint] | None]) -> tuple[Hint, ...]:
    """Every memory resource gets the same hint list from the memory manager; keep one."""
    lists = [tuple(h) for h in hints.values() if h is not None]
    return lists[0] if lists else ()


def _container_group(admitter: Admitter, pv: PodView, s: Slot) -> int | None:
    memory = admitter.memory
    container = s.container
    if memory is None or container is None or not memory.handles(pv.pod, container) or not container.memory:
        return None
    blocks = admitter.mem.blocks(pv.pod.uid, s.name)
    static = None
    fixed = None
    if blocks is not None:
        fixed = bitmask.mask_of(blocks[0].numa) if blocks else None
        regenerated = memory.hints(admitter.mem, pv.pod, container)
        static = _memory_list(regenerated) if regenerated is not None else None
    request = tuple(sorted(memory.requested(container).items()))
    pv.groups.append(MemoryGroup(len(pv.groups), (s.index,), request, fixed, static))
    pv.slots[s.index] = _with_group(s, len(pv.groups) - 1)
    return len(pv.groups) - 1


def _with_group(s: Slot, group: int) -> Slot:
    return Slot(s.index, s.name, s.kind, s.cpus, s.fixed_cpus, s.candidates, group, s.container)


def _pod_unit(admitter: Admitter, pv: PodView) -> None:
    from .greedy import devices

    pod = pv.pod
    static: dict[str, tuple[Hint, ...]] = {}
    if admitter.cpu is not None:
        static |= _lists(admitter.cpu.pod_hints(admitter.cpus, pod))
    group: int | None = None
    memory = admitter.memory
    if memory is not None:
        hints = memory.pod_hints(admitter.mem, pod)
        members = tuple(
            s.index
            for s in pv.slots
            if s.container is not None and memory.handles(pod, s.container) and s.container.memory
        )
        if hints is not None and members:
            blocks = next((b for s in pv.slots if (b := admitter.mem.blocks(pod.uid, s.name))), None)
            fixed = bitmask.mask_of(blocks[0].numa) if blocks else None
            request = tuple(sorted(memory.pod_requested(pod).items()))
            pv.groups.append(MemoryGroup(0, members, request, fixed, _memory_list(hints)))
            group = 0
            for i in members:
                pv.slots[i] = _with_group(pv.slots[i], 0)
    static |= _lists(devices.pod_hints(pod, admitter.numa.nodes))
    pv.units.append(Unit(0, "pod", tuple(s.index for s in pv.slots), static, None, group))
