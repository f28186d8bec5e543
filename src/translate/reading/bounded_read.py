"""Reading what kubefit is given, within bounds: no input makes kubefit read without end, or wait on
a file nobody named.

- Every file, stdin and state file is read up to `--max-input-bytes` (1 GiB unless raised; a
  200 MB cluster dump is well within it), and so is everything one run's `-f` flags name together.
  A regular file larger than that is refused before a byte of it is read.
- A special file (a FIFO, a character device such as /dev/stdin) is read only when named itself:
  it is read by chunks, and what cannot be text (a NUL byte, bytes that are not UTF-8) stops the
  reading at once, so `-f /dev/zero` or `-f /dev/urandom` is refused in the first chunk. A FIFO is
  read as stdin is: until its writer closes it (a note on stderr says what kubefit waits for).
  Met while walking a directory, special files are skipped with a warning (`source_files`).
- JSON read from node-side files (checkpoints, cAdvisor's machine info) is refused with one line
  when it nests past the interpreter's limit or holds longer numbers than any real one does.
"""

from __future__ import annotations

import codecs
import json
import logging
import os
import select
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from ...model.errors import FieldPath, InputError, Problem

log = logging.getLogger("kubefit")

DEFAULT_MAX_BYTES = 1 << 30
# Objects (documents and List items) one run reads: more than a question about one cluster needs (a
# 500-node dump holds about 4,000), few enough that the smallest objects stay within 2 GB.
DEFAULT_MAX_OBJECTS = 200_000
_CHUNK = 1 << 20
_FIFO_NOTE_SECONDS = 5.0


@dataclass
class Limits:
    """What one run reads at most (the command line's --max-input-bytes and --max-objects)."""

    bytes: int = DEFAULT_MAX_BYTES
    objects: int = DEFAULT_MAX_OBJECTS


LIMITS = Limits()


def configure(max_input_bytes: int | None = None, max_objects: int | None = None) -> None:
    """The limits of this run (None: the default)."""
    LIMITS.bytes = max_input_bytes or DEFAULT_MAX_BYTES
    LIMITS.objects = max_objects or DEFAULT_MAX_OBJECTS


def max_objects() -> int:
    """The most objects (documents and List items) one run reads."""
    return LIMITS.objects


def max_bytes() -> int:
    """The most bytes one input (and one run's -f inputs together) may hold."""
    return LIMITS.bytes


class TooManyObjects(Exception):
    """A text holds more documents or List items than --max-objects allows: its reader stops there."""

    def __str__(self) -> str:
        return too_many_objects_message()


def too_many_objects_message(together: bool = False) -> str:
    what = "the inputs hold" if together else "holds"
    return (
        f"{what} more than --max-objects ({LIMITS.objects}) objects (documents and List items)"
        f"{' together' if together else ''}: raise it to read them all"
    )


class TooLarge(Exception):
    """More bytes than --max-input-bytes allows."""


def too_large_message(limit: int | None = None) -> str:
    return f"larger than --max-input-bytes ({bytes_text(limit or LIMITS.bytes)}): raise it to read this"


def bytes_text(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count} bytes"


class Budget:
    """What one load may still read: the files its -f flags name, together."""

    def __init__(self, limit: int | None = None) -> None:
        self.left = LIMITS.bytes if limit is None else limit
        self.taken = 0

    def take(self, count: int) -> None:
        self.left -= count
        self.taken += count
        if self.left < 0:
            raise TooLarge


def read_text(
    path: str, budget: Budget | None = None, limit: int | None = None
) -> tuple[str, os.stat_result]:
    """The text of `path` as `open(path, encoding="utf-8").read()` gives it (universal newlines), and its
    stat as read. Raises OSError, UnicodeDecodeError, TooLarge, or NotText (a special file that holds
    what no text does)."""
    cap = min(LIMITS.bytes if limit is None else limit, budget.left if budget is not None else LIMITS.bytes)
    # Not blocking in open: a FIFO nobody writes to would hold kubefit there, before a note could be made.
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            os.set_blocking(fd, True)
            if info.st_size > cap:
                raise TooLarge
            data = _read_all(fd, cap)
            text = _universal(data.decode("utf-8"))
        else:
            wait = _fifo_wait(fd, path) if stat.S_ISFIFO(info.st_mode) else None
            if wait is None:
                os.set_blocking(fd, True)
            text = read_chunks(lambda n: os.read(fd, n), cap, wait)
    finally:
        os.close(fd)
    if budget is not None:
        budget.take(len(text))
    return text, info


