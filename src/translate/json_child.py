"""Large JSON files read by a child forked as the command line starts, while the process imports what
it needs.

Reading a cluster dump is `json`'s scan of its text, the sharing of equal device parts
(`slice_intern`), and the reader's checks of the text (that YAML reads it the same way, that no object
lost a key to a duplicate); the process meanwhile spends a third to half as long importing the verb's
modules. They depend on the file alone, so a child does them, for each large file:

1. it reads the file as the process would (`yaml_source.collected_documents`, counting keys) and sends
   the documents, marshalled: once shared, a dump's documents are a tenth of its text, and read back
   in a twentieth of the time reading the text takes;
2. then it makes the checks the reader makes before reading (`json_text`) and sends whether they hold,
   with the key count. The process makes the objects of the documents meanwhile (`loader._from_child`)
   and keeps them only if the checks hold and the file is still the one the child read (its device,
   inode, size and modification time); otherwise it reads the file itself, as it does without a
   child, for stdin and for files the child does not read.

Given more to do (`start`'s `then`: API validation, see `background_validation.AfterReading`), the child
loads the objects of its own documents once the files are read. Where a problem found later must be
located, the process reads the text again from the file, as after any read (`SourceText`).
"""

from __future__ import annotations

import logging
import marshal
import os
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import forking
from .json_text import SourceText

log = logging.getLogger("kubefit")

# Below this many bytes reading takes less than the fork and the marshalling.
MIN_BYTES = 4 << 20

Identity = tuple[int, int, int, int]  # device, inode, size, modification time (ns)


def identity(stat: os.stat_result) -> Identity:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


# Records the child sends: for each file, (path, (identity, marshalled documents)) or (path, None), then
# after documents (path, whether the checks of the text hold); then (AFTER, what `then` sent).
AFTER = ""


@dataclass
class _Reader:
    child: forking.Child
    files: frozenset[str]  # what the child reads (other files are never waited for)
    then: object  # what the child does once the files are read (None: nothing)
    # Records received, by path, for files not asked for yet.
    received: dict[str, deque[Any]] = field(default_factory=dict)

    def take(self, key: str) -> Any | None:
        while not self.received.get(key):
            record = self.child.receive()
            if record is None:
                return None
            self.received.setdefault(record[0], deque()).append(record[1])
        return self.received[key].popleft()


_current: _Reader | None = None

# In the child: the documents it read of each file, with the identity it read the file with, where
# they are what the process makes of the text, for the child's own loading (`then`).
_own: dict[str, tuple[Identity, list[Any], list[list[Any]]]] = {}

Then = Callable[[forking.Send], None]


def start(paths: Sequence[str], then: Then | None = None) -> None:
    """Fork a child reading the files among `paths` (the files a run's `-f` flags name), if they are
    large enough for it to pay; once they are read, the child runs `then` (its records are the
    process's `after`)."""
    global _current
    from .source_files import files_of

    if _current is not None:
        return
    named = [f for p in paths if p != "-" for f in files_of(p)]
    # Regular files only: what a pipe holds is read once, by the process.
    files = [f for f in named if os.path.isfile(f)]
    if not files or not forking.allowed(sum(os.path.getsize(f) for f in files), MIN_BYTES):
        return
    if len(files) < len(named) or "-" in paths:
        then = None  # the child could not load all the input: what it would do next is the process's

    def work(send: forking.Send) -> None:
        _read(files, send)
        if then is not None:
            then(lambda record: send((AFTER, record)))

    child = forking.fork(work)
    if child is not None:
        _current = _Reader(child, frozenset(files), then)
        log.debug("%d file(s) are read in a child process", len(files))


def _read(files: list[str], send: forking.Send) -> None:
    for path in files:
        # Per file: the documents (None when the child has none: the process reads the file), then,
        # after documents, whether the process's checks of the text hold. The process, which may read
        # the file otherwise, never waits for a record that does not come.
        sent = 0

        def counted(record: Any, path: str = path) -> None:
            nonlocal sent
            sent += 1
            send((path, record))

        try:
            _read_one(path, counted)
        finally:
            if sent == 0:
                send((path, None))
            elif sent == 1:
                send((path, False))


