"""The Node object (core/v1) as the API server validates it: its taints and the capacity and
allocatable it reports. The scheduler fits pods into these amounts, so a negative one, or a fraction
of a resource counted in units (pods, extended resources), is one no stored Node has (`unstorable`).

Upstream: `ValidateNode`, `validateNodeTaints` and `ValidateNodeResources` of kubernetes/kubernetes
`pkg/apis/core/validation/validation.go` (metadata is checked with every object's). Upstream names a
taint's path `metadata.taints[0]` (a quirk of its code); kubefit names the field as written,
`spec.taints[0]`.
"""

from __future__ import annotations

from typing import Any

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .field_errors import Raw, duplicate, invalid, not_supported, required
from .names import is_label_value, validate_label_name
from .pod_resources import quantity_value_errors
from .pod_scheduling import TAINT_EFFECTS
from .quantities import parse_quantity


def validate_node(node: Any, ctx: ValidationContext) -> list[FieldError]:
    errs: list[FieldError] = []
    if node.spec is not None:
        errs += _taints(node.spec.taints, ("spec", "taints"))
    status = node.status
    if status is not None:
        for field in ("capacity", "allocatable"):
            for name, text in (getattr(status, field) or {}).items():
                q = parse_quantity(str(text))
                if not isinstance(q, str):
                    errs += quantity_value_errors(name, q, ("status", field, name))
    return errs


def _taints(taints: Any, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints or ()):
        at: FieldPath = (*path, i)
        key, value, effect = taint.key or "", taint.value or "", taint.effect or ""
        errs += validate_label_name(key, (*at, "key"))
        problems = is_label_value(value)
        if problems:
            errs.append(invalid((*at, "value"), value, ";".join(problems)))
        if not effect:
            errs.append(required((*at, "effect")))
        elif effect not in TAINT_EFFECTS:
            errs.append(not_supported((*at, "effect"), effect, TAINT_EFFECTS))
        if (effect, key) in seen:
            shown = Raw(_taint_struct(taint))
            message = duplicate(at, shown).message + ": taints must be unique by key and effect pair"
            errs.append(FieldError(at, message))
            continue
        seen.add((effect, key))
    return errs


def _taint_struct(taint: Any) -> str:
    # Go prints the duplicate core.Taint with %#v; its time is a pointer: nil, or an address of no use.
    added = "(*v1.Time)(nil)" if taint.time_added is None else "(*v1.Time)(...)"
    return (
        f'core.Taint{{Key:"{taint.key or ""}", Value:"{taint.value or ""}", '
        f'Effect:"{taint.effect or ""}", TimeAdded:{added}}}'
    )
