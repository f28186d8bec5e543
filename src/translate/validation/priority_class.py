"""A PriorityClass (scheduling.k8s.io/v1) as the API server validates it: a user-defined class may not
outrank the system's classes, and its preemption policy is one the scheduler knows. The priority is what
the scheduler orders pods and preempts by.

Upstream: `ValidatePriorityClass` of kubernetes/kubernetes `pkg/apis/scheduling/validation/validation.go`
(the reserved `system-` names are left to the API server's built-in classes).
"""

from __future__ import annotations

from typing import Any

from . import FieldError, ValidationContext
from .field_errors import forbidden
from .pod_scheduling import preemption_policy_errors

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PREFIX = "system-"


def validate_priority_class(priority_class: Any, ctx: ValidationContext) -> list[FieldError]:
    errs: list[FieldError] = []
    name = priority_class.metadata.name if priority_class.metadata is not None else ""
    value = priority_class.value
    if (
        not (name or "").startswith(SYSTEM_PREFIX)
        and value is not None
        and value > HIGHEST_USER_DEFINABLE_PRIORITY
    ):
        detail = f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
        errs.append(forbidden(("value",), detail))
    if priority_class.preemption_policy is not None:
        errs += preemption_policy_errors(priority_class.preemption_policy, ("preemptionPolicy",))
    return errs
