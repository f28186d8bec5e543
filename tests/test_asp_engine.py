"""The asp engine beyond the scenarios: its registry entry, the time limit, nodes of one shape solved once,
amounts too large for clingo's integers, and first-fit answers identical to greedy's on cases where
the order matters."""

from __future__ import annotations

import time
from fractions import Fraction

from cpsat_support import greedy, picks, same_answer
from problem_strategies import (
    cap,
    claim,
    device,
    exact,
    first_available,
    node_view,
    problem,
    slot,
    string,
    uses,
)

from kubefit.model.problem import Constraint, InUse, Unit
from kubefit.model.solution import Status
from kubefit.solver import engines
from kubefit.solver.asp import AspEngine
from kubefit.solver.asp.search import Cache, search_node
from kubefit.solver.engines import Budget
from kubefit.solver.validate import validate


def test_asp_is_registered_and_supports_every_feature() -> None:
    engine = engines.get("asp")
    assert engine.name == "asp"
    assert engine.supports() == engines.ENGINE_FEATURES


def test_a_search_that_outlives_its_deadline_is_unknown_never_unsatisfiable() -> None:
    # 15 devices with pairwise different values among 14: a pigeonhole, hard for any SAT search.
    devices = [device(i, attrs={"driver-a/v": string(f"v{i % 14}")}) for i in range(40)]
    c = claim(0, exact(count=15), constraints=[Constraint("distinct", "driver-a/v")])
    p = problem(devices, [c])
    start = time.monotonic()
    answer = search_node(Cache(), p, p.units[0], p.views["node-1"], [c], p.in_use, Budget(), start + 0.3)
    assert answer.status == Status.UNKNOWN
    assert time.monotonic() - start < 5


def test_nodes_of_the_same_shape_are_solved_once() -> None:
    views = []
    devices = []
    for n in range(4):
        ds = [device(2 * n + i, pool=f"pool-{n}", node=f"node-{n}") for i in range(2)]
        devices += ds
        views.append(node_view(ds, node=f"node-{n}"))
    c = claim(0, exact(count=3))
    p = problem(
        devices,
        [c],
        views=views,
        units=(Unit(0, "pod-0", (0,), tuple(v.node for v in views)),),
    )
    engine = AspEngine()
    answer = engine.solve(p)
    assert answer.units[0].status == Status.UNSATISFIABLE
    assert engine.cache.solves == 1
    assert same_answer(answer, greedy(p))


def test_counters_beyond_clingos_integers_are_compared_exactly() -> None:
    huge = 10**19
    devices = [device(i, consumes=[uses("cs", mem=amount)]) for i, amount in enumerate((huge, huge - 1, 1))]
    c = claim(0, exact(count=2))
    view = node_view(devices, counter_sets={"cs": {"mem": Fraction(huge)}})
    p = problem(devices, [c], views=[view])
    answer = AspEngine().solve(p)
    assert validate(p, answer) == []
    assert picks(answer) == [(0, "req-0", 1), (0, "req-0", 2)]
    assert same_answer(answer, greedy(p))


def test_shares_beyond_clingos_integers_are_compared_exactly() -> None:
    huge = 10**19
    shared = device(0, multi=True, capacity={"bw": cap(huge + 2)})
    c0 = claim(
        0,
        exact("a", capacity_requests={"bw": Fraction(huge)}),
        exact("b", capacity_requests={"bw": Fraction(2)}),
    )
    c1 = claim(
        0,
        exact("a", capacity_requests={"bw": Fraction(huge)}),
        exact("b", capacity_requests={"bw": Fraction(3)}),
    )
    for c, status in ((c0, Status.ALLOCATED), (c1, Status.UNSATISFIABLE)):
        p = problem([shared], [c])
        answer = AspEngine().solve(p)
        assert answer.units[0].status == status
        assert same_answer(answer, greedy(p))


def test_a_later_claims_failure_switches_an_earlier_claims_alternative() -> None:
    """First-fit over several claims: claim 0 prefers device 0, but claim 1 can only use device 0."""
    devices = [device(0), device(1)]
    c0 = claim(0, first_available("req-0", slot("first"), slot("second")))
    c1 = claim(1, exact())
    p = problem(
        devices,
        [c0, c1],
        selectable={((0, 0, 0), 1): False, ((1, 0, 0), 1): False},
    )
    answer = AspEngine().solve(p)
    assert answer.units[0].status == Status.ALLOCATED
    assert picks(answer) == [(0, "req-0/second", 1), (1, "req-0", 0)]
    assert same_answer(answer, greedy(p))


def test_an_error_the_first_fit_search_meets_first_is_the_answer() -> None:
    """A CEL error on the second device: greedy (the scheduler's order) meets it only when the first
    device is taken, so asp answers with the error exactly then."""
    devices = [device(0), device(1)]
    error = "claim default/claim-0: selector #0 on device driver-a/pool-1/device-1: CEL runtime error: boom"
    for held, expected in ((frozenset(), Status.ALLOCATED), (frozenset({devices[0].ref}), Status.ERROR)):
        p = problem(devices, [claim(0)], selectable={((0, 0, 0), 1): error}, in_use=InUse(held))
        answer = AspEngine().solve(p)
        assert answer.units[0].status == expected
        assert same_answer(answer, greedy(p))
