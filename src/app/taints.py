"""`kubefit taints`: every DeviceTaintRule with the status kube-controller-manager writes, and every pod
a NoExecute taint evicts, with when and why, as the device taint eviction controller decides."""

from __future__ import annotations

from dataclasses import dataclass

from ..runtime import process
from . import names
from .loading import load_valid
from .requests import EXIT_NO_FIT, EXIT_OK, Answer, Input


@dataclass(frozen=True)
class TaintsRequest:
    input: Input
    fmt: str
    rule: str | None = None  # this DeviceTaintRule only, and the pods it evicts


def taints(request: TaintsRequest) -> Answer:
    from ..solver.taints import report
    from ..translate.dra.taint_eviction import eviction_facts
    from . import taints_render as render

    # The controller works on stored objects: what only API validation refuses is a warning (--strict: error).
    objects = load_valid(request.input, api_problems_are_errors=False)
    names.check_rule(objects, request.rule)
    answer = report(eviction_facts(objects, request.input.gates), request.rule)
    process.settle()
    code = EXIT_NO_FIT if answer.evictions else EXIT_OK
    return Answer(render.document(answer, objects), render.text(answer), code, request.fmt)
