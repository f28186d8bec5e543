"""What a Pod tells the scheduler, as the API server checks it: topology spread constraints, node and pod
(anti-)affinity, tolerations, scheduling gates, the node selector, the node name, the priority class
and the preemption policy.

Upstream: `validateTopologySpreadConstraints`, `validateAffinity`, `ValidateTolerations`,
`validateSchedulingGates` and the scheduling fields of `ValidatePodSpec` in kubernetes/kubernetes
`pkg/apis/core/validation/validation.go`; label selectors as apimachinery's `ValidateLabelSelector`.
A stored pod's selector may already hold its matchLabelKeys (the API server merges them in on create),
so a key found in both is not reported."""

from __future__ import annotations

from typing import Any

from ...model.errors import FieldPath
from . import FieldError
from .field_errors import duplicate, forbidden, invalid, messages_as_invalid, not_supported, required
from .names import (
    is_label_value,
    is_qualified_name,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_label_name,
    validate_label_value,
)
from .node_selection import validate_node_selector, validate_node_selector_term
from .object_meta import validate_labels

SPREAD_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
NODE_POLICIES = ("Honor", "Ignore")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOLERATION_OPERATORS = ("Equal", "Exists")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
NOT_POSITIVE = "must be greater than zero"
NO_SELECTOR = "must not be specified when labelSelector is not set"


