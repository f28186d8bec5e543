"""Reading objects from files, directories and stdin, as `kubectl apply -f` and `kubectl get -o yaml`
give them.

Every problem in the input is collected and reported at once
(`FILE:LINE: Kind/namespace/name: field.path: what is wrong`); unknown fields are
warnings (errors with `strict`), and the fields the client's models lack are kept
on the object (`KubeObject.extras`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from ...model.errors import InputError, Problem, ProblemList
from ..kube import KubeObject, ObjectSet, kinds
from ..reading import (
    Budget,
    Document,
    NotText,
    SourceText,
    TooLarge,
    TooManyObjects,
    bounded_read,
    gc_paused,
    json_child,
    read_documents,
    read_stream,
    read_text,
    rereader,
    walk,
)
from .objects_of import NAMELESS_KINDS, objects_of


def load(
    paths: Sequence[str],
    *,
    strict: bool = False,
    stdin: TextIO | None = None,
    meanwhile: Iterable[object] = (),
) -> ObjectSet:
    """Read every object under `paths` ("-" is stdin). Raises InputError listing every problem.
    `meanwhile`: work the caller will do after, done a step at a time while a child's reading of the
    input is waited for (see json_child)."""
    problems = ProblemList()
    objects = ObjectSet()
    # Reading makes millions of containers and models, none in a cycle (see gc_paused).
    with gc_paused(), _proofs_forgotten():
        for read in _sources(paths, problems, stdin, objects.sources, strict, meanwhile):
            for entry in read:
                if isinstance(entry, Problem):
                    problems.add(entry)
                elif isinstance(entry, KubeObject):
                    objects.objects.append(entry)  # made of a child's documents (see _from_child)
                elif len(objects.objects) + _object_count(entry) > bounded_read.max_objects():
                    problems.add(Problem(bounded_read.too_many_objects_message(True), entry.file, entry.line))
                    break
                else:
                    objects.objects.extend(objects_of(entry, problems, strict))
            else:
                continue
            break  # more objects than kubefit reads: the rest is not read
    _check_duplicates(objects, problems)
    problems.raise_if_errors()
    objects.warnings = problems.warnings
    return objects


def _object_count(doc: Document) -> int:
    """The objects a document makes at most: a List's items, or itself."""
    items = doc.data.get("items") if isinstance(doc.data, dict) else None
    return len(items) if isinstance(items, list) else 1


def load_text(text: str, file: str = "<input>", *, strict: bool = False) -> ObjectSet:
    """Read objects from a string (tests, the Python API)."""
    problems = ProblemList()
    objects = ObjectSet()
    with gc_paused(), _proofs_forgotten():
        for doc in _bounded(read_documents(text, file), file):
            if isinstance(doc, Problem):
                problems.add(doc)
                continue
            objects.objects.extend(objects_of(doc, problems, strict))
    _check_duplicates(objects, problems)
    problems.raise_if_errors()
    objects.warnings = problems.warnings
    return objects


@contextlib.contextmanager
def _proofs_forgotten() -> Iterator[None]:
    """What the reader proved of the device lists it read is for this load only."""
    from ..reading import forget

    try:
        yield
    finally:
        forget()


def _sources(
    paths: Sequence[str],
    problems: ProblemList,
    stdin: TextIO | None,
    sources: list[Any],
    strict: bool = False,
    meanwhile: Iterable[object] = (),
) -> Iterable[Iterable[Document | Problem | KubeObject]]:
    """The documents of each file in turn; `sources` gets each file read (ObjectSet.sources)."""
    # While a child reads: what reading its documents will import, then the caller's work.
    prefetch = itertools.chain(kinds.prefetch(), meanwhile)
    budget = Budget()
    for path in paths:
        if path == "-":
            sources.append(("<stdin>", None))
            try:
                text = _stdin_text(stdin or sys.stdin, budget)
            except (TooLarge, NotText) as e:
                problems.add(_unread(e, "<stdin>", budget))
                return
            yield _bounded(read_documents(text, "<stdin>"), "<stdin>")
            continue
        found = walk(path)
        problems.extend(found.problems)
        if not found.files and not found.problems:
            problems.add(Problem("no .yaml, .yml or .json files in this directory", file=path))
        for file in found.files:
            yield _file_documents(file, problems, sources, prefetch, strict, budget)
            if budget.left < 0:
                return  # the input is larger than kubefit reads: what is left is not read


