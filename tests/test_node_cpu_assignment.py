"""The static policy's CPU picking (cpu_assignment.go): best-fit orderings, the packed, spread,
uncore and NUMA-distributed algorithms, on the upstream topology fixtures."""

from __future__ import annotations

import pytest
from node_fixtures import cpus, topology

from kubefit.solver.node.greedy.accumulator import Accumulator, NotEnoughCPUs
from kubefit.solver.node.greedy.cpu_distributed import balance, take_distributed
from kubefit.solver.node.greedy.cpu_packed import take_packed

FIXTURE_SIZES = {
    "topoSingleSocketHT": 8,
    "topoDualSocketHT": 12,
    "topoDualSocketNoHT": 8,
    "topoDualSocketMultiNumaPerSocketHT": 80,
    "topoDualSocketMultiNumaPerSocketHTLarge": 256,
    "topoUncoreDualSocketNoSMT": 16,
    "topoSingleSocketSingleNumaPerSocketPCoreHTMonolithicUncore": 24,
    "topoLargeSingleSocketSingleNumaPerSocketUncore": 128,
    "topoSingleSocketSingleNumaPerSocketSMTSmallUncore": 128,
    "topoDualSocketSubNumaPerSocketHTMonolithicUncore": 240,
    "topoDualSocketSingleNumaPerSocketSMTUncore": 384,
}


@pytest.mark.parametrize(("name", "size"), sorted(FIXTURE_SIZES.items()))
def test_every_upstream_fixture_loads_with_its_cpu_count(name: str, size: int) -> None:
    topo = topology(name)
    assert topo.num_cpus == size
    assert topo.cpus_in("numa", topo.ids("numa")) == topo.all


def test_hybrid_cores_make_cpus_per_core_one_by_integer_division() -> None:
    topo = topology("topoSingleSocketSingleNumaPerSocketPCoreHTMonolithicUncore")
    assert (topo.num_cpus, topo.num_cores, topo.cpus_per_core) == (24, 16, 1)


def test_sockets_are_the_outer_level_when_a_socket_holds_several_numa_nodes() -> None:
    assert topology("topoDualSocketHT").numa_first
    assert not topology("topoDualSocketMultiNumaPerSocketHT").numa_first


@pytest.mark.parametrize(
    ("name", "free", "expected"),
    [
        ("topoSingleSocketHT", "0-7", [0, 4, 1, 5, 2, 6, 3, 7]),
        ("topoSingleSocketHT", "3-7", [4, 5, 6, 3, 7]),
        ("topoDualSocketHT", "0-11", [0, 6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11]),
        ("topoDualSocketHT", "1-11", [6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11]),
        ("topoDualSocketHT", "1-5,7-11", [2, 8, 4, 10, 1, 7, 3, 9, 5, 11]),
    ],
)
def test_free_cpus_are_ordered_fullest_domain_first(name: str, free: str, expected: list[int]) -> None:
    """Upstream TestCPUAccumulatorFreeCPUs."""
    assert Accumulator(topology(name), cpus(free), 0).packed_cpus() == expected


@pytest.mark.parametrize(
    ("free", "expected"),
    [("0-11", [0, 2, 4, 1, 3, 5]), ("1-5,7-11", [2, 4, 1, 3, 5]), ("2-5,8-11", [2, 4, 3, 5])],
)
def test_whole_free_cores_in_socket_order(free: str, expected: list[int]) -> None:
    """Upstream TestCPUAccumulatorFreeCores on the dual-socket HT machine."""
    acc = Accumulator(topology("topoDualSocketHT"), cpus(free), 0)
    assert [c for c in acc.sorted_cores() if acc.is_whole_free("core", c)] == expected


def test_free_numa_nodes_and_sockets_of_a_multi_numa_socket() -> None:
    """Upstream TestCPUAccumulatorFreeSocketsAndNUMANodes, "0 Socket/ 2 NUMA node free"."""
    acc = Accumulator(topology("topoDualSocketMultiNumaPerSocketHT"), cpus("1-59,61-79"), 0)
    assert [n for n in acc.sorted_numas() if acc.is_whole_free("numa", n)] == [1, 3]
    assert [s for s in acc.sorted_sockets() if acc.is_whole_free("socket", s)] == []


def test_packed_fails_with_the_kubelets_message() -> None:
    with pytest.raises(NotEnoughCPUs, match=r"requested=5, available=4"):
        take_packed(topology("topoSingleSocketHT"), cpus("0,2,4,6"), 5)


def test_zero_cpus_is_an_empty_set() -> None:
    assert take_packed(topology("topoSingleSocketHT"), cpus("0-7"), 0) == frozenset()


def test_uncore_alignment_fills_whole_caches_then_one_partial_cache() -> None:
    topo = topology("topoUncoreDualSocketNoSMT")
    assert take_packed(topo, cpus("2-15"), 6, uncore=True) == cpus("2-7")
    assert take_packed(topo, cpus("0-15"), 4, uncore=True) == cpus("0-3")


def test_uncore_alignment_drops_the_highest_cpu_of_an_odd_request() -> None:
    assert take_packed(topology("topoDualSocketHT"), cpus("1-5,7-11"), 1, uncore=True) == cpus("1")
    assert take_packed(topology("topoDualSocketHT"), cpus("1-5,7-11"), 1) == cpus("2")


def test_spread_takes_one_thread_per_core() -> None:
    assert take_packed(topology("topoDualSocketHT"), cpus("0-11"), 3, spread=True) == cpus("0,2,4")


def test_distributed_balances_free_cpus_across_numa_nodes() -> None:
    topo = topology("topoDualSocketMultiNumaPerSocketHT")
    assert take_distributed(topo, cpus("0-79"), 26, 1) == cpus("0-6,10-16,40-45,50-55")
    assert take_distributed(topo, cpus("0-79"), 26, 2) == cpus("0-6,10-15,40-46,50-55")


def test_distributed_falls_back_to_packed_when_groups_do_not_divide_the_request() -> None:
    topo = topology("topoDualSocketHT")
    assert take_distributed(topo, cpus("1-5,7-11"), 1, 2) == take_packed(topo, cpus("1-5,7-11"), 1)


def test_balance_rounds_the_mean_and_the_deviation_to_three_decimals() -> None:
    assert balance([1, 2]) == 0.5
    assert balance([0, 0, 1]) == 0.471
    assert balance([5, 5, 5]) == 0.0
