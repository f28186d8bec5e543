"""Node selection: does a node match a node selector, and which selector an allocation gets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .problem import Claim, Device, Slot
from .terms import NodeRequirement, NodeSelectorTerm


def _label_matches(expr: Any, labels: Mapping[str, str]) -> bool:
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
    # metadata.name is the only field node selection supports.
    if expr.key != "metadata.name":
        return False
    values = list(expr.values or [])
    if expr.operator == "In":
        return node_name in values
    if expr.operator == "NotIn":
        return node_name not in values
    return False


def term_matches(term: Any, node_name: str, labels: Mapping[str, str]) -> bool:
    """All requirements of one term hold (an empty term matches nothing, as upstream)."""
    exprs = list(term.match_expressions or [])
    fields = list(term.match_fields or [])
    if not exprs and not fields:
        return False
    return all(_label_matches(e, labels) for e in exprs) and all(_field_matches(f, node_name) for f in fields)


def terms_match(terms: Iterable[Any], node_name: str, labels: Mapping[str, str]) -> bool:
    """Terms are ORed; requirements within a term are ANDed."""
    return any(term_matches(term, node_name, labels) for term in terms)


class SelectorError(Exception):
    pass


def for_allocation(devices: Sequence[Device], node: str) -> tuple[NodeSelectorTerm, ...] | None:
    """The allocation's nodeSelector: the node itself as soon as one device is node-local or binds to
    the node; otherwise the merged single terms of network-attached devices; None if usable anywhere."""
    expressions: list[NodeRequirement] = []
    fields: list[NodeRequirement] = []
    for device in devices:
        placement = device.placement
        if is_node_local(device):
            return (NodeSelectorTerm(match_fields=(NodeRequirement("metadata.name", "In", (node,)),)),)
        if placement.selector is None:
            continue
        if len(placement.selector) > 1:
            raise SelectorError(
                f"unsupported ResourceSlice.NodeSelector with {len(placement.selector)} terms"
            )
        if placement.selector:
            term = placement.selector[0]
            expressions += [r for r in term.match_expressions if r not in expressions]
            fields += [r for r in term.match_fields if r not in fields]
    if not expressions and not fields:
        return None
    return (NodeSelectorTerm(tuple(expressions), tuple(fields)),)


def creation_error(claim_name: str, devices: Sequence[Device], node: str) -> str | None:
    """The allocator's error when an allocation's devices make no single nodeSelector (it is built once
    the search has succeeded, so the whole Allocate call fails): None when they do."""
    try:
        for_allocation(devices, node)
    except SelectorError as e:
        return f"create NodeSelector for claim {claim_name}: {e}"
    return None


def is_node_local(device: Device) -> bool:
    """A device that pins the allocation to the node it is allocated on (for_allocation stops there)."""
    return bool(device.placement.node_name) or device.binds_to_node


def terms_of(device: Device) -> int:
    """How many nodeSelector terms the device's placement has (more than one is an allocator error)."""
    selector = device.placement.selector
    return len(selector) if selector is not None else 0


def selector_hazard(claim: Claim, slot: Slot, candidates: Iterable[Device]) -> str | None:
    """A candidate from a slice whose nodeSelector has several terms fails the allocation when the
    scheduler's search order puts it before any node-local device of its claim (createNodeSelector):
    the engines then let first-fit decide first. The hazard, worded, or None."""
    for device in candidates:
        terms = terms_of(device)
        if terms > 1:
            return (
                f"claim {claim.ref}, request {slot.result_name}: device {device.ref} has a nodeSelector "
                f"of {terms} terms, an error unless a node-local device precedes it"
            )
    return None
