"""Explaining units as the scheduler met them: earlier units' allocations replayed, then every node.

The engine's Solution says which units fit and where. For a unit that does not, the in-use state it met
is rebuilt (the input's allocations plus the allocations of the units before it, as `solver.units`
commits them), and every node the scheduler considered is explained in its order: the filters before
DRA (node affinity and taints as the Problem recorded them, a shared claim allocated for another node,
node resources), then the devices (`node`), then what the chosen devices map to node
resources, then the pod group. Nodes whose devices differ only in names (a fleet's nodes, mostly) take
the facts of the first of them and share the parts of its reasons that name nothing of their own
(`classes`, `memo`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from ...model.claim_status import BINDING_TIMEOUT, UNAVAILABLE
from ...model.explain_source import ClassMatch
from ...model.problem import NodeView, Problem, Unit
from ...model.solution import Solution, Status, UnitOutcome
from ..asp.gathered import NodeFacts
from ..asp.search import Cache as AllocationCache
from ..asp.search import search_node as asp_search
from ..capacity import qualified_consumed
from ..claim_use import unusable
from ..cluster.plugins.claim_sharing import SHARED
from ..engines import Budget
from ..node_fit import claim_charges, unit_demand
from ..pod_level_cover import uncovered
from ..units import NodeAnswer, State, Taken, node_shortfalls
from .classes import Call, NodeClasses
from .memo import Memo
from .model import Kind, NodeExplanation, Reason, UnitExplanation, Verdict
from .node import Cores, Keys, explanation, node_facts, solve_shapes, undecided
from .placements import group_refusal, placements_of
from .preempts import preempting, release_victims, victims_of, without_device_preemption
from .reasons import amount
from .summary import summary


@dataclass
class Options:
    time_limit: float | None = None  # seconds for the whole explanation; shrinking stops at it
    steps: int | None = None  # greedy's budget where it decides errors first (see asp.search)
    units: frozenset[int] | None = None  # only these units (default: every unit that was pending)
    alike: bool = True  # nodes that differ only in names share one gathering of facts (`classes`)


@dataclass
class Explainer:
    problem: Problem
    solution: Solution
    holders: Mapping[str, list[str]] = field(default_factory=dict)
    class_match: ClassMatch | None = None
    options: Options = field(default_factory=Options)
    cores: Cores = field(default_factory=Cores)

    def run(self) -> list[UnitExplanation]:
        p = self.problem
        deadline = None if self.options.time_limit is None else time.monotonic() + self.options.time_limit
        state = State.of(p)
        classes = NodeClasses(p) if self.options.alike else None
        holders = {ref: list(names) for ref, names in self.holders.items()}
        out: list[UnitExplanation] = []
        for unit, outcome in zip(p.units, self.solution.units, strict=True):
            wanted = self.options.units is None or unit.id in self.options.units
            if outcome.status == Status.ALLOCATED:
                if wanted:
                    out.append(self.fits(unit, outcome))
                release_victims(p, self.solution, unit, state)
                self.commit(unit, outcome, state, holders)
            elif wanted:
                out.append(self.explain(unit, outcome, state, holders, deadline, classes))
        return out

    # --- replay --------------------------------------------------------------------------------------

    def commit(self, unit: Unit, outcome: UnitOutcome, state: State, holders: dict[str, list[str]]) -> None:
        p = self.problem
        taken = []
        for allocation in outcome.allocations:
            claim = p.claims[allocation.claim]
            for r in allocation.results:
                device = p.devices[r.device]
                consumed = qualified_consumed(device, r.consumed_capacity) if r.shared else None
                taken.append(Taken(device, r.admin_access, r.shared, consumed))
                if not r.admin_access:
                    users = holders.setdefault(device.ref, [])
                    if claim.ref not in users:
                        users.append(claim.ref)
        state.commit(NodeAnswer(Status.ALLOCATED, outcome.allocations, tuple(taken)))
        state.charge(outcome.node, unit_demand(p, unit, outcome.allocations))

    # --- units ---------------------------------------------------------------------------------------

    def fits(self, unit: Unit, outcome: UnitOutcome) -> UnitExplanation:
        victims = victims_of(self.problem, self.solution, unit)
        if victims:
            return preempting(_name(unit), unit, outcome, victims)
        return UnitExplanation(
            unit.id,
            _name(unit),
            Verdict.FITS,
            f"{_name(unit)} fits on node {outcome.node}" if outcome.node else f"{_name(unit)} fits",
            outcome.node,
            outcome.allocations,
            (NodeExplanation(outcome.node, Verdict.FITS),) if outcome.node else (),
        )

    def explain(
        self,
        unit: Unit,
        outcome: UnitOutcome,
        state: State,
        holders: Mapping[str, list[str]],
        deadline: float | None,
        classes: NodeClasses | None = None,
    ) -> UnitExplanation:
        p = self.problem
        if unit.error:
            reason = Reason("unit", Kind.UNIT_ERROR, unit.error, "cannot be scheduled", {"unit": unit.name})
            return UnitExplanation(
                unit.id,
                _name(unit),
                Verdict.ERROR,
                f"{_name(unit)} cannot be scheduled: {unit.error}",
                reasons=(reason,),
                message=outcome.message,
            )
        gang = group_refusal(unit, outcome)
        pending = [
            p.claims[c] for c in unit.claims if not p.claims[c].allocated and c not in state.allocations
        ]
        nodes: dict[str, NodeExplanation | NodeFacts | None] = {}
        for node, why in unit.excluded.items():
            reason = Reason(f"node/{why}", Kind.NODE_EXCLUDED, why, why, {"node": node})
            nodes[node] = NodeExplanation(node, Verdict.DOES_NOT_FIT, (reason,))
        budget = Budget(self.options.steps)
        in_use = state.freeze()
        call = classes.call(pending, in_use, holders) if classes is not None else None
        memos: dict[str, Memo] = {}
        for node in unit.nodes:
            rejected = scheduler_filter(outcome, node)
            if rejected is not None:
                plugin = rejected.reasons[0].objects.get("plugin")
                detailed = (
                    self.resources(node, state, unit.requests, Kind.NODE_RESOURCES) if plugin == _FIT else ()
                )
                nodes[node] = NodeExplanation(node, Verdict.DOES_NOT_FIT, detailed) if detailed else rejected
                continue
            before = self.before_dra(unit, node, state)
            if before is not None or not pending:
                nodes[node] = before
            elif deadline is not None and time.monotonic() > deadline:
                nodes[node] = NodeExplanation(
                    node, Verdict.UNKNOWN, (undecided("the time limit ran out"),), minimal=False
                )
            elif call is None:
                nodes[node] = node_facts(p, unit, p.views[node], pending, in_use, holders, deadline, budget)
            else:
                nodes[node] = self.alike(call, unit, p.views[node], deadline, budget, memos)
        keys = Keys()
        solve_shapes(self.cores, [nf for nf in nodes.values() if isinstance(nf, NodeFacts)], deadline, keys)
        out: list[NodeExplanation] = []
        for node, entry in nodes.items():
            if isinstance(entry, NodeExplanation):
                out.append(entry)
                continue
            if isinstance(entry, NodeFacts):
                answer = self.cores.answers[keys(entry)]
                if not answer.satisfiable:
                    found = explanation(node, entry, answer, self.class_match, memos.get(node))
                    out.append(without_device_preemption(p, unit, found))
                    continue
                mapped = self.mapped_resources(unit, entry, state, budget, deadline)
                if mapped:
                    out.append(NodeExplanation(node, Verdict.DOES_NOT_FIT, mapped))
                    continue
            out.append(
                NodeExplanation(node, Verdict.DOES_NOT_FIT, (gang,))
                if gang
                else NodeExplanation(node, Verdict.FITS)
            )
        verdict = Verdict.DOES_NOT_FIT
        if outcome.status == Status.ERROR:
            verdict = Verdict.ERROR
        elif outcome.status == Status.UNKNOWN:
            verdict = Verdict.UNKNOWN
        return UnitExplanation(
            unit.id,
            _name(unit),
            verdict,
            summary(_name(unit), out),
            nodes=tuple(out),
            message=outcome.message,
            placements=placements_of(unit, outcome, out),
        )

    def alike(
        self,
        call: Call,
        unit: Unit,
        view: NodeView,
        deadline: float | None,
        budget: Budget,
        memos: dict[str, Memo],
    ) -> NodeFacts | NodeExplanation:
        """The node's facts: those of an earlier node of its signature (of this unit or one before),
        carried over, or gathered. The node's memo (`memos`) is its signature's."""
        signed = call.sign(view) if call.worth() else None
        representative = call.representative(signed) if signed is not None else None
        if signed is not None and representative is not None:
            memos[view.node] = representative.memo
            return call.derive(representative, signed)
        found = node_facts(self.problem, unit, view, call.claims, call.in_use, call.holders, deadline, budget)
        if signed is not None and isinstance(found, NodeFacts) and not found.hazards:
            memos[view.node] = call.keep(signed, found).memo
        return found

    def before_dra(self, unit: Unit, node: str, state: State) -> NodeExplanation | None:
        """The scheduler's filters before DRA: a claim allocated already that the node cannot use (allocated
        for another node, skipping node operations, binding failed or timed out), node resources."""
        found = unusable(self.problem, unit, node, state.allocations, BINDING_TIMEOUT)
        if found:
            c, why = found[0]
            claim = self.problem.claims[c].ref
            elsewhere = why.endswith("is allocated for another node")
            reason = Reason(
                f"placement/{claim}",
                Kind.CLAIM_PLACEMENT,
                why if elsewhere else f"{UNAVAILABLE}: {why}",
                "have a shared claim allocated elsewhere" if elsewhere else "cannot use an allocated claim",
                {"claim": claim},
            )
            return NodeExplanation(node, Verdict.DOES_NOT_FIT, (reason,))
        short = self.resources(node, state, unit.requests, Kind.NODE_RESOURCES)
        if not short:
            # What claims allocated already charge to node resources (DRANodeAllocatableResources).
            demand = unit_demand(self.problem, unit, ())
            if demand != unit.requests:
                short = self.resources(node, state, demand, Kind.MAPPED_RESOURCES)
        return NodeExplanation(node, Verdict.DOES_NOT_FIT, short) if short else None

    def mapped_resources(
        self, unit: Unit, nf: NodeFacts, state: State, budget: Budget, deadline: float | None
    ) -> tuple[Reason, ...]:
        """Where the devices fit: what the first-fit allocation maps to node resources, if it does not fit."""
        answer = asp_search(
            AllocationCache(), self.problem, unit, nf.view, nf.claims, nf.in_use, budget, deadline
        )
        if answer.status != Status.ALLOCATED:
            return ()
        if unit.shape is not None:
            cover, resource = uncovered(unit.shape, claim_charges(self.problem, unit, answer.allocations))
            if cover:
                return (
                    Reason(
                        f"resources/{resource}", Kind.MAPPED_RESOURCES, cover, cover, {"resource": resource}
                    ),
                )
        demand = unit_demand(self.problem, unit, answer.allocations)
        return self.resources(nf.view.node, state, demand, Kind.MAPPED_RESOURCES)

    def resources(self, node: str, state: State, demand: Mapping[str, int], kind: Kind) -> tuple[Reason, ...]:
        """The scheduler's NodeResourcesFit reasons, each with what is asked, used and allocatable."""
        fact = self.problem.nodes.get(node)
        short = node_shortfalls(self.problem, node, state, demand)
        if fact is None or fact.allocatable is None:
            return ()
        used = state.node_used.get(node, {})
        out = []
        for text in short:
            resource = "pods" if text == "Too many pods" else text.removeprefix("Insufficient ")
            show = _units(resource)
            asked, taken, total = (
                demand.get(resource, 0),
                used.get(resource, 0),
                fact.allocatable.get(resource, 0),
            )
            via = " (with what the allocated devices map to it)" if kind == Kind.MAPPED_RESOURCES else ""
            out.append(
                Reason(
                    f"resources/{resource}",
                    kind,
                    f"{text}: the pod requests {show(asked)}{via}, the node has {show(total)} allocatable "
                    f"and {show(taken)} requested by its pods",
                    text,
                    {"resource": resource},
                    {"requested": show(asked), "used": show(taken), "allocatable": show(total)},
                )
            )
        return tuple(out)


