"""What a YAML document may cost before anything reads its objects.

A few lines of anchors and aliases can stand for a billion values ("billion laughs"): the reader
shares what an alias names, but every later walk over the objects expands it. sigs.k8s.io/yaml's
decoder (go-yaml) refuses a document once alias expansion does most of its work: it counts every
node it decodes and the ones it decodes inside an alias, and stops with "document contains excessive
aliasing" when the share decoded inside aliases exceeds 99% (documents under 400,000 decodes),
falling to 10% from 4,000,000. The same count here, over the data as read (an alias is a container
met a second time).

Nesting: go-yaml and encoding/json stop at 10,000 levels; the walks over objects here (deep copies,
validation, printing) recurse, so kubefit stops at MAX_DEPTH levels.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from yaml.events import CollectionEndEvent, CollectionStartEvent, Event

MAX_DEPTH = 100
_RATIO_LOW, _RATIO_HIGH = 400_000, 4_000_000


def _allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _RATIO_LOW:
        return 0.99
    if decoded >= _RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _RATIO_LOW) / (_RATIO_HIGH - _RATIO_LOW)


def _children(node: dict[Any, Any] | list[Any]) -> Iterable[Any]:
    return node.values() if isinstance(node, dict) else node


def _expanded_size(root: dict[Any, Any] | list[Any], sizes: dict[int, int]) -> int:
    """The nodes decoded for `root` with every alias in it written out (keys count), memoized by
    identity so that a bomb costs its text, not its expansion."""
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in sizes:
            continue
        containers = [c for c in _children(node) if isinstance(c, dict | list)]
        if not ready:
            stack.append((node, True))
            stack.extend((c, False) for c in containers if id(c) not in sizes)
            continue
        keys = len(node) if isinstance(node, dict) else 0
        scalars = len(node) - len(containers)
        sizes[id(node)] = 1 + keys + scalars + sum(sizes[id(c)] for c in containers)
    return sizes[id(root)]


def excessive_aliasing(data: Any) -> bool:
    """Whether go-yaml's decoder would stop at this document (`data` as read: aliases shared).

    The share of alias decodes only grows while an alias is being expanded, so checking at the end
    of each expansion finds every point where go-yaml's per-node check fails."""
    seen: set[int] = set()
    sizes: dict[int, int] = {}
    decoded, aliased = 1, 0  # the document node
    stack = [data]
    while stack:
        node = stack.pop()
        decoded += 1
        if not isinstance(node, dict | list):
            continue
        if id(node) in seen:
            size = _expanded_size(node, sizes)
            decoded += size
            aliased += size
            if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_ratio(decoded):
                return True
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            decoded += len(node)
        stack.extend(reversed(list(_children(node))))
    return False


def too_deep(events: Iterable[Event]) -> Event | None:
    """The first collection of a document's events nested deeper than MAX_DEPTH, if any."""
    depth = 0
    for event in events:
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                return event
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
    return None
