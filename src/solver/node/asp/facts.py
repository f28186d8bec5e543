"""The facts of one pod's admission for the kubelet's rules (`rules/node/`), from the admitter's state.

Everything comes from what the kubelet's managers hold before the pod (the shared pool, reserved CPUs,
the memory manager's per-NUMA tables) and from the pod's view (view.py: its slots, units and memory
groups, with the hints no choice inside the pod changes). What depends on the pod's own choices — which
CPUs, which masks, which hints merge — is left to the rules.

Memory amounts are integers in a unit per resource: the greatest common divisor of the pod's requests
of it. Free and allocatable memory are summed per mask and rounded down to that unit (every sum of
requests is a multiple of it, so comparisons keep their meaning) and capped just above the pod's whole
request (no sum of its requests reaches beyond), so that they fit clingo's 32-bit integers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise

from clorm import Predicate

from ....model.node.problem import CPUSet
from .. import bitmask
from ..bitmask import Hint
from ..greedy.admit import Admitter
from ..greedy.state import Table
from ..solving import GreedyAnswer
from ..view import MEMORY, PodView
from . import schema as s

# Clingo's integers are 32-bit; masks are numbers whose bit N stands for NUMA node N.
MAX_INT = 2**31 - 1
MAX_NUMA_ID = 30

KINDS = {"init": "init", "sidecar": "sidecar", "app": "app"}
POLICIES = {"none": "none", "best-effort": "best_effort", "restricted": "restricted"}
POLICIES["single-numa-node"] = "single_numa_node"
# The CPU manager's options the rules read, by their KubeletConfiguration names.
OPTIONS = (
    "full-pcpus-only",
    "distribute-cpus-across-numa",
    "distribute-cpus-across-cores",
    "align-by-socket",
    "prefer-align-cpus-by-uncorecache",
    "strict-cpu-reservation",
)


class TooLarge(Exception):
    """Numbers the rules cannot hold in clingo's integers (NUMA ids beyond 30, huge memory amounts)."""


@dataclass
class Facts:
    facts: list[Predicate] = field(default_factory=list)

    def add(self, *facts: Predicate) -> None:
        self.facts.extend(facts)


def gather(
    admitter: Admitter,
    pv: PodView,
    kubelet: Mapping[str, tuple[CPUSet | None, int | None]] | None = None,
    placing: bool = False,
    start: GreedyAnswer | None = None,
) -> list[Predicate]:
    """The facts of `pv` on the admitter's state; with `kubelet`, what the kubelet gave the containers it
    allocated before refusing the pod (explanations); `placing`: what the optimization reads besides
    (the fewest domains each slot needs, the interchangeable CPUs, cores and caches), and with `start`
    the kubelet's own answer as the search's first guess."""
    nodes = admitter.numa.nodes
    if any(n > MAX_NUMA_ID or n < 0 for n in nodes):
        raise TooLarge(f"NUMA node ids beyond {MAX_NUMA_ID}")
    out = Facts()
    _machine(out, admitter)
    _pod(out, admitter, pv)
    if admitter.memory is not None and pv.groups:
        _memory(out, admitter, pv)
    _units(out, admitter, pv)
    if kubelet:
        _kubelet(out, pv, kubelet)
    if placing:
        _least_domains(out, admitter, pv)
        _symmetry(out, admitter, pv)
        if start is not None and start.error is None:
            _start(out, admitter, pv, start)
    return out.facts


def _machine(out: Facts, admitter: Admitter) -> None:
    topo = admitter.topo
    policy = admitter.policy
    out.add(
        *(
            s.Cpu(cpu=c.id, core=c.core, socket=c.socket, numa=c.numa, uncore=c.uncore)
            for c in topo.info.values()
        )
    )
    out.add(*(s.Numa(numa=n) for n in admitter.numa.nodes))
    out.add(s.CpusPerCore(n=topo.cpus_per_core))
    masks = bitmask.all_masks(admitter.numa.nodes)
    out.add(*(s.Mask(mask=m) for m in masks))
    out.add(s.TopologyPolicy(policy=POLICIES[policy.topology_policy]))
    out.add(*(s.Option(option=o.replace("-", "_")) for o in OPTIONS if policy.option(o)))
    if policy.prefer_closest_numa and policy.topology_policy != "single-numa-node":
        distances = sorted({admitter.numa.average_distance(m) for m in masks})
        ranks = {d: i for i, d in enumerate(distances)}
        out.add(*(s.Closeness(mask=m, rank=ranks[admitter.numa.average_distance(m)]) for m in masks))
    cpu = admitter.cpu
    if cpu is not None:
        out.add(*(s.Reserved(cpu=c) for c in sorted(cpu.reserved)))
        out.add(*(s.Default(cpu=c) for c in sorted(admitter.cpus.default)))


