"""Node selection: does a node match a NodeSelector (node-affinity semantics)?"""

from __future__ import annotations

from typing import Any


def _label_matches(expr: Any, labels: dict[str, str]) -> bool:
    key, op, values = expr.key, expr.operator, list(expr.values or [])
    present = key in labels
    value = labels.get(key)
    if op == "In":
        return present and value in values
    if op == "NotIn":
        return not present or value not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt"):
        if not present or len(values) != 1:
            return False
        try:
            have, want = int(str(value)), int(values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    return False


def _field_matches(expr: Any, node_name: str) -> bool:
    # Only metadata.name is a supported field for node selection.
    if expr.key != "metadata.name":
        return False
    values = list(expr.values or [])
    if expr.operator == "In":
        return node_name in values
    if expr.operator == "NotIn":
        return node_name not in values
    return False


def term_matches(term: Any, node_name: str, labels: dict[str, str]) -> bool:
    """All requirements of one term hold (an empty term matches nothing, as upstream)."""
    exprs = list(term.match_expressions or [])
    fields = list(term.match_fields or [])
    if not exprs and not fields:
        return False
    return all(_label_matches(e, labels) for e in exprs) and all(_field_matches(f, node_name) for f in fields)


def selector_matches(selector: Any, node_name: str, labels: dict[str, str] | None) -> bool:
    """Terms are ORed; requirements within a term are ANDed."""
    labels = labels or {}
    return any(term_matches(term, node_name, labels) for term in (selector.node_selector_terms or []))
