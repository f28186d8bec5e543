"""Validation of what a Pod asks of the scheduler, as the API server checks it (core/validation):
topology spread constraints, pod (anti-)affinity terms, preferred node affinity weights, tolerations.

Field paths are the pod's (`spec.topologySpreadConstraints[0].minDomains`); messages follow the API
server's field errors."""

from __future__ import annotations

from typing import Any

from ...errors import FieldPath
from . import FieldError, ValidationContext

SPREAD_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOLERATION_OPERATORS = ("Equal", "Exists")
NODE_POLICIES = ("Honor", "Ignore")


def _supported(path: FieldPath, value: Any, values: tuple[str, ...]) -> FieldError:
    listed = ", ".join(f'"{v}"' for v in values)
    return FieldError(path, f'Unsupported value: "{value}": supported values: {listed}')


def _spread(constraints: Any, path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(constraints or ()):
        at = (*path, i)
        if c.max_skew is not None and c.max_skew <= 0:
            errors.append(
                FieldError((*at, "maxSkew"), f"Invalid value: {c.max_skew}: must be greater than zero")
            )
        if not c.topology_key:
            errors.append(FieldError((*at, "topologyKey"), "Required value: can not be empty"))
        if c.when_unsatisfiable not in SPREAD_ACTIONS:
            errors.append(_supported((*at, "whenUnsatisfiable"), c.when_unsatisfiable, SPREAD_ACTIONS))
        if c.min_domains is not None:
            if c.min_domains <= 0:
                message = f"Invalid value: {c.min_domains}: must be greater than zero"
                errors.append(FieldError((*at, "minDomains"), message))
            elif c.when_unsatisfiable == "ScheduleAnyway":
                message = (
                    f"Invalid value: {c.min_domains}: can only use minDomains if "
                    "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"
                )
                errors.append(FieldError((*at, "minDomains"), message))
        for field, value in (
            ("nodeAffinityPolicy", c.node_affinity_policy),
            ("nodeTaintsPolicy", c.node_taints_policy),
        ):
            if value is not None and value not in NODE_POLICIES:
                errors.append(_supported((*at, field), value, NODE_POLICIES))
        key = (c.topology_key or "", c.when_unsatisfiable or "")
        if key in seen:
            errors.append(FieldError((*at, "{topologyKey, whenUnsatisfiable}"), f"Duplicate value: {key}"))
        seen.add(key)
        if c.match_label_keys and c.label_selector is None:
            message = "Forbidden: must not be specified when labelSelector is not set"
            errors.append(FieldError((*at, "matchLabelKeys"), message))
    return errors


def _term(term: Any, path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    if not term.topology_key:
        errors.append(FieldError((*path, "topologyKey"), "Required value: can not be empty"))
    if term.label_selector is None:
        for field in ("match_label_keys", "mismatch_label_keys"):
            if getattr(term, field, None):
                camel = "matchLabelKeys" if field == "match_label_keys" else "mismatchLabelKeys"
                message = "Forbidden: must not be specified when labelSelector is not set"
                errors.append(FieldError((*path, camel), message))
    return errors


def _pod_affinity(affinity: Any, path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    if affinity is None:
        return errors
    for i, term in enumerate(affinity.required_during_scheduling_ignored_during_execution or ()):
        errors += _term(term, (*path, "requiredDuringSchedulingIgnoredDuringExecution", i))
    for i, weighted in enumerate(affinity.preferred_during_scheduling_ignored_during_execution or ()):
        at: FieldPath = (*path, "preferredDuringSchedulingIgnoredDuringExecution", i)
        if not 1 <= weighted.weight <= 100:
            errors.append(
                FieldError((*at, "weight"), f"Invalid value: {weighted.weight}: must be in the range 1-100")
            )
        errors += _term(weighted.pod_affinity_term, (*at, "podAffinityTerm"))
    return errors


def _tolerations(tolerations: Any, path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, t in enumerate(tolerations or ()):
        at = (*path, i)
        operator = t.operator or "Equal"
        if not t.key and operator != "Exists":
            message = f'Invalid value: "{operator}": operator must be Exists when `key` is empty'
            errors.append(FieldError((*at, "operator"), message))
        if operator == "Exists" and t.value:
            message = f"Invalid value: \"{t.value}\": value must be empty when `operator` is 'Exists'"
            errors.append(FieldError((*at, "operator"), message))
        elif operator not in TOLERATION_OPERATORS:
            errors.append(_supported((*at, "operator"), operator, TOLERATION_OPERATORS))
        if t.effect and t.effect not in TAINT_EFFECTS:
            errors.append(_supported((*at, "effect"), t.effect, TAINT_EFFECTS))
    return errors


def validate_pod_scheduling(pod: Any, ctx: ValidationContext) -> list[FieldError]:
    spec = pod.spec
    if spec is None:
        return []
    errors = _spread(spec.topology_spread_constraints, ("spec", "topologySpreadConstraints"))
    affinity = spec.affinity
    if affinity is not None:
        errors += _pod_affinity(affinity.pod_affinity, ("spec", "affinity", "podAffinity"))
        errors += _pod_affinity(affinity.pod_anti_affinity, ("spec", "affinity", "podAntiAffinity"))
        node = affinity.node_affinity
        for i, p in enumerate(
            (node.preferred_during_scheduling_ignored_during_execution if node else None) or ()
        ):
            if not 1 <= p.weight <= 100:
                path: FieldPath = (
                    "spec",
                    "affinity",
                    "nodeAffinity",
                    "preferredDuringSchedulingIgnoredDuringExecution",
                    i,
                )
                errors.append(
                    FieldError((*path, "weight"), f"Invalid value: {p.weight}: must be in the range 1-100")
                )
    errors += _tolerations(spec.tolerations, ("spec", "tolerations"))
    return errors
