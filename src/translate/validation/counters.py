"""Counters: the counter sets a ResourceSlice shares and what each device consumes of them.

Upstream: `validateCounterSet`, `validateDeviceCounterConsumption` and their
helpers in kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter

from kubernetes.client.models import V1CounterSet, V1DeviceCounterConsumption

from ...model.errors import FieldPath
from . import FieldError
from .field_errors import required, too_many
from .list_rules import validate_list
from .names import DNS1123_LABEL_MAX_LENGTH, truncate_key, validate_dns1123_label
from .quantities import validate_quantity

RESOURCE_SLICE_MAX_COUNTER_SETS = 8
RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET = 32
RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE = 2
RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION = 32
DEVICE_COMPATIBILITY_GROUPS_MAX_SIZE = 2


def _model_value(counter: object) -> object:
    return getattr(counter, "value", None)


def _validate_counters(
    counters: Mapping[str, object] | None,
    limit: int,
    path: FieldPath,
    value_of: Callable[[object], object] = _model_value,
) -> list[FieldError]:
    if not counters:
        return [required(path)]
    if len(counters) > limit:
        return [too_many(path, len(counters), limit)]
    errs: list[FieldError] = []
    for name, counter in counters.items():
        errs.extend(validate_dns1123_label(name, path))
        value = value_of(counter)
        if isinstance(value, str):
            errs.extend(
                validate_quantity(value, (*path, truncate_key(name, DNS1123_LABEL_MAX_LENGTH), "value"))[1]
            )
    return errs


def _validate_counter_set_name(name: str, path: FieldPath) -> list[FieldError]:
    return [required(path)] if not name else validate_dns1123_label(name, path)


def _validate_counter_set(counter_set: V1CounterSet, path: FieldPath) -> list[FieldError]:
    errs = _validate_counter_set_name(counter_set.name, (*path, "name"))
    errs.extend(
        _validate_counters(
            counter_set.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET, (*path, "counters")
        )
    )
    return errs


def counter_consumption_errors(
    counter_set: str,
    counters: Mapping[str, object] | None,
    compatibility_groups: Sequence[str],
    path: FieldPath,
    value_of: Callable[[object], object] = _model_value,
) -> list[FieldError]:
    """One entry of a device's `consumesCounters`, from its parts (`value_of` reads a counter's
    quantity, from a model or from a map as read)."""
    errs = _validate_counter_set_name(counter_set, (*path, "counterSet"))
    errs.extend(
        _validate_counters(
            counters,
            RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION,
            (*path, "counters"),
            value_of,
        )
    )
    errs.extend(
        validate_list(
            compatibility_groups,
            (*path, "compatibilityGroups"),
            validate_dns1123_label,
            limit=DEVICE_COMPATIBILITY_GROUPS_MAX_SIZE,
            key=lambda group: group,
        )
    )
    return errs


def _validate_counter_consumption(
    consumption: V1DeviceCounterConsumption, path: FieldPath
) -> list[FieldError]:
    return counter_consumption_errors(
        consumption.counter_set, consumption.counters, consumption.compatibility_groups or [], path
    )


def validate_shared_counters(
    counter_sets: Sequence[V1CounterSet] | None, path: FieldPath
) -> list[FieldError]:
    """The slice's `sharedCounters`."""
    limit = RESOURCE_SLICE_MAX_COUNTER_SETS
    return validate_list(counter_sets or [], path, _validate_counter_set, limit=limit, key=attrgetter("name"))


def validate_consumes_counters(
    consumptions: Sequence[V1DeviceCounterConsumption] | None, path: FieldPath
) -> list[FieldError]:
    """A device's `consumesCounters`."""
    limit = RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE
    key = attrgetter("counter_set")
    return validate_list(consumptions or [], path, _validate_counter_consumption, limit=limit, key=key)
