"""Explanations as output: a `kubefit.io/v1alpha1` `Explanation` document (json, yaml) or text.

The text form is what a user reads first: per unit its verdict and summary line, then per node its
reasons (and hints), nodes with the very same reasons listed together.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...model.problem import Problem
from ...model.terminal import lines_text
from .model import NodeExplanation, UnitExplanation, Verdict


def allocation_dict(problem: Problem, unit: UnitExplanation) -> list[dict[str, Any]]:
    out = []
    for allocation in unit.allocations:
        claim = problem.claims[allocation.claim]
        results = []
        for r in allocation.results:
            device = problem.devices[r.device]
            entry: dict[str, Any] = {
                "request": r.request,
                "driver": device.driver,
                "pool": device.pool,
                "device": device.name,
            }
            if r.admin_access:
                entry["adminAccess"] = True
            results.append(entry)
        out.append({"claim": claim.ref, "results": results})
    return out


def document(problem: Problem, units: Sequence[UnitExplanation]) -> dict[str, Any]:
    items = []
    for unit in units:
        item: dict[str, Any] = {
            "unit": unit.name,
            "fits": unit.fits,
            "status": str(unit.verdict),
            "summary": unit.summary,
        }
        placed = unit.fits or unit.verdict == Verdict.PREEMPTS
        if placed:
            item["node"] = unit.node
            item["allocation"] = allocation_dict(problem, unit)
        if unit.victims:
            item["victims"] = [v.as_dict() for v in unit.victims]
        if unit.reasons:
            item["reasons"] = [r.as_dict() for r in unit.reasons]
        if not placed:
            item["nodes"] = [n.as_dict() for n in unit.nodes]
        if unit.placements and not placed:
            item["placements"] = [p.as_dict() for p in unit.placements]
        items.append(item)
    return {"apiVersion": "kubefit.io/v1alpha1", "kind": "Explanation", "items": items}


def _node_block(names: list[str], node: NodeExplanation) -> list[str]:
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    status = {Verdict.ERROR: " (error)", Verdict.UNKNOWN: " (undecided)"}.get(node.verdict, "")
    lines = [f"  node {shown}{status}:" if len(names) == 1 else f"  nodes {shown}{status}:"]
    lines += [f"    - {r.message}" for r in node.reasons]
    if not node.minimal:
        lines.append("    (not shown to be minimal: the time limit stopped the search for fewer reasons)")
    lines += [f"    hint: {h}" for h in node.hints]
    return lines


def text(problem: Problem, units: Sequence[UnitExplanation]) -> str:
    lines: list[str] = []
    for unit in units:
        if lines:
            lines.append("")
        if unit.fits or unit.verdict == Verdict.PREEMPTS:
            entries = allocation_dict(problem, unit)
            lines.append(
                f"{unit.summary}:" if entries else f"{unit.summary} (its claims are allocated already)"
            )
            lines += [f"  preempts {v.text()}" for v in unit.victims]
            for entry in entries:
                for r in entry["results"]:
                    device = f"{r['driver']}/{r['pool']}/{r['device']}"
                    lines.append(f"  claim {entry['claim']}, request {r['request']}: {device}")
            continue
        lines.append(unit.summary)
        lines += [f"  - {r.message}" for r in unit.reasons]
        groups: dict[tuple[object, ...], tuple[list[str], NodeExplanation]] = {}
        for node in unit.nodes:
            key = (node.verdict, tuple(r.message for r in node.reasons), node.minimal, node.hints)
            groups.setdefault(key, ([], node))[0].append(node.node)
        for names, node in groups.values():
            lines += _node_block(names, node)
        for placement in unit.placements:
            lines += placement.text()
    return lines_text(lines)
