"""A PodDisruptionBudget (policy/v1) as the API server validates the parts kubefit reads: minAvailable and
maxUnavailable are what preemption's disruption count is computed from, so a value no API server stores is
refused rather than guessed at.

Upstream: `ValidatePodDisruptionBudgetSpec` of kubernetes/kubernetes `pkg/apis/policy/validation`, with
`ValidatePositiveIntOrPercent` and `IsNotMoreThan100Percent` of `pkg/apis/apps/validation` and
apimachinery's `IsValidPercent`.
"""

from __future__ import annotations

import re
from typing import Any

from . import FieldError, ValidationContext, unstorable
from .field_errors import Raw, compact_json, invalid
from .names import regex_error

_PERCENT = re.compile(r"^[0-9]+%$")
_PERCENT_MESSAGE = regex_error(
    "a valid percent string must be a numeric string followed by an ending '%'", "[0-9]+%", "1%", "93%"
)


def validate_disruption_budget(budget: Any, ctx: ValidationContext) -> list[FieldError]:
    spec = budget.spec
    if spec is None:
        return []
    errs: list[FieldError] = []
    path = ("spec",)
    if spec.min_available is not None and spec.max_unavailable is not None:
        # Go prints the spec struct; its two fields at issue stand for it here.
        both = Raw(compact_json({"minAvailable": spec.min_available, "maxUnavailable": spec.max_unavailable}))
        errs.append(invalid(path, both, "minAvailable and maxUnavailable cannot be both set"))
    for value, name in ((spec.min_available, "minAvailable"), (spec.max_unavailable, "maxUnavailable")):
        if value is not None:
            errs += _int_or_percent(value, (*path, name))
    # The disruption controller computes from these: no stored budget holds such a value.
    return unstorable(errs)


def _int_or_percent(value: Any, path: tuple[str, ...]) -> list[FieldError]:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return [invalid(path, str(value), "must be an integer or percentage (e.g '5%')")]
    if isinstance(value, int):
        return [] if value >= 0 else [invalid(path, value, "must be greater than or equal to 0")]
    if not _PERCENT.match(value):
        return [invalid(path, value, _PERCENT_MESSAGE)]
    if int(value[:-1]) > 100:
        return [invalid(path, value, "must not be greater than 100%")]
    return []
