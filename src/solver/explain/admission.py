"""`kubefit explain` for pods the kubelet refuses at admission: its reason and message, and a minimal set
of reasons in the kubelet's terms (which resource's hints conflict, on which NUMA nodes).

The node's pods are admitted in order by the greedy engine, which is the kubelet: its verdicts are the
answer, and each pod meets the state the kubelet would leave before it. For a pod it refuses, the
kubelet's rules (`rules/node/`) are grounded on that state, and their violations come in named groups
(`blame/2`): per container its CPUs, per memory group its memory, per unit the topology manager's
policy and each resource's hints (a device's NUMA nodes), full-pcpus-only's checks. clingo refutes the
enforced groups as assumptions; its core is small but not minimal, so it is shrunk by deletion until
dropping any one group makes the pod admissible (`mus.py`, as for DRA). Where the rules admit the pod
although the kubelet does not, the difference is the kubelet's order: it allocated the pod's earlier
containers first fit, so those choices become groups too (`kubelet_order.lp`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import clingo

from ...model.node.problem import CPUSet, NodeProblem, PodFacts
from ...model.node.solution import PodAdmission
from ..asp.control import NODE, Outcome, Program
from ..node.asp.facts import gather
from ..node.solving import Placed, SolvingAdmitter
from ..node.view import PodView, view
from .admission_model import Devices, Group, PodExplanation
from .admission_render import Renderer, fallback, shared_pool
from .mus import minimal_core as shrink

# What the kubelet gave each container of a pod before refusing it: container -> (CPUs, memory mask).
Allocated = Mapping[str, tuple[CPUSet | None, int | None]]

# Deletion tries to drop groups in this order, so what stays reads as the kubelet's own reason: the
# kubelet's earlier choices and full-pcpus-only first, a container's own need last.
_ORDER = ("kubelet", "physical-cpus", "whole-cores", "hint", "memory", "policy", "cpu")
# The families that say what the kubelet's reason says, in tiers: the core is looked for among the first
# tier alone, then with the next, before all groups, so that of several minimal sets the one matching
# the kubelet's reason is found.
_TELLING: dict[str, tuple[tuple[str, ...], ...]] = {
    "SMTAlignmentError": (("physical-cpus", "whole-cores"), ("cpu",)),
    "TopologyAffinityError": (("policy", "hint", "memory", "cpu"),),
    "UnexpectedAdmissionError": (("cpu", "memory"),),
}
# How reasons are listed: the topology manager's policy, then each resource, then the CPU manager's options.
_SHOWN = ("policy", "cpu", "memory", "hint", "whole-cores", "physical-cpus", "kubelet")


def as_group(symbol: clingo.Symbol) -> Group:
    """A group of the rules (`cpu(0)`, `hint(0,"claim/default/gpu")`) as explanations name it."""
    family = symbol.name.replace("_", "-")
    args: list[str | int] = [
        a.number if a.type == clingo.SymbolType.Number else a.string for a in symbol.arguments
    ]
    return (family, *args)


class Kubelet(SolvingAdmitter):
    """The greedy admitter (the kubelet), remembering what it gave each container of the pod being
    admitted, which it forgets when it refuses the pod."""

    def __init__(self, problem: NodeProblem) -> None:
        super().__init__(problem)
        self.allocated: dict[str, tuple[CPUSet | None, int | None]] = {}

    def admit(self, pod: PodFacts) -> PodAdmission:
        self._allocated = self.allocated = {}
        try:
            return super().admit(pod)
        finally:
            self._allocated = None

    def _admit(self, pod: PodFacts) -> Placed:
        return self.kubelet(pod)


# --- the rules, with groups ----------------------------------------------------------------------------


@dataclass
class Rules:
    """The kubelet's rules grounded on one pod's facts, every violation group relaxable."""

    program: Program
    view: PodView
    literals: dict[Group, int] = field(default_factory=dict)  # group -> literal of its relaxed atom

    @classmethod
    def of(cls, kubelet: SolvingAdmitter, pv: PodView, allocated: Allocated | None) -> Rules:
        program = Program(gather(kubelet, pv, allocated), rules=NODE)
        literals = {as_group(symbol): lit for lit, symbol in program.groups.items()}
        return cls(program, pv, literals)

    def solve(self, groups: Sequence[Group], deadline: float | None) -> tuple[bool | None, list[Group]]:
        """(True: admissible with `groups` enforced, False: refuted, None: undecided in time), and the
        groups of a refutation's core."""
        answer = self.program.solve([self.literals[g] for g in groups], deadline, read=False)
        if answer.outcome == Outcome.UNKNOWN:
            return None, []
        if answer.outcome == Outcome.SATISFIABLE:
            return True, []
        back = {lit: g for g, lit in self.literals.items()}
        return False, [back[lit] for lit in answer.core]


@dataclass(frozen=True)
class Core:
    groups: tuple[Group, ...]
    minimal: bool


