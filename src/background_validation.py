"""API validation of a large input in a child process while the answer is worked out.

API validation only reports: its problems either stop the run (bad input) or are printed as warnings
before the answer, and nothing it finds changes the objects the answer is built from. On a 500-node
dump it is a tenth of a run, so the command line forks once the input is read (the loaded objects are
the child's too, without a copy) and builds the answer while the child validates. Nothing is shown
before the child's problems are: `settle` runs before the answer is written, and log records of the
meantime are held and written after the problems, so the output is the same, line for line, as when
validation comes first. Where fork is not safe (no fork, other threads, a library caller) or would not
pay (a small input), validation runs first, in the process.

KUBEFIT_FORK_VALIDATION=0 never forks; =1 forks whatever the input's size (tests use it).
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import Problem
from .features import FeatureGates

if TYPE_CHECKING:
    from .translate.objects import ObjectSet

log = logging.getLogger("kubefit")

ENV = "KUBEFIT_FORK_VALIDATION"
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


@dataclass
class _Child:
    pid: int
    fd: int
    objects: ObjectSet
    gates: FeatureGates
    finish: Finish
    hold: _Hold = field(default_factory=_Hold)


_pending: _Child | None = None


def wanted(count: int) -> bool:
    """Whether to validate `count` objects in a child."""
    setting = os.environ.get(ENV, "")
    if setting == "0" or not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return False
    if threading.active_count() > 1:
        return False  # a forked child would hold copies of their locks, in whatever state
    return setting == "1" or count >= MIN_OBJECTS


def start(objects: ObjectSet, gates: FeatureGates, finish: Finish) -> bool:
    """Fork a child validating `objects`; `finish(problems)` is run by `settle`. False: not started
    (the caller validates in the process)."""
    global _pending
    if _pending is not None:
        settle()
    sys.stdout.flush()
    sys.stderr.flush()
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return False
    if pid == 0:  # pragma: no cover - the child's lines run in the child (its result is what tests check)
        _child(read, write, objects, gates)
    os.close(write)
    _pending = _Child(pid, read, objects, gates, finish)
    _pending.hold.attach()
    log.debug("API validation of %d objects goes on in a child process", len(objects))
    return True


def _child(read: int, write: int, objects: ObjectSet, gates: FeatureGates) -> None:
    code = 1
    try:
        gc.disable()  # the objects are the parent's pages: scanning them would copy them
        os.close(read)
        from .translate.validation.run import validate_objects

        data = pickle.dumps(validate_objects(objects, gates), pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write, "wb") as out:
            out.write(data)
        code = 0
    except BaseException:  # whatever stops the child, the parent validates in its stead
        pass
    finally:
        os._exit(code)


def _problems(child: _Child) -> list[Problem]:
    with os.fdopen(child.fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(child.pid, 0)
    if os.waitstatus_to_exitcode(status) == 0 and data:
        problems: list[Problem] = pickle.loads(data)
        return problems
    from .translate.validation.run import validate_objects

    return validate_objects(child.objects, child.gates)


def settle() -> None:
    """The child's problems, finished as if validation had come first: what `finish` prints or
    raises, then the log records held meanwhile (dropped when `finish` raises: the run stops there)."""
    global _pending
    child, _pending = _pending, None
    if child is None:
        return
    held = child.hold.detach()
    child.finish(_problems(child))
    for handler, record in held:
        handler.handle(record)


def abandon() -> None:
    """Stop waiting for the child (interrupted, or the reader went away)."""
    global _pending
    child, _pending = _pending, None
    if child is None:
        return
    child.hold.detach()
    try:
        os.kill(child.pid, 9)
        os.waitpid(child.pid, 0)
        os.close(child.fd)
    except OSError:
        pass