def _read_one(path: str, send: forking.Send) -> None:
    from . import slice_plain
    from .source_files import rereader
    from .yaml_source import collected_documents, gc_paused, json_facts, json_start, plain_documents

    try:
        with open(path, encoding="utf-8") as f:
            read_as = identity(os.fstat(f.fileno()))
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return  # the process says what is wrong with it
    if not json_start(text):
        return
    with gc_paused():
        source = SourceText(text, rereader(path))
        docs, keys = collected_documents(text, path, source)
        source.release()
        proven = slice_plain.taken()
        if docs is None:
            return
        # What the reader proved plain goes along, so that the process does not prove it again.
        # marshal, three times as fast as pickle here, keeps shared parts shared too.
        send((read_as, marshal.dumps((plain_documents(docs), proven))))
        # The checks of the text the reader makes before reading it, made after: the process has the
        # documents meanwhile, and takes what it made of them only if they hold.
        facts = json_facts(text)
        taken = facts is not None and facts.key_bound is not None and keys.prove(facts.key_bound)
        send(taken)
        if taken:
            _own[path] = (read_as, docs, proven)


def own_documents(path: str) -> tuple[Identity, list[Any]] | None:
    """In the child: the documents of `path` it read itself (once), and the identity it read it with."""
    from . import slice_plain

    found = _own.pop(path, None)
    if found is None:
        return None
    read_as, docs, proven = found
    slice_plain.adopt(proven)
    return read_as, docs


class Reading:
    """The child's reading of one file: its documents (`documents`), then whether they are those the
    process's own reading of the file would make (`taken`)."""

    def __init__(self, reader: _Reader, path: str) -> None:
        self.reader = reader
        self.path = path
        self.read_as: Identity | None = None

    def documents(self, meanwhile: Iterable[object] = ()) -> list[Any] | None:
        """The documents as the child read them (None: read the file yourself). Until they arrive,
        `meanwhile` is worked through, a step at a time."""
        from . import slice_plain
        from .source_files import rereader
        from .yaml_source import documents_of

        reader = self.reader
        for _ in meanwhile:
            if reader.received.get(self.path) or reader.child.ready():
                break
        found = reader.take(self.path)
        if found is None:
            return None
        self.read_as, payload = found
        plain, proven = marshal.loads(payload)
        slice_plain.adopt(proven)
        # Lines are looked up in the file's text, read again only if a problem is ever located.
        read: list[Any] = documents_of(plain, SourceText(None, rereader(self.path)))
        return read

    def taken(self) -> Identity | None:
        """After `documents`: the identity the child read the file with, if the documents are those the
        process's reading of it would make and it is still that file; None: read it yourself."""
        if self.reader.take(self.path) is not True or self.read_as is None:
            return None
        try:
            same = identity(os.stat(self.path)) == self.read_as
        except OSError:
            same = False
        return self.read_as if same else None


def reading(path: str) -> Reading | None:
    """The child's reading of `path`, if it reads it."""
    current = _current
    if current is None or path not in current.files:
        return None
    return Reading(current, path)


class After:
    """What the child sends once the files are read (see `start`), taken over from the reading."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader

    def receive(self) -> Any | None:
        return self.reader.take(AFTER)

    def wait(self) -> bool:
        return self.reader.child.wait()

    def stop(self) -> None:
        self.reader.child.stop()


def after(then: object) -> After | None:
    """The child, for what it sends after reading, if it was started with `then` (the same object);
    otherwise it is stopped, and None. Either way the reading is over."""
    global _current
    current, _current = _current, None
    if current is None:
        return None
    if current.then is then and then is not None:
        return After(current)
    current.child.stop()
    return None


def finish() -> None:
    """No more files to read: the child is done with, whatever it is doing."""
    global _current
    current, _current = _current, None
    if current is not None:
        current.child.stop()
