"""rules/node/criteria.lp: where the kubelet's choice is greedy, the admission its own criteria rank best:
fewest NUMA nodes, whole cores, the fullest NUMA node that takes it, narrow and low merged hints, an even
split (distribute-cpus-across-numa), siblings apart (distribute-cpus-across-cores)."""

from __future__ import annotations

from node_rules_support import best, container, machine, pool, unit

from kubefit.solver.node.asp import schema as s

# Two NUMA nodes of 2 cores x 2 threads: core k holds CPUs k and k + 4; node 0 holds cores 0 and 1.
TWO = machine(numa_per_socket=2)


def test_a_container_takes_a_whole_core_of_one_numa_node() -> None:
    assert best([*TWO, *pool(range(8)), s.Guaranteed(), *container(0, 2)]) == {"assign(0,0)", "assign(0,4)"}


def test_of_the_numa_nodes_that_take_it_the_fullest_one() -> None:
    # Node 0 has one whole core left (CPUs 1, 5), node 1 two: the container fills node 0.
    facts = [*TWO, *pool([1, 5, 2, 3, 6, 7]), s.Guaranteed(), *container(0, 2)]
    assert best(facts) == {"assign(0,1)", "assign(0,5)"}


def test_the_narrowest_merged_hint_then_the_lowest() -> None:
    facts = [*TWO, *pool(range(8)), s.Guaranteed(), *container(0, 3), *unit(0, 0), s.CpuUnit(unit=0, slot=0)]
    facts.append(s.TopologyPolicy(policy="best_effort"))
    found = best(facts, ("merged", "preferred"))
    assert found == {"merged(0,1)", "preferred(0)"}


def test_distribute_cpus_across_numa_splits_evenly_over_the_nodes_it_needs() -> None:
    facts = [*TWO, *pool(range(8)), s.Guaranteed(), *container(0, 6)]
    packed = best(facts)
    even = best([*facts, s.Option(option="distribute_cpus_across_numa")])
    on_node_0 = {"assign(0,0)", "assign(0,1)", "assign(0,4)", "assign(0,5)"}
    assert len(packed & on_node_0) in (2, 4)
    assert len(even & on_node_0) == 3


def test_distribute_cpus_across_cores_keeps_siblings_apart() -> None:
    facts = [*TWO, *pool(range(8)), s.Guaranteed(), *container(0, 2)]
    facts.append(s.Option(option="distribute_cpus_across_cores"))
    assert best(facts) == {"assign(0,0)", "assign(0,1)"}
