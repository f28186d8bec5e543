"""Why a pending PodGroup does not fit, placement by placement (topology domain by domain): what the
PodGroup cycle said of each (feasible, or the group's status there: how many of its pods fit against its
minCount), on which of the placement's nodes this pod would fit alone, its reasons on the others, and
what would make the placement fit (room for the pods that are missing, a lower minCount, nodes with the
topology label)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...model.problem import Unit
from ...model.solution import UnitOutcome
from ..result_annotations import NODES_FIT_ERROR
from .model import Kind, NodeExplanation, Reason, Verdict
from .reasons import amount

# GangScheduling's PlacementFeasible statuses, as the cycle reports them.
_CANNOT = re.compile(r"minCount \((\d+)\) cannot be satisfied: (\d+) scheduled, (\d+) remaining")
_NOT_YET = re.compile(r"minCount \((\d+)\) is not yet satisfied: (\d+) scheduled, (\d+) remaining")


@dataclass(frozen=True)
class PlacementExplanation:
    group: str  # podgroup/<namespace>/<name> or compositepodgroup/...
    name: str  # the topology domain ("(all nodes)" without a constraint)
    nodes: tuple[str, ...]
    feasible: bool
    selected: bool = False
    status: str = ""  # the group's status there when infeasible
    fits_on: tuple[str, ...] = ()  # nodes of the placement where this pod fits alone
    reasons: tuple[str, ...] = ()  # this pod's reasons on the others, each once
    hints: tuple[str, ...] = ()
    scores: Mapping[str, int] | None = None
    total: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"group": self.group, "placement": self.name, "nodes": list(self.nodes)}
        out["feasible"] = self.feasible
        if self.selected:
            out["selected"] = True
        if self.status:
            out["status"] = self.status
        if self.scores:
            out["scores"] = dict(self.scores)
        if self.total is not None:
            out["total"] = self.total
        out["podFitsOn"] = list(self.fits_on)
        if self.reasons:
            out["reasons"] = list(self.reasons)
        if self.hints:
            out["hints"] = list(self.hints)
        return out

    def text(self) -> list[str]:
        head = f"  placement {self.name} of {self.group}"
        if self.feasible:
            chosen = ", chosen" if self.selected else ""
            score = f" (placement score {self.total})" if self.total is not None else ""
            return [f"{head}: the group fits{score}{chosen}"]
        lines = [f"{head} ({len(self.nodes)} node{'s' if len(self.nodes) != 1 else ''}): {self.status}"]
        shown = ", ".join(self.fits_on[:6]) + (
            f" and {len(self.fits_on) - 6} more" if len(self.fits_on) > 6 else ""
        )
        lines.append(
            f"    this pod alone fits on {shown}"
            if self.fits_on
            else "    this pod alone fits on none of them"
        )
        lines += [f"    - {r}" for r in self.reasons]
        lines += [f"    hint: {h}" for h in self.hints]
        return lines


def group_refusal(unit: Unit, outcome: UnitOutcome) -> Reason | None:
    """The pod could run, its PodGroup could not: the cycle's status is the pod's reason on every node
    where it fits alone."""
    record = outcome.record
    group = getattr(record, "pod_group", "")
    if not group or NODES_FIT_ERROR.match(outcome.message):
        return None
    return Reason(
        f"podgroup/{group}",
        Kind.POD_GROUP,
        outcome.message,
        f"wait for the rest of pod group {group}",
        {"podGroup": group},
        {"minCount": unit.gang.min_count} if unit.gang is not None else {},
    )


def placements_of(
    unit: Unit, outcome: UnitOutcome, nodes: Sequence[NodeExplanation]
) -> tuple[PlacementExplanation, ...]:
    record = outcome.record
    placements = getattr(record, "placements", None)
    if not placements:
        return ()
    by_node = {n.node: n for n in nodes}
    requests = {r: v for r, v in unit.requests.items() if r != "pods"}
    out: list[PlacementExplanation] = []
    for group, records in placements.items():
        for r in records:
            if r.feasible:
                out.append(
                    PlacementExplanation(
                        group, r.name, r.nodes, True, r.selected, scores=r.scores or None, total=r.total
                    )
                )
                continue
            fits = tuple(n for n in r.nodes if _alone(by_node.get(n)))
            reasons: dict[str, None] = {}
            for n in r.nodes:
                entry = by_node.get(n)
                if entry is not None and not _alone(entry):
                    reasons.update(
                        dict.fromkeys(x.message for x in entry.reasons if x.kind != Kind.POD_GROUP)
                    )
            status = r.status
            out.append(
                PlacementExplanation(
                    group,
                    r.name,
                    r.nodes,
                    False,
                    False,
                    status,
                    fits,
                    tuple(reasons),
                    _hints(r.name, status, requests),
                )
            )
    return tuple(out)


def _alone(entry: NodeExplanation | None) -> bool:
    """The pod fits on the node by itself (its only reason, if any, is its group's)."""
    if entry is None:
        return False
    return entry.verdict == Verdict.FITS or all(r.kind == Kind.POD_GROUP for r in entry.reasons)


def _hints(name: str, status: str, requests: Mapping[str, int]) -> tuple[str, ...]:
    found = _CANNOT.search(status) or _NOT_YET.search(status)
    if found is None:
        if "no node has the topology label" in status:
            return ("label nodes with the group's topology key: only labelled nodes make placements",)
        return ()
    minimum, scheduled = int(found.group(1)), int(found.group(2))
    missing = max(0, minimum - scheduled)
    each = ", ".join(f"{_amount(r, v)} {r}" for r, v in sorted(requests.items()) if v) or "its requests"
    hints = [
        f"room in {name} for {missing} more pod{'s' if missing != 1 else ''} of the group ({each} each, "
        f"as this pod asks) would make it fit"
    ]
    if scheduled:
        hints.append(f"a minCount of {scheduled} would let the group run in {name} as it is")
    return tuple(hints)


def _amount(resource: str, value: int) -> str:
    if resource == "cpu":
        return f"{value}m" if value % 1000 else str(value // 1000)
    return amount(Fraction(value)) if resource != "pods" else str(value)
