"""Why the claims of a unit cannot be allocated on a node: a minimal set of the rules' violation groups.

The facts are the asp engine's (`asp.facts`, the allocator's own pre-search checks first), with the
claims that hold devices named, so that "in use" says by whom. Nodes of the same shape give the same
facts and share one answer (in local identifiers, rendered per node); the distinct shapes of one unit
are solved on one grounding (`Program(shared=True)`), because grounding costs more than their solves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import clingo
from clorm import Predicate

from ...model.explain_source import ClassMatch
from ...model.problem import Claim, InUse, NodeView, Problem, Unit
from ...model.solution import Status
from ..asp.control import Outcome, Program
from ..asp.facts import TooLarge, gather
from ..asp.gathered import Holders, NodeFacts
from ..dra import AllocationError
from ..engines import Budget
from ..greedy import search_node as greedy_search
from .hints import Hint, hints, render_hint
from .memo import Memo
from .model import Kind, NodeExplanation, Reason, Verdict
from .mus import minimal_core
from .reasons import Renderer

# Shapes solved on one grounding: more share a grounding's cost, fewer keep each solve's assumptions
# (one per fact of every shape of the grounding) short (benchmarks/explain.py measures it).
SHAPES_PER_GROUNDING = 64


@dataclass(frozen=True)
class Group:
    """A violation group of the rules, read: `counter(3,"slice-0")` is `counter` of (3, "slice-0")."""

    text: str
    name: str
    args: tuple[int | str, ...]


@dataclass(frozen=True)
class Answer:
    """What the rules say about one shape of facts."""

    satisfiable: bool
    core: tuple[clingo.Symbol, ...] = ()
    minimal: bool = True
    unknown: bool = False
    hints: tuple[Hint, ...] = ()

    @cached_property
    def groups(self) -> tuple[Group, ...]:
        """The core read once for every node that shares it (clingo's symbols are slow to read)."""
        return tuple(
            Group(
                str(g),
                g.name,
                tuple(a.number if a.type == clingo.SymbolType.Number else a.string for a in g.arguments),
            )
            for g in self.core
        )


@dataclass
class Cores:
    """Answers by facts, shared by every node and unit of one explanation."""

    answers: dict[frozenset[Predicate], Answer] = field(default_factory=dict)
    shapes: int = 0  # distinct shapes solved
    groundings: int = 0


class Keys:
    """The answers' keys of one unit's nodes, each list of facts keyed once (the nodes of one signature
    share their representative's list, `classes`)."""

    def __init__(self) -> None:
        self.found: dict[int, tuple[list[Predicate], frozenset[Predicate]]] = {}

    def __call__(self, nf: NodeFacts) -> frozenset[Predicate]:
        found = self.found.get(id(nf.facts))
        if found is None or found[0] is not nf.facts:
            found = self.found[id(nf.facts)] = (nf.facts, nf.key())
        return found[1]


def error_reason(message: str) -> Reason:
    return Reason(
        "error",
        Kind.ALLOCATION_ERROR,
        message,
        "cannot allocate the claims: the allocator stops with an error",
    )


def undecided(message: str) -> Reason:
    return Reason("undecided", Kind.UNDECIDED, message, "were not decided in time")


def node_facts(
    problem: Problem,
    unit: Unit,
    view: NodeView,
    claims: Sequence[Claim],
    in_use: InUse,
    holders: Holders,
    deadline: float | None,
    budget: Budget,
) -> NodeFacts | NodeExplanation:
    """The node's facts, or its explanation when the allocator stops before (or, in its own search
    order, instead of) answering: an error, or undecided."""
    node = view.node
    try:
        nf = gather(problem, view, claims, in_use, holders, first_fit=False, canonical=True)
    except AllocationError as e:
        return NodeExplanation(node, Verdict.ERROR, (error_reason(str(e)),))
    except TooLarge as e:
        return NodeExplanation(node, Verdict.UNKNOWN, (undecided(str(e)),), minimal=False)
    if nf.hazards:
        greedy = greedy_search(problem, unit, view, claims, in_use, budget, deadline)
        if greedy.status == Status.ERROR:
            return NodeExplanation(node, Verdict.ERROR, (error_reason(greedy.message),))
        if greedy.status == Status.UNKNOWN:
            reason = undecided(
                f"first-fit {greedy.message}, and only its order decides whether the scheduler stops with an "
                f"error first: {nf.hazards[0]}"
            )
            return NodeExplanation(node, Verdict.UNKNOWN, (reason,), minimal=False)
    return nf


def solve_shapes(cores: Cores, shapes: Sequence[NodeFacts], deadline: float | None, keys: Keys) -> None:
    """Answers for every shape not answered yet (unknown ones are not kept)."""
    todo: dict[frozenset[Predicate], NodeFacts] = {}
    for nf in shapes:
        key = keys(nf)
        if key not in cores.answers:
            todo.setdefault(key, nf)
    if not todo:
        return
    items = list(todo.items())
    for start in range(0, len(items), SHAPES_PER_GROUNDING):
        chunk = items[start : start + SHAPES_PER_GROUNDING]
        shared = len(chunk) > 1
        union: dict[Predicate, None] = {}
        for _, nf in chunk:
            union.update(dict.fromkeys(nf.facts))
        program = Program(union if shared else chunk[0][1].facts, shared=shared)
        cores.groundings += 1
        for key, nf in chunk:
            given = program.given(nf.facts) if shared else None
            answer = _solve(program, nf, given, deadline)
            cores.shapes += 1
            if not answer.unknown and answer.minimal:
                cores.answers[key] = answer
            else:
                cores.answers.setdefault(key, answer)


def _solve(program: Program, nf: NodeFacts, given: list[int] | None, deadline: float | None) -> Answer:
    # Nothing enforced always has a model; it shows which groups these facts can violate (a shared
    # program has the groups of every shape).
    relevant = program.solve([], deadline, given).groups if program.shared else list(program.groups)
    first = program.solve(relevant, deadline, given, read=False)
    if first.outcome == Outcome.SATISFIABLE:
        return Answer(True)
    if first.outcome == Outcome.UNKNOWN:
        return Answer(False, unknown=True)
    core = minimal_core(program, first.core, deadline, given)
    found = hints(nf, program, core.groups, relevant, deadline, given) if core.minimal else ()
    groups = tuple(program.groups[lit] for lit in core.groups)
    return Answer(False, groups, core.minimal, hints=found)


def explanation(
    node: str, nf: NodeFacts, answer: Answer, class_match: ClassMatch | None, memo: Memo | None = None
) -> NodeExplanation:
    """The shape's answer in this node's objects (`memo`: what it shares with nodes of its signature)."""
    if answer.unknown:
        reason = undecided("the time limit ran out before the asp engine decided")
        return NodeExplanation(node, Verdict.UNKNOWN, (reason,), minimal=False)
    renderer = Renderer(nf, class_match, memo)
    reasons = tuple(renderer.group(g.name, g.args) for g in answer.groups) or (
        error_reason("cannot allocate all claims"),
    )
    # The request that cannot get its devices first, then what stands in its way.
    reasons = tuple(sorted(reasons, key=lambda r: r.kind != Kind.DEVICE_REQUEST))
    texts = tuple(render_hint(renderer, hint) for hint in answer.hints)
    verdict = Verdict.DOES_NOT_FIT
    if any(pool.state == "invalid" for pool in nf.view.pools):
        # The scheduler reports this node as an error, once its search failed (the reasons still hold).
        verdict = Verdict.ERROR
        reasons = (*reasons, error_reason("invalid resource pools were encountered"))
    return NodeExplanation(
        node, verdict, reasons, answer.minimal, texts, tuple(g.text for g in answer.groups)
    )
