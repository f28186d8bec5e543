"""What the loader says of a value its model refuses (the schema's problems, before API validation):
the API server's decoding error at an integer field, else the kind of value the field wants."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ...model.errors import FieldPath
from ..reading import LineDict, LineList

_KINDS_OF = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "string_type": "a string",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "float_type": "a number",
    "float_parsing": "a number",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "datetime_type": "an RFC 3339 timestamp",
    "datetime_parsing": "an RFC 3339 timestamp",
    "datetime_from_date_parsing": "an RFC 3339 timestamp",
}


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {value}"
    if isinstance(value, str):
        return f'string "{value}"' if len(value) < 60 else "a string"
    if isinstance(value, (list, LineList)):
        return "a list"
    if isinstance(value, (dict, LineDict)):
        return "an object"
    return type(value).__name__


# What a value refused at an integer field may be refused as (an IntOrString's string member too).
_INTEGER_ERRORS = frozenset({"int_type", "int_parsing", "int_from_float", "string_type"})


def schema_message(err: Any, model: type[BaseModel] | None = None, path: FieldPath = ()) -> str:
    kind = err["type"]
    if kind == "missing":
        return "Required value"
    if kind in _INTEGER_ERRORS and model is not None:
        from ..validation.go_integers import type_error

        decoded = type_error(model, path, err.get("input"))
        if decoded is not None:
            return decoded
    if kind in _KINDS_OF:
        return f"Invalid value: must be {_KINDS_OF[kind]}, not {_describe(err.get('input'))}"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "too_long":  # field.TooMany's words
        ctx = err.get("ctx") or {}
        return f"Too many: {ctx.get('actual_length')}: must have at most {ctx.get('max_length')} items"
    if kind == "literal_error" or kind == "enum":
        return f"Unsupported value: {_describe(err.get('input'))}: {err['msg']}"
    return f"Invalid value: {err['msg']}"
