"""A document against its kind's model: unknown fields set aside (warned, or errors with `strict`), a
status given in part completed, structs Go decodes as values filled in, and every problem the model
finds located at its field and line (the schema's problems, before API validation)."""

from __future__ import annotations

import copy
import functools
import gc
import types
import typing
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from ...model.errors import FieldPath, Problem, ProblemList
from ..kube import render_path
from ..reading import MAX_DEPTH, line_of
from .schema_messages import schema_message


def validate(
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
        problems.add(
            located_problem(f"exceeded max depth of {MAX_DEPTH}", file, data, line, ref, path, model)
        )
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
                path = field_path_of(data, err["loc"])
                if path in extras:
                    continue
                extras[path] = _get(data, path)
                _delete(work, path)
            if others:
                _report_unknown(extras, data, file, line, ref, problems, strict, model)
                said: set[tuple[FieldPath, str]] = set()
                for err in others:
                    path = field_path_of(data, err["loc"])
                    message = schema_message(err, model, path)
                    if (path, message) not in said:  # a union's members each refuse the value
                        said.add((path, message))
                        problems.add(located_problem(message, file, data, line, ref, path, model))
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
            problems.add(located_problem(known, file, data, line, ref, path, model, True))
            continue
        problems.add(
            located_problem(f'unknown field "{path[-1]}"', file, data, line, ref, path, model, not strict)
        )


# Fields earlier Kubernetes releases served under another name, which kubefit still honours.
LEGACY_FIELDS = {
    "nodeAllocatableResourceMappings": (
        "the Kubernetes 1.36 form of nodeAllocatableResources; read as its mapping "
        "(capacityKey, capacityMultiplier, deviceMultiplier)"
    ),
}


def located_problem(
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


def strip_extras(data: dict[str, Any], paths: list[FieldPath]) -> dict[str, Any]:
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


def field_path_of(data: Any, loc: Sequence[Any]) -> FieldPath:
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
