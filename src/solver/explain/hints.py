"""What-if hints: the smallest relaxation that certainly makes a node fit, where it is cheap to prove.

Each hint is checked by solving again with exactly that relaxation and everything else enforced, so
it is never a guess:
- a claim that holds devices releases them ("fits if claim X releases gpu-3"), when those devices draw
  on no counters and no consumable capacity (releasing them would then change more than their use);
- a request tolerates a taint;
- a request asks for fewer devices ("fits with count 1"): the most it could get (rules/probe.lp);
- a constraint is dropped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import clingo

from ...model.families import Family
from ..asp import schema as s
from ..asp.control import Outcome, Program
from ..asp.gathered import NodeFacts
from .reasons import Renderer, names, taint_text

MAX_HINTS = 3


@dataclass(frozen=True)
class Hint:
    kind: str  # release | taint | constraint | count
    group: clingo.Symbol
    count: int = 0  # for count: the most devices the request could get


def hints(
    nf: NodeFacts,
    program: Program,
    core: Sequence[int],
    relevant: Sequence[int],
    deadline: float | None,
    given: Sequence[int] | None = None,
) -> tuple[Hint, ...]:
    """Hints for a minimal `core` (group literals), every other `relevant` group enforced."""
    out: list[Hint] = []
    for lit in core:
        if len(out) >= MAX_HINTS or (deadline is not None and time.monotonic() > deadline):
            break
        group = program.groups[lit]
        rest = [g for g in relevant if g != lit]
        if group.name == Family.COUNT.rule:
            count = _most(nf, program, group, rest, deadline, given)
            if count:
                out.append(Hint("count", group, count))
            continue
        if group.name == Family.EXCLUSIVE.rule and not _entangled(nf, group.arguments[0].number):
            kind = "release"
        elif group.name in (Family.TAINTS.rule, Family.ATTRIBUTES.rule):
            kind = group.name
        else:
            continue
        if program.solve(rest, deadline, given, read=False).outcome == Outcome.SATISFIABLE:
            out.append(Hint(kind, group))
    return tuple(out)


def _entangled(nf: NodeFacts, holder: int) -> bool:
    """Whether a holder's devices draw on counters or capacity (releasing them is then more than a use)."""
    held = {f.device for f in nf.facts if isinstance(f, s.Held | s.Shared) and f.holder == holder}
    return any(isinstance(f, s.Draws | s.CapLeft | s.CapOverdraw) and f.device in held for f in nf.facts)


def _most(
    nf: NodeFacts,
    program: Program,
    need: clingo.Symbol,
    rest: list[int],
    deadline: float | None,
    given: Sequence[int] | None,
) -> int:
    """For a plain ExactCount request of more than one device: the most devices it could get with
    everything else as it is, if that is at least one (0 otherwise)."""
    claim, request = need.arguments[0].number, need.arguments[1].number
    positions = [i for i, info in enumerate(nf.slots) if (info.claim, info.request) == (claim, request)]
    if len(positions) != 1 or nf.slots[positions[0]].slot.mode != "ExactCount":
        return 0
    position = positions[0]
    if nf.slots[position].slot.count <= 1:
        return 0
    answer = program.solve(rest, deadline, given, probe=position)
    if answer.outcome != Outcome.SATISFIABLE or not answer.optimal:
        return 0
    most = sum(1 for slot, _ in answer.uses if slot == position)
    return most if 0 < most < nf.slots[position].slot.count else 0


def render_hint(renderer: Renderer, hint: Hint) -> str:
    nf = renderer.nf
    group = hint.group
    if hint.kind == "release":
        holder = group.arguments[0].number
        reason = renderer.held(holder)
        devices = [ref.rsplit("/", 1)[-1] for ref in reason.objects["devices"]]
        who = nf.holders[holder] if holder < len(nf.holders) else ""
        return (
            f"fits if claim {who} releases {names(devices)}"
            if who
            else f"fits if {names(devices)} are released"
        )
    if hint.kind == "taint":
        return f"fits if the requests tolerate taint {taint_text(nf.taints[group.arguments[0].number])}"
    if hint.kind == "constraint":
        ci, index = nf.constraints[group.arguments[0].number]
        claim = nf.claims[ci]
        c = claim.constraints[index]
        what = "matchAttribute" if c.kind == "match" else "distinctAttribute"
        return f"fits without constraint #{index} ({what} {c.attribute}) of claim {claim.ref}"
    if hint.kind == "count":
        owner = nf.claims[group.arguments[0].number]
        request = owner.requests[group.arguments[1].number]
        return f"fits with count {hint.count} for claim {owner.ref}, request {request.name}"
    raise ValueError(f"unknown hint {hint.kind}")
