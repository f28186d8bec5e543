"""Large JSON files read by a child forked as the command line starts, while the process imports what
it needs.

Reading a cluster dump is `json`'s scan of its text, the sharing of equal device parts
(`slice_intern`), and the reader's checks of the text (that YAML reads it the same way, that no object
lost a key to a duplicate); the process meanwhile spends a third to half as long importing the verb's
modules. They depend on the file alone, so a child does them, for each large file:

1. it reads the file as the process would (`json_reader.collected_documents`, counting keys) and sends
   the documents, marshalled: once shared, a dump's documents are a tenth of its text, and read back
   in a twentieth of the time reading the text takes. A List's last items are read first and sent at
   once (`json_tail`), so that the process makes their objects while the child reads the others;
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
import mmap
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from ...runtime import forking
from .bounded_read import max_bytes
from .json_text import SourceText

log = logging.getLogger("kubefit")

# Below this many bytes reading takes less than the fork and the marshalling.
MIN_BYTES = 4 << 20

Identity = tuple[int, int, int, int]  # device, inode, size, modification time (ns)


def identity(stat: os.stat_result) -> Identity:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


# Records the child sends: for each file, (path, record) with the records `_Records` tells; then (AFTER,
# what `then` sent).
AFTER = ""


@dataclass
class _Reader:
    child: forking.Child
    files: frozenset[str]  # what the child reads (other files are never waited for)
    then: object  # what the child does once the files are read (None: nothing)
    # Records received, by path, for files not asked for yet.
    received: dict[str, deque[Any]] = field(default_factory=dict)

    def ready(self, key: str) -> bool:
        """Whether a record for `key` is here or one has begun to arrive (see forking.Child.ready)."""
        return bool(self.received.get(key)) or self.child.ready()

    def take(self, key: str) -> Any | None:
        found = self.peek(key)
        if found is not None:
            self.received[key].popleft()
        return found

    def peek(self, key: str) -> Any | None:
        """The next record for `key`, left to take (None: none comes)."""
        while not self.received.get(key):
            record = self.child.receive()
            if record is None:
                return None
            self.received.setdefault(record[0], deque()).append(record[1])
        return self.received[key][0]


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
    size = sum(os.path.getsize(f) for f in files)
    if not files or size > max_bytes() or not forking.allowed(size, MIN_BYTES):
        return  # (an input larger than kubefit reads is refused by the process, unread)
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
        records = _Records(path, send)
        try:
            _read_one(path, records)
        finally:
            records.close()


class _Records:
    """What the child sends of one file: the tail's documents, maybe (`json_tail`); then the documents
    (None when the child has none: the process reads the file); then, after documents, whether the
    process's checks of the text hold. The process, which may read the file otherwise, never waits
    for a record that does not come."""

    def __init__(self, path: str, send: forking.Send) -> None:
        self.path = path
        self._send = send
        self.sent = 0  # documents and checks
        self._tail: threading.Thread | None = None

    def tail(self, payload: bytes) -> None:
        # A thread sends it: the pipe holds 64 KB, and the process reads it only once it has imported
        # what it needs, while this child reads on.
        self._tail = threading.Thread(target=self._send, args=((self.path, ("tail", payload)),), daemon=True)
        self._tail.start()

    def send(self, record: Any) -> None:
        self._joined()
        self.sent += 1
        self._send((self.path, record))

    def _joined(self) -> None:
        if self._tail is not None:
            self._tail.join()  # records keep their order
            self._tail = None

    def close(self) -> None:
        self._joined()
        if self.sent == 0:
            self._send((self.path, None))
        elif self.sent == 1:
            self._send((self.path, False))


def _read_one(path: str, records: _Records) -> None:
    from . import slice_plain
    from .documents import Document, gc_paused
    from .json_reader import collected_documents, json_facts, json_start, plain_documents
    from .json_tail import TailFirst, head_documents
    from .source_files import rereader

    try:
        with open(path, "rb") as f:
            read_as = identity(os.fstat(f.fileno()))
            if read_as[2] > max_bytes():
                return  # grown past what kubefit reads since the fork: the process says so
            text = _mapped_text(f)
    except (OSError, ValueError):  # UnicodeDecodeError among them
        return  # the process says what is wrong with it
    if not json_start(text):
        return
    with gc_paused():
        source = SourceText(text, rereader(path))
        sent_proven: list[list[Any]] = []

        def send_tail(root: Any) -> None:
            sent_proven.extend(slice_plain.taken())
            tail = [Document(root, path, root.line)]
            records.tail(marshal.dumps((plain_documents(tail), sent_proven)))

        tail = TailFirst(send_tail)
        docs, keys = collected_documents(text, path, source, tail)
        source.release()
        proven = slice_plain.taken()
        if docs is None:
            return
        after_tail = tail.head_items is not None
        # What the reader proved plain goes along, so that the process does not prove it again.
        # marshal, three times as fast as pickle here, keeps shared parts shared too.
        sent = head_documents(docs, tail.head_items) if tail.head_items is not None else docs
        payload = marshal.dumps((plain_documents(sent), proven))
        records.send(("documents", read_as, payload, after_tail))
        # The checks of the text the reader makes before reading it, made after: the process has the
        # documents meanwhile, and takes what it made of them only if they hold.
        facts = json_facts(text)
        taken = facts is not None and facts.key_bound is not None and keys.prove(facts.key_bound)
        records.send(taken)
        if taken:
            _own[path] = (read_as, docs, proven + sent_proven if after_tail else proven)


def _mapped_text(f: BinaryIO) -> str:
    """The text of a regular file, as `open(path, encoding="utf-8").read()` gives it, decoded straight
    from its pages: its bytes are never copied into memory of their own, which costs a large file as
    much again as decoding it. Only a child maps a file: a file cut short while mapped kills the reader
    (SIGBUS), and the process then reads the file itself."""
    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
        text = str(view, "utf-8")
    # Universal newlines, as text mode reads them.
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


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
        self.after_tail = False  # the documents hold all but the tail's

    def tail(self, meanwhile: Iterator[object]) -> list[Any] | None:
        """The documents of the List's last items, if the child sends them first (`json_tail`); they
        count only if `documents` then says so (`after_tail`). Until the child sends anything,
        `meanwhile` is worked through, a step at a time."""
        found = self._next(meanwhile)
        if not (isinstance(found, tuple) and found[0] == "tail"):
            return None
        self.reader.take(self.path)
        return self._documents(found[1])

    def documents(self, meanwhile: Iterator[object]) -> list[Any] | None:
        """The documents as the child read them (None: read the file yourself): all of them, or all but
        the tail's if it came first and holds (`after_tail`). Until they arrive, `meanwhile` is worked
        through, a step at a time."""
        self._next(meanwhile)
        found = self.reader.take(self.path)
        if not (isinstance(found, tuple) and found[0] == "documents"):
            return None
        _, self.read_as, payload, self.after_tail = found
        return self._documents(payload)

    def _next(self, meanwhile: Iterator[object]) -> Any | None:
        for _ in meanwhile:
            if self.reader.ready(self.path):
                break
        return self.reader.peek(self.path)

    def _documents(self, payload: bytes) -> list[Any]:
        from . import slice_plain
        from .json_reader import documents_of
        from .source_files import rereader

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

    def ready(self) -> bool:
        return self.reader.ready(AFTER)

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
