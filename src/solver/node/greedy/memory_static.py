"""The memory manager's Static policy (memorymanager/policy_static.go): per-NUMA accounting of
regular memory and huge pages, NUMA groups, hints, and the blocks each container gets.

Errors here are untyped in the kubelet, so they surface as UnexpectedAdmissionError.
"""

from __future__ import annotations

from ....model.errors import InputError
from ....model.node.problem import (
    APP,
    INIT,
    Block,
    ContainerFacts,
    KubeletPolicy,
    Machine,
    MemoryState,
    PodFacts,
)
from .. import bitmask
from ..admission import UnexpectedAdmissionError
from ..bitmask import Hint
from .state import MemoryAssignments, NUMAState, Table

Hints = dict[str, list[Hint]]
MEMORY = "memory"


def _fail(text: str) -> UnexpectedAdmissionError:
    return UnexpectedAdmissionError(f"[memorymanager] {text}")


class StaticMemoryPolicy:
    name = "Static"

    def __init__(self, machine: Machine, policy: KubeletPolicy) -> None:
        self.machine = machine
        self.policy = policy
        self.reserved: dict[int, dict[str, int]] = {}
        for numa, resource, size in policy.reserved_memory:
            self.reserved.setdefault(numa, {})[resource] = size
        if sum(r.get(MEMORY, 0) for r in self.reserved.values()) <= 0:
            raise InputError(
                "KubeletConfiguration: reservedMemory: the Static memory manager policy needs "
                "system reserved memory"
            )
        # Memory of completed init containers that later containers of the same pod may reuse:
        # pod uid -> NUMA mask -> resource -> bytes.
        self.reusable: dict[str, dict[int, dict[str, int]]] = {}

    # --- state -----------------------------------------------------------------------------------

    def default_machine(self) -> dict[int, NUMAState]:
        by_numa = {m.numa: m for m in self.machine.memory}
        sizes = sorted({r for m in self.machine.memory for r, _ in m.hugepages})
        out: dict[int, NUMAState] = {}
        for numa in self.machine.numa_nodes:
            mem = by_numa.get(numa)
            pages = dict(mem.hugepages) if mem is not None else {}
            reserved = self.reserved.get(numa, {})
            tables: dict[str, Table] = {}
            for resource in sizes:
                total = pages.get(resource, 0)
                allocatable = total - reserved.get(resource, 0)
                tables[resource] = Table(total, reserved.get(resource, 0), allocatable, 0, allocatable)
            capacity = mem.capacity if mem is not None else 0
            # Huge pages are carved out of the node's memory: regular memory loses them.
            allocatable = capacity - reserved.get(MEMORY, 0) - sum(pages.get(r, 0) for r in sizes)
            tables[MEMORY] = Table(capacity, reserved.get(MEMORY, 0), allocatable, 0, allocatable)
            out[numa] = NUMAState(0, tables, [numa])
        return out

    def start(self, given: MemoryState | None) -> MemoryAssignments:
        state = MemoryAssignments.of(given) if given is not None else MemoryAssignments("Static")
        if given is not None and given.policy != "Static":
            raise InputError(
                f'memory_manager_state: configured policy "Static" differs from state checkpoint policy '
                f'"{given.policy}"'
            )
        expected = self.default_machine()
        for uid, containers in state.entries.items():
            for name, blocks in containers.items():
                for block in blocks:
                    self._replay(expected, uid, name, block)
        if not state.machine:
            state.machine = expected
        elif state.machine != expected:
            raise InputError(
                "memory_manager_state: the expected machine state is different from the real one "
                "(machineState does not match the NodeTopology, reservedMemory and entries)"
            )
        return state

    @staticmethod
    def _replay(machine: dict[int, NUMAState], uid: str, name: str, block: Block) -> None:
        remaining = block.size
        for numa in block.numa:
            node = machine.get(numa)
            if node is None:
                raise InputError(
                    f"memory_manager_state: (pod: {uid}, container: {name}) the memory assignment uses the "
                    "NUMA that does not exist"
                )
            node.assignments += 1
            node.cells = list(block.numa)
            table = node.memory.get(block.resource)
            if table is None:
                raise InputError(
                    f"memory_manager_state: (pod: {uid}, container: {name}) the memory assignment uses "
                    "memory resource that does not exist"
                )
            remaining = _consume(table, remaining)

    # --- requests --------------------------------------------------------------------------------

    @staticmethod
    def requested(container: ContainerFacts) -> dict[str, int]:
        return dict(container.memory)

    @staticmethod
    def pod_requested(pod: PodFacts) -> dict[str, int]:
        init_peak: dict[str, int] = {}
        sidecars: dict[str, int] = {}
        apps: dict[str, int] = {}
        for c in pod.containers:
            for resource, size in c.memory:
                if c.kind == INIT:
                    init_peak[resource] = max(init_peak.get(resource, 0), sidecars.get(resource, 0) + size)
                elif c.kind == APP:
                    apps[resource] = apps.get(resource, 0) + size
                else:
                    sidecars[resource] = sidecars.get(resource, 0) + size
        # Only what the app containers request counts, as upstream.
        return {r: max(apps[r] + sidecars.get(r, 0), init_peak.get(r, 0)) for r in apps}

    # --- hints -----------------------------------------------------------------------------------

    def handles(self, pod: PodFacts, container: ContainerFacts | None = None) -> bool:
        """Only Guaranteed pods; a pod with pod-level resources only with the pod-level managers on
        (and then, per container, only containers that are Guaranteed on their own)."""
        if pod.qos != "Guaranteed":
            return False
        if not pod.pod_level:
            return True
        return self.policy.pod_level_managers and (container is None or container.own_guaranteed)

    def hints(self, state: MemoryAssignments, pod: PodFacts, container: ContainerFacts) -> Hints | None:
        if not self.handles(pod, container):
            return None
        requested = self.requested(container)
        blocks = state.blocks(pod.uid, container.name)
        if blocks is not None:
            return _regenerate(blocks, requested)
        return self.calculate(state, pod, requested)

    def pod_hints(self, state: MemoryAssignments, pod: PodFacts) -> Hints | None:
        if not self.handles(pod):
            return None
        requested = self.pod_requested(pod)
        for c in pod.containers:
            blocks = state.blocks(pod.uid, c.name)
            if blocks is not None:
                return _regenerate(blocks, requested)
        return self.calculate(state, pod, requested)

    def calculate(self, state: MemoryAssignments, pod: PodFacts, requested: dict[str, int]) -> Hints:
        machine = state.machine
        numas = sorted(machine)
        min_size = len(numas)
        found: list[int] = []

        def visit(mask: int) -> None:
            nonlocal min_size
            nodes = bitmask.bits(mask)
            single = len(nodes) == 1
            for resource, size in requested.items():
                if sum(_table(machine, n, resource).allocatable for n in nodes) < size:
                    return
            min_size = min(min_size, len(nodes))
            if single and len(machine[nodes[0]].cells) > 1:
                return  # grouped with other nodes: cannot serve a single-NUMA allocation
            for n in nodes:
                # A node already used alone, or in another group, cannot join this group.
                used = not single and machine[n].assignments > 0
                if used and (len(machine[n].cells) == 1 or sorted(machine[n].cells) != nodes):
                    return
            for resource, size in requested.items():
                free = sum(_table(machine, n, resource).free for n in nodes)
                if free + self._reusable(pod.uid, mask, resource) < size:
                    return
            found.append(mask)

        bitmask.iterate(numas, visit)
        if not found:
            return {}
        return {r: [Hint(m, bitmask.count(m) == min_size) for m in found] for r in requested}

    # --- allocation ------------------------------------------------------------------------------

    def allocate(
        self, state: MemoryAssignments, pod: PodFacts, container: ContainerFacts, hint: Hint
    ) -> None:
        if not self.handles(pod, container) or not container.memory:
            return
        existing = state.blocks(pod.uid, container.name)
        if existing is not None:
            self.update_reusable(pod, container, existing)
            return
        mask = self.choose_mask(state, pod, self.requested(container), hint)
        self.assign(state, pod, container, mask)

    def choose_mask(
        self, state: MemoryAssignments, pod: PodFacts, requested: dict[str, int], hint: Hint
    ) -> int:
        """The NUMA mask the blocks go on: the topology manager's hint, or the default hint when it has
        none, extended to a mask that holds the request (the kubelet refuses when none does)."""
        best = hint
        if hint.mask is None:
            default = self._best(
                self.calculate(state, pod, requested),
                "failed to get the default NUMA affinity, no NUMA nodes with enough memory is available",
            )
            if not default.preferred and best.preferred:
                raise _fail("failed to find the default preferred hint")
            best = default
        assert best.mask is not None or not requested
        mask = best.mask or 0
        if not self._satisfies(state, mask, requested):
            extended = self._extend(state, pod, requested, mask)
            if not extended.preferred and best.preferred:
                raise _fail("failed to find the extended preferred hint")
            best = extended
            mask = best.mask or 0
        if self._violates_groups(state, mask):
            raise _fail("preferred hint violates NUMA node allocation")
        return mask

    def assign(self, state: MemoryAssignments, pod: PodFacts, container: ContainerFacts, mask: int) -> None:
        """Record the container's blocks on `mask` and consume them node by node (first node first),
        reusing what earlier init containers of the pod left on the same mask."""
        requested = self.requested(container)
        nodes = bitmask.bits(mask)
        blocks: list[Block] = []
        for resource, size in sorted(requested.items()):
            blocks.append(Block(resource, size, tuple(nodes)))
            reuse = self._reusable(pod.uid, mask, resource)
            remaining = 0 if reuse >= size else size - reuse
            self._consume_nodes(state, nodes, resource, remaining)
        self.update_reusable(pod, container, blocks)
        state.entries.setdefault(pod.uid, {})[container.name] = blocks
        self._shrink_init_blocks(state, pod, container, blocks)

    def _best(self, hints: Hints, error: str) -> Hint:
        if not hints:
            raise _fail(error)
        return find_best(hints.get(MEMORY, []))

    @staticmethod
    def _satisfies(state: MemoryAssignments, mask: int, requested: dict[str, int]) -> bool:
        nodes = bitmask.bits(mask)
        return all(sum(_table(state.machine, n, r).free for n in nodes) >= s for r, s in requested.items())

    def _extend(self, state: MemoryAssignments, pod: PodFacts, requested: dict[str, int], mask: int) -> Hint:
        hints = self.calculate(state, pod, requested).get(MEMORY, [])
        around = [h for h in hints if h.mask is not None and bitmask.is_subset(mask, h.mask)]
        if not around:
            raise _fail("failed to find NUMA nodes to extend the current topology hint")
        return find_best(around)

    @staticmethod
    def _violates_groups(state: MemoryAssignments, mask: int) -> bool:
        nodes = bitmask.bits(mask)
        if len(nodes) == 1:
            return False
        for n in nodes:
            node = state.machine[n]
            if node.assignments == 0:
                continue
            if len(node.cells) == 1 or sorted(node.cells) != nodes:
                return True
        return False

    @staticmethod
    def _consume_nodes(state: MemoryAssignments, nodes: list[int], resource: str, size: int) -> None:
        for n in nodes:
            node = state.machine[n]
            node.assignments += 1
            node.cells = list(nodes)
            if size == 0:
                continue
            table = node.memory.get(resource)
            if table is not None:
                size = _consume(table, size)

    # --- init-container reuse --------------------------------------------------------------------

    def _reusable(self, uid: str, mask: int, resource: str) -> int:
        return self.reusable.get(uid, {}).get(mask, {}).get(resource, 0)

    def update_reusable(self, pod: PodFacts, container: ContainerFacts, blocks: list[Block]) -> None:
        for uid in [u for u in self.reusable if u != pod.uid]:
            del self.reusable[uid]
        if container.kind == INIT:
            per_mask = self.reusable.setdefault(pod.uid, {})
            for b in blocks:
                table = per_mask.setdefault(bitmask.mask_of(b.numa), {})
                table[b.resource] = max(table.get(b.resource, 0), b.size)
            return
        for b in blocks:
            mask = bitmask.mask_of(b.numa)
            reuse = self._reusable(pod.uid, mask, b.resource)
            if reuse:
                self.reusable[pod.uid][mask][b.resource] = 0 if b.size >= reuse else reuse - b.size

    @staticmethod
    def _shrink_init_blocks(
        state: MemoryAssignments, pod: PodFacts, container: ContainerFacts, blocks: list[Block]
    ) -> None:
        """Init containers' blocks lose what a later container reused, so that the blocks of a pod
        add up to what it holds."""
        for block in blocks:
            size = block.size
            for init in pod.containers:
                if init.name == container.name or init.kind == APP or size == 0:
                    break
                if init.kind != INIT:
                    continue
                current = state.blocks(pod.uid, init.name)
                if not current:
                    continue
                updated = []
                for b in current:
                    if b.size and b.resource == block.resource and sorted(b.numa) == sorted(block.numa):
                        taken = min(b.size, size)
                        size -= taken
                        b = Block(b.resource, b.size - taken, b.numa)
                    updated.append(b)
                state.entries[pod.uid][init.name] = updated


def _table(machine: dict[int, NUMAState], numa: int, resource: str) -> Table:
    return machine[numa].memory.get(resource) or Table(0, 0, 0, 0, 0)


def _consume(table: Table, size: int) -> int:
    """Take up to `size` from one node's table; what is left for the next node."""
    if size == 0 or table.free <= 0:
        return size
    taken = min(table.free, size)
    table.reserved += taken
    table.free -= taken
    return size - taken


def _regenerate(blocks: list[Block], requested: dict[str, int]) -> Hints | None:
    if len(blocks) != len(requested):
        return None
    hints: Hints = {r: [] for r in requested}
    for b in blocks:
        if requested.get(b.resource) != b.size:
            return None
        hints[b.resource].append(Hint(bitmask.mask_of(b.numa), True))
    return hints


def find_best(hints: list[Hint]) -> Hint:
    """The memory manager's own pick: preferred first, then the narrowest mask."""
    best: Hint | None = None
    for h in hints:
        if best is None or best.mask is None:
            best = h
            continue
        more_preferred = h.preferred and not best.preferred
        same = h.preferred == best.preferred
        if more_preferred or (same and h.mask is not None and bitmask.narrower(h.mask, best.mask)):
            best = h
    return best or Hint(None, False)
