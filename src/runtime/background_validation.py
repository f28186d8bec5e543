"""API validation of a large input in a child process while the answer is worked out.

API validation only reports: its problems either stop the run (bad input) or are printed as warnings
before the answer, and nothing it finds changes the objects the answer is built from. On a 500-node
dump it is a tenth of a run, so a child validates while the command line builds the answer: the child
that read the input (`AfterReading`), or one forked once the input is loaded (the loaded objects are
the child's too, without a copy). Nothing is shown before the child's problems are: `settle` runs
before the answer is written, and log records of the meantime are held and written after the
problems, so the output is the same, line for line, as when validation comes first. If the process
has its answer before the reading child has validated everything, it validates objects from the last
one back until they meet (`Progress`). Where fork is not safe (no fork, other threads, a library
caller) or would not pay (a small input), validation runs first, in the process.

`forking` says when a child is made (KUBEFIT_FORK).
"""

from __future__ import annotations

import logging
import mmap
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..model.errors import MAX_PROBLEMS, InputError, Problem
from ..model.features import FeatureGates
from . import forking

if TYPE_CHECKING:
    from ..translate.kube import ObjectSet

log = logging.getLogger("kubefit")

# Below this many objects validation takes less than a fork and its copied pages cost.
MIN_OBJECTS = 1_000

Finish = Callable[[list[Problem]], None]


class _Hold:
    """The records the root logger's handlers are given until the validation's problems are out."""

    def __init__(self) -> None:
        self.records: list[tuple[logging.Handler, logging.LogRecord]] = []
        self.filters: list[tuple[logging.Handler, Callable[[logging.LogRecord], bool]]] = []

    def attach(self) -> None:
        for handler in logging.getLogger().handlers:

            def keep(record: logging.LogRecord, handler: logging.Handler = handler) -> bool:
                self.records.append((handler, record))
                return False

            handler.addFilter(keep)
            self.filters.append((handler, keep))

    def detach(self) -> list[tuple[logging.Handler, logging.LogRecord]]:
        for handler, keep in self.filters:
            handler.removeFilter(keep)
        self.filters = []
        held, self.records = self.records, []
        return held


class _Child(Protocol):
    def receive(self) -> Any | None: ...
    def ready(self) -> bool: ...
    def wait(self) -> bool: ...
    def stop(self) -> None: ...


@dataclass
class _Pending:
    child: _Child
    objects: ObjectSet
    gates: FeatureGates
    finish: Finish
    hold: _Hold = field(default_factory=_Hold)
    progress: Progress | None = None  # the child's, which the process may take over (see `settle`)


class Progress:
    """How far a child validating objects in order has got, and where the process takes over (the
    child stops there): two counters on a page the child shares with the process. Each side writes
    one of them; a value read while it was written can only make a side do more than its share,
    never less (see `_shared`)."""

    _DONE, _CLAIMED = 0, 8
    _NONE = 2**62

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, 16)
        struct.pack_into("qq", self._page, 0, 0, self._NONE)

    def done(self) -> int:
        return int(struct.unpack_from("q", self._page, self._DONE)[0])

    def advance(self, done: int) -> None:
        struct.pack_into("q", self._page, self._DONE, done)

    def claimed(self) -> int:
        return int(struct.unpack_from("q", self._page, self._CLAIMED)[0])

    def claim(self, start: int) -> None:
        struct.pack_into("q", self._page, self._CLAIMED, start)


_pending: _Pending | None = None


def wanted(count: int) -> bool:
    """Whether to validate `count` objects in a child."""
    return forking.allowed(count, MIN_OBJECTS)


def start(objects: ObjectSet, gates: FeatureGates, finish: Finish) -> bool:
    """Fork a child validating `objects`; `finish(problems)` is run by `settle`. False: not started
    (the caller validates in the process)."""
    global _pending
    if _pending is not None:
        settle()

    def work(send: forking.Send) -> None:
        from ..translate.validation.run import validate_objects

        send(validate_objects(objects, gates))

    child = forking.fork(work)
    if child is None:
        return False
    _pending = _Pending(child, objects, gates, finish)
    _pending.hold.attach()
    log.debug("API validation of %d objects goes on in a child process", len(objects))
    return True


