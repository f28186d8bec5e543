"""From the model's values to concrete placements: which pod of a class goes to which node (queue order
onto nodes in the snapshot's order), and which devices each of its claims gets (the picks of a class in
first-fit order, pod after pod)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ortools.sat.python import cp_model

from ....model.solution import ClaimAllocation, DeviceResult
from ...capacity import as_published
from ...cpsat.facts import NodeFacts, SlotFacts
from ...cpsat.model import NodeModel
from ...units import Taken
from .classes import PodClass
from .dra_node import Block
from .model import PlanModel
from .pool_decode import Dealer


@dataclass
class Placement:
    unit: int
    node: str
    allocations: tuple[ClaimAllocation, ...] = ()
    taken: tuple[Taken, ...] = ()


@dataclass
class _Picks:
    """What a block's slot picked, handed out pod after pod."""

    devices: list[int]
    pods: int  # how many pods take this slot (firstAvailable: this subrequest)
    given: int = 0


def decode(pm: PlanModel, values: list[int]) -> dict[int, Placement]:
    """Unit id -> where the plan puts the pod and what its claims get."""

    def value(var: cp_model.IntVar) -> int:
        return values[var.index]

    out: dict[int, Placement] = {}
    queue: dict[int, int] = {}  # class -> pods handed out so far
    pool = pm.pool
    dealer = Dealer(pm, values) if pool is not None and pool.linked else None
    for node in pm.run.snapshot.nodes:
        blocks = {b.cls.index: b for b in pm.dra[node.name][1]} if node.name in pm.dra else {}
        nm = pm.dra[node.name][0] if node.name in pm.dra else None
        linked = {b.cls.index: b for b in pool.linked.get(node.name, ())} if pool is not None else {}
        for cls, var in pm.on_node(node.name):
            k = value(var)
            if not k:
                continue
            first = queue.get(cls.index, 0)
            queue[cls.index] = first + k
            members = list(range(first, first + k))
            block = blocks.get(cls.index)
            claims = _claims(nm, block, cls, members, value) if block is not None and nm is not None else {}
            if cls.index in linked and dealer is not None:
                claims = dealer.linked(node.name, linked[cls.index], members)
            for j, member in enumerate(members):
                unit = cls.units[member]
                allocations, taken = claims.get(j, ((), ()))
                out[unit.id] = Placement(unit.id, node.name, allocations, taken)
    out.update(decode_pool(pm, values, queue))
    return out


def _claims(
    nm: NodeModel, block: Block, cls: PodClass, members: list[int], value: Callable[[cp_model.IntVar], int]
) -> dict[int, tuple[tuple[ClaimAllocation, ...], tuple[Taken, ...]]]:
    """Per pod (position among `members`): its claims' allocations and what they take."""
    facts = nm.facts
    out = {}
    slots_of: dict[int, list[SlotFacts]] = {}
    for s in facts.slots:
        slots_of.setdefault(s.claim, []).append(s)
    picks: dict[int, _Picks] = {}
    if block.aggregated:
        for ci in range(block.claims_per_pod):
            for s in slots_of.get(block.first_claim + ci, ()):
                chosen = value(nm.chosen[s.position])
                picked = [d for d in s.candidates if value(nm.use[(s.position, d)])]
                picks[s.position] = _Picks(picked, chosen)
    for j, member in enumerate(members):
        allocations = []
        taken: list[Taken] = []
        for ci in range(block.claims_per_pod):
            position = (
                block.first_claim + ci
                if block.aggregated
                else block.first_claim + j * block.claims_per_pod + ci
            )
            claim_id = cls.claims[member][ci].id
            results: list[DeviceResult] = []
            chosen_sub: dict[int, int] = {}
            for s in slots_of.get(position, ()):
                devices: list[int] | None
                if s.first_available and s.request in chosen_sub:
                    continue  # this pod's request already took an earlier subrequest
                if block.aggregated:
                    devices = _take(picks, s)
                else:
                    devices = (
                        [d for d in s.candidates if value(nm.use[(s.position, d)])]
                        if value(nm.chosen[s.position])
                        else None
                    )
                if devices is None:
                    continue
                if s.first_available:
                    chosen_sub[s.request] = s.sub
                for d in devices:
                    results.append(_result(facts, s, claim_id, d))
                    shared = d in facts.multi
                    taken.append(
                        Taken(
                            facts.problem.devices[d], s.admin, shared, s.consumed.get(d) if shared else None
                        )
                    )
            allocations.append(ClaimAllocation(claim_id, facts.view.node, tuple(results), chosen_sub))
        out[j] = (tuple(allocations), tuple(taken))
    return out


def _take(picks: dict[int, _Picks], s: SlotFacts) -> list[int] | None:
    """The next pod's devices for an aggregated slot; None when the slot's pods are served (a
    firstAvailable request's pods take its subrequests in order)."""
    p = picks[s.position]
    if p.given >= p.pods:
        return None
    devices = p.devices[p.given * s.count : (p.given + 1) * s.count]
    p.given += 1
    return devices


def _result(facts: NodeFacts, s: SlotFacts, claim: int, d: int) -> DeviceResult:
    shared = d in facts.multi
    consumed = s.consumed.get(d) if shared else None
    published = as_published(facts.problem.devices[d], consumed) if consumed else None
    return DeviceResult((claim, s.request, s.sub), s.slot.result_name, d, s.admin, shared, published or None)


def decode_pool(pm: PlanModel, values: list[int], queue: dict[int, int]) -> dict[int, Placement]:
    """The shared zone's pods (pool_decode.py)."""
    out: dict[int, Placement] = {}
    if pm.pool is None or not pm.pool.families:
        return out
    for pod in Dealer(pm, values).shared(queue):
        unit = pod.cls.units[pod.member]
        allocations, taken = pod.claims
        out[unit.id] = Placement(unit.id, pod.node, allocations, taken)
    return out
