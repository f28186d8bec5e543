"""Properties of the batch planner on small generated MIG problems (at most 3 nodes of at most 2 A100s, some
running partitions, at most 8 pending pods in two priorities): cpsat's plan is valid, places at least what
kube-scheduler places (by priority) where kube-scheduler preempts nobody, and when it says `optimal` no
plan places more, as an exhaustive search over the GPUs' MIG layouts confirms."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_plan import (
    PROFILES,
    built_of,
    by_priority,
    gpu_states,
    mig_docs,
    mig_pod,
    most_placeable,
    planned,
    priority_class,
)

from kubefit.solver.cluster.plan.planner import PlanResult
from kubefit.translate.dra.build import Built

HIGH, LOW = 100, 0


@dataclass(frozen=True)
class MigProblem:
    nodes: int
    gpus: int  # per node
    busy: float  # share of GPUs running partitions or whole-GPU pods
    seed: int
    pods: tuple[tuple[str, bool], ...]  # (profile, high priority), in queue order

    def built(self) -> Built:
        pods = [
            mig_pod(f"p{i}", profile, priority="high" if high else "low")
            for i, (profile, high) in enumerate(self.pods)
        ]
        classes = [priority_class("high", HIGH), priority_class("low", LOW)]
        return built_of([*mig_docs(self.nodes, self.gpus, pods, self.busy, self.seed), *classes])

    @property
    def weights(self) -> list[int]:
        """A high pod outweighs every low one together: the planner's lexicographic objective as one sum."""
        return [len(self.pods) + 1 if high else 1 for _, high in self.pods]


# Small profiles more often, as batch mixes have them; whole GPUs often enough to fragment.
profile = st.sampled_from((*PROFILES, "1g.10gb", "1g.10gb", "2g.20gb"))
problems = st.builds(
    MigProblem,
    nodes=st.integers(1, 3),
    gpus=st.integers(1, 2),
    busy=st.sampled_from((0.0, 0.0, 0.5)),
    seed=st.integers(1, 50),
    pods=st.lists(st.tuples(profile, st.booleans()), min_size=1, max_size=8).map(tuple),
)


def weighted(problem: MigProblem, built: Built, result: PlanResult) -> int:
    placed = {built.problem.units[u].name.split("/")[-1] for u in result.placements}
    return sum(w for i, w in enumerate(problem.weights) if f"p{i}" in placed)


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(problems)
def test_cpsat_is_valid_places_at_least_greedy_and_when_optimal_no_plan_places_more(
    problem: MigProblem,
) -> None:
    built = problem.built()
    cluster = built.problem.cluster
    assert cluster is not None
    priorities = [cluster.pending[u.id].priority for u in built.problem.units]
    assert sorted(priorities) == sorted(HIGH if high else LOW for _, high in problem.pods)
    greedy = planned(built, "greedy")  # `planned` checks each plan with the Solution validator
    cpsat = planned(built, "cpsat")
    if not greedy.solution.evictions:  # kube-scheduler may preempt running pods; a plan evicts nobody
        assert by_priority(built, cpsat) >= by_priority(built, greedy)
        event(
            "cpsat places a pod greedy leaves pending"
            if cpsat.placements.keys() - greedy.placements.keys()
            else "as many"
        )
    else:
        event("greedy preempted running pods")
    event(f"cpsat {cpsat.status}")
    assert cpsat.status in ("optimal", "feasible")
    if cpsat.status == "optimal":
        profiles = [p for p, _ in problem.pods]
        best = most_placeable(profiles, gpu_states(built), problem.weights)
        assert weighted(problem, built, cpsat) == best
        assert cpsat.bound == len(cpsat.placements)
