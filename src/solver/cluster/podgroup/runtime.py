"""How a profile runs the PodGroup cycle's extension points (the framework runtime's RunPlacement*):
PlacementGenerate (several generators: the non-empty intersections of their placements),
PlacementFeasible (the worst verdict wins: an error, then Unschedulable, then Wait), and PlacementScore
(each plugin scores every feasible placement, normalizes if it can, and is weighted)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..framework import Code, Status, error
from ..runtime import Framework
from .info import GroupInfo, Placement, Proposed


def generate(fw: Framework, group: GroupInfo, parent: Placement) -> tuple[list[Placement], Status | None]:
    placements: list[Placement] | None = None
    for plugin in fw.placement_generate:
        made, status = plugin.generate_placements(group, parent)  # type: ignore[attr-defined]
        if status is not None and status.code != Code.SUCCESS:
            if status.code == Code.ERROR:
                return [], error(f'running PlacementGenerate plugin "{plugin.name}": {status.message}')
            return [], status.with_plugin(plugin.name)
        placements = made if placements is None else _intersections(placements, made)
    return ([parent] if placements is None else placements), None


def _intersections(left: list[Placement], right: list[Placement]) -> list[Placement]:
    out = []
    for a in left:
        for b in right:
            names = {n.name for n in b.nodes}
            nodes = tuple(n for n in a.nodes if n.name in names)
            if nodes:
                out.append(Placement("/".join(x for x in (a.name, b.name) if x), nodes))
    return out


def feasible(fw: Framework, group: GroupInfo, scheduled: int, remaining: int) -> Status | None:
    worst: Status | None = None
    for plugin in fw.placement_feasible:
        check = plugin.placement_feasible  # type: ignore[attr-defined]
        status: Status | None = check(group.fact, scheduled, remaining)
        if status is None or status.code == Code.SUCCESS:
            continue
        status = status.with_plugin(plugin.name)
        if status.code == Code.ERROR:
            return status
        if worst is None or (status.code != Code.WAIT and worst.code == Code.WAIT):
            worst = status
    return worst


@dataclass
class PlacementScores:
    placement: Placement
    plugin: dict[str, int] = field(default_factory=dict)  # after normalizing, before the weight
    total: int = 0


def score(
    fw: Framework, group: GroupInfo, candidates: Sequence[tuple[Placement, Sequence[Proposed]]]
) -> tuple[list[PlacementScores], Status | None]:
    out = [PlacementScores(p) for p, _ in candidates]
    for plugin in fw.placement_score:
        raw = [plugin.score_placement(group, p, proposed) for p, proposed in candidates]  # type: ignore[attr-defined]
        normalize = getattr(plugin, "normalize_placement_scores", None)
        if normalize is not None:
            status = normalize(group, raw)
            if status is not None and status.code != Code.SUCCESS:
                return [], error(f'running NormalizePlacementScore plugin "{plugin.name}": {status.message}')
        weight = fw.placement_weights.get(plugin.name, 1)
        for entry, value in zip(out, raw, strict=True):
            entry.plugin[plugin.name] = value
            entry.total += value * weight
    return out, None
