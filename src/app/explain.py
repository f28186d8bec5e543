"""`kubefit explain`: why pods (or claims) cannot be placed, per node, in minimal sets of reasons; with
--node N whose kubelet the input describes, the pods bound to N as its kubelet admits them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model.errors import InputError
from ..model.features import FeatureGates
from ..runtime import process
from ..solver.deadline import Deadline
from . import names
from .loading import load_valid
from .requests import EXIT_NO_FIT, EXIT_OK, Answer, Input, Scheduling


@dataclass(frozen=True)
class ExplainRequest:
    input: Input
    fmt: str
    engine: str = "greedy"  # the engine that places the pods before them
    # The reasons' budget: where it stops them early they are reported with minimal: false.
    deadline: Deadline = field(default_factory=lambda: Deadline(None, waiting=True))
    steps: int = 1_000_000  # search steps per node (greedy)
    pod: str | None = None  # this pod only ([namespace/]name)
    claims: tuple[str, ...] | None = None  # these claims, allocated together, in order
    node: str | None = None  # this node only
    scheduling: Scheduling = field(default_factory=Scheduling)
    cpu_manager_state: str | None = None  # with --node N and its NodeTopology: the kubelet's checkpoints
    memory_manager_state: str | None = None


def explain(request: ExplainRequest) -> Answer:
    from ..solver import engines
    from ..solver.explain import Options, document, explain, text
    from ..translate.dra.build import build

    gates = request.input.gates
    objects = load_valid(request.input, api_problems_are_errors=False, meanwhile=process.scheduling_imports())
    process.collect_no_more()
    names.check_node(objects, request.node)
    names.check_claims(objects, request.claims)
    names.check_scheduler_name(objects, gates, request.scheduling.scheduler_name)
    bound = _bound_pods(request, objects, gates)
    if bound is not None:
        # The kubelet's side (and CP-SAT with it) is imported only for a node whose kubelet is described.
        from ..solver.explain.admission_render import items as admission_items
        from ..solver.explain.admission_render import text as admission_text
    if bound is not None and request.pod:
        node_doc = {
            "apiVersion": "kubefit.io/v1alpha1",
            "kind": "Explanation",
            "items": admission_items(bound),
        }
        process.settle()
        code = EXIT_OK if all(p.admitted for p in bound) else EXIT_NO_FIT
        return Answer(node_doc, admission_text(bound), code, request.fmt)
    claims = list(request.claims) if request.claims is not None else None
    s = request.scheduling
    built = build(objects, gates, request.node, claims, s.seed, s.scheduler_name, s.now)
    problem = built.problem
    wanted = None
    if request.pod:
        pod = request.pod
        wanted = frozenset(u.id for u in problem.units if pod in (u.pod, u.pod.partition("/")[2]))
        if not wanted:
            from ..translate.dra.workloads import expand

            names.check_pod(expand(objects), pod)  # no pod of that name at all
            raise InputError(f"--pod {pod}: no pending pod of that name")
    engine = engines.get(request.engine)
    engines.check_supported(engine, problem)
    solution = engine.solve(problem, engines.Budget(request.steps))
    units = explain(built, solution, Options(request.deadline.seconds, request.steps, wanted))
    process.keep(built, solution, units)
    doc = document(problem, units)
    out = text(problem, units)
    fits = all(u.fits for u in units)
    if bound is not None:
        # The node's pods as its kubelet admits them, then the pending pods as the scheduler places them.
        doc["items"] = [*admission_items(bound), *doc["items"]]
        out = admission_text(bound) + ("\n" + out if units else "")
        fits = fits and all(p.admitted for p in bound)
    process.settle()
    return Answer(doc, out, EXIT_OK if fits else EXIT_NO_FIT, request.fmt)


def _bound_pods(request: ExplainRequest, objects: Any, gates: FeatureGates) -> list[Any] | None:
    """With --node N whose kubelet the input describes (its NodeTopology, as for `admit`): the pods bound
    to N (or --pod, when it is bound to N) explained as the kubelet admits them; None otherwise."""
    from .explain_bound import bound_to, has_kubelet

    node = request.node
    if not node or request.claims is not None or not has_kubelet(objects, node):
        return None
    if request.pod and not bound_to(objects, node, request.pod):
        return None
    from ..translate.node.build import StateFiles
    from .explain_node import explain_admissions

    files = StateFiles(request.cpu_manager_state, request.memory_manager_state)
    return explain_admissions(objects, gates, node, request.pod, files, request.deadline.seconds)
