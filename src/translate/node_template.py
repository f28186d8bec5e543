"""The node template of capacity planning (`kubefit plan --node-template`): a Node with its
ResourceSlices, and optionally its NodeTopology and KubeletConfiguration, as written."""

from __future__ import annotations

from typing import Any

from ..model.errors import InputError
from .loader import load

Doc = dict[str, Any]

KINDS = frozenset({"Node", "ResourceSlice", "NodeTopology", "KubeletConfiguration"})


def read_template(path: str) -> list[Doc]:
    """The template's objects as written (kubefit's loader reads them: its limits and errors apply)."""
    objects = load([path])
    docs = [o.raw for o in objects]
    nodes = [d for d in docs if d.get("kind") == "Node"]
    if len(nodes) != 1:
        raise InputError(f"{path}: a node template holds exactly one Node (found {len(nodes)})")
    for o in objects:
        if o.kind not in KINDS:
            raise InputError(
                f"{path}: {o.kind}/{o.name}: a node template holds a Node and its "
                f"{', '.join(sorted(KINDS - {'Node'}))}"
            )
    return docs
