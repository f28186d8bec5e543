"""The asp node engine against the kubelet (greedy) and cpsat on generated machines, policies and pods
(tests/node_strategies.py): on the same state asp gives the kubelet's verdict — admitted, reason and
message — with exclusive CPU sets of the sizes the kubelet gives; where the kubelet's choice is forced
(the pod asks for every free CPU) the very same set; where both solvers admit and prove their answers,
asp's answer is exactly as good as cpsat's on the kubelet's criteria (criteria.py), both optimizing
the same criteria in the same order. Every asp answer passes the independent checker."""

from __future__ import annotations

import os
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from node_strategies import last_pod_only, problems

from kubefit.model.node.problem import APP, ContainerFacts, NodeProblem, PodFacts
from kubefit.model.node.solution import NodeSolution, PodAdmission
from kubefit.solver.node.asp import AspNodeEngine
from kubefit.solver.node.cpsat import CpsatNodeEngine
from kubefit.solver.node.criteria import criteria
from kubefit.solver.node.greedy import GreedyNodeEngine
from kubefit.solver.node.greedy.admit import Admitter
from kubefit.solver.node.topology import CPUTopology
from kubefit.solver.node.validate import check, reserved_cpus

# KUBEFIT_NODE_EXAMPLES raises the count for a longer hunt.
EXAMPLES = int(os.environ.get("KUBEFIT_NODE_EXAMPLES", "40"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def asp(problem: NodeProblem) -> NodeSolution:
    solution = AspNodeEngine(time_limit=None).admit(problem)
    assert check(problem, solution) == []
    return solution


def exclusive_sizes(a: PodAdmission) -> list[tuple[str, int]]:
    return [(c.name, len(c.cpus)) for c in a.containers if c.exclusive] + [("(pod)", len(a.pod_cpus))]


def assert_agree(problem: NodeProblem) -> None:
    """On the state before the last pod: the kubelet's verdict and sizes; cpsat's criteria."""
    problem = last_pod_only(problem)
    kubelet = GreedyNodeEngine().admit(problem).admissions[-1]
    mine = asp(problem)
    a = mine.admissions[-1]
    assert (a.admitted, a.reason, a.message) == (kubelet.admitted, kubelet.reason, kubelet.message)
    if not a.admitted:
        assert a.proof == "infeasible"
        return
    assert a.proof == "optimal"
    assert exclusive_sizes(a) == exclusive_sizes(kubelet)
    exact = CpsatNodeEngine(time_limit=None).admit(problem)
    c = exact.admissions[-1]
    if c.admitted and c.proof == "optimal":
        topo = CPUTopology(problem.machine)
        reserved = reserved_cpus(problem)
        assert criteria(topo, problem.policy, a, mine.cpu_state, reserved) == criteria(
            topo, problem.policy, c, exact.cpu_state, reserved
        )


@SETTINGS
@given(problems(count=(1, 5)))
def test_on_the_same_state_asp_gives_the_kubelets_verdict_and_cpsats_criteria(problem: NodeProblem) -> None:
    assert_agree(problem)


@SETTINGS
@given(problems(count=(1, 3), occupied=True))
def test_with_reserved_and_partly_occupied_cores_asp_still_agrees(problem: NodeProblem) -> None:
    assert_agree(problem)


@SETTINGS
@given(problems())
def test_every_asp_answer_in_a_sequence_passes_the_checker(problem: NodeProblem) -> None:
    solution = asp(problem)
    assert all(a.proof in ("optimal", "infeasible") for a in solution.admissions)


@st.composite
def every_free_cpu(draw: st.DrawFn) -> NodeProblem:
    """A pod with one container asking for every CPU still free after the others: whatever the policy,
    the kubelet's choice is forced."""
    problem = draw(problems(count=(1, 3), occupied=True))
    earlier = replace(last_pod_only(problem), pods=tuple(replace(p, report=False) for p in problem.pods[:-1]))
    kubelet = Admitter(earlier)
    for p in earlier.pods:
        kubelet.admit(p)
    free = len(kubelet.cpu.available(kubelet.cpus)) if kubelet.cpu is not None else 0
    if free == 0:
        return earlier
    milli = 1000 * free
    c = ContainerFacts("all", APP, milli, milli, (("memory", 2**20),), True)
    last = PodFacts("last-uid", "default", "last", "Guaranteed", (c,))
    return replace(earlier, pods=(*earlier.pods, last))


@SETTINGS
@given(every_free_cpu())
def test_where_the_kubelets_choice_is_forced_asp_takes_the_very_same_cpus(problem: NodeProblem) -> None:
    kubelet = GreedyNodeEngine().admit(problem).admissions[-1]
    a = asp(problem).admissions[-1]
    assert (a.admitted, a.reason, a.message) == (kubelet.admitted, kubelet.reason, kubelet.message)
    assert [(c.name, c.cpus, c.exclusive) for c in a.containers] == [
        (c.name, c.cpus, c.exclusive) for c in kubelet.containers
    ]
    assert a.default_cpus == kubelet.default_cpus
