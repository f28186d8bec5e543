"""Object metadata: name, generateName, namespace, labels and annotations.

Upstream: `ValidateObjectMeta` and the label and annotation checks of
kubernetes/kubernetes `staging/src/k8s.io/apimachinery/pkg/api/validation`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...model.errors import FieldPath
from . import FieldError
from .field_errors import forbidden, messages_as_invalid, required, too_long
from .names import (
    byte_len,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_label_name,
    validate_label_value,
)

if TYPE_CHECKING:
    from kubernetes.client.models import V1ObjectMeta

ANNOTATIONS_TOTAL_MAX_BYTES = 256 * 1024


def validate_labels(labels: Mapping[str, str] | None, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    for key, value in (labels or {}).items():
        errs.extend(validate_label_name(key, path))
        errs.extend(validate_label_value(value, path))
    return errs


def validate_annotations(annotations: Mapping[str, str] | None, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    total = 0
    for key, value in (annotations or {}).items():
        # Annotation keys are compared case-insensitively against the label-key rule.
        errs.extend(messages_as_invalid(path, key, is_qualified_name(key.lower())))
        total += byte_len(key) + byte_len(value)
    if total > ANNOTATIONS_TOTAL_MAX_BYTES:
        errs.append(too_long(path, ANNOTATIONS_TOTAL_MAX_BYTES))
    return errs


def _mask_trailing_dash(name: str) -> str:
    # A generateName prefix may end in '-' because random characters follow it.
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def validate_object_meta(
    meta: V1ObjectMeta | None, *, namespaced: bool, path: FieldPath = ("metadata",)
) -> list[FieldError]:
    """Name, generateName, namespace, labels and annotations of a top-level object.

    Object names of every DRA kind are DNS subdomains. A missing namespace is not
    reported for namespaced kinds: kubectl fills it in from the context.
    """
    name = meta.name if meta is not None else None
    generate_name = meta.generate_name if meta is not None else None
    namespace = meta.namespace if meta is not None else None
    errs: list[FieldError] = []
    if generate_name:
        errs.extend(
            messages_as_invalid(
                (*path, "generateName"),
                generate_name,
                is_dns1123_subdomain(_mask_trailing_dash(generate_name)),
            )
        )
    if not name:
        if not generate_name:
            errs.append(required((*path, "name"), "name or generateName is required"))
    else:
        errs.extend(validate_dns1123_subdomain(name, (*path, "name")))
    if namespace:
        if namespaced:
            errs.extend(validate_dns1123_label(namespace, (*path, "namespace")))
        else:
            errs.append(forbidden((*path, "namespace"), "not allowed on this type"))
    if meta is not None:
        errs.extend(validate_labels(meta.labels, (*path, "labels")))
        errs.extend(validate_annotations(meta.annotations, (*path, "annotations")))
    return errs
