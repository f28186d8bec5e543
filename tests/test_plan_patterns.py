"""The planner's pattern view of interchangeable GPUs (solver/cluster/plan/patterns.py): the patterns of a
GPU cover every set of devices that fits it, and planning by patterns reaches exactly the optimum that
planning every node's devices one by one reaches."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from test_plan import Generated, built_of, gen, mig_docs, mig_pod, planned

from kubefit.solver.cluster.plan.patterns import enumerate_patterns

# A GPU of 8 memory slices: 1g placements at slices 0..6, 3g at 0 and 4, the whole GPU (7g).
SLICES = {f"memory-slice-{i}": Fraction(1) for i in range(8)}


def placement(
    start: int, size: int, key: tuple[int, int]
) -> tuple[dict[str, Fraction], frozenset[tuple[int, int]]]:
    return {f"memory-slice-{i}": Fraction(1) for i in range(start, start + size)}, frozenset({key})


GPU = [
    *(placement(i, 1, (0, 0)) for i in range(7)),
    placement(0, 4, (1, 0)),
    placement(4, 4, (1, 0)),
    placement(0, 8, (2, 0)),
]
KINDS = (frozenset({(0, 0)}), frozenset({(1, 0)}), frozenset({(2, 0)}))


def fits(chosen: tuple[int, ...]) -> bool:
    used: dict[str, Fraction] = {}
    for i in chosen:
        for counter, amount in GPU[i][0].items():
            used[counter] = used.get(counter, Fraction(0)) + amount
    return all(v <= SLICES[c] for c, v in used.items())


def test_every_set_of_devices_that_fits_is_covered_by_some_pattern() -> None:
    patterns = enumerate_patterns(KINDS, GPU, dict(SLICES))
    assert patterns is not None
    vectors = [p.counts for p in patterns]
    for size in range(len(GPU) + 1):
        for chosen in itertools.combinations(range(len(GPU)), size):
            if not fits(chosen):
                continue
            counts = tuple(sum(1 for i in chosen if GPU[i][1] == kind) for kind in KINDS)
            assert any(all(a >= b for a, b in zip(v, counts, strict=True)) for v in vectors), counts


def test_each_pattern_is_maximal_and_its_witness_fits_and_realizes_it() -> None:
    patterns = enumerate_patterns(KINDS, GPU, dict(SLICES))
    assert patterns is not None
    assert sorted(p.counts for p in patterns) == [(0, 0, 1), (0, 2, 0), (4, 1, 0), (7, 0, 0)]
    for p in patterns:
        positions = tuple(i for i, _ in p.witness)
        assert fits(positions)
        assert tuple(sum(1 for _, k in p.witness if k == i) for i in range(len(KINDS))) == p.counts


def test_a_gpu_with_counters_already_drawn_has_only_the_patterns_that_still_fit() -> None:
    left = dict(SLICES)
    left["memory-slice-0"] = Fraction(0)  # a 1g partition runs at slice 0
    patterns = enumerate_patterns(KINDS, GPU, left)
    assert patterns is not None
    assert sorted(p.counts for p in patterns) == [(3, 1, 0), (6, 0, 0)]


def test_too_many_sets_to_look_at_gives_up_rather_than_guess(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubefit.solver.cluster.plan import patterns as module

    monkeypatch.setattr(module, "VISITS", 10)
    assert module.enumerate_patterns(KINDS, GPU, dict(SLICES)) is None


CASES = {
    f"{case.nodes} nodes x {case.gpus} GPUs at load {case.load}, seed {case.seed}, busy {case.busy}": case
    for case in (
        Generated(2, 2, 1.2, gen.DEFAULT_MIX, 1),
        Generated(3, 2, 1.0, gen.DEFAULT_MIX, 2, 0.3),
        Generated(2, 3, 1.1, {"1g.10gb": 4, "3g.40gb": 2, "4g.40gb": 1}, 3),
        Generated(2, 2, 1.1, gen.DEFAULT_MIX, 4, 0.4, 1, {"low": 0, "high": 1000}),
        Generated(3, 1, 0.9, {"2g.20gb": 2, "7g.80gb": 1}, 5),
    )
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_planning_by_patterns_reaches_the_same_optimum_as_planning_each_node(case: Generated) -> None:
    built = built_of(case.docs())
    pooled = planned(built, pooling=True)
    single = planned(built, pooling=False)
    assert (pooled.status, single.status) == ("optimal", "optimal")
    assert pooled.bound == single.bound == len(pooled.placements) == len(single.placements)


def test_a_node_whose_cpu_binds_is_planned_on_its_own_and_its_cpu_holds() -> None:
    # Two GPUs could take 14 1g pods, but the node has cpu for 3 of them: its resources bind, so its
    # devices are not pooled with the other node's, and the plan respects its cpu.
    docs = mig_docs(2, 2, [mig_pod(f"p{i}", "1g.10gb") for i in range(20)])
    for doc in docs:
        if doc["kind"] == "Node" and doc["metadata"]["name"].endswith("001"):
            doc["status"]["allocatable"]["cpu"] = "3"
    built = built_of(docs)
    result = planned(built)
    on_first = sum(1 for p in result.placements.values() if p.node.endswith("001"))
    assert on_first == 3
    assert len(result.placements) == 3 + 14
    assert result.status == "optimal"
