"""rules/node/start.lp: the kubelet's own answer as the search's first guess changes how fast the best
admission is found, never which one it is."""

from __future__ import annotations

from node_rules_support import PLACING, container, machine, optimum, pool, unit

from kubefit.solver.node.asp import schema as s

WITHOUT = [p for p in PLACING if p != "start.lp"]


def test_the_optimum_is_the_same_whatever_the_first_guess() -> None:
    facts = [*machine(numa_per_socket=2), *pool(range(8)), s.Guaranteed(), *container(0, 3), *unit(0, 0)]
    facts += [s.CpuUnit(unit=0, slot=0), s.TopologyPolicy(policy="best_effort")]
    plain = optimum(facts, ("assign", "merged"), WITHOUT)
    # A poor first guess: the other NUMA node, split over cores.
    guess = [s.StartAssign(slot=0, cpu=c) for c in (2, 3, 7)] + [s.StartMerged(unit=0, mask=3)]
    assert optimum([*facts, *guess], ("assign", "merged")) == plain
    assert plain[0] == {"assign(0,0)", "assign(0,1)", "assign(0,4)", "merged(0,1)"}
