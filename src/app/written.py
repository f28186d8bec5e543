"""Objects as kubefit writes them back: the API's JSON field names, and a uid for objects the input left
without one (the one the API server would have given on create, reproducibly)."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any


def dump(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return data


def uid_of(obj: Any) -> str:
    """The object's uid, or the one the API server would have given it on create (derived from its
    kind and name, so the same input gives the same output)."""
    meta = obj.model.metadata
    if meta.uid:
        return str(meta.uid)
    digest = hashlib.sha256(f"{obj.kind}/{obj.namespace}/{obj.name}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))
