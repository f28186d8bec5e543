"""Node engines by name. Every engine answers the same question (which pods the kubelet admits,
with which CPUs, NUMA nodes and memory); an unknown name is an explicit error."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol

from ...model.errors import KubefitError
from ...model.node.problem import NodeProblem
from ...model.node.solution import NodeSolution


class NodeEngine(Protocol):
    name: str

    def admit(self, problem: NodeProblem) -> NodeSolution: ...


_ENGINES: dict[str, str] = {
    "greedy": "kubefit.solver.node.greedy:GreedyNodeEngine",
    "cpsat": "kubefit.solver.node.cpsat:CpsatNodeEngine",
    "asp": "kubefit.solver.node.asp:AspNodeEngine",
}


def names() -> list[str]:
    return sorted(_ENGINES)


def get(name: str, **options: Any) -> NodeEngine:
    """The engine `name`; `options` go to engines that take them (cpsat, asp: time_limit)."""
    target = _ENGINES.get(name)
    if target is None:
        raise KubefitError(f"unknown engine {name!r} (available for admit: {', '.join(names())})")
    module, _, attr = target.partition(":")
    factory: Callable[..., NodeEngine] = getattr(importlib.import_module(module), attr)
    return factory(**options) if options else factory()
