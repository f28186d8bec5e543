"""Which files a `-f` path names, in the order they are read: the file itself, or a directory's
.yaml, .yml and .json files, directories and files each in sorted order (as `kubectl apply -f DIR
--recursive` takes them). Kept apart from the loader so that a child reading the same files
(`json_child`) finds them without importing what the loader does.

A path named on the command line is read whatever it is (a FIFO, /dev/stdin: see bounded_read). In a
directory only regular files are read (a symlink to one too): a FIFO or a device met there is skipped
with a warning, as is a symlink to a directory (never followed, so no loop). A directory that cannot
be read is a problem, not a directory without files.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

from ...model.errors import Problem

SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class Walk:
    """The files under a -f path, and what was met on the way."""

    files: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # warnings (skipped) and errors (unreadable)


def walk(path: str) -> Walk:
    """The files under `path` ([path] when it is not a directory; none for a directory without any)."""
    found = Walk()
    if not os.path.isdir(path):
        found.files.append(path)
        return found

    def unreadable(error: OSError) -> None:
        where = error.filename or path
        found.problems.append(Problem(f"cannot read this directory: {error.strerror or error}", file=where))

    for root, dirs, files in os.walk(path, onerror=unreadable):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SUFFIXES):
                _add(os.path.join(root, name), found)
    return found


def _add(file: str, found: Walk) -> None:
    try:
        mode = os.stat(file).st_mode
    except OSError:
        found.files.append(file)  # a dangling symlink, say: reading it says what is wrong
        return
    if stat.S_ISREG(mode):
        found.files.append(file)
        return
    kind = (
        "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a directory"
        if stat.S_ISDIR(mode)
        else "not a regular file"
    )
    message = f"skipped: {kind} met in a directory is read only when named with -f"
    found.problems.append(Problem(message, file=file, warning=True))


def files_of(path: str) -> list[str]:
    """The files under `path` that are read (see walk)."""
    return walk(path).files


def rereader(path: str) -> Callable[[], str]:
    """Reads the file's text again (see SourceText), within the same bounds as the first reading."""

    def read() -> str:
        from .bounded_read import read_text

        return read_text(path)[0]

    return read
