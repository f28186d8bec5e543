"""Reading objects from files, directories and stdin, as `kubectl apply -f` and `kubectl get -o yaml`
give them.

Every problem in the input is collected and reported at once
(`FILE:LINE: Kind/namespace/name: field.path: what is wrong`); unknown fields are
warnings (errors with `strict`), and the fields the client's models lack are kept
on the object (`KubeObject.extras`).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import gc
import itertools
import os
import sys
import types
import typing
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from pydantic import BaseModel, ValidationError

from ...model.errors import FieldPath, InputError, Problem, ProblemList
from ..kube import KubeObject, LazySlice, ObjectSet, coerce_quantities, kinds, render_path
from ..reading import (
    MAX_DEPTH,
    Budget,
    Document,
    LineList,
    NotText,
    SourceText,
    TooLarge,
    TooManyObjects,
    bounded_read,
    gc_paused,
    json_child,
    line_of,
    read_documents,
    read_stream,
    read_text,
    rereader,
    walk,
)
from .schema_messages import schema_message

# Kinds that exist only in the core group, so a missing apiVersion can only mean "v1".
_CORE_ONLY_KINDS = frozenset(
    {
        "Pod",
        "Node",
        "Namespace",
        "ConfigMap",
        "Secret",
        "Service",
        "ServiceAccount",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "ResourceQuota",
        "LimitRange",
    }
)


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
                    objects.objects.extend(_objects_of(entry, problems, strict))
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
            objects.objects.extend(_objects_of(doc, problems, strict))
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
        made.extend(_objects_of(doc, problems, strict))
    return problems.items, made


def _ref_of(data: Any) -> str:
    kind = data.get("kind") if isinstance(data, dict) else None
    meta = data.get("metadata") if isinstance(data, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    parts = [str(kind or "<no kind>")]
    if isinstance(namespace, str) and namespace:
        parts.append(namespace)
    parts.append(str(name) if name else "<unnamed>")
    return "/".join(parts)


def _objects_of(doc: Document, problems: ProblemList, strict: bool) -> list[KubeObject]:
    data = doc.data
    if not isinstance(data, dict):
        problems.add(Problem("a document must be a Kubernetes object (a mapping)", doc.file, doc.line))
        return []
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(data.get("items"), list):
        return _list_items(doc, data, problems, strict)
    obj = _object(data, doc.file, doc.line, problems, strict)
    del api_version, kind
    return [obj] if obj is not None else []


def _list_items(doc: Document, data: dict[str, Any], problems: ProblemList, strict: bool) -> list[KubeObject]:
    """`kind: List` (items carry their kind) or a typed list such as `PodList` (they may not)."""
    list_kind = str(data["kind"])
    item_kind = list_kind[: -len("List")]
    items: list[Any] = data["items"]
    out: list[KubeObject] = []
    for i, item in enumerate(items):
        line = items.item_lines[i] if isinstance(items, LineList) else doc.line
        if not isinstance(item, dict):
            problems.add(Problem("a list item must be an object", doc.file, line, list_kind, ("items", i)))
            continue
        if item_kind and "kind" not in item:
            item["kind"] = item_kind
        if "apiVersion" not in item and item_kind and isinstance(data.get("apiVersion"), str):
            item["apiVersion"] = data["apiVersion"]
        obj = _object(item, doc.file, line, problems, strict)
        if obj is not None:
            out.append(obj)
    return out


def _object(
    data: dict[str, Any], file: str, line: int, problems: ProblemList, strict: bool
) -> KubeObject | None:
    ref = _ref_of(data)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not api_version and isinstance(kind, str) and kind in _CORE_ONLY_KINDS:
        # kubectl refuses this, but the intent is unambiguous: read it, and say so.
        problems.add(
            Problem(
                f'apiVersion is missing; reading this {kind} as "v1" (kubectl would reject it)',
                file,
                line,
                ref,
                ("apiVersion",),
                warning=True,
            )
        )
        api_version = data["apiVersion"] = "v1"
    missing = [f for f, v in (("apiVersion", api_version), ("kind", kind)) if not isinstance(v, str) or not v]
    if missing:
        for f in missing:
            problems.add(
                Problem(
                    "Required value: every object needs apiVersion and kind",
                    file,
                    line_of(data, (f,), line),
                    ref,
                    (f,),
                )
            )
        return None
    assert isinstance(api_version, str) and isinstance(kind, str)
    info = kinds.lookup(api_version, kind)
    if info is None:
        known = kinds.known_versions(kind)
        hint = f" (kubefit reads {kind} as {', '.join(known)})" if known else ""
        problems.add(
            Problem(
                f'unknown kind "{kind}" in apiVersion "{api_version}"{hint}',
                file,
                line_of(data, ("kind",), line),
                ref,
                ("kind",),
            )
        )
        return None

    if not info.namespaced and _clear_namespace(data):
        ref = _ref_of(data)
    target = kinds.canonical(info)
    if info.kind == "ResourceSlice" and target is info:
        lazy = _lazy_slice(info, data, file, line, ref, strict, api_version)
        if lazy is not None:
            return lazy
    coerce_quantities(info.model, data)
    model, extras, ok = _validate(info.model, data, file, line, ref, problems, strict)
    if not ok or model is None:
        return None
    if target is not info:
        converted = kinds.converted(info, _strip(data, list(extras)))
        coerce_quantities(target.model, converted)
        try:
            model = target.model.model_validate(converted)
        except ValidationError as e:
            for err in e.errors():
                path = _clean_loc(data, err["loc"])
                message = f"cannot convert to {target.api_version}: {schema_message(err)}"
                problems.add(_problem(message, file, data, line, ref, path, info.model))
            return None
    obj = KubeObject(
        target, model, data, file, line, api_version, extras, info if target is not info else None
    )
    _default_namespace(obj)
    if not obj.name and info.kind not in _NAMELESS_KINDS:
        name_path: FieldPath = ("metadata", "name")
        message = "Required value: name is required (kubefit does not invent names)"
        problems.add(obj.problem(name_path, message))
        return None
    return obj


def remade(obj: KubeObject, data: dict[str, Any], strict: bool) -> tuple[KubeObject | None, list[Problem]]:
    """`obj` read again from `data`, a changed copy of what it was read from (same file and line)."""
    problems = ProblemList()
    made = _object(data, obj.file, obj.line, problems, strict)
    return made, problems.items


def _lazy_slice(
    info: kinds.KindInfo, data: dict[str, Any], file: str, line: int, ref: str, strict: bool, api_version: str
) -> LazySlice | None:
    """A ResourceSlice whose devices are all plain, read without a model per device: the slice is
    validated without its devices (which the plain subset guarantees the model accepts as they are).
    None when anything needs the full path, which then reports exactly what it always has."""
    from ..reading import proven_once

    spec = data.get("spec")
    if not isinstance(spec, dict) or not spec.get("devices") or not proven_once(spec["devices"]):
        return None
    shell_data = {**data, "spec": {**spec, "devices": []}}
    local = ProblemList()
    coerce_quantities(info.model, shell_data)
    shell, extras, ok = _validate(info.model, shell_data, file, line, ref, local, strict)
    if shell is None or not ok or local.items or not getattr(shell.metadata, "name", None):  # type: ignore[attr-defined]
        return None

    def materialize() -> BaseModel:
        found = ProblemList()
        coerce_quantities(info.model, data)
        model, _, accepted = _validate(info.model, data, file, line, ref, found, strict)
        if model is None or not accepted or found.items:
            raise AssertionError(f"{ref}: plain devices the model refuses: {found.items}")
        return model

    return LazySlice(info, shell, data, file, line, api_version, extras, materialize)


# Configuration files that carry no name (a name, when given, only labels the object in messages).
_NAMELESS_KINDS = frozenset({"KubeletConfiguration", "KubeSchedulerConfiguration"})


def _clear_namespace(data: dict[str, Any]) -> bool:
    """The API server clears the namespace of a cluster-scoped object it creates (kubectl sends it
    along unremarked): so does kubefit. True when there was one."""
    meta = data.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("namespace"), str):
        del meta["namespace"]
        return True
    return False


def _default_namespace(obj: KubeObject) -> None:
    # `kubectl apply` puts namespaced objects without a namespace into "default".
    meta = getattr(obj.model, "metadata", None)
    if obj.info.namespaced and meta is not None and not meta.namespace:
        meta.namespace = "default"


def _validate(
    model: type[BaseModel],
    data: dict[str, Any],
    file: str,
    line: int,
    ref: str,
    problems: ProblemList,
    strict: bool,
) -> tuple[BaseModel | None, dict[FieldPath, Any], bool]:
    """Validate, setting unknown fields aside (warned, or errors with `strict`) and reporting the rest."""
    extras: dict[FieldPath, Any] = {}
    fills = _missing_value_structs(model, data)
    work: Any = data
    try:
        if fills or not _plain_below(data):
            work = _plain(data)
    except _TooDeep:
        path = _deep_field(data)
        problems.add(_problem(f"exceeded max depth of {MAX_DEPTH}", file, data, line, ref, path, model))
        return None, extras, False
    for path in fills:
        _set(work, path, {})
    for _ in range(50):
        try:
            instance = model.model_validate(work)
        except ValidationError as e:
            if work is data:
                work = _plain(data)  # what is set aside or filled below changes the copy, never what was read
            unknown = [err for err in e.errors() if err["type"] == "extra_forbidden"]
            filled = [err for err in e.errors() if _fill_status_field(model, work, err)]
            others = [err for err in e.errors() if err["type"] != "extra_forbidden" and err not in filled]
            for err in unknown:
                path = _clean_loc(data, err["loc"])
                if path in extras:
                    continue
                extras[path] = _get(data, path)
                _delete(work, path)
            if others:
                _report_unknown(extras, data, file, line, ref, problems, strict, model)
                said: set[tuple[FieldPath, str]] = set()
                for err in others:
                    path = _clean_loc(data, err["loc"])
                    message = schema_message(err, model, path)
                    if (path, message) not in said:  # a union's members each refuse the value
                        said.add((path, message))
                        problems.add(_problem(message, file, data, line, ref, path, model))
                return None, extras, False
            if not unknown and not filled:
                break
            continue
        _report_unknown(extras, data, file, line, ref, problems, strict, model)
        return instance, extras, not (strict and extras)
    return None, extras, False


def _fill_status_field(model: type[BaseModel], work: Any, err: Any) -> bool:
    """Status is written by controllers and often given in part: a missing required status field
    gets its zero value instead of an error (the API server does not validate status on create)."""
    loc = tuple(err["loc"])
    if err["type"] != "missing" or not loc or loc[0] != "status":
        return False
    annotation = _annotation_at(model, loc)
    if annotation is None:
        return False
    parent = work
    for part in loc[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return False
    if not isinstance(parent, dict):
        return False
    parent[loc[-1]] = _zero(annotation)
    return True


# Structs that Go decodes as values, never nil: a spec, a claim template's claim spec, a claim spec's
# devices. An object written without them is stored with their zero value.
_VALUE_STRUCTS: tuple[FieldPath, ...] = (
    ("spec",),
    ("spec", "spec"),
    ("spec", "devices"),
    ("spec", "spec", "devices"),
)


def _missing_value_structs(model: type[BaseModel], data: dict[str, Any]) -> list[FieldPath]:
    """Where a Kubernetes API object leaves out (or nulls) such a struct: each gets its zero value, as
    the API server stores it; the client's models would leave None where every reader expects it."""
    spec = model.model_fields.get("spec")
    if not model.__module__.startswith("kubernetes.") or spec is None or spec.is_required():
        return []  # kubefit's own kinds; or a spec the schema requires, which it reports missing
    out: list[FieldPath] = []
    for path in _VALUE_STRUCTS:
        parent: Any = data
        for i, part in enumerate(path[:-1]):
            filled = path[: i + 1] in out  # filled before it: an empty struct
            parent = {} if filled else parent.get(part) if isinstance(parent, dict) else None
        if not isinstance(parent, dict) or parent.get(path[-1]) is not None:
            continue
        annotation = _annotation_at(model, path)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            out.append(path)
    return out


