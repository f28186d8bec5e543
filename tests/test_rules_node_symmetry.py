"""rules/node/symmetry.lp: interchangeable threads, cores and caches are considered once; the optimum
(by every criterion) is the same with and without it."""

from __future__ import annotations

from itertools import pairwise

import pytest
from clorm import Predicate
from node_rules_support import PLACING, container, machine, optimum, pool

from kubefit.solver.node.asp import schema as s

CRITERIA = [p for p in PLACING if p != "first_fit.lp"]
NO_SYMMETRY = [p for p in CRITERIA if p != "symmetry.lp"]
# Two NUMA nodes of 4 cores x 2 threads, 2 cores per cache: core k holds CPUs k and k + 8.
BIG = machine(numa_per_socket=2, cores_per_numa=4, per_cache=2)


def twins(free: set[int]) -> list[Predicate]:
    """The twins facts.py gives for this machine and shared pool."""
    out: list[Predicate] = []
    shapes: dict[tuple[int, int], list[int]] = {}
    for k in range(8):
        threads = [k, k + 8]
        left = [c for c in threads if c in free]
        if len(left) == 2:
            out.append(s.TwinCpu(first=k, second=k + 8))
        if left:
            shapes.setdefault((k // 2, len(left)), []).append(k)
    for cores in shapes.values():
        out += [s.TwinCore(first=a, second=b) for a, b in pairwise(cores)]
    return out


@pytest.mark.parametrize(
    ("free", "requests"),
    [
        (set(range(16)), [3]),
        (set(range(16)) - {0, 9}, [2, 3]),
        (set(range(16)) - {1, 2, 3}, [5]),
        (set(range(16)), [2, 2, 1]),
    ],
)
def test_the_optimum_is_the_same_with_and_without_symmetry(free: set[int], requests: list[int]) -> None:
    facts: list[Predicate] = [*BIG, *pool(sorted(free)), s.Guaranteed()]
    for i, n in enumerate(requests):
        facts += container(i, n)
    _, plain = optimum(facts, placing=NO_SYMMETRY)
    _, reduced = optimum([*facts, *twins(free)], placing=CRITERIA)
    assert reduced == plain


def test_a_cores_lower_free_thread_is_taken_first() -> None:
    facts = [*BIG, *pool(range(16)), s.Guaranteed(), *container(0, 1), *twins(set(range(16)))]
    found, _ = optimum(facts, placing=CRITERIA)
    assert found in ({f"assign(0,{k})"} for k in range(8))
