"""Inputs of many small items: what an input can make kubefit build is bounded (--max-objects, the
problems looked for) and an item costs what it holds.

A file becomes a List of thousands of empty items (or just past --max-objects of them), a List of
hundreds of copies of one of its objects (each renamed, so that all are valid together), or one object
has a list multiplied (a pod's claims and containers, a slice's devices, a claim's requests): the
verb must still answer, or refuse in one line, within the runner's time bound.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from .choices import Chooser, chance, pick

# Just past kubefit's default --max-objects (200,000): refused as it is read.
PAST_MAX_OBJECTS = 200_001
EMPTY_COUNTS = (1_000, 5_000, PAST_MAX_OBJECTS)
COPIES = (100, 300, 1_000)
TIMES = (10, 100, 1_000)
# What one multiplied file may grow to: the contract is about inputs under 10 MB, and the runner's
# 10 CPU seconds per input fit a few megabytes of YAML (23 MB of copies took 18 CPU seconds to refuse).
MAX_BYTES = 3_000_000


def _size(value: Any) -> int:
    return len(json.dumps(value, default=str))


def _at_most(count: int, each: int) -> int:
    """`count`, or fewer so that `count` items of `each` bytes stay within MAX_BYTES."""
    return max(1, min(count, MAX_BYTES // max(each, 1)))


def _lists(value: Any) -> list[tuple[Any, Any]]:
    """(container, key) of every non-empty list of mappings in an object."""
    out: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, item in items:
            if isinstance(item, list) and item and all(isinstance(i, dict) for i in item):
                out.append((node, key))
            if isinstance(item, dict | list):
                stack.append(item)
    return out


def _renamed(doc: Any, i: int) -> Any:
    copied = copy.deepcopy(doc)
    meta = copied.get("metadata") if isinstance(copied, dict) else None
    if isinstance(meta, dict) and isinstance(meta.get("name"), str):
        meta["name"] = f"{meta['name']}-{i}"
    return copied


def _many_names(items: list[Any]) -> list[Any]:
    """Items of a multiplied list with their `name`s made distinct, where they have one."""
    out = []
    for i, item in enumerate(items):
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            item = {**item, "name": f"{item['name']}-{i}" if i else item["name"]}
        out.append(item)
    return out


def multiply(chooser: Chooser, files: dict[str, list[Any]]) -> str:
    """One of the mutations above, on one file of objects; what it did."""
    names = sorted(n for n in files if n.startswith("objects/"))
    if not names:
        return ""
    name = pick(chooser, names)
    docs = [d for d in files[name] if isinstance(d, dict)]
    shape = pick(chooser, ("empty", "copies", "list")) if docs else "empty"
    if shape == "empty":
        count = pick(chooser, EMPTY_COUNTS)
        files[name] = [{"apiVersion": "v1", "kind": "List", "items": [{} for _ in range(count)]}]
        return f"{name}: a List of {count} empty items"
    doc = pick(chooser, docs)
    if shape == "copies":
        count = _at_most(pick(chooser, COPIES), _size(doc))
        files[name] = [
            {"apiVersion": "v1", "kind": "List", "items": [_renamed(doc, i) for i in range(count)]}
        ]
        return f"{name}: a List of {count} copies of {doc.get('kind')}"
    lists = _lists(doc)
    if not lists:
        return ""
    container, key = pick(chooser, lists)
    times = _at_most(pick(chooser, TIMES), _size(doc))
    items = [copy.deepcopy(i) for _ in range(times) for i in container[key]]
    container[key] = _many_names(items) if chance(chooser, 70) else items
    return f"{name}: {doc.get('kind')} {key} times {times}"
