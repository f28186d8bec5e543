"""What every verb reading objects starts with: the input loaded and validated (`load_valid`)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from typing import Any

from ..model.errors import MAX_PROBLEMS, InputError, Problem, too_many
from ..runtime import process
from .requests import Input, warn

log = logging.getLogger("kubefit")

_CONFIG_KINDS = ("KubeSchedulerConfiguration/", "KubeletConfiguration/", "NodeTopology/")


def load_valid(
    source: Input,
    api_problems_are_errors: bool = True,
    meanwhile: Iterable[object] = (),
) -> Any:
    """Load and validate the input. Schema problems are always bad input; what only API validation
    refuses is too, unless the verb answers as the scheduler would for objects already stored (then
    it is a warning, and --strict makes it an error). In the command line's own process a large input
    is validated in a child while the verb goes on: the verb calls `background_validation.settle`
    before it shows anything."""
    from ..translate import disabled_fields
    from ..translate.loader import load

    try:
        objects = load(list(source.paths), strict=source.strict, meanwhile=meanwhile)
    except BaseException:
        process.reading_failed()
        raise
    gated, dropped = disabled_fields.apply(objects, source.gates, source.strict)
    objects.warnings += gated
    reading = process.reading_done(source.paths, source.strict, source.gates, bool(dropped))
    process.loaded(objects)
    warn(objects.warnings)

    def finish(problems: list[Problem]) -> None:
        _api_problems(problems, source.strict, api_problems_are_errors)

    process.validate(objects, source.gates, finish, reading)
    return objects


def _api_problems(problems: list[Problem], strict: bool, api_problems_are_errors: bool) -> None:
    if problems and (api_problems_are_errors or strict):
        raise InputError(problems)
    # Configurations are not stored objects: a component refuses to start with one it does not accept;
    # nor is a machine's topology, and no kubelet runs on one that cannot be (a CPU listed twice). No
    # stored object has what no API server ever accepted (a negative request, a fractional pod count):
    # an answer computed from it would be one no cluster gives.
    refused = [p for p in problems if p.unstorable or p.obj.startswith(_CONFIG_KINDS)]
    if refused:
        raise InputError(refused)
    if problems:
        more = [too_many("warnings", warning=True)] if len(problems) > MAX_PROBLEMS else []
        warn([*(dataclasses.replace(p, warning=True) for p in problems[:MAX_PROBLEMS]), *more])
        log.warning(
            "the API server would refuse the objects above; answering as the scheduler would if they "
            "were stored (--strict stops here instead)"
        )
