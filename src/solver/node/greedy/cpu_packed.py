"""The packed CPU algorithm (takeByTopologyNUMAPacked): whole outer domains, whole inner domains,
optionally uncore caches, whole cores, then single CPUs, stopping as soon as the request is met."""

from __future__ import annotations

from collections.abc import Iterable

from ....model.node.problem import CPUSet
from ..topology import CPUTopology
from .accumulator import Accumulator, NotEnoughCPUs, not_enough


def take_packed(
    topo: CPUTopology, available: Iterable[int], count: int, spread: bool = False, uncore: bool = False
) -> CPUSet:
    """`count` CPUs out of `available`; `spread` is distribute-cpus-across-cores, `uncore` is
    prefer-align-cpus-by-uncorecache. Raises NotEnoughCPUs."""
    available = frozenset(available)
    acc = Accumulator(topo, available, count)
    if acc.satisfied:
        return acc.outcome()
    if acc.failed:
        raise not_enough(count, len(available))
    steps = [acc.take_numas, acc.take_sockets] if topo.numa_first else [acc.take_sockets, acc.take_numas]
    if uncore:
        steps.append(lambda: take_uncore_caches(acc))
    if not spread:
        steps.append(acc.take_cores)
    steps.append(lambda: acc.take_remaining(spread))
    for step in steps:
        step()
        if acc.satisfied:
            return acc.outcome()
    raise NotEnoughCPUs("failed to allocate cpus")


def take_uncore_caches(acc: Accumulator) -> None:
    """Fill whole uncore caches, then try to fit the rest inside one cache (first fit)."""
    per_uncore = acc.topo.cpus_per_uncore
    for cache in acc.sorted_uncores():  # the order is fixed before anything is taken
        if acc.needs_at_least(per_uncore):
            acc.take_whole("uncore", acc.sorted_uncores())
        if acc.satisfied:
            return
        _take_partial_uncore(acc, cache)
        if acc.satisfied:
            return


def _take_partial_uncore(acc: Accumulator, cache: int) -> None:
    """Claim the whole remaining request from one cache's lowest cores, or nothing.

    Cores are counted rounding up, and an odd request on an SMT machine drops the highest CPU
    of what was collected, so that an odd remainder still fits a cache with whole cores free.
    """
    per_core = acc.topo.cpus_per_core
    cores_needed = -(-acc.needed // per_core) if per_core else acc.needed
    cores = sorted(acc.topo.levels_of(acc.free_in("uncore", cache), "core"))[:cores_needed]
    cpus = sorted(acc.free & acc.topo.cpus_in("core", cores))
    if acc.needed % 2 == 1 and per_core > 1 and len(cpus) > acc.needed:
        cpus = cpus[:-1]
    if len(cpus) == acc.needed:
        acc.take(cpus)
