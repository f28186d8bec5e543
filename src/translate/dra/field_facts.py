"""Fields of the API as model facts, wherever they are read: device attributes (kind and list-ness,
which constraint matching depends on), capacity request policies, node selectors, placements and
taints.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...model.problem import AttrValue, CapacityPolicy, Placement
from ...model.terms import NodeRequirement, NodeSelectorTerm, Taint
from ..cel.selector import AttributeValue
from .amounts import quantity


def attr_value(attr: Any) -> AttrValue:
    """A V1DeviceAttribute (or its CEL view) as a typed value (one kind; a list only with the list
    fields)."""
    return _typed(attr if isinstance(attr, AttributeValue) else AttributeValue.of(attr))


@lru_cache(maxsize=65536)
def _typed(value: AttributeValue) -> AttrValue:
    for kind, scalar, plural in _KINDS:
        one = getattr(value, scalar)
        if one is not None:
            return AttrValue(kind, (one,))  # type: ignore[arg-type]
        many = getattr(value, plural)
        if many:
            return AttrValue(kind, tuple(many), is_list=True)  # type: ignore[arg-type]
    return AttrValue(None, ())


_KINDS = (
    ("int", "int", "ints"),
    ("bool", "bool", "bools"),
    ("string", "string", "strings"),
    ("version", "version", "versions"),
)


def capacity_policy(policy: Any) -> CapacityPolicy | None:
    if policy is None:
        return None
    valid_range = policy.valid_range
    return CapacityPolicy(
        default=quantity(policy.default) if policy.default is not None else None,
        valid_values=tuple(quantity(v) for v in policy.valid_values)
        if policy.valid_values is not None
        else None,
        min=quantity(valid_range.min) if valid_range is not None and valid_range.min is not None else None,
        max=quantity(valid_range.max) if valid_range is not None and valid_range.max is not None else None,
        step=quantity(valid_range.step) if valid_range is not None and valid_range.step is not None else None,
    )


def node_selector_term(term: Any) -> NodeSelectorTerm:
    """A V1NodeSelectorTerm as facts (None: the empty term, which matches nothing)."""
    if term is None:
        return NodeSelectorTerm()

    def reqs(items: Any) -> tuple[NodeRequirement, ...]:
        return tuple(NodeRequirement(r.key, r.operator, tuple(r.values or ())) for r in items or ())

    return NodeSelectorTerm(reqs(term.match_expressions), reqs(term.match_fields))


def node_selector_terms(selector: Any) -> tuple[NodeSelectorTerm, ...] | None:
    if selector is None:
        return None
    return tuple(node_selector_term(t) for t in selector.node_selector_terms or ())


def placement_of(source: Any) -> Placement:
    return Placement(
        str(source.node_name or ""), bool(source.all_nodes), node_selector_terms(source.node_selector)
    )


def taint_of(t: Any) -> Taint:
    added = t.time_added
    return Taint(
        t.key, t.value or "", t.effect, added.isoformat() if hasattr(added, "isoformat") else str(added or "")
    )