def _set(data: dict[str, Any], path: FieldPath, value: Any) -> None:
    parent: Any = data
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value


def _plain_below(data: dict[str, Any]) -> bool:
    """Whether every collection below the root is a plain dict or list, nested at most MAX_DEPTH deep:
    pydantic may then read the data itself. Otherwise (a reader's line-keeping subclass, which a model
    field of any type would keep as given, or nesting too deep) it reads a plain copy. One pass per
    level, by the collector's traversal, instead of a copy of every object."""
    level: list[Any] = []
    below: Iterable[Any] = data.values()  # the root's own: a subclass's attributes are not its data
    depth = 0
    while True:
        for v in below:
            if v.__class__ is dict or v.__class__ is list:
                level.append(v)
            elif isinstance(v, dict | list):
                return False
        if not level:
            return True
        depth += 1
        if depth == MAX_DEPTH:
            return False
        below, level = gc.get_referents(*level), []


def _unwrap(annotation: Any) -> Any:
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Union or isinstance(annotation, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            annotation = args[0] if args else annotation
        elif origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        else:
            return annotation


def _annotation_at(model: type[BaseModel], loc: Sequence[Any]) -> Any:
    return _annotation_of(model, tuple(loc))


@functools.lru_cache(maxsize=4096)
def _annotation_of(model: type[BaseModel], loc: tuple[Any, ...]) -> Any:
    current: Any = model
    for part in loc:
        current = _unwrap(current)
        origin = typing.get_origin(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = next(
                (
                    f
                    for name, f in current.model_fields.items()
                    if part in (name, f.alias, f.serialization_alias)
                ),
                None,
            )
            if field is None:
                return None
            current = field.annotation
        elif origin in (list, dict):
            current = typing.get_args(current)[-1]
        else:
            return None
    return _unwrap(current)


def _zero(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {}
    origin = typing.get_origin(annotation)
    if origin is list:
        return []
    if origin is dict:
        return {}
    if annotation is bool:
        return False
    if annotation is int:
        return 0
    if annotation is float:
        return 0.0
    return ""


def _report_unknown(
    extras: dict[FieldPath, Any],
    data: dict[str, Any],
    file: str,
    line: int,
    ref: str,
    problems: ProblemList,
    strict: bool,
    model: type[BaseModel],
) -> None:
    for path in extras:
        known = LEGACY_FIELDS.get(str(path[-1]))
        if known is not None:
            # An earlier release's name that kubefit reads: say so, and never refuse it.
            problems.add(_problem(known, file, data, line, ref, path, model, True))
            continue
        problems.add(_problem(f'unknown field "{path[-1]}"', file, data, line, ref, path, model, not strict))


# Fields earlier Kubernetes releases served under another name, which kubefit still honours.
LEGACY_FIELDS = {
    "nodeAllocatableResourceMappings": (
        "the Kubernetes 1.36 form of nodeAllocatableResources; read as its mapping "
        "(capacityKey, capacityMultiplier, deviceMultiplier)"
    ),
}


def _problem(
    message: str,
    file: str,
    data: Any,
    line: int,
    ref: str,
    path: FieldPath,
    model: type[BaseModel],
    warning: bool = False,
) -> Problem:
    return Problem(message, file, line_of(data, path, line), ref, path, warning, render_path(model, path))


class _TooDeep(Exception):
    """Nested deeper than MAX_DEPTH: the walks over objects recurse."""


def _plain(value: Any, depth: int = 0) -> Any:
    """A deep copy as plain dicts and lists (what pydantic should see)."""
    if isinstance(value, dict):
        if depth == MAX_DEPTH:
            raise _TooDeep
        return {k: _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        if depth == MAX_DEPTH:
            raise _TooDeep
        return [_plain(v, depth + 1) for v in value]
    return value


def _deep_field(value: Any) -> FieldPath:
    """Where the first collection nested MAX_DEPTH deep is: the first few steps of its path (the
    whole would be a hundred)."""
    stack: list[tuple[Any, FieldPath]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if len(path) == MAX_DEPTH and isinstance(node, dict | list):
            return path[:4]
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend((v, (*path, k)) for k, v in reversed(list(items)))
    return ()


def _strip(data: dict[str, Any], paths: list[FieldPath]) -> dict[str, Any]:
    out: dict[str, Any] = _plain(data)
    for path in paths:
        _delete(out, path)
    return out


def _get(data: Any, path: FieldPath) -> Any:
    current = data
    for part in path:
        try:
            current = current[part]
        except (KeyError, IndexError, TypeError):
            return None
    return copy.deepcopy(current)


def _delete(data: Any, path: FieldPath) -> None:
    current = data
    for part in path[:-1]:
        try:
            current = current[part]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(current, dict):
        current.pop(path[-1], None)


def _clean_loc(data: Any, loc: Sequence[Any]) -> FieldPath:
    """A pydantic error location as a field path of the input (union-member tags dropped)."""
    out: list[str | int] = []
    current = data
    for part in loc:
        if (isinstance(current, dict) and part in current) or (
            isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current)
        ):
            out.append(part)
            current = current[part]
        elif isinstance(current, dict) and isinstance(part, str) and not _is_union_tag(part):
            out.append(part)  # a missing field: name it
            current = None
        elif current is None or not _is_union_tag(str(part)):
            continue
    return tuple(out)


def _is_union_tag(part: str) -> bool:
    return (
        part in {"int", "str", "float", "bool", "list", "dict"}
        or "[" in part
        or part.startswith(("function-", "lax-", "json-", "union[", "tagged-union"))
    )


def _check_duplicates(objects: ObjectSet, problems: ProblemList) -> None:
    seen: dict[tuple[str, str, str, str], KubeObject] = {}
    for obj in objects:
        if obj.kind in _NAMELESS_KINDS and not obj.name:
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
