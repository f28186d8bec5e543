"""`kubefit admit`: the pods bound to one node (or one pod) admitted as the kubelet's CPU, memory and
topology managers do, with which CPUs, NUMA nodes and memory; the checkpoint files after, if asked."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ..runtime import process
from ..solver.deadline import Deadline
from . import names
from .loading import load_valid
from .requests import EXIT_NO_FIT, EXIT_OK, Answer, Input

log = logging.getLogger("kubefit")


@dataclass(frozen=True)
class AdmitRequest:
    input: Input
    fmt: str
    node: str  # the node (its NodeTopology and KubeletConfiguration)
    pod: str | None = None  # the pod to admit (default: the node's pods)
    engine: str = "greedy"
    # cpsat, asp: the whole run's budget (no limit: the engine's default, 60 s).
    deadline: Deadline = field(default_factory=lambda: Deadline(None, waiting=True))
    cpu_manager_state: str | None = None  # the kubelet's checkpoint files
    memory_manager_state: str | None = None
    write_state: str | None = None  # write the checkpoint files after admission into this directory


def admit(request: AdmitRequest) -> Answer:
    from ..solver import registry
    from ..solver.engines import NodeEngine
    from ..translate.node.build import StateFiles, build
    from .admit_render import admission_table, render, write_state

    gates = request.input.gates
    # A kubelet refuses to start with a configuration (or on a machine) it does not accept; the pods it
    # admits come from the API server, so, as for the scheduler's verbs, what only API validation
    # refuses is a warning (the kubelet's own tests name containers `fakeContainer3`) unless it is
    # unstorable (a negative request): see loading._api_problems.
    objects = load_valid(request.input, api_problems_are_errors=False)
    names.check_node(objects, request.node, slices=False)  # the kubelet's node: a Node or NodeTopology
    names.check_pod(objects.of_kind("Pod"), request.pod)
    engine: NodeEngine = registry.node(request.engine, request.deadline.seconds)
    files = StateFiles(request.cpu_manager_state, request.memory_manager_state)
    problem = build(objects, gates, request.node, request.pod, files)
    solution = engine.admit(problem)
    process.settle()
    # Before the answer: a state that cannot be written is bad input, and then nothing is shown.
    if request.write_state:
        for path in write_state(request.write_state, solution):
            log.info("wrote %s", path)
    doc = render(request.node, solution, single=request.pod is not None)
    code = EXIT_OK if all(a.admitted for a in solution.reported) else EXIT_NO_FIT
    return Answer(doc, admission_table(solution), code, request.fmt)