def minimal_core(rules: Rules, reason: str, deadline: float | None) -> Core | None:
    """The groups that cannot hold together, shrunk until dropping any one lets the pod in; None when
    every group holds together (the rules admit the pod); no groups when the time ran out first."""
    found: list[Group] | None = None
    for tried in _tiers(list(rules.literals), reason):
        feasible, core = rules.solve(tried, deadline)
        if feasible is None:
            return Core((), False)
        if feasible is False:
            found = core
            break
    if found is None:
        return None
    literals = [rules.literals[g] for g in _ordered(found, reason)]
    shrunk = shrink(rules.program, literals, deadline, ordered=True)
    back = {lit: g for g, lit in rules.literals.items()}
    return Core(tuple(_shown([back[lit] for lit in shrunk.groups])), shrunk.minimal)


def _tiers(groups: list[Group], reason: str) -> list[list[Group]]:
    """The sets of groups a core is first looked for in: growing tiers of the telling families, then all."""
    out: list[list[Group]] = []
    families: set[str] = set()
    for tier in _TELLING.get(reason, ()):
        families |= set(tier)
        tried = [g for g in groups if g[0] in families]
        if tried and (not out or len(tried) > len(out[-1])) and len(tried) < len(groups):
            out.append(tried)
    return [*out, groups]


def _ordered(groups: Sequence[Group], reason: str) -> list[Group]:
    telling = {f for tier in _TELLING.get(reason, ()) for f in tier}

    def key(g: Group) -> tuple[bool, int, str]:
        family = str(g[0])
        return (family in telling, _ORDER.index(family) if family in _ORDER else -1, repr(g))

    return sorted(groups, key=key)


def _shown(groups: Sequence[Group]) -> list[Group]:
    def key(g: Group) -> tuple[int, str]:
        family = str(g[0])
        return (_SHOWN.index(family) if family in _SHOWN else len(_SHOWN), repr(g))

    return sorted(groups, key=key)


def is_minimal(rules: Rules, groups: Sequence[Group], deadline: float | None = None) -> bool:
    """The definition, checked: the groups refute the pod together, and without any one of them the
    rules admit it."""
    if rules.solve(groups, deadline)[0] is not False:
        return False
    return all(rules.solve([g for g in groups if g != dropped], deadline)[0] is True for dropped in groups)


# --- a node's pods -------------------------------------------------------------------------------------


@dataclass
class Rejection:
    """What explaining one refused pod works from: the kubelet before the pod, and what it allocated to
    the pod's containers before refusing it."""

    kubelet: Kubelet
    pod: PodFacts
    admission: PodAdmission
    allocated: dict[str, tuple[CPUSet | None, int | None]]

    def rules(self, with_order: bool) -> Rules:
        return Rules.of(self.kubelet, view(self.kubelet, self.pod), self.allocated if with_order else None)


def rejections(problem: NodeProblem) -> Iterator[tuple[PodAdmission, Rejection | None]]:
    """Every reported pod's admission by the kubelet, with, for a refused one, the state it was refused
    on (a refused pod leaves the state as it was before it). A Rejection holds only until the next item:
    the kubelet then moves on to the next pod."""
    kubelet = Kubelet(problem)
    for pod in problem.pods:
        admission = kubelet.admit(pod)
        if pod.report:
            rejection = None if admission.admitted else Rejection(kubelet, pod, admission, kubelet.allocated)
            yield admission, rejection


def explain_rejection(node: str, r: Rejection, devices: Devices, deadline: float | None) -> PodExplanation:
    # Imported here: the renderer reads this module's types.
    a = r.admission
    if a.reason == "EmptyPodSharedPoolError":
        # A check of the pod's shape, before any choice: the kubelet's reason is the only one.
        return PodExplanation(node, a, (shared_pool(r.pod, a.message),))
    core: Core | None = None
    for with_order in (False, True):
        if with_order and not r.allocated:
            break
        rules = r.rules(with_order)
        core = minimal_core(rules, a.reason, deadline)
        if core is None:
            continue  # the rules admit the pod: try again with the kubelet's order
        if not core.groups:
            break
        renderer = Renderer(r.kubelet, rules.view, devices, r.allocated)
        reasons = tuple(renderer.reason(g) for g in core.groups)
        return PodExplanation(node, a, reasons, core.minimal, core.groups)
    # The kubelet's reason is all there is to say.
    if core is None:
        why = "kubefit's model of the managers admits the pod here, so it names no reasons of its own"
    elif not core.minimal:
        why = "the time limit ran out before kubefit's model refuted it"
    else:
        why = "kubefit's model refutes it by the node's state alone"
    return PodExplanation(node, a, (fallback(a, why),), False)


def explain_node(
    problem: NodeProblem, devices: Devices | None = None, time_limit: float | None = None
) -> list[PodExplanation]:
    deadline = None if time_limit is None else time.monotonic() + time_limit
    out = []
    for admission, rejection in rejections(problem):
        if rejection is None:
            out.append(PodExplanation(problem.node, admission))
        else:
            out.append(explain_rejection(problem.node, rejection, devices or Devices(), deadline))
    return out
