"""rules/node/alignment.lp: CPUs are taken inside the merged hint first (align-by-socket: inside its
sockets), and only what does not fit there goes elsewhere."""

from __future__ import annotations

from node_rules_support import Merged, admissions, container, machine, node_models, pool, unit

from kubefit.solver.node.asp import schema as s

FILES = ["cpus.lp", "alignment.lp"]
# Two NUMA nodes of 2 cores x 2 threads: node 0 holds CPUs 0, 1, 4, 5; node 1 holds 2, 3, 6, 7.
TWO = machine(numa_per_socket=2)
NODE_0 = {0, 1, 4, 5}


def cpus(model: set[str]) -> set[int]:
    return {int(a.split(",")[1].rstrip(")")) for a in model if a.startswith("assign(")}


def placed(facts: list[s.Predicate]) -> list[set[int]]:
    found = node_models([*FILES, "forbid.lp"], facts, ("assign",))
    return [cpus(m) for m in found]


def test_with_a_merged_hint_every_cpu_lies_inside_it() -> None:
    facts = [*TWO, *pool(range(8)), s.Guaranteed(), *container(0, 2), *unit(0, 0), Merged(unit=0, mask=1)]
    facts.append(s.TopologyPolicy(policy="restricted"))
    assert all(c <= NODE_0 for c in placed(facts))
    assert len(placed(facts)) == 6


def test_best_effort_takes_what_the_hint_holds_then_the_rest_elsewhere() -> None:
    # Node 0 has only CPUs 0 and 4 free: a request of 3 takes both, then one more outside.
    facts = [*TWO, *pool([0, 4, 2, 3, 6, 7]), s.Guaranteed(), *container(0, 3), *unit(0, 0)]
    facts += [Merged(unit=0, mask=1), s.TopologyPolicy(policy="best_effort")]
    found = placed(facts)
    assert found and all({0, 4} <= c and len(c - NODE_0) == 1 for c in found)


def test_align_by_socket_takes_inside_every_socket_the_hint_touches() -> None:
    # One socket holds both NUMA nodes: with align-by-socket, node 1's CPUs are inside a hint of node 0.
    facts = [*TWO, *pool(range(8)), s.Guaranteed(), *container(0, 2), *unit(0, 0), Merged(unit=0, mask=1)]
    facts.append(s.TopologyPolicy(policy="restricted"))
    assert {frozenset(c) for c in placed(facts)} == {frozenset(p) for p in _pairs(NODE_0)}
    by_socket = placed([*facts, s.Option(option="align_by_socket")])
    assert len(by_socket) == 28  # any two of the socket's eight CPUs


def _pairs(cpus: set[int]) -> list[set[int]]:
    return [{a, b} for a in cpus for b in cpus if a < b]


def test_without_a_hint_the_cpus_go_anywhere() -> None:
    facts = [*TWO, *pool(range(8)), s.Guaranteed(), *container(0, 1)]
    assert len(admissions(facts)) == 8