@dataclass(frozen=True)
class AfterReading:
    """API validation by the child that reads the input (`json_child.start`): once the files are read,
    it loads the objects itself, as the process does, and validates them. The process takes its
    problems (`adopt`) where they are of the same objects: the same files, each read as the same text
    (ObjectSet.sources). The process then forks no child once the input is loaded, and its pages are
    never shared with one while it works out the answer."""

    paths: tuple[str, ...]
    strict: bool
    gates: FeatureGates
    progress: Progress = field(default_factory=Progress, compare=False)

    def __call__(self, send: forking.Send) -> None:
        from ..translate.loader import load
        from ..translate.validation.run import Context, object_problems

        try:
            objects = load(list(self.paths), strict=self.strict)
        except InputError:
            return  # the process stops at the same problems
        # In order, until the object the process has taken over from (if it has: see `settle`).
        ctx = Context(self.gates)
        problems: list[Problem] = []
        done = 0
        for obj in objects:
            if done >= self.progress.claimed() or len(problems) > MAX_PROBLEMS:
                break  # (past MAX_PROBLEMS, as validate_objects stops: the process goes no further)
            problems += object_problems(obj, ctx)
            done += 1
            self.progress.advance(done)
        send((objects.sources, problems, done))

    def matches(self, paths: Sequence[str], strict: bool, gates: FeatureGates) -> bool:
        return self.paths == tuple(paths) and self.strict == strict and self.gates == gates


def adopt(
    child: _Child, objects: ObjectSet, gates: FeatureGates, finish: Finish, progress: Progress | None = None
) -> None:
    """As `start`, with the problems the reading child sends (see AfterReading; `progress`, its)."""
    global _pending
    if _pending is not None:
        settle()
    _pending = _Pending(_SameObjects(child, objects), objects, gates, finish, progress=progress)
    _pending.hold.attach()
    log.debug(
        "API validation of %d objects goes on in a child process (the one that read them)", len(objects)
    )


@dataclass
class _SameObjects:
    """The reading child's problems, with the number of objects it validated (see AfterReading), if it
    validated objects read from the very texts the process read."""

    child: _Child
    objects: ObjectSet

    def receive(self) -> Any | None:
        found = self.child.receive()
        if not isinstance(found, tuple) or len(found) != 3 or found[0] != self.objects.sources:
            return None
        return found[1:]

    def ready(self) -> bool:
        return self.child.ready()

    def wait(self) -> bool:
        return self.child.wait()

    def stop(self) -> None:
        self.child.stop()


def _problems(pending: _Pending) -> list[Problem]:
    shared = _shared(pending) if pending.progress is not None and not pending.child.ready() else None
    problems = pending.child.receive()
    if pending.child.wait():
        if shared is not None and isinstance(problems, tuple):
            return shared(*problems)
        if isinstance(problems, tuple):  # the reading child's, all of them
            return list(problems[0])
        if isinstance(problems, list):
            return problems
    from ..translate.validation.run import validate_objects

    return validate_objects(pending.objects, pending.gates)


def _shared(pending: _Pending) -> Callable[[list[Problem], int], list[Problem]]:
    """The process validates objects from the last one back while the child goes on from the first,
    each claimed once found to have no problem (it has the objects made already), until they meet or
    it meets one with a problem: that and those before it are the child's, which locates problems
    (a problem's line is looked up in the file's text: the process would read a dump's text again,
    as large as the rest of what it holds). Then the child's problems, up to where it stopped."""
    from ..translate.validation.run import Context, object_errors, validate_in_order

    progress = pending.progress
    assert progress is not None
    objects = pending.objects.objects
    count = start = len(objects)
    ctx = Context(pending.gates)
    while start > 0 and not any(True for _ in object_errors(objects[start - 1], ctx)):
        progress.claim(start - 1)
        if progress.done() >= start:
            progress.claim(start)  # the child has validated it: it stops where the process began
            break
        start -= 1
    log.debug(
        "API validation: objects %d-%d of %d here, the others in a child process", start + 1, count, count
    )

    def joined(theirs: list[Problem], stop: int) -> list[Problem]:
        # The child stops where the process began, or past it; short of it only if a count was read
        # while it was written: the process then validates those between.
        stop = min(max(stop, 0), count)
        return validate_in_order(objects[stop:start], ctx, list(theirs))

    return joined


def settle() -> None:
    """The child's problems, finished as if validation had come first: what `finish` prints or
    raises, then the log records held meanwhile (dropped when `finish` raises: the run stops there)."""
    global _pending
    pending, _pending = _pending, None
    if pending is None:
        return
    held = pending.hold.detach()
    pending.finish(_problems(pending))
    for handler, record in held:
        handler.handle(record)


def abandon() -> None:
    """Stop waiting for the child (interrupted, or the reader went away)."""
    global _pending
    pending, _pending = _pending, None
    if pending is not None:
        pending.hold.detach()
        pending.child.stop()
