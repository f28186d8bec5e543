"""explain on random valid Problems (tests/problem_strategies.py): every unit the engine could not place
gets at least one reason on every node, the reasons are minimal, a node explained as fitting is one
where the rules find an allocation, and explanations do not depend on which engine placed the units
before (greedy and asp agree)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from problem_strategies import problems

from kubefit.model.problem import Problem
from kubefit.model.solution import Status
from kubefit.solver.asp import AspEngine
from kubefit.solver.asp.control import Program
from kubefit.solver.asp.facts import gather
from kubefit.solver.engines import Budget
from kubefit.solver.explain import Explainer, Options, Verdict
from kubefit.solver.explain.mus import is_minimal
from kubefit.solver.greedy import GreedyEngine

STEPS = Budget(steps=20_000)


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_units_that_do_not_fit_get_minimal_reasons_on_every_node(p: Problem) -> None:
    solution = GreedyEngine().solve(p, STEPS)
    if any(u.status == Status.UNKNOWN for u in solution.units):
        return
    units = Explainer(p, solution, options=Options(steps=STEPS.steps)).run()
    assert [u.unit for u in units] == [u.unit for u in solution.units]
    again = Explainer(p, AspEngine().solve(p, STEPS), options=Options(steps=STEPS.steps)).run()
    assert [(u.verdict, u.summary) for u in units] == [(u.verdict, u.summary) for u in again]
    for unit, outcome in zip(units, solution.units, strict=True):
        assert unit.fits == (outcome.status == Status.ALLOCATED)
        if unit.fits or unit.reasons:
            continue
        assert len(unit.nodes) == len(p.units[unit.unit].nodes) + len(p.units[unit.unit].excluded)
        for node in unit.nodes:
            assert node.verdict == Verdict.FITS or node.reasons, node
            if not node.groups:
                continue
            assert node.minimal
            claims = [p.claims[c] for c in p.units[unit.unit].claims if not p.claims[c].allocated]
            state_free = unit.unit == 0  # only the first unit meets the input's in-use state as it is
            if state_free:
                nf = gather(p, p.views[node.node], claims, p.in_use, first_fit=False, canonical=True)
                program = Program(nf.facts)
                literal = {str(g): lit for lit, g in program.groups.items()}
                assert is_minimal(program, [literal[g] for g in node.groups]), node.groups
