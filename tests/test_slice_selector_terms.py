"""A slice nodeSelector of several terms (API-invalid; kubefit answers with a warning): the allocator
builds an allocation's nodeSelector from its results in order once the search has succeeded, so such a
device fails the whole Allocate call ("create NodeSelector for claim ...") unless a node-local device
comes before it in its claim's results. Every engine answers as the allocator does, and cpsat's and
asp's own models never pick such a device where the allocator could not build the selector."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from cpsat_support import cpsat, greedy, picks, same_answer
from ortools.sat.python import cp_model
from problem_strategies import claim, device, exact, node_view, problem

from kubefit.model.problem import Device, Placement, Problem
from kubefit.model.solution import Solution, Status
from kubefit.model.terms import NodeRequirement, NodeSelectorTerm
from kubefit.solver.asp import AspEngine
from kubefit.solver.cpsat.build import build
from kubefit.solver.cpsat.facts import gather
from kubefit.solver.validate import validate

REGION = NodeSelectorTerm((NodeRequirement("region", "In", ("region-1",)),))
TWO_TERMS = Placement(selector=(REGION, REGION))
MESSAGE = "create NodeSelector for claim claim-0: unsupported ResourceSlice.NodeSelector with 2 terms"


def network(i: int, pool: str) -> Device:
    return replace(device(i, pool=pool), placement=TWO_TERMS)


def local(i: int, pool: str) -> Device:
    return replace(device(i, pool=pool), placement=Placement(node_name="node-1"))


def engines(p: Problem) -> dict[str, Solution]:
    answers = {"greedy": greedy(p), "cpsat": cpsat(p), "asp": AspEngine().solve(p)}
    for name, answer in answers.items():
        assert validate(p, answer) == [], name
    return answers


def test_a_node_local_device_first_pins_the_allocation_and_it_fits() -> None:
    p = problem([local(0, "pool-1"), network(1, "pool-2")], [claim(0, exact(count=2))])
    answers = engines(p)
    for name, answer in answers.items():
        assert answer.units[0].status == Status.ALLOCATED, name
        assert picks(answer) == [(0, "req-0", 0), (0, "req-0", 1)], name


def test_the_device_first_fails_the_allocation_with_upstreams_message() -> None:
    p = problem([network(0, "pool-1"), local(1, "pool-2")], [claim(0, exact(count=2))])
    for name, answer in engines(p).items():
        assert answer.units[0].status == Status.ERROR, name
        assert answer.units[0].message == MESSAGE, name


def test_request_order_decides_not_device_rank() -> None:
    """Results list requests in order: a later request's node-local device comes too late."""
    devices = [local(0, "pool-1"), network(1, "pool-2")]
    only = {((0, 0, 0), 0): False, ((0, 1, 0), 1): False}  # req-0 takes the network device, req-1 the local
    c = claim(0, exact("req-0"), exact("req-1"))
    for name, answer in engines(problem(devices, [c], selectable=only)).items():
        assert answer.units[0].status == Status.ERROR, name
        assert answer.units[0].message == MESSAGE, name
    swapped = {((0, 0, 0), 1): False, ((0, 1, 0), 0): False}
    answers = engines(problem(devices, [c], selectable=swapped))
    for name, answer in answers.items():
        assert picks(answer) == [(0, "req-0", 0), (0, "req-1", 1)], name
    assert same_answer(answers["cpsat"], answers["greedy"])


def test_other_claims_node_local_devices_do_not_count() -> None:
    devices = [local(0, "pool-1"), network(1, "pool-2")]
    only = {((0, 0, 0), 1): False, ((1, 0, 0), 0): False}  # claim-0 takes the local, claim-1 the network
    p = problem(devices, [claim(0), claim(1)], selectable=only)
    for name, answer in engines(p).items():
        assert answer.units[0].status == Status.ERROR, name
        assert answer.units[0].message == MESSAGE.replace("claim-0", "claim-1"), name


def _feasible_with(p: Problem, slot: int, d: int) -> bool:
    """Whether cpsat's model (without greedy's search in front of it) allows the pick."""
    facts = gather(p, node_view(list(p.devices)), list(p.claims), p.in_use)
    assert facts.hazards  # only the scheduler's order decides whether it meets the error first
    nm = build(facts)
    nm.model.add(nm.use[(slot, d)] == 1)
    return cp_model.CpSolver().solve(nm.model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)


@pytest.mark.parametrize(("first", "feasible"), [(network, False), (local, True)])
def test_cpsat_model_needs_a_node_local_pick_before_it(
    first: Callable[[int, str], Device], feasible: bool
) -> None:
    second = local if first is network else network
    devices = [first(0, "pool-1"), second(1, "pool-2")]
    net = 0 if first is network else 1
    assert _feasible_with(problem(devices, [claim(0, exact(count=2))]), 0, net) == feasible


def test_cpsat_model_ignores_other_claims_node_local_picks() -> None:
    devices = [local(0, "pool-1"), network(1, "pool-2")]
    assert not _feasible_with(problem(devices, [claim(0), claim(1)]), 1, 1)
