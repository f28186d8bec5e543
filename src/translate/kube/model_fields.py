"""What the client's generated pydantic models say about a field: its wire name, the models it holds,
and the Go struct each model stands for (`V1PodSpec` is Go's `PodSpec`)."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

_VERSION_PREFIX = re.compile(r"^(?:[A-Z][a-z]+)?V\d+(?:(?:alpha|beta)\d+)?")


def unversioned(model: type[BaseModel]) -> str:
    """The Go struct's name: the model's without its version (and group) prefix."""
    return _VERSION_PREFIX.sub("", model.__name__, count=1)


def wire_name(attr: str, info: FieldInfo) -> str:
    return info.serialization_alias or info.alias or attr


def wire_names(model: type[BaseModel]) -> list[str]:
    return [wire_name(attr, info) for attr, info in model.model_fields.items()]


def models_in(annotation: Any, container: str = "direct") -> list[tuple[str, type[BaseModel]]]:
    """The pydantic models an annotation can hold, with how: directly, in a list, or as map values."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [(container, annotation)]
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (list, typing.List):  # noqa: UP006
        return [m for arg in args for m in models_in(arg, "list")]
    if origin in (dict, typing.Dict):  # noqa: UP006
        return models_in(args[1], "map") if len(args) == 2 else []
    if origin is typing.Union or isinstance(annotation, types.UnionType):
        return [m for arg in args for m in models_in(arg, container)]
    if origin is typing.Annotated:
        return models_in(args[0], container)
    return []


def any_below(model: type[BaseModel], holds: Callable[[type[BaseModel]], bool]) -> bool:
    """Whether `holds` is true of `model` or of a model anywhere below it (models may nest each other,
    hence the walk)."""
    seen: set[type[BaseModel]] = set()
    stack = [model]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if holds(current):
            return True
        for info in current.model_fields.values():
            stack.extend(sub for _, sub in models_in(info.annotation))
    return False


def integer_shape(annotation: Any, container: str = "scalar") -> tuple[str, bool] | None:
    """Where an annotation holds an integer ("scalar", "list" or "map"), and whether it is an
    IntOrString (a union of an integer and a string); None when it holds none."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is int:
        return container, False
    if origin is typing.Annotated:
        return integer_shape(args[0], container)
    if origin in (list, typing.List):  # noqa: UP006
        return integer_shape(args[0], "list") if args else None
    if origin in (dict, typing.Dict):  # noqa: UP006
        return integer_shape(args[1], "map") if len(args) == 2 else None
    if origin is typing.Union or isinstance(annotation, types.UnionType):
        shapes = [shape for arg in args if (shape := integer_shape(arg, container)) is not None]
        if not shapes:
            return None
        texts = any(_plain(arg) is str for arg in args)
        return shapes[0][0], texts
    return None


def _plain(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation
