"""The independent checker of admission answers: it accepts the kubelet's answers and names every
broken rule in answers that were tampered with."""

from __future__ import annotations

from dataclasses import replace

from node_fixtures import cpus

from kubefit.model.node.problem import APP, Block, ContainerFacts, KubeletPolicy, NodeProblem, PodFacts
from kubefit.model.node.solution import NodeSolution
from kubefit.solver.node.greedy import GreedyNodeEngine
from kubefit.solver.node.validate import check
from kubefit.translate.node.synthetic import synthetic_machine

GI = 2**30
SMALL = synthetic_machine(1, 2, 2, 2, memory_per_numa=2 * GI)  # NUMA 0 = 0,1,4,5; NUMA 1 = 2,3,6,7


def problem(n: int = 2, **settings: object) -> NodeProblem:
    options = settings.pop("options", ())
    kubelet = KubeletPolicy(cpu_policy="static", cpu_options=frozenset(options), **settings)  # type: ignore[arg-type]
    c = ContainerFacts("app", APP, n * 1000, n * 1000, (("memory", GI),), True)
    return NodeProblem("node-1", SMALL, kubelet, (PodFacts("p-uid", "default", "p", "Guaranteed", (c,)),))


def tampered(solution: NodeSolution, cpuset: str, numa: tuple[int, ...] | None = None) -> NodeSolution:
    a = solution.admissions[0]
    given = cpus(cpuset)
    container = replace(a.containers[0], cpus=given, numa_affinity=numa or a.containers[0].numa_affinity)
    default = frozenset(range(8)) - given
    return replace(solution, admissions=(replace(a, containers=(container,), default_cpus=default),))


def test_the_kubelets_answer_passes() -> None:
    p = problem()
    assert check(p, GreedyNodeEngine().admit(p)) == []


def test_a_reserved_cpu_given_out_is_named() -> None:
    p = problem(reserved_cpus=frozenset({0}))
    problems = check(p, tampered(GreedyNodeEngine().admit(p), "0,4"))
    assert any("reserved CPUs 0" in x for x in problems)


def test_the_wrong_number_of_cpus_is_named() -> None:
    p = problem()
    assert any(
        "has 3 exclusive CPUs, requested 2" in x
        for x in check(p, tampered(GreedyNodeEngine().admit(p), "0-1,4"))
    )


def test_an_odd_request_admitted_under_full_pcpus_only_is_named() -> None:
    # What full-pcpus-only guarantees is a request of whole cores' worth (the allocation may still
    # end on part of a core, as the kubelet's own does where NUMA alignment cuts a core in two).
    admitted_anyway = GreedyNodeEngine().admit(problem(3))
    problems = check(problem(3, options=["full-pcpus-only"]), admitted_anyway)
    assert any("3 CPUs are not whole cores" in x for x in problems)


def test_cpus_outside_the_hint_under_single_numa_node_are_named() -> None:
    p = problem(topology_policy="single-numa-node")
    problems = check(p, tampered(GreedyNodeEngine().admit(p), "0,2", (0,)))
    assert any("outside NUMA affinity [0]" in x for x in problems)


def test_a_wrong_shared_pool_is_named() -> None:
    p = problem()
    solution = GreedyNodeEngine().admit(p)
    a = solution.admissions[0]
    bad = replace(solution, admissions=(replace(a, default_cpus=frozenset(range(8))),))
    assert any("shared pool" in x for x in check(p, bad))


def test_memory_beyond_a_nodes_free_memory_is_named() -> None:
    p = problem(memory_policy="Static", reserved_memory=((0, "memory", GI), (1, "memory", GI)))
    solution = GreedyNodeEngine().admit(p)
    a = solution.admissions[0]
    container = replace(a.containers[0], memory=(Block("memory", 2 * GI, a.containers[0].memory[0].numa),))
    bad = replace(solution, admissions=(replace(a, containers=(container,)),))
    assert any("exceeds the free" in x for x in check(p, bad))
