"""`kubefit explain` for pods the kubelet refuses at admission: its reason and message, and a minimal set
of reasons in the kubelet's terms (which resource's hints conflict, on which NUMA nodes).

The node's pods are admitted in order by the greedy engine, which is the kubelet: its verdicts are the
answer, and each pod meets the state the kubelet would leave before it. For a pod it refuses, the cpsat
node model of that pod is built on that state with every constraint in named groups (cpsat/model.py
`Guards`): per container its CPUs, per memory group its memory, per unit the topology manager's policy
and each resource's hints (a device's NUMA nodes), full-pcpus-only's rules. CP-SAT refutes the groups
as assumptions; its core is small but not minimal, so it is shrunk by deletion (one worker, each drop
re-solved) until dropping any one group makes the pod admissible. Where the model admits the pod
although the kubelet does not, the difference is the kubelet's order: it allocated the pod's earlier
containers first-fit, so those choices become groups too.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from ...features import FeatureGates
from ...translate.node.build import StateFiles, build
from ...translate.objects import ObjectSet
from ..node import bitmask
from ..node.bitmask import Hint
from ..node.cpsat.admit import build as build_model
from ..node.view import PodView, view
from ..node.cpsat.model import BoolVar, Group, PodModel
from ..node.cpsat.solve import SEED
from ..node.greedy.admit import Admitter
from ..node.problem import ContainerFacts, CPUSet, NodeProblem, PodFacts
from ..node.solution import PodAdmission

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


@dataclass(frozen=True)
class AdmissionReason:
    """One reason a pod is refused: the same fields as a scheduling reason (explain/model.py Reason)."""

    id: str
    kind: str
    message: str
    objects: Mapping[str, Any] = field(default_factory=dict)
    numbers: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "objects": dict(self.objects),
            "numbers": dict(self.numbers),
            "message": self.message,
        }


@dataclass(frozen=True)
class PodExplanation:
    node: str
    admission: PodAdmission  # the kubelet's answer
    reasons: tuple[AdmissionReason, ...] = ()
    minimal: bool = True  # False when a time limit stopped the search for fewer reasons
    groups: tuple[Group, ...] = ()  # the model's groups behind the reasons

    @property
    def pod(self) -> str:
        return self.admission.pod.ref

    @property
    def admitted(self) -> bool:
        return self.admission.admitted

    @property
    def summary(self) -> str:
        """The kubelet's event for a refused pod; for an admitted one, where it runs."""
        if self.admitted:
            return f"pod {self.pod} is admitted on node {self.node}"
        return f"Pod was rejected: {self.admission.message}"


