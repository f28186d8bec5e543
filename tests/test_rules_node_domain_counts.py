"""rules/node/domain_counts.lp: each slot's CPUs per NUMA node, socket and cache as numbers; implied by
the other rules, so they allow exactly the admissions the rules allow, and what cannot fit a domain is
refuted without search."""

from __future__ import annotations

from node_rules_support import RULES, admissions, container, machine, node_models, pool

from kubefit.solver.node.asp import schema as s

TWO = machine(numa_per_socket=2)  # NUMA node 0: CPUs 0, 1, 4, 5; node 1: CPUs 2, 3, 6, 7


def test_the_counts_are_those_of_the_cpus_taken() -> None:
    facts = [*TWO, *pool(range(8)), s.Guaranteed(), *container(0, 3)]
    for model in node_models([*RULES, "domain_counts.lp"], facts, ("assign", "holds")):
        taken = {int(a[len("assign(0,") : -1]) for a in model if a.startswith("assign")}
        on_0 = len(taken & {0, 1, 4, 5})
        numa = {a for a in model if a.startswith("holds(0,numa")}
        assert numa == {f"holds(0,numa,0,{k})" for k in range(1, on_0 + 1)} | {
            f"holds(0,numa,1,{k})" for k in range(1, 3 - on_0 + 1)
        }


def test_they_allow_exactly_the_admissions_the_rules_allow() -> None:
    for free, requests in (
        ([0, 1, 4, 5, 2], [2, 2]),
        ([0, 1, 2, 3, 4, 5, 6, 7], [3, 1]),
        ([1, 2, 3], [2, 2]),
    ):
        facts = [*TWO, *pool(free), s.Guaranteed()]
        for i, n in enumerate(requests):
            facts += container(i, n)
        plain = admissions(facts)
        counted = node_models([*RULES, "domain_counts.lp"], facts, ("assign",))
        assert sorted(map(sorted, counted)) == sorted(map(sorted, plain))