def label_selector_errors(selector: Any, path: FieldPath, label_values: bool = True) -> list[FieldError]:
    """A metav1.LabelSelector: its labels, and each requirement's operator, key and values."""
    if selector is None:
        return []
    errs = validate_labels(selector.match_labels, (*path, "matchLabels"))
    for i, req in enumerate(selector.match_expressions or ()):
        at: FieldPath = (*path, "matchExpressions", i)
        values = req.values or []
        if req.operator in ("In", "NotIn"):
            if not values:
                errs.append(required((*at, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
        elif req.operator in ("Exists", "DoesNotExist"):
            if values:
                detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                errs.append(forbidden((*at, "values"), detail))
        else:
            errs.append(invalid((*at, "operator"), req.operator, "not a valid selector operator"))
        errs += validate_label_name(req.key, (*at, "key"))
        if label_values:
            for j, value in enumerate(values):
                errs += validate_label_value(value, (*at, "values", j))
    return errs


def _label_keys(keys: Any, selector: Any, path: FieldPath) -> list[FieldError]:
    if not keys:
        return []
    if selector is None:
        return [forbidden(path, NO_SELECTOR)]
    return [e for i, key in enumerate(keys) for e in validate_label_name(key, (*path, i))]


def _spread(constraints: Any, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    listed = list(constraints or ())
    for i, c in enumerate(listed):
        at: FieldPath = (*path, i)
        if c.max_skew is not None and c.max_skew <= 0:
            errs.append(invalid((*at, "maxSkew"), c.max_skew, NOT_POSITIVE))
        if not c.topology_key:
            errs.append(required((*at, "topologyKey"), "can not be empty"))
        if c.when_unsatisfiable not in SPREAD_ACTIONS:
            errs.append(not_supported((*at, "whenUnsatisfiable"), c.when_unsatisfiable or "", SPREAD_ACTIONS))
        # A {topologyKey, whenUnsatisfiable} pair is one kind of constraint: reported at its first use.
        if any(
            (c.topology_key, c.when_unsatisfiable) == (o.topology_key, o.when_unsatisfiable)
            for o in listed[i + 1 :]
        ):
            pair = f"{{{c.topology_key or ''}, {c.when_unsatisfiable or ''}}}"
            errs.append(duplicate((*at, "{topologyKey, whenUnsatisfiable}"), pair))
        if c.min_domains is not None:
            if c.min_domains <= 0:
                errs.append(invalid((*at, "minDomains"), c.min_domains, NOT_POSITIVE))
            if c.when_unsatisfiable != "DoNotSchedule":
                action = c.when_unsatisfiable or ""
                detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
                errs.append(invalid((*at, "minDomains"), c.min_domains, detail))
        for field, value in (
            ("nodeAffinityPolicy", c.node_affinity_policy),
            ("nodeTaintsPolicy", c.node_taints_policy),
        ):
            if value is not None and value not in NODE_POLICIES:
                errs.append(not_supported((*at, field), value, NODE_POLICIES))
        errs += _label_keys(c.match_label_keys, c.label_selector, (*at, "matchLabelKeys"))
        errs += label_selector_errors(c.label_selector, (*at, "labelSelector"))
    return errs


def _affinity_term(term: Any, path: FieldPath) -> list[FieldError]:
    errs = label_selector_errors(term.label_selector, (*path, "labelSelector"))
    errs += label_selector_errors(term.namespace_selector, (*path, "namespaceSelector"))
    for i, name in enumerate(term.namespaces or ()):
        errs += validate_dns1123_label(name, (*path, "namespaces", i))
    errs += _label_keys(term.match_label_keys, term.label_selector, (*path, "matchLabelKeys"))
    errs += _label_keys(term.mismatch_label_keys, term.label_selector, (*path, "mismatchLabelKeys"))
    mismatched = set(term.mismatch_label_keys or ())
    for i, key in enumerate(term.match_label_keys or ()):
        if key in mismatched:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            errs.append(invalid((*path, "matchLabelKeys", i), key, detail))
    if not term.topology_key:
        errs.append(required((*path, "topologyKey"), "can not be empty"))
    return errs + validate_label_name(term.topology_key or "", (*path, "topologyKey"))


def _weight(weight: Any, path: FieldPath) -> list[FieldError]:
    return [] if 1 <= weight <= 100 else [invalid((*path, "weight"), weight, "must be in the range 1-100")]


def _pod_affinity(affinity: Any, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    if affinity is None:
        return errs
    required_path: FieldPath = (*path, "requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(affinity.required_during_scheduling_ignored_during_execution or ()):
        errs += _affinity_term(term, (*required_path, i))
    preferred_path: FieldPath = (*path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, weighted in enumerate(affinity.preferred_during_scheduling_ignored_during_execution or ()):
        at: FieldPath = (*preferred_path, i)
        errs += _weight(weighted.weight, at)
        errs += _affinity_term(weighted.pod_affinity_term, (*at, "podAffinityTerm"))
    return errs


def _node_affinity(affinity: Any, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    if affinity is None:
        return errs
    selector = affinity.required_during_scheduling_ignored_during_execution
    if selector is not None:
        errs += validate_node_selector(selector, (*path, "requiredDuringSchedulingIgnoredDuringExecution"))
    preferred_path: FieldPath = (*path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(affinity.preferred_during_scheduling_ignored_during_execution or ()):
        at: FieldPath = (*preferred_path, i)
        errs += _weight(term.weight, at)
        # Any label value is allowed here: a preference may name a node that does not exist yet.
        errs += validate_node_selector_term(term.preference, (*at, "preference"), label_values=False)
    return errs


def toleration_errors(tolerations: Any, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, t in enumerate(tolerations or ()):
        at: FieldPath = (*path, i)
        key, operator, value, effect = t.key or "", t.operator or "", t.value or "", t.effect or ""
        if key:
            errs += validate_label_name(key, (*at, "key"))
        if not key and operator != "Exists":
            detail = (
                'operator must be Exists when `key` is empty, which means "match all values and all keys"'
            )
            errs.append(invalid((*at, "operator"), operator, detail))
        if t.toleration_seconds is not None and effect != "NoExecute":
            detail = "effect must be 'NoExecute' when `tolerationSeconds` is set"
            errs.append(invalid((*at, "effect"), effect, detail))
        if operator in ("Equal", ""):
            problems = is_label_value(value)
            if problems:
                errs.append(invalid((*at, "operator"), value, ";".join(problems)))
        elif operator == "Exists":
            if value:
                errs.append(
                    invalid((*at, "operator"), value, "value must be empty when `operator` is 'Exists'")
                )
        else:
            errs.append(not_supported((*at, "operator"), operator, TOLERATION_OPERATORS))
        if effect and effect not in TAINT_EFFECTS:
            errs.append(not_supported((*at, "effect"), effect, TAINT_EFFECTS))
    return errs


def _scheduling_gates(gates: Any, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, gate in enumerate(gates or ()):
        name = gate.name or ""
        errs += messages_as_invalid((*path, i), name, is_qualified_name(name))
        if name in seen:
            errs.append(duplicate((*path, i), name))
        seen.add(name)
    return errs


def scheduling_errors(spec: Any, path: FieldPath) -> list[FieldError]:
    """The scheduling fields of a pod spec at `path`."""
    errs = validate_labels(spec.node_selector, (*path, "nodeSelector"))
    affinity = spec.affinity
    if affinity is not None:
        errs += _node_affinity(affinity.node_affinity, (*path, "affinity", "nodeAffinity"))
        errs += _pod_affinity(affinity.pod_affinity, (*path, "affinity", "podAffinity"))
        errs += _pod_affinity(affinity.pod_anti_affinity, (*path, "affinity", "podAntiAffinity"))
    errs += _scheduling_gates(spec.scheduling_gates, (*path, "schedulingGates"))
    errs += _spread(spec.topology_spread_constraints, (*path, "topologySpreadConstraints"))
    if spec.node_name:
        errs += validate_dns1123_subdomain(spec.node_name, (*path, "nodeName"))
    errs += toleration_errors(spec.tolerations, (*path, "tolerations"))
    if spec.priority_class_name:
        errs += validate_dns1123_subdomain(spec.priority_class_name, (*path, "priorityClassName"))
    if spec.preemption_policy is not None:
        errs += preemption_policy_errors(spec.preemption_policy, (*path, "preemptionPolicy"))
    return errs


def preemption_policy_errors(policy: str, path: FieldPath) -> list[FieldError]:
    if policy in PREEMPTION_POLICIES:
        return []
    return [required(path)] if not policy else [not_supported(path, policy, PREEMPTION_POLICIES)]
