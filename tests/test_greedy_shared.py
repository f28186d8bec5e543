"""The greedy allocator's search with what it shares across searches of one Problem (solver/greedy/
shared.py: counters left per pool and set of allocated devices, capacity fits per device shape) and its
counter check that looks only at the counters a device draws on: the answers are the allocator's, search
after search on one Problem as the in-use state changes.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from problem_strategies import claim, device, exact, node_view, problem

from kubefit.model.problem import Capacity, CounterUse, InUse, Problem
from kubefit.model.solution import Status
from kubefit.solver.engines import Budget
from kubefit.solver.greedy import search_node
from kubefit.solver.units import NodeAnswer


def search(p: Problem, in_use: InUse | None = None) -> NodeAnswer:
    unit = p.units[0]
    return search_node(
        p, unit, p.views["node-1"], [p.claims[c] for c in unit.claims], in_use or p.in_use, Budget()
    )


def chosen(answer: NodeAnswer) -> list[int]:
    return [r.device for a in answer.allocations for r in a.results]


def draws(*uses: tuple[str, dict[str, int]]) -> list[CounterUse]:
    return [CounterUse(name, {c: Fraction(v) for c, v in counters.items()}) for name, counters in uses]


def in_use(*refs: str) -> InUse:
    return InUse(exclusive=frozenset(refs))


# Two GPUs' worth of counters in one pool: device 0 is the whole of gpu-0, devices 1 and 2 halves of gpu-0,
# device 3 half of gpu-1.
SETS = {"gpu-0": {"memory": Fraction(2)}, "gpu-1": {"memory": Fraction(2)}}
GPUS = [
    device(0, consumes=draws(("gpu-0", {"memory": 2}))),
    device(1, consumes=draws(("gpu-0", {"memory": 1}))),
    device(2, consumes=draws(("gpu-0", {"memory": 1}))),
    device(3, consumes=draws(("gpu-1", {"memory": 1}))),
]


def gpus_problem(count: int = 1) -> Problem:
    """A claim for `count` of the GPU partitions."""
    return problem(GPUS, [claim(0, exact(count=count))], views=[node_view(GPUS, counter_sets=SETS)])


CASES = [
    pytest.param([], 1, [0], id="with nothing in use the first device that fits wins"),
    pytest.param(["driver-a/pool-1/device-1"], 1, [2], id="a half in use leaves the whole gpu out"),
    pytest.param(["driver-a/pool-1/device-0"], 1, [3], id="the whole of one gpu in use leaves the other"),
    pytest.param([], 2, [0, 3], id="after the whole of one gpu the second partition is on the other"),
    pytest.param(["driver-a/pool-1/device-3"], 2, [1, 2], id="two halves of one gpu when the other is used"),
    pytest.param(["driver-a/pool-1/device-3"], 3, None, id="three partitions do not fit in what is left"),
]


@pytest.mark.parametrize(("used", "count", "expected"), CASES)
def test_counters_decide_which_partitions_fit(
    used: list[str], count: int, expected: list[int] | None
) -> None:
    answer = search(gpus_problem(count), in_use(*used))
    if expected is None:
        assert answer.status == Status.UNSATISFIABLE
    else:
        assert answer.status == Status.ALLOCATED
        assert chosen(answer) == expected


def test_one_problem_answers_each_in_use_state_as_it_stands() -> None:
    # The same searches again and again on one Problem, the in-use state going back and forth: what is
    # kept from one search for the next never leaks into a state it was not worked out for.
    p = gpus_problem()
    states = [
        [],
        ["driver-a/pool-1/device-1"],
        ["driver-a/pool-1/device-0"],
        [],
        ["driver-a/pool-1/device-1"],
    ]
    assert [chosen(search(p, in_use(*refs))) for refs in states] == [[0], [2], [3], [0], [2]]


def test_a_counter_the_device_does_not_draw_on_but_is_exceeded_keeps_the_whole_pool_out() -> None:
    # gpu-1 is overdrawn by what is in use (an inconsistent state the allocator still answers): every
    # device drawing on the pool's counters is refused, gpu-0's too, as the allocator checks every counter.
    overdrawn = [*GPUS, device(4, consumes=draws(("gpu-1", {"memory": 2})))]
    c = claim(0, exact())
    p = problem(overdrawn, [c], views=[node_view(overdrawn, counter_sets=SETS)])
    used = in_use("driver-a/pool-1/device-3", "driver-a/pool-1/device-4")
    assert search(p, used).status == Status.UNSATISFIABLE
    assert chosen(search(p, in_use("driver-a/pool-1/device-4"))) == [0]


def test_a_device_drawing_twice_on_one_counter_set_is_charged_both_times() -> None:
    twice = [device(0, consumes=draws(("gpu-0", {"memory": 1}), ("gpu-0", {"memory": 1}))), *GPUS[1:3]]
    c = claim(0, exact(count=2))
    p = problem(twice, [c], views=[node_view(twice, counter_sets=SETS)])
    # Device 0 takes all of gpu-0's memory: with it, no half fits; the two halves do.
    assert chosen(search(p)) == [1, 2]


def test_capacity_errors_name_the_claim_that_meets_them_on_devices_of_one_shape() -> None:
    # Devices publishing the same capacity share the answer of whether a request fits; the error still
    # names the claim and request at hand.
    memory = {"memory": Capacity(Fraction(4))}
    same = [device(0, capacity=memory), device(1, capacity=memory)]
    requests = {"memory": Fraction(1), "driver-a/memory": Fraction(1)}
    first = claim(0, exact("first", capacity_requests=requests), name="one")
    second = claim(0, exact("second", capacity_requests=requests), name="two")
    for c in (first, second):
        p = problem(same, [c])
        answer = search(p)
        assert answer.status == Status.ERROR
        assert answer.message.startswith(f"claim default/{c.name}, request {c.requests[0].name}: ")