def _pod(out: Facts, admitter: Admitter, pv: PodView) -> None:
    pod = pv.pod
    if pod.qos == "Guaranteed":
        out.add(s.Guaranteed())
    if pod.pod_level:
        out.add(s.PodResources())
    if admitter.policy.pod_level_managers:
        out.add(s.PodLevelManagers())
    cpu = admitter.cpu
    for slot in pv.slots:
        out.add(s.SlotKind(slot=slot.index, kind=KINDS[slot.kind]))
        c = slot.container
        if c is None:  # the pod-level bubble
            out.add(s.Bubble(slot=slot.index))
            if pod.pod_cpu_request is not None:
                out.add(s.CpuRequest(slot=slot.index, milli=pod.pod_cpu_request))
        elif cpu is not None and c.cpu_request is not None:
            out.add(s.CpuRequest(slot=slot.index, milli=c.cpu_request))
            if c.own_guaranteed:
                out.add(s.OwnGuaranteed(slot=slot.index))
        if slot.fixed_cpus is not None and slot.cpus:
            out.add(*(s.Fixed(slot=slot.index, cpu=c) for c in sorted(slot.fixed_cpus)))
    if pv.pod_level and cpu is not None:
        for i, c in enumerate(pod.containers):
            out.add(s.PodShare(index=i, kind=KINDS[c.kind], n=cpu.guaranteed_cpus(pod, c)))


