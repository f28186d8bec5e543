"""`kubefit explain`: for every unit that cannot be placed, per node considered, a minimal set of reasons.

Reasons come from the rules (`rules/*.lp`): every violation has a name, and an explanation enforces the
named groups as assumptions, takes clingo's unsatisfiable core and shrinks it by deletion (`mus`) until
dropping any one reason makes the rest satisfiable. Each group is rendered in Kubernetes terms
(`reasons`), the scheduler's filters before and after DRA are reasons too (`units`), and a summary line
counts nodes by reason (`summary`). Hints say which single relaxation certainly makes a node fit.
Nodes that differ only in names (a fleet's, mostly) share one gathering of facts and the parts of their
reasons that name nothing of their own (`classes`, `memo`).
"""

from __future__ import annotations

from ...model.explain_source import ExplainSource
from ...model.solution import Solution
from .model import Kind, NodeExplanation, Reason, UnitExplanation, Verdict
from .report import document, text
from .units import Explainer, Options

__all__ = [
    "Explainer",
    "Kind",
    "NodeExplanation",
    "Options",
    "Reason",
    "UnitExplanation",
    "Verdict",
    "document",
    "explain",
    "text",
]


def explain(
    source: ExplainSource, solution: Solution, options: Options | None = None
) -> list[UnitExplanation]:
    """Explain the units of `solution` (an engine's answer for `source.problem`)."""
    return Explainer(
        source.problem, solution, source.holders(), source.class_match(), options or Options()
    ).run()
