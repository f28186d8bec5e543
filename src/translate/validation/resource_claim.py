"""ResourceClaim and ResourceClaimTemplate validation.

Upstream: `ValidateResourceClaim` and `ValidateResourceClaimTemplate` in
kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`. The parts
live next door: `device_claim` (the spec's requests, constraints and config),
`claim_status` (allocation and device status) and `claim_scope` (the request
names both refer to).

The claim is validated as the API server would see it after defaulting: an
unset `allocationMode` is `ExactCount`, an unset (or zero) count of an
`ExactCount` request is 1, and an unset toleration operator is `Equal`.
"""

from __future__ import annotations

from kubernetes.client.models import ResourceV1ResourceClaim, V1ObjectMeta, V1ResourceClaimTemplate

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .claim_scope import claim_scope
from .claim_status import validate_claim_status
from .device_claim import validate_device_claim
from .field_errors import forbidden
from .object_meta import validate_annotations, validate_labels, validate_object_meta


def validate_resource_claim(obj: ResourceV1ResourceClaim, ctx: ValidationContext) -> list[FieldError]:
    """What the API server rejects for this claim: the spec on create, the status as a new allocation."""
    errs = validate_object_meta(obj.metadata, namespaced=True)
    claim = obj.spec.devices if obj.spec is not None else None
    scope = claim_scope(claim, ctx)
    errs.extend(validate_device_claim(claim, ("spec", "devices"), scope))
    if obj.status is not None:
        errs.extend(validate_claim_status(obj.status, scope))
    return errs


# Go field names of ObjectMeta, in declaration order, as the "cannot be set" errors name them.
_TEMPLATE_META_FORBIDDEN = (
    ("name", "Name"),
    ("generate_name", "GenerateName"),
    ("namespace", "Namespace"),
    ("self_link", "SelfLink"),
    ("uid", "UID"),
    ("resource_version", "ResourceVersion"),
    ("generation", "Generation"),
    ("creation_timestamp", "CreationTimestamp"),
    ("deletion_timestamp", "DeletionTimestamp"),
    ("deletion_grace_period_seconds", "DeletionGracePeriodSeconds"),
    ("owner_references", "OwnerReferences"),
    ("finalizers", "Finalizers"),
    ("managed_fields", "ManagedFields"),
)


def _validate_template_meta(meta: V1ObjectMeta | None, path: FieldPath) -> list[FieldError]:
    if meta is None:
        return []
    errs = validate_annotations(meta.annotations, (*path, "annotations"))
    errs.extend(validate_labels(meta.labels, (*path, "labels")))
    # Only labels and annotations are copied into the generated claim; anything else would be ignored.
    for attr, go_name in _TEMPLATE_META_FORBIDDEN:
        value: object = getattr(meta, attr, None)
        if value not in (None, "", 0, [], {}):
            errs.append(forbidden(path, f"{go_name} cannot be set"))
    return errs


def validate_resource_claim_template(
    obj: V1ResourceClaimTemplate, ctx: ValidationContext
) -> list[FieldError]:
    """What the API server rejects when a ResourceClaimTemplate is created."""
    errs = validate_object_meta(obj.metadata, namespaced=True)
    if obj.spec is None:
        return errs
    errs.extend(_validate_template_meta(obj.spec.metadata, ("spec", "metadata")))
    claim = obj.spec.spec.devices if obj.spec.spec is not None else None
    errs.extend(validate_device_claim(claim, ("spec", "spec", "devices"), claim_scope(claim, ctx)))
    return errs
