"""What every part of one claim is checked against: its request names and the attributes its constraints use.

Spec and status both refer to requests by name (`req` or `req/subrequest`), so
the scope is built once from the spec and handed to both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from kubernetes.client.models import V1DeviceClaim

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .field_errors import invalid
from .list_rules import validate_set
from .names import validate_dns1123_label

ALLOCATION_RESULTS_MAX_SIZE = 32
DEVICE_REQUESTS_MAX_SIZE = ALLOCATION_RESULTS_MAX_SIZE

_REQUEST_REF_DETAIL = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)


@dataclass
class ClaimScope:
    """What every part of one claim is checked against."""

    ctx: ValidationContext
    # request name -> subrequest names (None when the request uses `exactly`)
    requests: dict[str, set[str] | None] = field(default_factory=dict)
    # "" (all requests), "req" or "req/sub" -> attribute names constraints use there
    constraint_attributes: dict[str, set[str]] = field(default_factory=dict)

    def has_request(self, ref: str) -> bool:
        parts = ref.split("/")
        if len(parts) > 2 or parts[0] not in self.requests:
            return False
        if len(parts) == 1:
            return True
        subs = self.requests[parts[0]]
        return subs is not None and parts[1] in subs

    def attribute_used(self, attribute: str, request: str) -> bool:
        parent = request.split("/", 1)[0]
        # A constraint naming the parent request covers all of its subrequests.
        return any(attribute in self.constraint_attributes.get(key, set()) for key in ("", request, parent))

    def derived_compiler(self) -> Callable[[str], str | None] | None:
        # Derived attributes evaluate to values, not booleans, so the selector compiler
        # would reject valid ones; only a context that offers a dedicated check is used.
        compiler = getattr(self.ctx, "derived_attribute_compile_error", None)
        return compiler if callable(compiler) else None


def claim_scope(claim: V1DeviceClaim | None, ctx: ValidationContext) -> ClaimScope:
    scope = ClaimScope(ctx)
    if claim is None:
        return scope
    for request in claim.requests or []:
        subs = request.first_available
        scope.requests[request.name] = {sub.name for sub in subs} if subs else None
    for constraint in claim.constraints or []:
        attribute = constraint.match_attribute
        if attribute is None:
            attribute = constraint.distinct_attribute
        if attribute is None:
            continue
        for target in constraint.requests or [""]:
            scope.constraint_attributes.setdefault(target, set()).add(attribute)
    return scope


def validate_request_ref(ref: str, path: FieldPath, scope: ClaimScope) -> list[FieldError]:
    parts = ref.split("/")
    if len(parts) > 2:
        return [invalid(path, ref, _REQUEST_REF_DETAIL)]
    errs: list[FieldError] = []
    for part in parts:
        errs.extend(validate_dns1123_label(part, path))
    if not scope.has_request(ref):
        errs.append(invalid(path, ref, _REQUEST_REF_DETAIL))
    return errs


def validate_request_refs(refs: Sequence[str] | None, path: FieldPath, scope: ClaimScope) -> list[FieldError]:
    check = partial(validate_request_ref, scope=scope)
    return validate_set(list(refs or []), path, check, lambda ref: ref, limit=DEVICE_REQUESTS_MAX_SIZE)