def _memory(out: Facts, admitter: Admitter, pv: PodView) -> None:
    machine = admitter.mem.machine
    nodes = admitter.numa.nodes
    requests: dict[str, list[int]] = {}
    for g in pv.groups:
        for resource, size in g.request:
            requests.setdefault(resource, []).append(size)
    units = {r: math.gcd(*sizes) or 1 for r, sizes in requests.items()}
    caps = {r: sum(sizes) // units[r] + 1 for r, sizes in requests.items()}
    if any(cap > MAX_INT for cap in caps.values()):
        raise TooLarge("memory requests too large for clingo's integers in any common unit")

    def table(n: int, resource: str) -> Table:
        return machine[n].memory.get(resource) or Table(0, 0, 0, 0, 0)

    def amount(total: int, resource: str) -> int:
        # Rounded down, so that "requests <= amount" and "amount < request" read as in bytes.
        return max(min(total // units[resource], caps[resource]), -1)

    for g in pv.groups:
        out.add(s.MemGroup(group=g.index))
        out.add(*(s.MemSlot(slot=i, group=g.index) for i in g.slots))
        out.add(*(s.MemRequest(group=g.index, resource=r, amount=size // units[r]) for r, size in g.request))
        if g.fixed_mask is not None:
            out.add(s.MemFixed(group=g.index, mask=g.fixed_mask))
        elif g.static is not None:
            out.add(*_static_memory(g.index, g.static))
    masks = bitmask.all_masks(nodes)
    for m in masks:
        for r in sorted(requests):
            free = sum(table(n, r).free for n in bitmask.bits(m))
            allocatable = sum(table(n, r).allocatable for n in bitmask.bits(m))
            out.add(s.MemFree(mask=m, resource=r, amount=amount(free, r)))
            out.add(s.MemAllocatable(mask=m, resource=r, amount=amount(allocatable, r)))
    free_memory = {m: sum(table(n, MEMORY).free for n in bitmask.bits(m)) for m in masks}
    ranks = {f: i for i, f in enumerate(sorted(set(free_memory.values())))}
    out.add(*(s.MemFreeRank(mask=m, rank=ranks[f]) for m, f in free_memory.items()))
    for n, state in sorted(machine.items()):
        if state.assignments > 0:
            out.add(s.NumaUsed(numa=n))
        if len(state.cells) > 1:
            out.add(s.NumaGrouped(numa=n, mask=bitmask.mask_of(state.cells)))


def _static_memory(group: int, hints: Iterable[Hint]) -> list[Predicate]:
    return [
        s.MemStatic(group=group, mask=h.mask, preferred=int(h.preferred)) for h in hints if h.mask is not None
    ]


def _units(out: Facts, admitter: Admitter, pv: PodView) -> None:
    for u in pv.units:
        out.add(s.UnitFact(unit=u.index))
        out.add(*(s.UnitSlot(unit=u.index, slot=i) for i in u.slots))
        if u.cpu_slot is not None and admitter.cpu is not None:
            out.add(s.CpuUnit(unit=u.index, slot=u.cpu_slot))
        if u.memory_group is not None:
            out.add(s.MemUnit(unit=u.index, group=u.memory_group))
        for resource, hints in sorted(u.static.items()):
            out.add(s.StaticResource(unit=u.index, resource=resource))
            out.add(
                *(
                    s.StaticHint(unit=u.index, resource=resource, mask=h.mask, preferred=int(h.preferred))
                    for h in hints
                    if h.mask is not None
                )
            )


def _kubelet(out: Facts, pv: PodView, allocated: Mapping[str, tuple[CPUSet | None, int | None]]) -> None:
    for slot in pv.slots:
        got = allocated.get(slot.name)
        if got is None or slot.container is None:
            continue
        cpus, mask = got
        if slot.cpus and slot.fixed_cpus is None and cpus is not None:
            out.add(s.KubeletSlot(slot=slot.index))
            out.add(*(s.KubeletCpu(slot=slot.index, cpu=c) for c in sorted(cpus)))
        g = slot.memory_group
        if g is not None and mask is not None and pv.groups[g].fixed_mask is None:
            out.add(s.KubeletMask(slot=slot.index, group=g, mask=mask))


def _start(out: Facts, admitter: Admitter, pv: PodView, greedy: GreedyAnswer) -> None:
    """The kubelet's answer in the rules' terms (start.lp)."""
    for slot in pv.slots:
        if slot.fixed_cpus is None:
            out.add(*(s.StartAssign(slot=slot.index, cpu=c) for c in sorted(greedy.cpus.get(slot.name, ()))))
    for u in pv.units:
        hint = greedy.hints.get(u.name) or greedy.hints.get("")
        if hint is not None:
            mask = hint.mask if hint.mask is not None else admitter.numa.default_mask
            out.add(s.StartMerged(unit=u.index, mask=mask))
            if hint.preferred:
                out.add(s.StartPreferred(unit=u.index))
    for g in pv.groups:
        masks = [greedy.blocks[pv.slots[i].name] for i in g.slots if pv.slots[i].name in greedy.blocks]
        if masks:
            out.add(s.StartBlock(group=g.index, mask=masks[0]))


def _least_domains(out: Facts, admitter: Admitter, pv: PodView) -> None:
    """Per slot and level, the fewest domains whose CPUs it may take could hold its request."""
    topo = admitter.topo
    for slot in pv.exclusive:
        if slot.fixed_cpus is not None:
            continue
        for level in ("numa", "socket", "uncore", "core"):
            sizes: dict[int, int] = {}
            for c in slot.candidates:
                d = topo.of(c, level)
                sizes[d] = sizes.get(d, 0) + 1
            held = 0
            for k, size in enumerate(sorted(sizes.values(), reverse=True), start=1):
                held += size
                if held >= slot.cpus:
                    out.add(s.LeastDomains(slot=slot.index, level=level, n=k))
                    break


def _symmetry(out: Facts, admitter: Admitter, pv: PodView) -> None:
    """Interchangeable CPUs, cores and uncore caches for the pod (symmetry.lp): free threads of one core;
    cores of one cache alike (as many threads, as many free, no reserved thread or none of them both);
    caches of one NUMA node and socket whose cores are alike. None of them may hold a CPU that a slot of
    the pod holds in the state."""
    cpu = admitter.cpu
    if cpu is None or not pv.exclusive:
        return
    topo = admitter.topo
    available = pv.available
    special = {c for slot in pv.slots for c in slot.candidates} - available
    special |= {c for slot in pv.slots if slot.fixed_cpus for c in slot.fixed_cpus}
    levels = ("numa", "socket", "uncore")
    cores: dict[tuple[int, ...], list[int]] = {}
    caches: dict[int, list[tuple[int, ...]]] = {}
    spoilt: set[int] = set()  # caches with a core that is not interchangeable: never twins
    for core in topo.ids("core"):
        threads = topo.cpus_in("core", (core,))
        first = min(threads)
        uncore = topo.of(first, "uncore")
        free = sorted(threads & available)
        if threads & special or any(len(topo.levels_of(threads, level)) > 1 for level in levels):
            spoilt.add(uncore)
            continue
        out.add(*(s.TwinCpu(first=a, second=b) for a, b in pairwise(free)))
        shape = (len(threads), len(free), int(bool(threads & cpu.reserved)))
        caches.setdefault(uncore, []).append(shape)
        if free:
            cores.setdefault((*(topo.of(first, level) for level in levels), *shape), []).append(core)
    for members in cores.values():
        out.add(*(s.TwinCore(first=a, second=b) for a, b in pairwise(members)))
    alike: dict[tuple[object, ...], list[int]] = {}
    for uncore, shapes in sorted(caches.items()):
        cpus = topo.cpus_in("uncore", (uncore,))
        whole = len(topo.levels_of(cpus, "numa")) == 1 and len(topo.levels_of(cpus, "socket")) == 1
        if uncore in spoilt or not whole or not any(shape[1] for shape in shapes):
            continue
        first = min(cpus)
        key = (topo.of(first, "numa"), topo.of(first, "socket"), tuple(sorted(shapes)))
        alike.setdefault(key, []).append(uncore)
    for members in alike.values():
        out.add(*(s.TwinUncore(first=a, second=b) for a, b in pairwise(members)))


__all__ = ["TooLarge", "gather"]