@dataclass(frozen=True)
class Devices:
    """The allocated devices of each claim a pod's containers use, by pod and the kubelet's resource
    name of the claim ("claim/<namespace>/<pod claim name>"): the claim's name and device names."""

    by_pod: Mapping[tuple[str, str], tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    def of(self, pod: PodFacts, resource: str) -> tuple[str, tuple[str, ...]]:
        fallback = resource.removeprefix("claim/")
        return self.by_pod.get((pod.ref, resource), (fallback, ()))


class Kubelet(Admitter):
    """The greedy admitter (the kubelet), remembering what it gave each container of the pod being
    admitted, which it forgets when it refuses the pod."""

    def __init__(self, problem: NodeProblem) -> None:
        super().__init__(problem)
        self.allocated: dict[str, tuple[CPUSet | None, int | None]] = {}

    def _allocate(self, pod: PodFacts, c: ContainerFacts, hint: Hint) -> None:
        super()._allocate(pod, c, hint)
        cpus = self.cpus.get(pod.uid, c.name) if self.cpu is not None else None
        blocks = self.mem.blocks(pod.uid, c.name)
        self.allocated[c.name] = (cpus, bitmask.mask_of(blocks[0].numa) if blocks else None)


# --- the guarded model ---------------------------------------------------------------------------------


class Assumptions:
    """One assumption literal per named group, made when a family first uses the group."""

    def __init__(self) -> None:
        self.literals: dict[Group, BoolVar] = {}

    def literal(self, pm: PodModel, group: Group) -> BoolVar:
        lit = self.literals.get(group)
        if lit is None:
            lit = pm.model.new_bool_var("guard_" + "_".join(str(part) for part in group))
            self.literals[group] = lit
        return lit


def guarded(
    admitter: Admitter, pv: PodView, allocated: Mapping[str, tuple[CPUSet | None, int | None]] | None = None
) -> tuple[PodModel, Assumptions]:
    """The pod's model with every constraint in named groups; with `allocated`, the kubelet's choices for
    the containers it allocated before refusing the pod are groups too."""
    guards = Assumptions()
    pm = build_model(admitter, pv, guards)
    _implied(pm)
    if allocated:
        _kubelet_choices(pm, allocated)
    return pm, guards


def _implied(pm: PodModel) -> None:
    """Conflicts between groups that follow from their constraints but that CP-SAT would refute only by
    search: under full-pcpus-only a container gets whole cores, so a request that is not a multiple of
    the threads per core cannot be met (with guards the threads of a core are equal only conditionally,
    which hides the multiple from presolve; on a 288-CPU machine the search takes most of a minute)."""
    admitter = pm.admitter
    per_core = pm.topo.cpus_per_core
    if admitter.cpu is None or not admitter.cpu.full_pcpus or per_core <= 1:
        return
    if any(len(pm.topo.cpus_in("core", (core,))) != per_core for core in pm.topo.ids("core")):
        return  # cores of other sizes: whole cores need not add up to multiples of per_core
    for s in pm.view.exclusive:
        if s.fixed_cpus is None and s.cpus % per_core:
            pm.guard(pm.model.add_bool_or([]), ("cpu", s.index), ("whole-cores", s.index))


def _kubelet_choices(pm: PodModel, allocated: Mapping[str, tuple[CPUSet | None, int | None]]) -> None:
    """The kubelet allocates container by container, first fit: what it gave an earlier container is
    fixed when the next one is allocated."""
    for s in pm.view.slots:
        got = allocated.get(s.name)
        if got is None or s.container is None:
            continue
        cpus, mask = got
        group: Group = ("kubelet", s.index)
        if s.index in pm.x and s.fixed_cpus is None and cpus is not None:
            for cpu, lit in pm.x[s.index].items():
                pm.guard(pm.model.add(lit == int(cpu in cpus)), group)
        g = s.memory_group
        if g is not None and mask is not None and pm.view.groups[g].fixed_mask is None:
            row = pm.block[g]
            pm.guard(pm.model.add_bool_or([row[mask]] if mask in row else []), group)


def _solve(pm: PodModel, assumed: Sequence[BoolVar], deadline: float | None) -> tuple[bool | None, list[int]]:
    """(True: admissible, False: refuted, None: undecided in time), and the core of a refutation as
    variable indices of the assumptions it needed."""
    model = pm.model
    model.clear_assumptions()
    model.add_assumptions(assumed)
    solver = cp_model.CpSolver()
    # Assumption cores need one worker; a fixed seed makes the core, and so the reasons, reproducible.
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = SEED
    if deadline is not None:
        solver.parameters.max_time_in_seconds = max(deadline - time.monotonic(), 0.001)
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return False, list(solver.sufficient_assumptions_for_infeasibility())
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return True, []
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"explain built an invalid node model: {model.validate()}")
    return None, []


@dataclass(frozen=True)
class Core:
    groups: tuple[Group, ...]
    minimal: bool


def minimal_core(pm: PodModel, guards: Assumptions, reason: str, deadline: float | None) -> Core | None:
    """The groups that cannot hold together, shrunk until dropping any one lets the pod in; None when
    every group holds together (the model admits the pod); no groups when the time ran out first."""
    literals = guards.literals
    by_index = {lit.index: g for g, lit in literals.items()}
    found: list[int] | None = None
    for tried in _tiers(list(literals), reason):
        feasible, core = _solve(pm, [literals[g] for g in tried], deadline)
        if feasible is None:
            return Core((), False)
        if feasible is False:
            found = core
            break
    if found is None:
        return None
    current = _ordered([by_index[i] for i in found], reason)
    i = 0
    while i < len(current):
        if deadline is not None and time.monotonic() > deadline:
            return Core(tuple(_shown(current)), False)
        trial = current[:i] + current[i + 1 :]
        feasible, core = _solve(pm, [literals[g] for g in trial], deadline)
        if feasible is False:
            # The new core may leave out more than the one group dropped.
            kept = {by_index[j] for j in core}
            current = [g for g in trial if g in kept]
        elif feasible:
            i += 1
        else:
            return Core(tuple(_shown(current)), False)
    return Core(tuple(_shown(current)), True)


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


