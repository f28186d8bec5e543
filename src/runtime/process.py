"""The command line's process policy, switched on by the command line alone (`own`): a library caller of
the verbs gets none of it. A run is one short-lived process: its garbage collector is tuned for millions
of long-lived objects, what a verb builds is left for the process's end instead of being freed object by
object, the input is read (and validated) by forked children while the verb imports what it needs, and
the scheduler's imports are done while the reading child is waited for."""

from __future__ import annotations

import gc
import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..model.errors import Problem
from ..model.features import FeatureGates
from ..translate.reading import json_child
from . import background_validation

if TYPE_CHECKING:
    from ..translate.kube import ObjectSet

# The command line's process, not a caller's library use: the loaded objects are frozen (they live
# until the end) and large inputs are validated in a child.
_OWN_PROCESS = False
# What the child reading the input does next (see validate), if it reads it.
_after_reading: background_validation.AfterReading | None = None
_KEPT: list[Any] = []


def own(
    paths: Sequence[str] | None, validates: bool, strict: bool, gates: Callable[[], FeatureGates]
) -> None:
    """This process is the command line's: tune the collector, and start reading `paths` (the -f inputs)
    in a child while the verb imports what it needs; the child goes on to validate what it read when the
    verb's input is validated as it loads (`validates`)."""
    global _OWN_PROCESS, _after_reading
    _OWN_PROCESS = True
    _tune_gc()
    if paths:
        if validates:
            _after_reading = background_validation.AfterReading(tuple(paths), strict, gates())
        json_child.start(paths, _after_reading)


def _tune_gc() -> None:
    """Objects of a large cluster are millions of small, long-lived, acyclic containers: with the
    default thresholds the cyclic collector rescans them again and again (4x the loading time of a
    500-node dump), so collect rarely. A run is one short-lived process."""
    gen0, _, _ = gc.get_threshold()
    if gen0 < 100_000:
        gc.set_threshold(100_000, 50, 100)


def keep(*values: Any) -> None:
    """In a process of its own, what a verb built (the objects, the problem, the solution) is left for
    the process's end (`run` ends it without freeing anything) instead of being freed object by
    object as the verb returns: a twentieth of a second on a 500-node cluster."""
    if _OWN_PROCESS:
        _KEPT.extend(values)


def collect_no_more() -> None:
    """In a process of its own, a verb that answers once and ends (allocate, explain) makes what lives
    until the end (the problem, its facts, the search's states), without cycles to speak of: the cyclic
    collector's scans of it (a twentieth of a second on a 500-node cluster) would free nothing. The
    memory a 1,000-pod run of the scheduler peaks at is the same with it off."""
    if _OWN_PROCESS:
        gc.disable()


def scheduling_imports() -> Iterator[None]:
    """What scheduling imports on its way (the scheduler's plugins, preemption, CEL's libraries), a
    module at a time: done while the input's reading child is waited for, if it is."""
    from ..solver.cluster.plugins import REGISTRY, plugin_class
    from ..translate.cel.environment import base_libraries

    for name in REGISTRY:
        plugin_class(name)
        yield
    importlib.import_module("kubefit.solver.cluster.preemption")
    yield
    base_libraries()
    yield


def reading_done(paths: Sequence[str], strict: bool, gates: FeatureGates, dropped: bool) -> Any:
    """The files are read: the child that read them goes on only to validate these very objects (not
    when some were read again without fields their gates drop: they are validated here). The child to
    adopt, if it goes on."""
    then = _after_reading if not dropped else None
    return json_child.after(then if then and then.matches(paths, strict, gates) else None)


def loaded(objects: ObjectSet) -> None:
    """What was loaded lives until the end: in a process of its own, the collector does not scan it again."""
    if _OWN_PROCESS:
        gc.freeze()
    keep(objects)


def validate(
    objects: ObjectSet,
    gates: FeatureGates,
    finish: Callable[[list[Problem]], None],
    reading: Any,
) -> None:
    """The objects' API validation, its problems to `finish`: by the child that read them (`reading`), by
    one forked now for a large input, or here and now. `background_validation.settle` waits for a child's."""
    if reading is not None:
        assert _after_reading is not None
        background_validation.adopt(reading, objects, gates, finish, _after_reading.progress)
        return
    forked = _OWN_PROCESS and background_validation.wanted(len(objects))
    if not (forked and background_validation.start(objects, gates, finish)):
        from ..translate.validation.run import validate_objects

        finish(validate_objects(objects, gates))


def reading_failed() -> None:
    """The input could not be read: the child reading it is done with."""
    json_child.finish()


def settle() -> None:
    """Before the answer is shown: the validation's problems, from a child if one validates."""
    background_validation.settle()


def abandon() -> None:
    """The run ends without an answer (interrupted, its reader gone): a validating child with it."""
    background_validation.abandon()