def _read_all(fd: int, cap: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, min(_CHUNK << 4, cap + 1 - total))
        if not chunk:
            return b"".join(parts)
        total += len(chunk)
        if total > cap:
            raise TooLarge  # it grew while being read
        parts.append(chunk)


def read_stream(stream: BinaryIO, budget: Budget | None = None) -> str:
    """Stdin's text, read by chunks up to the cap."""
    cap = min(LIMITS.bytes, budget.left if budget is not None else LIMITS.bytes)
    read = getattr(stream, "read1", stream.read)
    text = read_chunks(read, cap, None)
    if budget is not None:
        budget.take(len(text))
    return text


class NotText(ValueError):
    """A special file or stream that holds what no YAML or JSON text does."""


def read_chunks(read: Callable[[int], bytes], cap: int, wait: Callable[[], None] | None) -> str:
    """Text read by chunks: at most `cap` bytes, stopped at the first NUL byte or bytes that are not
    UTF-8 (NotText). `wait` (a FIFO's) blocks until there is something to read."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts: list[str] = []
    total = 0
    while True:
        if wait is not None:
            wait()
        chunk = read(min(_CHUNK, cap + 1 - total))
        if not chunk:
            break
        total += len(chunk)
        if total > cap:
            raise TooLarge
        if b"\x00" in chunk:
            raise NotText(f"a NUL byte at byte {total - len(chunk) + chunk.index(0)}: not a text file")
        try:
            parts.append(decoder.decode(chunk))
        except UnicodeDecodeError as e:
            raise NotText("not a UTF-8 text file") from e
    try:
        parts.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError as e:
        raise NotText("not a UTF-8 text file") from e
    return _universal("".join(parts))


def _fifo_wait(fd: int, path: str) -> Callable[[], None]:
    """Waits until the FIFO has bytes or its writer closed it, saying once, after a few seconds, that it
    waits (kubefit reads a FIFO named to it as it reads stdin: until its writer is done)."""
    noted = False

    def wait() -> None:
        nonlocal noted
        ready, _, _ = select.select([fd], [], [], None if noted else _FIFO_NOTE_SECONDS)
        if not ready:
            log.warning("%s: waiting for a writer on this FIFO (interrupt to stop)", path)
            noted = True
            select.select([fd], [], [])

    return wait


def _universal(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


# --- JSON of node-side files ----------------------------------------------------------------------

# Longer than any integer a uint64 holds; the digits Python would refuse to convert start at 4,301.
MAX_INTEGER_DIGITS = 40


class JSONRefused(ValueError):
    """JSON that no node-side file holds: nested past the interpreter's recursion limit (a
    checkpoint is four levels deep), or a number too long to be one of its integers."""


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise JSONRefused(f"a number of {digits} digits, where no integer has more than 20")
    return int(text)


def load_json(text: str) -> Any:
    """json.loads for node-side files, refusing what would exhaust the interpreter (deep nesting, huge
    integers) with JSONRefused; json.JSONDecodeError as usual."""
    try:
        return json.loads(text, parse_int=_integer)
    except RecursionError as e:  # the decoder counts its depth against the recursion limit
        raise JSONRefused("nested too deeply") from e


def refused(file: str, what: str, error: Exception, path: FieldPath = ()) -> InputError:
    """One line for a node-side file that could not be read whole: too large, not text, or JSON no
    such file holds."""
    reason = too_large_message() if isinstance(error, TooLarge) else str(error)
    return InputError(Problem(f"not {what} ({reason})" if what else reason, file=file, path=path))