def _shown(groups: Sequence[Group] | Mapping[Group, BoolVar]) -> list[Group]:
    def key(g: Group) -> tuple[int, str]:
        family = str(g[0])
        return (_SHOWN.index(family) if family in _SHOWN else len(_SHOWN), repr(g))

    return sorted(groups, key=key)


def is_minimal(
    pm: PodModel, guards: Assumptions, groups: Sequence[Group], deadline: float | None = None
) -> bool:
    """The definition, checked: the groups refute the pod together, and without any one of them the
    model admits it."""
    lits = [guards.literals[g] for g in groups]
    if _solve(pm, lits, deadline)[0] is not False:
        return False
    return all(_solve(pm, lits[:i] + lits[i + 1 :], deadline)[0] is True for i in range(len(lits)))


# --- a node's pods -------------------------------------------------------------------------------------


@dataclass
class Rejection:
    """What explaining one refused pod works from: the kubelet before the pod, and what it allocated to
    the pod's containers before refusing it."""

    kubelet: Kubelet
    pod: PodFacts
    admission: PodAdmission
    allocated: dict[str, tuple[CPUSet | None, int | None]]

    def model(self, with_order: bool) -> tuple[PodModel, Assumptions]:
        return guarded(self.kubelet, view(self.kubelet, self.pod), self.allocated if with_order else None)


def rejections(problem: NodeProblem) -> Iterator[tuple[PodAdmission, Rejection | None]]:
    """Every reported pod's admission by the kubelet, with, for a refused one, the state it was refused
    on (a refused pod leaves the state as it was before it). A Rejection holds only until the next item:
    the kubelet then moves on to the next pod."""
    kubelet = Kubelet(problem)
    for pod in problem.pods:
        kubelet.allocated = {}
        admission = kubelet.admit(pod)
        if pod.report:
            rejection = None if admission.admitted else Rejection(kubelet, pod, admission, kubelet.allocated)
            yield admission, rejection


def explain_rejection(node: str, r: Rejection, devices: Devices, deadline: float | None) -> PodExplanation:
    # Imported here: the renderer reads this module's types.
    from .admission_render import Renderer, fallback, shared_pool

    a = r.admission
    if a.reason == "EmptyPodSharedPoolError":
        # A check of the pod's shape, before any choice: the kubelet's reason is the only one.
        return PodExplanation(node, a, (shared_pool(r.pod, a.message),))
    core: Core | None = None
    for with_order in (False, True):
        if with_order and not r.allocated:
            break
        pm, guards = r.model(with_order)
        core = minimal_core(pm, guards, a.reason, deadline)
        if core is None:
            continue  # the model admits the pod: try again with the kubelet's order
        if not core.groups:
            break
        renderer = Renderer(r.kubelet, pm.view, devices, r.allocated)
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


# --- from objects ------------------------------------------------------------------------------------


def device_names(objects: ObjectSet, node: str) -> Devices:
    """The allocated devices of the claims of the node's pods, named as the allocator names them."""
    out: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    for o in objects.of_kind("Pod"):
        pod: Any = o.model
        spec = getattr(pod, "spec", None)
        if spec is None or spec.node_name != node:
            continue
        statuses = (pod.status.resource_claim_statuses if pod.status is not None else None) or ()
        generated = {s.name: s.resource_claim_name for s in statuses}
        for ref in spec.resource_claims or ():
            claim_name = ref.resource_claim_name or generated.get(ref.name)
            claim = objects.get("ResourceClaim", claim_name, o.namespace) if claim_name else None
            model: Any = claim.model if claim is not None else None
            allocation = model.status.allocation if model is not None and model.status is not None else None
            results = (
                allocation.devices.results if allocation is not None and allocation.devices else None
            ) or ()
            names = tuple(f"{r.driver}/{r.pool}/{r.device}" for r in results)
            out[(f"{o.namespace}/{o.name}", f"claim/{o.namespace}/{ref.name}")] = (
                f"{o.namespace}/{claim_name or ref.name}",
                names,
            )
    return Devices(out)


def explain_admissions(
    objects: ObjectSet,
    gates: FeatureGates,
    node: str,
    pod_ref: str | None,
    files: StateFiles,
    time_limit: float | None = None,
) -> list[PodExplanation]:
    """Explain the admission of the node's pods (or of `pod_ref`), from the inputs `kubefit admit` reads."""
    problem = build(objects, gates, node, pod_ref, files)
    return explain_node(problem, device_names(objects, node), time_limit)
