"""What kube-scheduler's cycles reuse from one another (solver/cluster/memo.py: filter verdicts and raw
scores per node; solver/cluster/dra.py: DRA search answers) never changes an answer: on generated
clusters the Solution with reuse is the Solution without it, every record, node outcome and eviction
included (not the count of search steps a unit's cycles took, which is the work reuse saves). The
clusters have runs of identical pods (one ResourceClaimTemplate, the same requests), each placement
changing the node the next ones look at, and preemption, gangs, priorities, firstAvailable claims and
profiles that score or not; the small clusters of tests/sched_strategies.py add affinity, spreading,
taints and ports.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from unittest import mock

from benchmark_modules import benchmark_module
from hypothesis import given
from hypothesis import strategies as st
from sched_strategies import ClusterModel, clusters, quick

from kubefit.model.solution import Solution, Status
from kubefit.solver import engines
from kubefit.solver.cluster import memo
from kubefit.solver.cluster.plugins.noderesources.fit import Fit
from kubefit.solver.engines import Budget
from kubefit.translate.dra.build import build
from kubefit.translate.loader import load_text

gen = benchmark_module("cluster")
mig = benchmark_module("generate")

Doc = dict[str, Any]


def solve(docs: Sequence[Doc], reuse: bool, seed: int | None = None) -> Solution:
    built = build(load_text("".join(f"---\n{json.dumps(d)}\n" for d in docs)), seed=seed)
    with mock.patch.object(memo, "ENABLED", reuse):
        return engines.get("greedy").solve(built.problem, Budget())


def answers(solution: Solution) -> Solution:
    """The Solution but for the search steps each unit's cycles took in all: those count the work done,
    which is what reuse saves (each node's outcome keeps the steps of its answer)."""
    return replace(solution, units=tuple(replace(u, steps=0) for u in solution.units))


def same_either_way(docs: Sequence[Doc], seed: int | None = None) -> Solution:
    reused = solve(docs, True, seed)
    assert answers(reused) == answers(solve(docs, False, seed))
    return reused


# --- scheduler configurations --------------------------------------------------------------------------


def configuration(kind: str) -> list[Doc]:
    """A KubeSchedulerConfiguration: the defaults, or one that changes what the cycles look at."""
    overrides: dict[str, Any] = {
        "default": {},
        "no-scoring": {"profiles": [{"plugins": {"score": {"disabled": [{"name": "*"}]}}}]},
        "every-node": {"percentageOfNodesToScore": 100},
        "few-nodes": {"percentageOfNodesToScore": 1},
        "most-allocated": {
            "profiles": [
                {
                    "pluginConfig": [
                        {
                            "name": "NodeResourcesFit",
                            "args": {"scoringStrategy": {"type": "MostAllocated"}},
                        }
                    ]
                }
            ]
        },
    }[kind]
    if not overrides:
        return []
    return [
        {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", **overrides}
    ]


CONFIGURATIONS = st.sampled_from(("default", "no-scoring", "every-node", "few-nodes", "most-allocated"))
SEEDS = st.one_of(st.none(), st.integers(0, 2**16))


# --- generated clusters ----------------------------------------------------------------------------------


@st.composite
def mig_fleets(draw: st.DrawFn) -> list[Doc]:
    """A100 nodes published for dynamic MIG, partly in use, and pods asking for MIG partitions of a few
    profiles (a gang, priority classes sometimes): pods of one profile alike but for their names."""
    nodes = draw(st.integers(1, 5))
    gpus = draw(st.integers(1, 2))
    cluster = mig.mig_cluster(
        nodes, gpus, seed=draw(st.integers(0, 99)), busy=draw(st.sampled_from((0, 0.3)))
    )
    weights = draw(st.lists(st.integers(0, 3), min_size=len(mig.SLICES), max_size=len(mig.SLICES)))
    mix = dict(zip(mig.SLICES, weights, strict=True)) if any(weights) else mig.DEFAULT_MIX
    priorities = draw(st.sampled_from(({}, {"low": 10, "high": 1000})))
    load = draw(st.sampled_from((0.3, 0.8, 1.3)))
    seed = draw(st.integers(0, 99))
    gangs = draw(st.integers(0, 1))
    try:
        pods = mig.mig_pods(nodes, gpus, load, mix, seed, gangs, 2, priorities)
    except ValueError:  # the gang alone asks for more than the load
        pods = mig.mig_pods(nodes, gpus, load, mix, seed, 0, 2, priorities)
    flexible = prioritized_pods(draw(st.integers(0, 6)))
    return [*cluster, *pods, *flexible, *configuration(draw(CONFIGURATIONS))]


def prioritized_pods(count: int) -> list[Doc]:
    """Pods whose claim takes the first of several MIG profiles it can get (firstAvailable), so that
    DynamicResources scores nodes by the alternative they offer."""
    alternatives = [
        {"name": p.split(".")[0], "deviceClassName": mig.MIG_CLASS, "selectors": [mig_selector(p)]}
        for p in ("7g.80gb", "3g.40gb", "1g.10gb")
    ]
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "mig-flexible", "namespace": mig.NAMESPACE},
        "spec": {"spec": {"devices": {"requests": [{"name": "mig", "firstAvailable": alternatives}]}}},
    }
    pods = [gen._pod(f"flexible-{i}", mig.NAMESPACE, "mig", "mig-flexible") for i in range(count)]
    return [template, *pods] if count else []


