"""The kubelet's own criteria for one admission, measured on an answer (any engine's), so that answers
can be compared: a tuple to compare lexicographically, smaller is better. The order follows
cpsat/objective.py, which optimizes them; the greedy kubelet only approximates them.

Measured: merged hint width; distribute-cpus-across-numa: containers not split evenly; NUMA nodes per
container (CPUs, and memory blocks), then for the pod; the balance of free CPUs across NUMA nodes
(distribute); sockets per container, then for the pod; uncore caches per container; cores per
container (whole free cores first; with full-pcpus-only right after the hint width), then partially
used cores left on the machine (distribute-cpus-across-cores: siblings shared inside a container
instead of both).
"""

from __future__ import annotations

from ...model.node.problem import CPUState, KubeletPolicy
from ...model.node.solution import PodAdmission
from .topology import CPUTopology


def exclusive_sets(a: PodAdmission) -> list[frozenset[int]]:
    """The CPU sets the pod was given: its pod-level bubble, or each exclusive container's."""
    if a.pod_cpus:
        return [a.pod_cpus]
    return [c.cpus for c in a.containers if c.exclusive]


def _domains(topo: CPUTopology, sets: list[frozenset[int]], level: str) -> tuple[int, int]:
    per = sum(len(topo.levels_of(s, level)) for s in sets)
    union = len(topo.levels_of(frozenset().union(*sets), level)) if len(sets) > 1 else 0
    return per, union


def _unbalanced(topo: CPUTopology, policy: KubeletPolicy, sets: list[frozenset[int]]) -> int:
    group = topo.cpus_per_core if policy.option("full-pcpus-only") else 1
    out = 0
    for s in sets:
        if len(s) % group:
            continue
        counts = [len(s & topo.cpus_in("numa", (n,))) for n in topo.levels_of(s, "numa")]
        share = len(s) // len(counts) // group * group if counts else 0
        out += any(c < share for c in counts)
    return out


def _available(topo: CPUTopology, state: CPUState, reserved: frozenset[int]) -> frozenset[int]:
    return frozenset(state.default) - reserved


def _partial_cores(topo: CPUTopology, free: frozenset[int]) -> int:
    out = 0
    for core in topo.ids("core"):
        threads = topo.cpus_in("core", (core,))
        if len(threads) > 1 and threads & free and threads - free:
            out += 1
    return out


def _shared_siblings(topo: CPUTopology, sets: list[frozenset[int]]) -> int:
    return sum(len(s) - len(topo.levels_of(s, "core")) for s in sets)


def criteria(
    topo: CPUTopology,
    policy: KubeletPolicy,
    a: PodAdmission,
    after: CPUState,
    reserved: frozenset[int] = frozenset(),
) -> tuple[int, ...]:
    """The criteria of admission `a`, `after` being the CPU state right after it."""
    if not a.admitted:
        return ()
    sets = exclusive_sets(a)
    if policy.topology_scope == "pod" or a.pod_cpus:
        widths = len(a.numa_affinity) if a.numa_affinity is not None else 0
    else:
        widths = sum(len(c.numa_affinity) for c in a.containers if c.numa_affinity is not None)
    if policy.topology_policy == "none":
        widths = 0
    masks = {tuple(sorted(b.numa)) for c in a.containers for b in c.memory}
    memory_width = (
        sum(len(m) for m in masks)
        if policy.topology_scope == "pod"
        else sum(len(c.memory[0].numa) for c in a.containers if c.memory)
    )
    numa, pod_numa = _domains(topo, sets, "numa")
    sockets, pod_sockets = _domains(topo, sets, "socket")
    uncore, _ = _domains(topo, sets, "uncore")
    free = _available(topo, after, reserved)
    distribute = policy.option("distribute-cpus-across-numa")
    spread = policy.option("distribute-cpus-across-cores")
    cores = [] if spread else [sum(len(topo.levels_of(s, "core")) for s in sets)]
    first = policy.option("full-pcpus-only")
    out = [widths]
    if distribute:
        out.append(_unbalanced(topo, policy, sets))
    out += cores if first else []
    out += [numa + memory_width, pod_numa]
    if distribute:
        out.append(sum(len(free & topo.cpus_in("numa", (n,))) ** 2 for n in topo.ids("numa")))
    out += [sockets, pod_sockets, uncore]
    out += [] if first else cores
    out.append(_shared_siblings(topo, sets) if spread else _partial_cores(topo, free))
    return tuple(out)
