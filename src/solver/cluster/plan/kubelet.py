"""Kubelet admission on the nodes whose kubelet the input describes (a NodeTopology, and its
KubeletConfiguration): the planned pods, bound there with their claims allocated, go through the
kubelet's CPU, memory and topology managers (the `admit` verb's own code), in order after the pods
already running. A node that rejects some planned pod gets a cut in the model (not all of these pods
together) and the plan is solved again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....model.solution import Solution, Status, UnitOutcome
from ....output import to_yaml
from ....translate.loader import load_text
from ....translate.node.build import StateFiles
from ....translate.node.build import build as node_build
from ....translate.objects import ObjectSet
from ... import registry
from .decode import Placement


def kubelet_nodes(built: Any) -> set[str]:
    return {o.name for o in built.objects.of_kind("NodeTopology") if o.name in built.problem.nodes}


def rejections(built: Any, placements: Mapping[int, Placement], nodes: set[str]) -> dict[int, str]:
    """Planned pods the kubelet of their node rejects: unit -> the kubelet's reason and message."""
    from ....app.render import render_list

    targets = {p.node for p in placements.values()} & nodes
    if not targets:
        return {}
    problem = built.problem
    outcomes = tuple(
        UnitOutcome(u.id, Status.ALLOCATED, placements[u.id].node, placements[u.id].allocations)
        if u.id in placements
        else UnitOutcome(u.id, Status.UNSATISFIABLE)
        for u in problem.units
    )
    rendered = load_text(to_yaml(render_list(built, Solution("plan", outcomes))), "<plan>")
    objects = _merged(built.objects, rendered)
    unit_of = {u.pod: u.id for u in problem.units if u.pod}
    out: dict[int, str] = {}
    engine = registry.node("greedy")
    for node in sorted(targets):
        solution = engine.admit(node_build(objects, built.gates, node, None, StateFiles(None, None)))
        for admission in solution.reported:
            unit = unit_of.get(f"{admission.pod.namespace}/{admission.pod.name}")
            if (
                unit is not None
                and not admission.admitted
                and unit in placements
                and placements[unit].node == node
            ):
                out[unit] = f"{admission.reason}: {admission.message}"
    return out


def _merged(objects: ObjectSet, rendered: ObjectSet) -> ObjectSet:
    """The input with its Pods and ResourceClaims replaced by the plan's (bound, allocated) versions."""
    replaced = {(o.kind, o.namespace, o.name) for o in rendered if o.kind in ("Pod", "ResourceClaim")}
    kept = [o for o in objects if (o.kind, o.namespace, o.name) not in replaced]
    return ObjectSet([*kept, *(o for o in rendered if o.kind in ("Pod", "ResourceClaim"))])
