"""Where a ResourceSlice's devices are: node names, node selectors and the choice between them.

Claims reuse the node selector rules for their allocation result. Upstream:
core/v1's `ValidateNodeSelector`, and the node-selection checks of
`ValidateResourceSlice` and `validateDevice` in kubernetes/kubernetes
`pkg/apis/resource/validation/validation.go`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from kubernetes.client.models import (
    V1Device,
    V1NodeSelector,
    V1NodeSelectorRequirement,
    V1NodeSelectorTerm,
    V1ResourceSliceSpec,
)

from ...model.errors import FieldPath
from . import FieldError
from .field_errors import Raw, forbidden, invalid, required
from .names import validate_dns1123_subdomain, validate_label_name, validate_label_value


def validate_node_name(name: str, path: FieldPath) -> list[FieldError]:
    return validate_dns1123_subdomain(name, path)


def _validate_node_selector_requirement(
    req: V1NodeSelectorRequirement, path: FieldPath, label_values: bool = True
) -> list[FieldError]:
    errs: list[FieldError] = []
    values = req.values or []
    if req.operator in ("In", "NotIn"):
        if not values:
            errs.append(required((*path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif req.operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(
                forbidden(
                    (*path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                )
            )
    elif req.operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(
                required((*path, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")
            )
    else:
        errs.append(invalid((*path, "operator"), req.operator, "not a valid selector operator"))
    errs.extend(validate_label_name(req.key, (*path, "key")))
    if label_values:
        for i, value in enumerate(values):
            errs.extend(validate_label_value(value, (*path, "values", i)))
    return errs


def _validate_node_field_requirement(req: V1NodeSelectorRequirement, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    values = req.values or []
    if req.operator in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(
                required(
                    (*path, "values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
            )
    else:
        errs.append(invalid((*path, "operator"), req.operator, "not a valid selector operator"))
    if req.key != "metadata.name":
        errs.append(invalid((*path, "key"), req.key, "not a valid field selector key"))
    else:
        for i, value in enumerate(values):
            errs.extend(validate_node_name(value, (*path, "values", i)))
    return errs


def validate_node_selector(selector: V1NodeSelector, path: FieldPath) -> list[FieldError]:
    """Core/v1 node selector rules; label values must be valid (no legacy leniency)."""
    terms_path: FieldPath = (*path, "nodeSelectorTerms")
    terms = selector.node_selector_terms or []
    if not terms:
        return [required(terms_path, "must have at least one node selector term")]
    errs: list[FieldError] = []
    for i, term in enumerate(terms):
        errs.extend(validate_node_selector_term(term, (*terms_path, i)))
    return errs


def validate_node_selector_term(
    term: V1NodeSelectorTerm, path: FieldPath, label_values: bool = True
) -> list[FieldError]:
    """One term; `label_values` False where upstream lets any value through (preferred node affinity)."""
    errs: list[FieldError] = []
    for j, req in enumerate(term.match_expressions or []):
        errs.extend(_validate_node_selector_requirement(req, (*path, "matchExpressions", j), label_values))
    for j, req in enumerate(term.match_fields or []):
        errs.extend(_validate_node_field_requirement(req, (*path, "matchFields", j)))
    return errs


@dataclass
class _NodeChoice:
    """The node-selection fields found set so far, and what is wrong with them, in the API server's order."""

    path: FieldPath
    set_fields: list[str] = field(default_factory=list)
    errs: list[FieldError] = field(default_factory=list)

    def node_name(self, name: str | None, empty_detail: str) -> None:
        if name is None:
            return
        if not name:
            self.errs.append(invalid((*self.path, "nodeName"), "", empty_detail))
            return
        self.set_fields.append("`nodeName`")
        self.errs.extend(validate_node_name(name, (*self.path, "nodeName")))

    def node_selector(self, selector: V1NodeSelector | None) -> None:
        if selector is not None:
            self.set_fields.append("`nodeSelector`")
            self.errs.extend(validate_node_selector(selector, (*self.path, "nodeSelector")))

    def flag(self, field_name: str, value: bool | None) -> None:
        """A switch that is either unset or true."""
        if value:
            self.set_fields.append(f"`{field_name}`")
        elif value is not None:
            self.errs.append(invalid((*self.path, field_name), False, "must be either unset or set to true"))

    def exactly_one(self, detail: str, several_detail: str) -> list[FieldError]:
        """The errors so far, then whether exactly one field was set (the set ones print as a Go set)."""
        if not self.set_fields:
            return [*self.errs, required(self.path, detail)]
        if len(self.set_fields) > 1:
            return [*self.errs, invalid(self.path, "{" + ", ".join(self.set_fields) + "}", several_detail)]
        return self.errs


def validate_slice_node_selection(spec: V1ResourceSliceSpec, path: FieldPath) -> list[FieldError]:
    choice = _NodeChoice(path)
    choice.node_name(spec.node_name, "must be either unset or set to a non-empty string")
    choice.node_selector(spec.node_selector)
    if spec.node_selector is not None:
        terms = spec.node_selector.node_selector_terms or []
        if len(terms) != 1:
            # One term per slice keeps merging selectors of devices from several slices simple.
            choice.errs.append(
                invalid(
                    (*path, "nodeSelector", "nodeSelectorTerms"),
                    Raw("[]core.NodeSelectorTerm(nil)")
                    if not terms
                    else Raw(json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in terms])),
                    "must have exactly one node selector term",
                )
            )
    choice.flag("allNodes", spec.all_nodes)
    choice.flag("perDeviceNodeSelection", spec.per_device_node_selection)
    detail = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
    return choice.exactly_one(detail, detail + ", but multiple fields are set")


def validate_per_device_node_selection(device: V1Device, enabled: bool, path: FieldPath) -> list[FieldError]:
    if not enabled:
        if device.node_name is not None or device.node_selector is not None or device.all_nodes is not None:
            return [
                invalid(
                    path,
                    None,
                    "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` "
                    "is set to true in the ResourceSlice spec",
                )
            ]
        return []
    choice = _NodeChoice(path)
    choice.node_name(device.node_name, "must not be empty")
    choice.node_selector(device.node_selector)
    choice.flag("allNodes", device.all_nodes)
    detail = (
        "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
    )
    return choice.exactly_one(detail, detail)
