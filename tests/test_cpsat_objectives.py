"""Objectives beyond first-fit: each prefers its own measure and breaks ties by first-fit."""

from __future__ import annotations

from fractions import Fraction

from cpsat_support import cpsat, picks
from problem_strategies import claim, device, exact, first_available, problem, slot, uses

from kubefit.model.problem import InUse, NodeView, PoolView


def gpus(*draws: tuple[str, int], allocated: tuple[int, ...] = ()) -> tuple[list, list[NodeView], InUse]:
    """Partitions of two GPUs (counter sets gpu-0 and gpu-1, 8 units each); `allocated` devices are in use."""
    devices = [device(i, consumes=[uses(gpu, mem=m)]) for i, (gpu, m) in enumerate(draws)]
    counters = {"gpu-0": {"mem": Fraction(8)}, "gpu-1": {"mem": Fraction(8)}}
    ids = tuple(d.id for d in devices)
    view = NodeView(
        "node-1",
        (
            PoolView(
                "driver-a", "pool-1", "complete", 1, devices=ids, counter_sets=counters, counter_devices=ids
            ),
        ),
    )
    return devices, [view], InUse(frozenset(devices[i].ref for i in allocated))


def test_pack_fills_an_opened_gpu_before_opening_another() -> None:
    devices, views, held = gpus(("gpu-1", 2), ("gpu-0", 2), ("gpu-0", 2), allocated=(2,))
    p = problem(devices, [claim(0)], views=views, in_use=held)
    assert picks(cpsat(p)) == [(0, "req-0", 0)]
    answer = cpsat(p, objective="pack")
    assert picks(answer) == [(0, "req-0", 1)]
    assert answer.units[0].proof == "optimal"


def test_spread_puts_partitions_on_different_gpus() -> None:
    devices, views, held = gpus(("gpu-0", 2), ("gpu-0", 2), ("gpu-1", 2))
    p = problem(devices, [claim(0, exact(count=2))], views=views, in_use=held)
    assert picks(cpsat(p)) == [(0, "req-0", 0), (0, "req-0", 1)]
    assert picks(cpsat(p, objective="spread")) == [(0, "req-0", 0), (0, "req-0", 2)]


def test_prefer_lower_alternatives_minimizes_the_sum_of_chosen_indexes() -> None:
    c = claim(
        0,
        first_available("req-0", slot("two", count=2), slot("one")),
        first_available("req-1", slot("two", count=2), slot("two-again", count=2), slot("one")),
    )
    p = problem([device(i) for i in range(3)], [c])
    assert cpsat(p).units[0].allocations[0].chosen == {0: 0, 1: 2}
    assert cpsat(p, objective="prefer-lower-alternatives").units[0].allocations[0].chosen == {0: 1, 1: 0}


def test_ties_are_broken_by_first_fit_so_the_answer_is_unique() -> None:
    devices, views, held = gpus(("gpu-0", 2), ("gpu-0", 2), ("gpu-1", 2), ("gpu-1", 2))
    p = problem(devices, [claim(0)], views=views, in_use=held)
    for objective in ("pack", "spread", "prefer-lower-alternatives"):
        assert picks(cpsat(p, objective=objective)) == [(0, "req-0", 0)], objective
