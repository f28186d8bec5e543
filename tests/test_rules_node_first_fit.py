"""rules/node/first_fit.lp: of admissions the criteria rank alike, the one with the lowest CPUs."""

from __future__ import annotations

from node_rules_support import PLACING, best, container, machine, pool

from kubefit.solver.node.asp import schema as s


def test_ties_go_to_the_lowest_cpus() -> None:
    facts = [*machine(cores_per_numa=4, threads=1), *pool(range(4)), s.Guaranteed(), *container(0, 2)]
    assert best(facts) == {"assign(0,0)", "assign(0,1)"}


def test_without_it_a_tie_may_go_anywhere_but_the_criteria_still_hold() -> None:
    facts = [*machine(cores_per_numa=4, threads=1), *pool(range(4)), s.Guaranteed(), *container(0, 2)]
    found = best(facts, placing=[p for p in PLACING if p != "first_fit.lp"])
    assert len(found) == 2
