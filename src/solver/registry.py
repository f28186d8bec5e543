"""The one registry of engines by name (greedy, cpsat, asp). A name stands for one way of searching on
every verb: the DRA engine whose node search the cluster scheduler composes (`allocate`, `explain`), the
kubelet's admission on one node (`admit`), and, where the engine has one, the batch planner (`plan`,
`compare`). Nothing here imports an engine until it is asked for (the command line reads the names
before any input)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model.errors import InputError, KubefitError


@dataclass(frozen=True)
class Registered:
    """What one engine name stands for on each verb (`module:factory`, imported only when asked for)."""

    dra: str
    node: str
    # How the batch planner plans with it: "pass" (kube-scheduler's pass is the plan), "model" (the
    # planner's CP-SAT model, started from that pass), "" (it does not plan); `capacity`: the model also
    # plans how many node copies to add.
    plan: str = ""
    capacity: bool = False
    # The admission engine takes a time limit (the kubelet's own greedy admission needs none).
    node_budget: bool = True


_ENGINES: dict[str, Registered] = {
    # kube-scheduler's own placement, one pod at a time, is the greedy plan.
    "greedy": Registered(
        "kubefit.solver.greedy:GreedyEngine",
        "kubefit.solver.node.greedy:GreedyNodeEngine",
        plan="pass",
        node_budget=False,
    ),
    "cpsat": Registered(
        "kubefit.solver.cpsat:CpsatEngine",
        "kubefit.solver.node.cpsat:CpsatNodeEngine",
        plan="model",
        capacity=True,
    ),
    "asp": Registered("kubefit.solver.asp:AspEngine", "kubefit.solver.node.asp:AspNodeEngine"),
}


def names() -> list[str]:
    return sorted(_ENGINES)


def factory(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    made: Callable[..., Any] = getattr(importlib.import_module(module), attr)
    return made


def dra(name: str) -> Callable[..., Any]:
    """The factory of the DRA engine `name` (see engines.get)."""
    registered = _ENGINES.get(name)
    if registered is None:
        raise KubefitError(f"unknown engine {name!r} (available: {', '.join(names())})")
    return factory(registered.dra)


def node(name: str, time_limit: float | None = None) -> Any:
    """The kubelet admission engine `name`, with `time_limit` seconds where it takes one (None: the
    engine's default)."""
    registered = _ENGINES.get(name)
    if registered is None:
        raise KubefitError(f"unknown engine {name!r} (available for admit: {', '.join(names())})")
    made = factory(registered.node)
    return made(time_limit=time_limit) if registered.node_budget and time_limit is not None else made()


def plan_names() -> list[str]:
    """The engines the batch planner runs, in the order the command line lists them."""
    return [name for name, registered in _ENGINES.items() if registered.plan]


def planner(name: str) -> str:
    """How the batch planner plans with engine `name` ("pass" or "model", see Registered); an engine that
    does not plan is an error, never a plan made with another engine."""
    registered = _ENGINES.get(name)
    if registered is None or not registered.plan:
        raise KubefitError(f"engine {name!r} does not plan (planning engines: {', '.join(plan_names())})")
    return registered.plan


def plan_pair(text: str) -> list[str]:
    """`compare --engines`: two different planning engines, comma-separated."""
    chosen = [e.strip() for e in text.split(",") if e.strip()]
    unknown = [e for e in chosen if e not in plan_names()]
    if unknown or len(chosen) != 2 or chosen[0] == chosen[1]:
        raise InputError(f"--engines {text}: two of {', '.join(plan_names())}")
    return chosen


def check_capacity(name: str) -> None:
    """Capacity planning (`--node-template`) adds node copies in the planner's model: an engine without
    one (greedy: kube-scheduler's placement) cannot say how many are needed."""
    if not _ENGINES[name].capacity:
        capable = ", ".join(n for n in names() if _ENGINES[n].capacity)
        raise InputError(f"--engine {name}: --node-template plans capacity, which needs --engine {capable}")
