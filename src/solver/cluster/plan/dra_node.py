"""DRA on one node of the plan: the pending claims of every class that may go there, in one CP-SAT model
with the node-level engine's constraint families (counters, compatibility groups, exclusivity, capacity,
attribute constraints, symmetry).

A class is modelled one of two ways:
- aggregated: the representative pod's claims stand for every pod of the class placed on the node; a
  pick literal says the device serves some pod of the class, and the number of picks of a request is its
  count times the number of pods (firstAvailable: per subrequest, the pods that take it). Exact when the
  pods' claims need nothing between their own devices (no constraints, no admin access, no All mode,
  no shares of multi-allocatable devices): then which pod gets which picked device is free.
- per pod: up to as many copies of the claims as pods of the class can fit (the first pods' own
  claims), each copy switched on by its own literal, in order (the first copies first).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from ....model.families import Family
from ....model.problem import Claim, InUse, NodeView, Problem
from ...cpsat import build as node_build
from ...cpsat.facts import NodeFacts, SlotFacts, gather
from ...cpsat.model import NodeModel
from ...dra import AllocationError
from .classes import PodClass

# The node engine's families, but for one alternative per firstAvailable request: here a request is taken
# as many times as its class has pods on the node (build_node says so itself).
SKIPPED = frozenset({Family.PRIORITIZED})


@dataclass
class Block:
    """One class's claims on the node."""

    cls: PodClass
    aggregated: bool
    facts: NodeFacts
    instances: int  # copies of the claims (1 when aggregated; `own` gathers them)
    claims_per_pod: int
    bound: int  # pods of the class the devices alone could take
    # Set while modelling: the claim positions of each copy in the node's facts, and the copies' literals.
    first_claim: int = 0
    active: list[cp_model.IntVar] = field(default_factory=list)
    borrowed: bool = False  # the facts are another class's of the same claims' shape


def _aggregable(facts: NodeFacts) -> bool:
    return not any(c.constraints for c in facts.claims) and free_picks(facts)


def free_picks(facts: NodeFacts) -> bool:
    """Picks that ask nothing of each other but to be distinct devices: no admin access (it may reuse a
    device), no All mode, no shares of multi-allocatable devices, no more results than a claim holds."""
    if any(s.admin or s.all_mode or any(d in facts.multi for d in s.candidates) for s in facts.slots):
        return False
    largest: dict[tuple[int, int], int] = {}
    for s in facts.slots:
        largest[(s.claim, s.request)] = max(largest.get((s.claim, s.request), 0), s.count)
    per_claim: dict[int, int] = {}
    for (claim, _), count in largest.items():
        per_claim[claim] = per_claim.get(claim, 0) + count
    return all(v <= facts.problem.max_results for v in per_claim.values())


def _device_bound(facts: NodeFacts) -> int:
    """Pods whose claims the node's candidates could hold, each request on its own."""
    bound = UNBOUNDED
    for slots in facts.requests():
        bound = min(bound, max(_slot_bound(facts, s) for s in slots))
    return bound


def _slot_bound(facts: NodeFacts, s: SlotFacts) -> int:
    if s.impossible or s.count > len(s.candidates):
        return 0
    if s.count == 0 or s.admin or any(d in facts.multi for d in s.candidates):
        return UNBOUNDED  # admin access may reuse a device in another claim; shares of one device add up
    if s.all_mode:
        return 1
    return len(s.candidates) // s.count


UNBOUNDED = 1 << 30


# (claims' shape, node) -> the facts gathered for the first class of that shape, that class's index, the
# pods the devices alone could take, and whether the facts aggregate
FactsCache = dict[tuple[Any, str], tuple[NodeFacts, int, int, bool]]


def prepare(
    problem: Problem,
    view: NodeView,
    in_use: InUse,
    cls: PodClass,
    most: int,
    cache: FactsCache | None = None,
    shape: Any = None,
) -> Block | str:
    """The class's block on the node for at most `most` pods, or why none of them can get devices here.

    Classes whose claims have the same `shape` (DraContext.signature) see the same candidates: with a
    `cache`, the first one's facts serve the others (`Block.borrowed`), for the pattern view, which reads
    only candidates and counts; `own` gathers a borrowed block's facts again for the per-node model."""
    key = (shape, view.node)
    cached = cache.get(key) if cache is not None and shape is not None else None
    if cached is not None:
        facts, owner, devices, aggregated = cached
    else:
        try:
            facts = gather(problem, view, cls.claims[0], in_use)
        except AllocationError as e:
            return str(e)
        owner, devices, aggregated = cls.index, _device_bound(facts), _aggregable(facts)
        if cache is not None and shape is not None:
            cache[key] = (facts, owner, devices, aggregated)
    bound = min(most, devices)
    if bound <= 0:
        return "cannot allocate all claims"
    instances = 1 if aggregated else bound
    return Block(cls, aggregated, facts, instances, len(cls.claims[0]), bound, borrowed=owner != cls.index)


def own(problem: Problem, in_use: InUse, block: Block) -> Block | str:
    """The block as the per-node model takes it: the class's own claims (not a borrowed class's), and for
    a class that is not aggregated, a copy of the claims per pod the node may take (or why they cannot
    all get devices here)."""
    if block.borrowed:
        found = prepare(problem, block.facts.view, in_use, block.cls, block.bound)
        if isinstance(found, str):
            return found
        block = found
    if block.aggregated:
        return block
    claims: list[Claim] = [c for pod_claims in block.cls.claims[: block.bound] for c in pod_claims]
    try:
        facts = gather(problem, block.facts.view, claims, in_use)
    except AllocationError as e:
        return str(e)
    return Block(block.cls, False, facts, block.bound, block.claims_per_pod, block.bound)


def merge(blocks: list[Block]) -> NodeFacts:
    """One node's facts from the blocks' (claims and slots renumbered; pool-level facts are the node's)."""
    first = blocks[0].facts
    out = NodeFacts(first.problem, first.view, [], first.in_use, first.allocator)
    out.rank = first.rank
    out.pool_of = first.pool_of
    for block in blocks:
        f = block.facts
        claim_offset, slot_offset = len(out.claims), len(out.slots)
        block.first_claim = claim_offset
        out.claims.extend(f.claims)
        for s in f.slots:
            s.position += slot_offset
            s.claim += claim_offset
            out.slots.append(s)
        for cf in f.constraints:
            cf.claim += claim_offset
            cf.slots = [p + slot_offset for p in cf.slots]
            cf.values = {(p + slot_offset, d): v for (p, d), v in cf.values.items()}
            out.constraints.append(cf)
        out.multi |= f.multi
        out.existing_shares |= f.existing_shares
        out.available.update(f.available)
        out.seeds.update(f.seeds)
        out.hazards.extend(f.hazards)
    return out


def build_node(
    model: cp_model.CpModel, node: str, blocks: list[Block], count: dict[int, cp_model.IntVar]
) -> NodeModel:
    """The node's DRA constraints; `count` holds, per class index, how many of its pods go to the node."""
    facts = merge(blocks)
    nm = NodeModel(facts, model)
    active_of: dict[int, cp_model.IntVar] = {}
    aggregated_claims: set[int] = set()
    bound_of: dict[int, int] = {}  # claim position -> pods of its class the node can take
    for block in blocks:
        k = count[block.cls.index]
        bound_of.update(
            dict.fromkeys(
                range(block.first_claim, block.first_claim + block.instances * block.claims_per_pod),
                block.bound,
            )
        )
        if block.aggregated:
            block.active = [k]
            for c in range(block.claims_per_pod):
                active_of[block.first_claim + c] = k
                aggregated_claims.add(block.first_claim + c)
            continue
        copies = [model.new_bool_var(f"pod_{node}_k{block.cls.index}_{i}") for i in range(block.instances)]
        for a, b in itertools.pairwise(copies):
            model.add_implication(b, a)  # the copies are interchangeable: the first ones first
        model.add(sum(copies) == k)
        block.active = copies
        for i, lit in enumerate(copies):
            for c in range(block.claims_per_pod):
                active_of[block.first_claim + i * block.claims_per_pod + c] = lit
    for s in facts.slots:
        _slot_variables(nm, s, active_of[s.claim], s.claim in aggregated_claims, bound_of[s.claim])
    for slots in facts.requests():
        if slots[0].first_available:
            model.add(sum(nm.chosen[s.position] for s in slots) == active_of[slots[0].claim])
    node_build.constrain(nm, SKIPPED)
    return nm


def _slot_variables(
    nm: NodeModel, s: SlotFacts, active: cp_model.IntVar, aggregated: bool, bound: int
) -> None:
    m = nm.model
    name = f"{nm.facts.view.node}_{nm.slot_name(s)}"
    if not s.first_available:
        chosen = active
    elif aggregated:
        chosen = m.new_int_var(0, bound, f"choose_{name}")
    else:
        chosen = m.new_bool_var(f"choose_{name}")
    nm.chosen[s.position] = chosen
    for d in s.candidates:
        lit = chosen if s.all_mode else m.new_bool_var(f"use_{name}_d{d}")
        nm.use[(s.position, d)] = lit
        nm.uses_of.setdefault(d, []).append((s, lit))
