"""`explain` on every scenario that does not allocate (both suites): at least one reason on every node,
and the reasons are minimal — the rule groups behind them cannot hold together, and dropping any one
of them makes the rest satisfiable (checked again here, on a grounding of the node's own facts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kubefit.model.features import ALL_ON
from kubefit.solver import engines
from kubefit.solver.asp.control import Program
from kubefit.solver.asp.facts import gather
from kubefit.solver.explain import Verdict, explain
from kubefit.solver.explain.mus import is_minimal
from kubefit.translate.dra.build import build
from kubefit.translate.loader import load

HERE = Path(__file__).resolve().parent
SUITES = [HERE.parents[1] / "shared" / "scenarios" / "dra", HERE / "scenarios" / "dra"]


def _pending_cases() -> list[Any]:
    out = []
    for suite in SUITES:
        if not suite.is_dir():
            continue
        for case in sorted(p for p in suite.iterdir() if (p / "case.yaml").is_file()):
            spec = yaml.safe_load((case / "case.yaml").read_text(encoding="utf-8"))
            if spec["command"] == "allocate" and not spec["expect"].get("allocated", True):
                out.append(pytest.param(case, id=f"{suite.parent.name}/{case.name}"))
    return out


@pytest.mark.parametrize("case_dir", _pending_cases())
def test_every_scenario_that_does_not_allocate_gets_minimal_reasons(case_dir: Path) -> None:
    case = yaml.safe_load((case_dir / "case.yaml").read_text(encoding="utf-8"))
    gates = ALL_ON.with_values(case.get("featureGates") or {})
    built = build(load([str(case_dir / "objects.yaml")]), gates, case["node"], case["claims"])
    solution = engines.get("greedy").solve(built.problem, engines.Budget(1_000_000))
    (unit,) = explain(built, solution)
    assert not unit.fits
    assert unit.nodes, unit
    p = built.problem
    claims = [p.claims[c] for c in p.units[0].claims]
    for node in unit.nodes:
        assert node.reasons, node
        assert node.minimal
        if case["expect"].get("error"):
            assert node.verdict == Verdict.ERROR
            assert any(case["expect"]["error"].lower() in r.message.lower() for r in node.reasons)
        if not node.groups:
            continue
        nf = gather(p, p.views[node.node], claims, p.in_use, built.holders(), first_fit=False, canonical=True)
        program = Program(nf.facts)
        literal = {str(group): lit for lit, group in program.groups.items()}
        assert is_minimal(program, [literal[g] for g in node.groups]), node.groups
