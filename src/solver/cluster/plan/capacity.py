"""Capacity planning: copies of a template node (a Node with its ResourceSlices, and optionally its
NodeTopology and KubeletConfiguration) added as nodes the plan may open, the fewest of them opened.

Without a cap: the fewest copies so that every pending pod (of at least a priority) fits. kube-scheduler
first finds a number that suffices (doubling the copies until its own placement fits everything), then
the plan minimizes the copies it opens: `optimal` proves that fewer do not suffice. With a cap: the most
pods that at most that many copies place, then the fewest copies for them.

The caller reads the template (`kubefit.translate.node_template`) and hands in its objects as written.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

Doc = dict[str, Any]
MAX_COPIES = 256


def template_name(docs: Iterable[Doc]) -> str:
    node = next(d for d in docs if d.get("kind") == "Node")
    return str(node["metadata"]["name"])


def copy_name(template: str, i: int) -> str:
    return f"{template}-new-{i}"


def copies(docs: list[Doc], count: int) -> list[Doc]:
    """`count` copies of the template, each renamed for its node: the node, its slices (names, nodeName,
    and the pool when it is named after the node) and its topology."""
    template = template_name(docs)
    out = []
    for i in range(1, count + 1):
        name = copy_name(template, i)
        for doc in docs:
            d = copy.deepcopy(doc)
            meta = d.setdefault("metadata", {})
            kind = d.get("kind")
            if kind == "Node":
                meta["name"] = name
                labels = meta.setdefault("labels", {}) or {}
                meta["labels"] = labels
                labels["kubernetes.io/hostname"] = name
                meta.pop("uid", None)
            elif kind == "ResourceSlice":
                meta["name"] = f"{meta.get('name', 'slice')}-new-{i}"
                spec = d.setdefault("spec", {})
                if spec.get("nodeName") == template:
                    spec["nodeName"] = name
                pool = spec.get("pool") or {}
                if pool.get("name") == template:
                    pool["name"] = name
                elif "name" in pool:
                    pool["name"] = f"{pool['name']}-new-{i}"
            elif (kind == "NodeTopology" and meta.get("name") == template) or kind == "KubeletConfiguration":
                meta["name"] = name
            out.append(d)
    return out
