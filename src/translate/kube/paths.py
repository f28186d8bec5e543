"""Field paths printed as the API server prints them: `spec.devices[1].capacity[memory].value`.

Whether a path element is a field name or a map key depends on the schema, so the
path is walked through the object's model: an element under a map-typed field is
a key and goes in brackets.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel

from ...model.errors import FieldPath


def _unwrap(annotation: Any) -> Any:
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Union or isinstance(annotation, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation
            annotation = args[0]
        elif origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        else:
            return annotation


def _field(model: type[BaseModel], name: str) -> Any:
    for attr, info in model.model_fields.items():
        if name in (attr, info.alias, info.serialization_alias):
            return info.annotation
    return None


def render_path(model: type[BaseModel] | None, path: FieldPath) -> str:
    out = ""
    current: Any = model
    for part in path:
        current = _unwrap(current) if current is not None else None
        origin = typing.get_origin(current)
        if isinstance(part, int):
            out += f"[{part}]"
            current = typing.get_args(current)[0] if origin is list and typing.get_args(current) else None
        elif origin is dict:
            out += f"[{part}]"
            args = typing.get_args(current)
            current = args[1] if len(args) == 2 else None
        else:
            out += ("." if out else "") + part
            current = (
                _field(current, part)
                if isinstance(current, type) and issubclass(current, BaseModel)
                else None
            )
    return out