# DynamicResources' verdicts the explanation works out itself, in detail (NodeResourcesFit's too, where the
# node publishes its allocatable resources).
_DRA = "DynamicResources"
_FIT = "NodeResourcesFit"


def scheduler_filter(outcome: UnitOutcome, node: str) -> NodeExplanation | None:
    """The kube-scheduler filter that turned the node away before node resources and devices were looked
    at (taints, affinity, ports, topology spread, ...), as the cycle recorded it."""
    record = outcome.record
    if record is None:
        return None
    verdicts = record.filters.get(node)
    if verdicts is None:
        if not record.pre_filter or node == outcome.node:
            return None
        plugin, why = next(iter(record.pre_filter.items()))
    else:
        failed = [(p, v) for p, v in verdicts.items() if v != "passed" and (p != _DRA or _refused_claim(v))]
        if not failed:
            return None
        plugin, why = failed[0]
    reason = Reason(
        f"{plugin}/{why}", Kind.NODE_EXCLUDED, f"{plugin}: {why}", why, {"node": node, "plugin": plugin}
    )
    return NodeExplanation(node, Verdict.DOES_NOT_FIT, (reason,))


def _refused_claim(verdict: str) -> bool:
    """A DynamicResources verdict about an allocated claim the pod may not use, not about devices."""
    return verdict.startswith(SHARED.split("{}", 1)[0])


def _units(resource: str) -> Callable[[int], str]:
    """How to print amounts of a node resource (cpu is counted in millicores)."""

    def cpu(v: int) -> str:
        return amount(Fraction(v, 1000))

    def other(v: int) -> str:
        return amount(Fraction(v)) if resource != "pods" else str(v)

    return cpu if resource == "cpu" else other


def _name(unit: Unit) -> str:
    return f"pod {unit.pod}" if unit.pod else f"claims {unit.name}"
