"""The NUMA-distributed CPU algorithm (distribute-cpus-across-numa, KEP-2902).

Among the fewest NUMA nodes that can hold the request, pick the combination (and the subset that
takes the remainder) leaving the free CPUs of all NUMA nodes most balanced, then take packed
inside each chosen NUMA node.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from itertools import combinations

from ....model.node.problem import CPUSet
from ..topology import CPUTopology
from .accumulator import Accumulator, NotEnoughCPUs, not_enough
from .cpu_packed import take_packed


def _rounded(x: float) -> float:
    # Go's math.Round rounds halves away from zero; Python's round() would round them to even.
    return math.floor(abs(x) * 1000 + 0.5) / 1000 * (1 if x >= 0 else -1)


def balance(values: Iterable[int]) -> float:
    """Population standard deviation, with the mean and the result rounded to 3 decimals."""
    xs = list(values)
    mean = _rounded(sum(xs) / len(xs))
    return _rounded(math.sqrt(sum((x - mean) * (x - mean) for x in xs) / len(xs)))


def _spread_remainder(after: dict[int, int], subset: tuple[int, ...], remainder: int, group: int) -> bool:
    """Hand the remainder out round-robin in groups; False when it cannot be placed."""
    while remainder > 0:
        progressed = False
        for numa in subset:
            if remainder == 0:
                break
            if after[numa] < group:
                continue
            after[numa] -= group
            remainder -= group
            progressed = True
        if not progressed:
            return False
    return True


def _combos(items: list[int], k: int) -> Iterator[tuple[int, ...]]:
    return combinations(items, k)


def take_distributed(
    topo: CPUTopology, available: Iterable[int], count: int, group: int, spread: bool = False
) -> CPUSet:
    available = frozenset(available)
    if count % group != 0:
        return take_packed(topo, available, count, spread)
    acc = Accumulator(topo, available, count)
    if acc.satisfied:
        return acc.outcome()
    if acc.failed:
        raise not_enough(count, len(available))
    numas = acc.sorted_numas()
    free = {n: len(acc.free_in("numa", n)) for n in numas}
    groups_total = (topo.num_cpus - 1) // group + 1
    groups_per_numa = (groups_total - 1) // topo.num_numa + 1
    groups_needed = (count - 1) // group + 1
    k_min = (groups_needed - 1) // groups_per_numa + 1
    k_max = min(groups_needed, len(numas))
    for k in range(k_min, k_max + 1):
        best = _best_combination(numas, free, k, count, group)
        if best is None:
            continue
        combo, remainder_set = best
        distribution = (count // len(combo) // group) * group
        for numa in combo:
            acc.take(take_packed(topo, acc.free_in("numa", numa), distribution, spread))
        remainder = count - distribution * len(combo)
        while remainder > 0:
            progressed = False
            for numa in remainder_set:
                if remainder == 0:
                    break
                if len(acc.free_in("numa", numa)) < group:
                    continue
                acc.take(take_packed(topo, acc.free_in("numa", numa), group, spread))
                remainder -= group
                progressed = True
            if not progressed:
                break
        if acc.needed != 0:
            raise NotEnoughCPUs(f"accounting error, not enough CPUs allocated, remaining: {acc.needed}")
        return acc.outcome()
    return take_packed(topo, available, count, spread)


def _best_combination(
    numas: list[int], free: dict[int, int], k: int, count: int, group: int
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    best_balance = math.inf
    best: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    for combo in _combos(numas, k):
        if best_balance == 0:
            break
        if sum(free[n] for n in combo) < count:
            continue
        if sum(free[n] // group for n in combo) * group < count:
            continue
        distribution = (count // len(combo) // group) * group
        if any(free[n] < distribution for n in combo):
            continue
        after = dict(free)
        for n in combo:
            after[n] -= distribution
        remainder = count - distribution * len(combo)
        candidates = [n for n in combo if after[n] >= group]
        local_balance = math.inf
        local_subset: tuple[int, ...] = ()
        if remainder == 0:
            local_balance = balance(after.values())
        size = len(candidates)
        while remainder > 0 and size >= 1:
            for subset in _combos(candidates, size):
                trial = dict(after)
                if sum(trial[n] for n in subset) < remainder:
                    continue
                if not _spread_remainder(trial, subset, remainder, group):
                    continue
                score = balance(trial.values())
                if score < local_balance:
                    local_balance, local_subset = score, subset
            size -= 1
        if local_balance < best_balance:
            best_balance, best = local_balance, (combo, local_subset)
    return best
