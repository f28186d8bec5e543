"""The JSON reader's checks of a file's text, made by a child while the command line starts.

Before it reads a JSON text the reader checks that `json` reads it as YAML does (`json_text`), and
after, that no object lost a key to a duplicate (a scanner that keeps every object, then `KeyTally`).
On a large dump the two take a third as long as `json` takes to read the text. They depend on the
text alone, so the command line forks as it starts (`start`): the child reads the files and checks
them while the process imports what it needs and reads the same files. The process reads a checked
text with a plain scanner and takes the child's verdicts (`lookup`): the same documents, the same way
to the YAML reader or the check object by object when a verdict says so.

A verdict stands only for the text it was made of: the file's size, modification time and inode when
the process asks must be those the child read it with, and the text as long. Without a verdict (no
child, a child that failed, a file changed, stdin) the process checks the text itself.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import forking
from .json_text import JsonText

log = logging.getLogger("kubefit")

# Below this many bytes the checks take less than the fork.
MIN_BYTES = 4 << 20

Identity = tuple[int, int, int, int]  # device, inode, size, modification time (ns)


def _identity(stat: os.stat_result) -> Identity:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


@dataclass
class Checked:
    """The child's verdicts on one text."""

    facts: JsonText | None
    _prechecks: _Prechecks
    _path: str

    def proven(self) -> bool:
        """Whether reading the text with a scanner that keeps every object proves no key was lost
        (False also when the child could not tell: the process then checks object by object)."""
        return self._prechecks.take("proof", self._path) is True


@dataclass
class _Prechecks:
    child: forking.Child
    files: frozenset[str]  # what the child checks (other files are never waited for)
    # Records received, by (kind, path), for texts not asked for yet.
    received: dict[tuple[str, str], deque[Any]] = field(default_factory=dict)

    def take(self, kind: str, path: str) -> Any | None:
        key = (kind, path)
        while not self.received.get(key):
            record = self.child.receive()
            if record is None:
                return None
            self.received.setdefault((record[0], record[1]), deque()).append(record[2])
        return self.received[key].popleft()


_current: _Prechecks | None = None


def start(paths: Sequence[str]) -> None:
    """Fork a child checking the JSON files among `paths` (the files a run's `-f` flags name), if
    they are large enough for it to pay."""
    global _current
    from .source_files import files_of

    if _current is not None:
        return
    files = [f for p in paths if p != "-" for f in files_of(p)]
    if not forking.allowed(sum(os.path.getsize(f) for f in files if os.path.isfile(f)), MIN_BYTES):
        return
    child = forking.fork(lambda send: _check(files, send))
    if child is not None:
        _current = _Prechecks(child, frozenset(files))
        log.debug("the JSON reader's checks of %d file(s) go on in a child process", len(files))


def _check(files: list[str], send: forking.Send) -> None:
    from .json_text import SourceText, json_text
    from .yaml_source import collected_documents, json_start

    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                identity = _identity(os.fstat(f.fileno()))
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue  # the process says what is wrong with it
        if not json_start(text):
            continue
        facts = json_text(text)
        send(("facts", path, (identity, len(text), facts)))
        if facts is not None and facts.key_bound is not None:
            docs, proven = collected_documents(text, path, SourceText(text), facts.key_bound, _drop)
            send(("proof", path, docs is not None and proven))
            del docs, text


def _drop(item: Any) -> None:
    # Its keys are counted: the child needs nothing else of it (a dump's objects would take as much
    # memory again as the process's).
    if item.__class__ is dict:
        item.clear()


def lookup(path: str, text: str) -> Checked | None:
    """The child's verdicts on the text of `path` the process read, or None: check it yourself."""
    current = _current
    if current is None or path not in current.files:
        return None
    found = current.take("facts", path)
    if found is None:
        return None
    identity, length, facts = found
    try:
        same = _identity(os.stat(path)) == identity and len(text) == length
    except OSError:
        same = False
    return Checked(facts, current, path) if same else None


def finish() -> None:
    """No more files to read: the child is done with, whatever it is doing."""
    global _current
    current, _current = _current, None
    if current is not None:
        current.child.stop()