def mig_selector(profile: str) -> Doc:
    return mig.mig_claim_spec(profile)["devices"]["requests"][0]["exactly"]["selectors"][0]


@st.composite
def gpu_fleets(draw: st.DrawFn) -> list[Doc]:
    """H100, A100 and L4 nodes (whole GPUs, MIG partitions, RDMA NICs), a share in use, and runs of pods
    of the workload kinds: one GPU, a pair on one PCIe root, a 1g MIG partition, a GPU and a NIC."""
    cluster = gen.generate(draw(st.integers(2, 8)), seed=draw(st.integers(0, 99)), busy=0.3)
    pods: list[Doc] = []
    for kind in draw(st.lists(st.sampled_from(gen.KINDS), min_size=1, max_size=3, unique=True)):
        pods += gen.pods(kind, draw(st.integers(1, 12)))
    return [*cluster.docs, *pods, *configuration(draw(CONFIGURATIONS))]


@quick(40)
@given(mig_fleets(), SEEDS)
def test_mig_fleets_get_the_same_solution_with_reuse_and_without(docs: list[Doc], seed: int | None) -> None:
    same_either_way(docs, seed)


@quick(30)
@given(gpu_fleets(), SEEDS)
def test_mixed_gpu_workloads_get_the_same_solution_with_reuse_and_without(
    docs: list[Doc], seed: int | None
) -> None:
    same_either_way(docs, seed)


@quick(80)
@given(clusters())
def test_small_clusters_with_affinity_spreading_and_preemption_get_the_same_solution(
    model: ClusterModel,
) -> None:
    same_either_way(model.docs())


# --- cases ------------------------------------------------------------------------------------------------


def one_gpu_nodes(count: int) -> list[Doc]:
    """`count` A100 nodes with one GPU each, none in use."""
    return mig.mig_cluster(count, 1, seed=1)


def test_an_identical_pod_after_a_placement_sees_the_node_as_the_placement_left_it() -> None:
    # Two pods each asking for a whole GPU, one node with one GPU: the second's verdict on that node
    # changed when the first took the GPU, and must not be the first pod's.
    docs = [*one_gpu_nodes(1), *mig.mig_pods(1, 1, 2.0, {"7g.80gb": 1}, seed=1)]
    solution = same_either_way(docs)
    assert [u.status for u in solution.units] == [Status.ALLOCATED, Status.UNSATISFIABLE]
    assert "cannot allocate all claims" in solution.units[1].nodes[0].message


def test_identical_pods_spread_over_identical_nodes_as_each_placement_changes_the_scores() -> None:
    docs = [*one_gpu_nodes(3), *mig.mig_pods(3, 1, 1.0, {"7g.80gb": 1}, seed=1)]
    solution = same_either_way(docs)
    assert sorted(u.node for u in solution.units) == ["gpu-node-001", "gpu-node-002", "gpu-node-003"]


def filter_calls(docs: Sequence[Doc], reuse: bool) -> int:
    """How many times NodeResourcesFit's Filter ran."""
    original = Fit.filter
    calls = 0

    def counted(self: Fit, *args: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(self, *args)

    with mock.patch.object(Fit, "filter", counted):
        solve(docs, reuse)
    return calls


def test_a_node_is_filtered_again_only_once_its_state_changed() -> None:
    # Alike pods on four nodes that hold them all: without reuse every cycle filters every node; with it,
    # the first cycle filters the four and each later one only the node the pod before it went to.
    docs = [*mig.mig_cluster(4, 2, seed=1), *mig.mig_pods(4, 2, 0.16, {"1g.10gb": 1}, seed=1)]
    pods = sum(d["kind"] == "Pod" for d in docs)
    assert filter_calls(docs, False) == 4 * pods
    assert filter_calls(docs, True) == 4 + (pods - 1)