def _bounded(docs: Iterator[Document | Problem], file: str) -> Iterator[Document | Problem]:
    try:
        yield from docs
    except TooManyObjects as e:
        yield Problem(str(e), file=file)


def _stdin_text(stdin: TextIO, budget: Budget) -> str:
    buffer = getattr(stdin, "buffer", None)
    if buffer is not None:
        return read_stream(buffer, budget)
    text = stdin.read(budget.left + 1)  # a text stream (the Python API's, tests')
    budget.take(len(text))
    return text


def _unread(error: Exception, file: str, budget: Budget) -> Problem:
    """Why a file was not read: too large (alone, or with the files before it), or not text."""
    if not isinstance(error, TooLarge):
        return Problem(str(error), file=file)
    budget.left = -1
    if budget.taken:
        limit = bounded_read.max_bytes()
        return Problem(
            f"the files named with -f hold more than --max-input-bytes ({bounded_read.bytes_text(limit)}) "
            "together: raise it to read them all",
            file=file,
        )
    return Problem(bounded_read.too_large_message(), file=file)


def _file_documents(
    path: str,
    problems: ProblemList,
    sources: list[Any],
    meanwhile: Iterable[object],
    strict: bool,
    budget: Budget,
) -> Iterator[Document | Problem | KubeObject]:
    own = json_child.own_documents(path)  # in a child that read it already
    if own is not None:
        sources.append((path, own[0]))
        yield from own[1]
        return
    reading = json_child.reading(path)
    made = _from_child(reading, strict, meanwhile) if reading is not None else None
    if made is not None:
        try:
            budget.take(made[0][2])  # its size, as the child read it
        except TooLarge as e:
            problems.add(_unread(e, path, budget))
            return
        sources.append((path, made[0]))
        yield from made[1]
        return
    try:
        text, info = read_text(path, budget)
    except FileNotFoundError:
        problems.add(Problem("no such file or directory", file=path))
        return
    except UnicodeDecodeError:
        problems.add(Problem("not a UTF-8 text file", file=path))
        return
    except OSError as e:
        problems.add(Problem(f"cannot read: {e.strerror}", file=path))
        return
    except (TooLarge, NotText) as e:
        problems.add(_unread(e, path, budget))
        return
    read_as = json_child.identity(info)
    sources.append((path, read_as))
    # Once read, a file's text is read again only to locate a problem found later.
    source = SourceText(text, rereader(path) if os.path.isfile(path) else None)
    try:
        yield from read_documents(text, path, source)
    except TooManyObjects as e:
        yield Problem(str(e), file=path)
    source.release()


def _from_child(
    reading: json_child.Reading, strict: bool, meanwhile: Iterable[object]
) -> tuple[json_child.Identity, list[Problem | KubeObject]] | None:
    """The objects of the documents a child read, with the identity of the file it read; made while the
    child checks the text, and dropped (None: the file is read here) unless the checks hold. The
    objects of a List's last items, if the child sends them first, are made while it reads the rest."""
    steps = iter(meanwhile)
    tail = reading.tail(steps)
    early = _made_of(tail, strict) if tail is not None else None
    docs = reading.documents(steps)
    if docs is None:
        return None
    problems, made = _made_of(docs, strict)
    read_as = reading.taken()
    if read_as is None:
        return None
    if early is not None and reading.after_tail:  # in the file's order: the tail's come last
        problems.extend(early[0])
        made.extend(early[1])
    return read_as, [*problems, *made]


def _made_of(docs: list[Document], strict: bool) -> tuple[list[Problem], list[KubeObject]]:
    problems = ProblemList()
    made: list[KubeObject] = []
    for doc in docs:
        made.extend(objects_of(doc, problems, strict))
    return problems.items, made


def _check_duplicates(objects: ObjectSet, problems: ProblemList) -> None:
    seen: dict[tuple[str, str, str, str], KubeObject] = {}
    for obj in objects:
        if obj.kind in NAMELESS_KINDS and not obj.name:
            continue
        key = (obj.info.group, obj.kind, obj.namespace, obj.name)
        first = seen.get(key)
        if first is not None:
            problems.add(
                obj.problem(
                    ("metadata", "name"),
                    f"Duplicate value: {obj.ref} is also defined at {first.file}:{first.line}",
                )
            )
        else:
            seen[key] = obj


def raise_problems(problems: list[Problem]) -> None:
    if problems:
        raise InputError(problems)
