"""Where each class may go at all: the scheduler's own filters, run once per class on the cluster as the
input leaves it.

What a placement of other pending pods can change is left to the model (model.py): node resources,
host ports and DRA for every class, and for classes with required pod (anti-)affinity or a DoNotSchedule
spread constraint, those rules too. For those classes InterPodAffinity still runs here on the pod without
its own terms, so that running pods' anti-affinity keeps it away.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ....model.cluster import names
from ....model.cluster.facts import Pod
from ....model.problem import Problem
from ...engines import Budget
from ...greedy import search_node
from ..framework import Code, CycleState, NodeInfo, Status
from ..plugins.noderesources.fit import PRE_FILTER_STATE_KEY, PreFilterState
from ..runtime import Framework, FrameworkError
from ..scheduler import Run
from .classes import PodClass

# Run here against the input's state (a necessary condition), and modelled again with the other pending pods
# the plan puts on the node: NodeResourcesFit, NodePorts. Modelled only: DynamicResources (its filter is a
# search per node, which the model does anyway).
MODELLED = frozenset({names.DYNAMIC_RESOURCES})
INTERACTING = frozenset({names.INTER_POD_AFFINITY, names.POD_TOPOLOGY_SPREAD})


def interacts(pod: Pod) -> bool:
    """Whether the pod's own required rules depend on where other pending pods go."""
    return bool(
        pod.required_affinity
        or pod.required_anti_affinity
        or any(s.when_unsatisfiable == "DoNotSchedule" for s in pod.spread_constraints)
    )


@dataclass
class Reach:
    """A class's nodes: those its filters pass, and why the others fail."""

    nodes: list[str] = field(default_factory=list)  # in the snapshot's order
    rejected: dict[str, Status] = field(default_factory=dict)
    error: str = ""  # the pod cannot be scheduled at all (PreFilter error, no profile, gated)
    # What NodeResourcesFit checks for the pod: (resource, amount); None when the plugin is not enabled.
    checks: tuple[tuple[str, int], ...] | None = None
    scores: dict[str, int] = field(default_factory=dict)  # node -> the profile's total score for the pod


def setup(problem: Problem, deadline: float | None = None) -> Run:
    """A scheduler run over the input (its snapshot, frameworks and DRA state), never stepped. A node's
    DRA search stops at `deadline` (time.monotonic), answering that it was not decided in time."""
    return Run(problem, Budget(), search_node, deadline, {})


def reach(run: Run, cls: PodClass, with_scores: bool = False) -> Reach:
    pod, unit = cls.pod, cls.unit
    out = Reach()
    if unit.error:
        out.error = unit.error
        return out
    if pod.scheduling_gates:
        out.error = f"waits for its scheduling gates ({', '.join(pod.scheduling_gates)})"
        return out
    profile = run.cluster.scheduler_name or pod.scheduler_name
    fw = run.frameworks.get(profile)
    if fw is None:
        out.error = f'pod names scheduler "{profile}", which has no profile in the KubeSchedulerConfiguration'
        return out
    nodes = run.candidates(unit)
    skip = MODELLED | (INTERACTING if interacts(pod) else frozenset())
    try:
        verdicts = _filter(fw, pod, nodes, skip, out)
        if interacts(pod) and fw.plugin(names.INTER_POD_AFFINITY) is not None:
            bare = replace(pod, required_affinity=(), required_anti_affinity=(), spread_constraints=())
            others = frozenset(p.name for p in fw.filter) - {names.INTER_POD_AFFINITY}
            again = _filter(fw, bare, [n for n in nodes if verdicts.get(n.name) is None], others, None)
            verdicts.update({k: v for k, v in again.items() if v is not None})
    except FrameworkError as e:
        out.error = e.status.message
        return out
    for node in nodes:
        status = verdicts.get(node.name)
        if status is None:
            out.nodes.append(node.name)
        else:
            out.rejected[node.name] = status
    if with_scores and out.nodes:
        state = CycleState()
        feasible = [n for n in nodes if n.name in set(out.nodes)]
        try:
            fw.run_pre_filter(state, pod, nodes)
            out.scores = {s.node: s.total for s in fw.run_scores(state, pod, feasible)}
        except FrameworkError as e:
            out.nodes, out.error = [], e.status.message  # the scheduler's cycle stops with this error too
    return out


def _filter(
    fw: Framework, pod: Pod, nodes: list[NodeInfo], skip: frozenset[str], reach_of: Reach | None
) -> dict[str, Status | None]:
    """PreFilter then Filter on each node, without the plugins in `skip` (a PreFilter rejection by one of
    them is theirs to decide too)."""
    state = CycleState()
    pre = fw.run_pre_filter(state, pod, nodes)
    fit = state.data.get(PRE_FILTER_STATE_KEY)
    if reach_of is not None and isinstance(fit, PreFilterState):
        reach_of.checks = tuple((resource, amount) for resource, amount, _ in fit.checks)
    if pre.status is not None and pre.status.plugin not in skip:
        return dict.fromkeys((n.name for n in nodes), pre.status)
    state.skip_filter.update(skip)
    out: dict[str, Status | None] = {}
    for node in nodes:
        if pre.allowed is not None and node.name not in pre.allowed:
            out[node.name] = Status(
                Code.UNRESOLVABLE, (f"node(s) didn't satisfy plugin(s) {', '.join(pre.plugins)}",)
            )
        else:
            out[node.name] = fw.run_filters(state, pod, node)
    return out
