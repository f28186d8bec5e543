"""`allocatable` per partition type is the true maximum: what a brute force over every set of the type's
devices finds, each set judged by the solution validator (an allocator-independent check of counters,
compatibility groups, taints and what is in use)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from problem_strategies import ALL_FEATURES, claim, device, exact, pool_of, string, uses

from kubefit.model.problem import Capacity, Device, InUse, Node, NodeView, PoolView, Problem, Unit
from kubefit.model.solution import ClaimAllocation, DeviceResult, Solution, Status, UnitOutcome
from kubefit.model.terms import Taint
from kubefit.solver.pools.allocatable import Solver
from kubefit.solver.validate import validate

PROFILE = "driver-a/profile"

# --- the oracle ------------------------------------------------------------------------------------------


def can_allocate(problem: Problem, pool: PoolView, chosen: Sequence[int]) -> bool:
    """Whether one claim asking for exactly `chosen` would pass the validator on top of what is in use."""
    if not chosen:
        return True
    ask = replace(
        problem,
        claims=(claim(0, exact(count=len(chosen))),),
        units=(Unit(0, "pod-0", (0,), ("node-1",)),),
        views={"node-1": NodeView("node-1", (pool,))},
        nodes={"node-1": Node("node-1", {})},
        selectable={((0, 0, 0), d.id): True for d in problem.devices},
    )
    results = []
    for d in chosen:
        multi = problem.devices[d].allow_multiple_allocations
        consumed = {k: v.value for k, v in problem.devices[d].capacity.items()} if multi else None
        results.append(DeviceResult((0, 0, 0), "req-0", d, shared=multi, consumed_capacity=consumed))
    allocation = ClaimAllocation(0, "node-1", tuple(results))
    solution = Solution("brute-force", (UnitOutcome(0, Status.ALLOCATED, "node-1", (allocation,)),))
    return not validate(ask, solution)


def brute_force(problem: Problem, pool: PoolView, devices: Sequence[int]) -> int:
    for size in range(len(devices), 0, -1):
        if any(can_allocate(problem, pool, chosen) for chosen in combinations(devices, size)):
            return size
    return 0


def of_type(problem: Problem, kind: str) -> list[int]:
    return [d.id for d in problem.devices if d.attributes[PROFILE].values == (kind,)]


def check_exact(problem: Problem, pool: PoolView, kind: str) -> int:
    """The answer for one type, after checking it against the brute force and its witness."""
    devices = of_type(problem, kind)
    answer = Solver(problem).most(pool, devices)
    assert answer.count == brute_force(problem, pool, devices)
    assert set(answer.devices) <= set(devices) and len(answer.devices) == answer.count
    assert can_allocate(problem, pool, answer.devices)
    return answer.count


def pool_problem(devices: Sequence[Device], counters: dict[str, dict[str, int]], **kw: object) -> Problem:
    in_use = kw.pop("in_use", InUse())
    features = kw.pop("features", ALL_FEATURES)
    pool = pool_of(
        devices, counter_sets={s: {c: Fraction(v) for c, v in cs.items()} for s, cs in counters.items()}
    )
    return Problem(
        nodes={"node-1": Node("node-1", {})},
        devices=tuple(devices),
        views={"node-1": NodeView("node-1", (pool,))},
        claims=(),
        units=(),
        in_use=in_use,  # type: ignore[arg-type]
        selectable={},
        features=frozenset(features),  # type: ignore[arg-type]
    )


def the_pool(problem: Problem) -> PoolView:
    return problem.views["node-1"].pools[0]


# --- A100 MIG partitions -----------------------------------------------------------------------------------

# (profile, multiprocessors, placement starts, memory slices), as an A100-80GB publishes them
MIG = [
    ("1g.10gb", 14, range(7), 1),
    ("2g.20gb", 28, (0, 2, 4), 2),
    ("3g.40gb", 42, (0, 4), 4),
    ("4g.40gb", 56, (0,), 4),
    ("7g.80gb", 98, (0,), 8),
]


def a100(gpus: int = 1) -> tuple[list[Device], dict[str, dict[str, int]]]:
    devices: list[Device] = []
    counters = {}
    for g in range(gpus):
        counter_set = f"gpu-{g}-counter-set"
        counters[counter_set] = {"multiprocessors": 98, **{f"memory-slice-{s}": 1 for s in range(8)}}
        for profile, mps, starts, size in MIG:
            for start in starts:
                slices = {f"memory-slice-{s}": 1 for s in range(start, start + size)}
                devices.append(
                    device(
                        len(devices),
                        name=f"gpu-{g}-mig-{profile}-{start}",
                        attrs={PROFILE: string(profile)},
                        consumes=[uses(counter_set, multiprocessors=mps, **slices)],
                    )
                )
    return devices, counters


def busy(devices: Sequence[Device], *names: str) -> InUse:
    by_name = {d.name: d.ref for d in devices}
    return InUse(frozenset(by_name[n] for n in names))


def free_counter_estimate(problem: Problem, kind: str) -> int:
    """What "how many fit in the free counters" says for one GPU: the tightest counter, summed over
    nothing else (a per-profile estimate that ignores where the free memory slices are)."""
    device_ = problem.devices[of_type(problem, kind)[0]]
    (use,) = device_.consumes
    pool = the_pool(problem)
    left = dict(pool.counter_sets[use.counter_set])
    for d in problem.devices:
        if problem.in_use.allocated(d.ref):
            for counter, value in d.consumes[0].counters.items():
                left[counter] -= value
    memory = sum(v for c, v in left.items() if c.startswith("memory-slice"))
    slices = sum(v for c, v in use.counters.items() if c.startswith("memory-slice"))
    return int(min(memory // slices, left["multiprocessors"] // use.counters["multiprocessors"]))


def test_fragmented_memory_slices_leave_fewer_partitions_than_the_free_counters_suggest() -> None:
    devices, counters = a100()
    # Two 1g.10gb partitions at memory slices 2 and 5: six slices and 70 multiprocessors are free.
    problem = pool_problem(
        devices, counters, in_use=busy(devices, "gpu-0-mig-1g.10gb-2", "gpu-0-mig-1g.10gb-5")
    )
    pool = the_pool(problem)
    assert free_counter_estimate(problem, "2g.20gb") == 2
    assert check_exact(problem, pool, "2g.20gb") == 1  # only slices 0-1 are a free 2g placement
    assert free_counter_estimate(problem, "3g.40gb") == 1
    assert check_exact(problem, pool, "3g.40gb") == 0  # both 3g placements hold a used slice
    assert check_exact(problem, pool, "1g.10gb") == 5
    assert check_exact(problem, pool, "4g.40gb") == 0


@pytest.mark.parametrize(
    ("case", "in_use", "expected"),
    [
        ("a fresh GPU fits every placement of a profile", (), {"1g.10gb": 7, "2g.20gb": 3, "3g.40gb": 2}),
        (
            "a 3g.40gb at slice 0 leaves the upper half",
            ("3g.40gb-0",),
            {"1g.10gb": 3, "2g.20gb": 1, "3g.40gb": 1},
        ),
        ("a 4g.40gb leaves 42 multiprocessors: one 3g.40gb", ("4g.40gb-0",), {"1g.10gb": 3, "3g.40gb": 1}),
        ("the whole-GPU partition leaves nothing", ("7g.80gb-0",), {"1g.10gb": 0, "7g.80gb": 0}),
        ("a 1g.10gb at slice 6 blocks the upper 3g.40gb", ("1g.10gb-6",), {"3g.40gb": 1, "2g.20gb": 3}),
    ],
)
def test_a100_profiles(case: str, in_use: tuple[str, ...], expected: dict[str, int]) -> None:
    devices, counters = a100()
    problem = pool_problem(devices, counters, in_use=busy(devices, *(f"gpu-0-mig-{n}" for n in in_use)))
    assert {kind: check_exact(problem, the_pool(problem), kind) for kind in expected} == expected, case


def test_two_gpus_add_up() -> None:
    devices, counters = a100(2)
    problem = pool_problem(
        devices, counters, in_use=busy(devices, "gpu-0-mig-3g.40gb-0", "gpu-1-mig-1g.10gb-0")
    )
    answer = Solver(problem).most(the_pool(problem), of_type(problem, "3g.40gb"))
    assert answer.count == 2  # gpu-0's upper half, and gpu-1's upper half (slice 0 is taken)
    names = [problem.devices[d].name for d in answer.devices]
    assert names == ["gpu-0-mig-3g.40gb-4", "gpu-1-mig-3g.40gb-4"]


def test_upstream_first_fit_count_is_beaten_when_placements_overlap_out_of_order() -> None:
    # Three partitions of one type over memory slices {1,2}, {0,1}, {2,3}: taking the first one that
    # fits (as the controller's estimate does) keeps one; the second and third fit together.
    slices = [(1, 2), (0, 1), (2, 3)]
    devices = [
        device(i, attrs={PROFILE: string("half")}, consumes=[uses("cs", **{f"s{s}": 1 for s in pair})])
        for i, pair in enumerate(slices)
    ]
    problem = pool_problem(devices, {"cs": {f"s{s}": 1 for s in range(4)}})
    assert check_exact(problem, the_pool(problem), "half") == 2


def test_an_overdrawn_counter_blocks_every_partition_of_the_pool() -> None:
    # Allocated devices have drawn more than the counter set has (allowed: negative means exhausted); the
    # allocator re-checks every counter of the pool for each new device, even one that does not draw on it.
    devices = [
        device(0, attrs={PROFILE: string("big")}, consumes=[uses("cs-0", mem=3)]),
        device(1, attrs={PROFILE: string("big")}, consumes=[uses("cs-0", mem=3)]),
        device(2, attrs={PROFILE: string("other")}, consumes=[uses("cs-1", mem=1)]),
    ]
    problem = pool_problem(
        devices, {"cs-0": {"mem": 4}, "cs-1": {"mem": 4}}, in_use=busy(devices, "device-0", "device-1")
    )
    assert check_exact(problem, the_pool(problem), "other") == 0


def test_untolerated_taints_keep_partitions_out_and_effect_none_does_not() -> None:
    devices, counters = a100()
    devices = [
        replace(d, taints=(Taint("example.com/broken", "", "NoExecute"),))
        if d.name.endswith("1g.10gb-0")
        else d
        for d in devices
    ]
    devices = [
        replace(d, taints=(Taint("example.com/note", "x", "None"),)) if d.name.endswith("1g.10gb-1") else d
        for d in devices
    ]
    problem = pool_problem(devices, counters)
    assert check_exact(problem, the_pool(problem), "1g.10gb") == 6


def test_compatibility_groups_of_allocated_peers_decide_who_may_join() -> None:
    # An allocated "training" partition narrows counter set cs to its group: only devices sharing a group
    # with it may join, and those taken together must share one too.
    def dev(i: int, groups: tuple[str, ...]) -> Device:
        return device(i, attrs={PROFILE: string("slice")}, consumes=[uses("cs", groups, mem=1)])

    devices = [
        dev(0, ("training", "batch")),
        dev(1, ("training",)),
        dev(2, ("batch",)),
        dev(3, ("inference",)),
        dev(4, ("training",)),
    ]
    problem = pool_problem(devices, {"cs": {"mem": 8}}, in_use=busy(devices, "device-0"))
    assert check_exact(problem, the_pool(problem), "slice") == 2  # devices 1 and 4 (both "training")


def test_multi_allocatable_partitions_count_once_they_are_free() -> None:
    # A shared partition with a live share is not an additional device; the free one is.
    devices = [
        device(
            i,
            attrs={PROFILE: string("shared")},
            consumes=[uses("cs", mem=2)],
            multi=True,
            capacity={"driver-a/memory": Capacity(Fraction(40))},
        )
        for i in range(3)
    ]
    held = InUse(
        frozenset(), {devices[0].ref: {"driver-a/memory": Fraction(10)}}, frozenset({devices[0].ref})
    )
    problem = pool_problem(devices, {"cs": {"mem": 4}}, in_use=held)
    assert check_exact(problem, the_pool(problem), "shared") == 1


def test_identical_gpus_are_solved_once() -> None:
    devices, counters = a100(4)
    in_use = busy(
        devices, *(f"gpu-{g}-mig-1g.10gb-2" for g in range(4)), *(f"gpu-{g}-mig-1g.10gb-5" for g in range(4))
    )
    problem = pool_problem(devices, counters, in_use=in_use)
    solver = Solver(problem)
    assert solver.most(the_pool(problem), of_type(problem, "2g.20gb")).count == 4
    assert len(solver.solved) == 1


# --- random small partitionable pools ------------------------------------------------------------------------


@st.composite
def partitionable_pools(draw: st.DrawFn) -> Problem:
    """One pool: one or two counter sets of a few counters, up to seven devices of two types drawing on
    them (sometimes on both sets, sometimes with compatibility groups), some taints, some allocated."""
    sets = ["cs-0", "cs-1"][: draw(st.integers(1, 2))]
    counters = {s: {f"c{k}": draw(st.integers(1, 6)) for k in range(draw(st.integers(1, 3)))} for s in sets}
    devices = []
    for i in range(draw(st.integers(1, 7))):
        consumes = []
        for s in draw(st.lists(st.sampled_from(sets), min_size=1, max_size=len(sets), unique=True)):
            amounts = {c: draw(st.integers(0, 3)) for c in counters[s] if draw(st.booleans())}
            groups = draw(st.sampled_from([(), (), ("g1",), ("g2",), ("g1", "g2")]))
            consumes.append(uses(s, groups, **amounts))
        effect = draw(st.sampled_from(["", "", "", "None", "NoSchedule", "NoExecute"]))
        devices.append(
            device(
                i,
                attrs={PROFILE: string(draw(st.sampled_from(["a", "b"])))},
                consumes=consumes,
                taints=[Taint("t", "", effect)] if effect else [],
            )
        )
    allocated = [d for d in devices if draw(st.integers(0, 4)) == 0]
    # What is allocated got there through the allocator: its devices on one counter set are compatible.
    for s in sets:
        groups = [frozenset(u.groups) for d in allocated for u in d.consumes if u.counter_set == s]
        assume(all(not g for g in groups) or (all(groups) and frozenset.intersection(*groups)))
    return pool_problem(devices, counters, in_use=InUse(frozenset(d.ref for d in allocated)))


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(partitionable_pools())
def test_allocatable_equals_the_brute_force_maximum_on_small_random_pools(problem: Problem) -> None:
    for kind in ("a", "b"):
        check_exact(problem, the_pool(problem), kind)


@st.composite
def used_a100s(draw: st.DrawFn) -> Problem:
    """An A100 with some MIG partitions running: a random order of placements, each kept when it still
    fits beside the ones kept before (as the allocator would have placed them)."""
    devices, counters = a100()
    order = draw(st.permutations(range(len(devices))))
    left = {s: dict(c) for s, c in counters.items()}
    running = []
    for i in order[: draw(st.integers(0, len(devices)))]:
        (use,) = devices[i].consumes
        if all(left[use.counter_set][c] >= v for c, v in use.counters.items()):
            for c, v in use.counters.items():
                left[use.counter_set][c] -= int(v)
            running.append(devices[i].name)
    return pool_problem(devices, counters, in_use=busy(devices, *running))


@settings(max_examples=50, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(used_a100s())
def test_allocatable_per_mig_profile_equals_the_brute_force_on_used_a100s(problem: Problem) -> None:
    for profile, *_ in MIG:
        check_exact(problem, the_pool(problem), profile)


def test_nothing_is_allocatable_from_an_incomplete_pool() -> None:
    devices, counters = a100()
    problem = pool_problem(devices, counters)
    incomplete = replace(the_pool(problem), state="incomplete")
    assert Solver(problem).most(incomplete, of_type(problem, "1g.10gb")).count == 0
