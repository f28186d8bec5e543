"""A device's nodeAllocatableResources: how allocating it changes the node's CPU, memory and huge pages.

Upstream: the nodeAllocatableResources checks of `validateDevice` in
kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`.
"""

from __future__ import annotations

from collections.abc import Mapping

from kubernetes.client.models import V1DeviceCapacity, V1NodeAllocatableResource

from ...model.errors import FieldPath
from . import FieldError
from .field_errors import invalid, not_found, required
from .names import is_node_allocatable_resource_name
from .quantities import validate_quantity


def _validate_positive(text: str, path: FieldPath, allow_zero: bool) -> list[FieldError]:
    amount, errs = validate_quantity(text, path)
    if amount is not None and (amount.sign() < 0 or (amount.sign() == 0 and not allow_zero)):
        errs.append(invalid(path, str(amount), "must be non-negative" if allow_zero else "must be positive"))
    return errs


def validate_node_allocatable_resources(
    resources: Mapping[str, V1NodeAllocatableResource] | None,
    capacities: Mapping[str, V1DeviceCapacity],
    path: FieldPath,
) -> list[FieldError]:
    errs: list[FieldError] = []
    for name, resource in (resources or {}).items():
        key_path: FieldPath = (*path, name)
        if not is_node_allocatable_resource_name(name):
            errs.append(invalid(key_path, name, "must be a node allocatable resource name"))
        if resource.mapping is None and resource.overhead is None:
            errs.append(required(key_path, "at least one of mapping or overhead must be set"))
        mapping = resource.mapping
        if mapping is not None:
            m_path: FieldPath = (*key_path, "mapping")
            if mapping.capacity_key is not None:
                if not mapping.capacity_key:
                    errs.append(
                        invalid((*m_path, "capacityKey"), "", "capacityKey must not be an empty string")
                    )
                elif mapping.capacity_key not in capacities:
                    errs.append(not_found((*m_path, "capacityKey"), mapping.capacity_key))
                if mapping.capacity_multiplier is None:
                    errs.append(
                        required(
                            (*m_path, "capacityMultiplier"),
                            "capacityMultiplier is required when capacityKey is set",
                        )
                    )
                else:
                    errs.extend(
                        _validate_positive(
                            mapping.capacity_multiplier, (*m_path, "capacityMultiplier"), False
                        )
                    )
            if mapping.device_multiplier is not None:
                errs.extend(
                    _validate_positive(mapping.device_multiplier, (*m_path, "deviceMultiplier"), False)
                )
            if mapping.capacity_multiplier is not None and mapping.capacity_key is None:
                errs.extend(
                    validate_quantity(mapping.capacity_multiplier, (*m_path, "capacityMultiplier"))[1]
                )
                errs.append(
                    required(
                        (*m_path, "capacityKey"), "capacityKey is required when capacityMultiplier is set"
                    )
                )
        overhead = resource.overhead
        if overhead is not None:
            o_path: FieldPath = (*key_path, "overhead")
            if overhead.per_pod is None and overhead.per_container is None:
                errs.append(invalid(o_path, "", "at least one of perPod or perContainer must be set"))
                continue
            if overhead.per_pod is not None:
                errs.extend(_validate_positive(overhead.per_pod, (*o_path, "perPod"), True))
            if overhead.per_container is not None:
                errs.extend(_validate_positive(overhead.per_container, (*o_path, "perContainer"), True))
    return errs
