"""Work a forked child does beside the command line's process, its results sent back as pickled records.

The command line hands a child work that does not change what the process goes on with: reading large
JSON files (`translate.reading.json_child`, whose documents come back marshalled in a record), the API
validation of what was loaded (`background_validation`). A child has the process's memory as it was at
the fork, without a copy; it writes nothing to the terminal and ends with os._exit. Where forking is
not safe (no fork, another thread running) or not wanted, nothing is forked and the process does the
work itself; a child that fails or dies leaves it to the process too.

KUBEFIT_FORK=0 never forks; =1 forks whatever the input's size (tests use it).
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import select
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

ENV = "KUBEFIT_FORK"

Send = Callable[[Any], None]


def allowed(size: int, least: int) -> bool:
    """Whether to fork for work on an input of `size` (objects, bytes) that pays from `least` on."""
    setting = os.environ.get(ENV, "")
    if setting == "0" or not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return False
    if threading.active_count() > 1:
        return False  # a forked child would hold copies of their locks, in whatever state
    if setting == "1":
        return True
    # With one core to run on, a child only takes turns with the process.
    return size >= least and len(os.sched_getaffinity(0)) > 1


class Child:
    """A forked child's records, read as they come."""

    def __init__(self, pid: int, pipe: BinaryIO) -> None:
        self.pid = pid
        self.pipe: BinaryIO | None = pipe

    def receive(self) -> Any | None:
        """The next record; None once there is none (the child ended, or failed)."""
        if self.pipe is None:
            return None
        try:
            return pickle.load(self.pipe)
        except Exception:  # EOF, or a record cut short: nothing more comes
            self.pipe.close()
            self.pipe = None
            return None

    def ready(self) -> bool:
        """Whether a record has begun to arrive (or none ever will): `receive` then waits no longer than
        the record takes to read. Bytes already buffered are not seen: a record read along with the one
        before may be taken for one still on its way."""
        if self.pipe is None:
            return True
        return bool(select.select([self.pipe], [], [], 0)[0])

    def wait(self) -> bool:
        """Whether the child ended well (its records are then all there was)."""
        if self.pipe is not None:
            self.pipe.close()
            self.pipe = None
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return False
        return os.waitstatus_to_exitcode(status) == 0

    def stop(self) -> None:
        """End the child whatever it is doing (its work is no longer wanted)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        self.wait()


def fork(work: Callable[[Send], None]) -> Child | None:
    """A child running `work(send)`, each `send(record)` reaching the process at once; None when no
    child could be made."""
    sys.stdout.flush()
    sys.stderr.flush()
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # pragma: no cover - runs in the child, whose records the tests check
        _run(read, write, work)
    os.close(write)
    return Child(pid, os.fdopen(read, "rb"))


def _run(read: int, write: int, work: Callable[[Send], None]) -> None:
    code = 1
    try:
        os.close(read)
        gc.disable()  # the objects are the parent's pages: scanning them would copy them
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # interrupted with the process, quietly
        with os.fdopen(write, "wb") as out:

            def send(record: Any) -> None:
                pickle.dump(record, out, pickle.HIGHEST_PROTOCOL)
                out.flush()

            work(send)
        code = 0
    except BaseException:  # whatever stops the child, the process does the work in its stead
        pass
    finally:
        os._exit(code)
