"""Integers as the API server decodes them: each field into its Go type, int32 or int64.

The client's models type every integer as a Python int, of any size; the API server decodes a JSON
number into the field's Go type and refuses the request when it does not fit (`json: cannot unmarshal
number 2147483648 into Go struct field PodSpec.spec.priority of type int32`), before any validation.
`INT32_FIELDS` names the int32 fields of the kinds kubefit reads (Pods, Nodes, PriorityClasses,
PodGroups, PodDisruptionBudgets and the workloads whose pod templates it expands); every other integer
field is an int64 (a field missing here is held to int64's range, never refused wrongly). An
IntOrString holds an int32.

Upstream: `encoding/json`'s UnmarshalTypeError as sigs.k8s.io/json words it, and the field types of
kubernetes/kubernetes `staging/src/k8s.io/api/*/types.go`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel

from ...model.errors import FieldPath
from ..kube import any_below, integer_shape, models_in, unversioned, wire_name
from . import FieldError

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)

# Go struct -> its int32 fields (JSON names).
INT32_FIELDS: dict[str, frozenset[str]] = {
    model: frozenset(fields.split())
    for model, fields in {
        "AWSElasticBlockStoreVolumeSource": "partition",
        "ConfigMapVolumeSource": "defaultMode",
        "ContainerPort": "containerPort hostPort",
        "ContainerRestartRuleOnExitCodes": "values",
        "ContainerStateTerminated": "exitCode signal",
        "ContainerStatus": "restartCount",
        "DaemonEndpoint": "Port",
        "DaemonSetSpec": "minReadySeconds revisionHistoryLimit",
        "DaemonSetStatus": "collisionCount currentNumberScheduled desiredNumberScheduled numberAvailable "
        "numberMisscheduled numberReady numberUnavailable updatedNumberScheduled",
        "DeploymentSpec": "minReadySeconds progressDeadlineSeconds replicas revisionHistoryLimit",
        "DeploymentStatus": "availableReplicas collisionCount readyReplicas replicas terminatingReplicas "
        "unavailableReplicas updatedReplicas",
        "DownwardAPIVolumeFile": "mode",
        "DownwardAPIVolumeSource": "defaultMode",
        "FCVolumeSource": "lun",
        "GCEPersistentDiskVolumeSource": "partition",
        "GRPCAction": "port",
        "GangSchedulingPolicy": "minCount",
        "ISCSIVolumeSource": "lun",
        "JobSpec": "backoffLimit backoffLimitPerIndex completions maxFailedIndexes parallelism "
        "ttlSecondsAfterFinished",
        "JobStatus": "active failed ready succeeded terminating",
        "KeyToPath": "mode",
        "PodDisruptionBudgetStatus": "currentHealthy desiredHealthy disruptionsAllowed expectedPods",
        "PodFailurePolicyOnExitCodesRequirement": "values",
        "PodGroupSpec": "priority",
        "PodSpec": "priority",
        "PreferredSchedulingTerm": "weight",
        "PriorityClass": "value",
        "Probe": "failureThreshold initialDelaySeconds periodSeconds successThreshold timeoutSeconds",
        "ProjectedVolumeSource": "defaultMode",
        "ReplicaSetSpec": "minReadySeconds replicas",
        "ReplicaSetStatus": "availableReplicas fullyLabeledReplicas readyReplicas replicas "
        "terminatingReplicas",
        "ReplicationControllerSpec": "minReadySeconds replicas",
        "ReplicationControllerStatus": "availableReplicas fullyLabeledReplicas readyReplicas replicas",
        "RollingUpdateStatefulSetStrategy": "partition",
        "SecretVolumeSource": "defaultMode",
        "StatefulSetOrdinals": "start",
        "StatefulSetSpec": "minReadySeconds replicas revisionHistoryLimit",
        "StatefulSetStatus": "availableReplicas collisionCount currentReplicas readyReplicas replicas "
        "updatedReplicas",
        "SuccessPolicyRule": "succeededCount",
        "TopologySpreadConstraint": "maxSkew minDomains",
        "WeightedPodAffinityTerm": "weight",
        "WorkloadPodGroupGangSchedulingPolicy": "minCount",
    }.items()
}


@dataclass(frozen=True)
class GoInteger:
    """An integer field: its Go type, where it holds integers (scalar, list, map) and whether it is an
    IntOrString (decoded by its own UnmarshalJSON, whose error names no struct field)."""

    struct: str
    go_type: str
    shape: str
    int_or_string: bool

    def fits(self, value: int) -> bool:
        low, high = INT32 if self.go_type == "int32" else INT64
        return low <= value <= high


Nested = list[tuple[str, type[BaseModel]]]


def _integer(model: type[BaseModel], wire: str, annotation: Any) -> GoInteger | None:
    shape = integer_shape(annotation)
    if shape is None:
        return None
    struct = unversioned(model)
    int32 = shape[1] or wire in INT32_FIELDS.get(struct, ())
    return GoInteger(struct, "int32" if int32 else "int64", shape[0], shape[1])


@cache
def _holds_integers(model: type[BaseModel]) -> bool:
    return any_below(
        model, lambda m: any(integer_shape(i.annotation) is not None for i in m.model_fields.values())
    )


@cache
def _table(model: type[BaseModel]) -> dict[str, tuple[GoInteger | None, Nested]]:
    """wire name -> (the integer it holds, the models below it that hold integers); fields without
    either are left out, so a walk never enters them."""
    table: dict[str, tuple[GoInteger | None, Nested]] = {}
    for attr, info in model.model_fields.items():
        wire = wire_name(attr, info)
        integer = _integer(model, wire, info.annotation)
        nested = [(container, sub) for container, sub in models_in(info.annotation) if _holds_integers(sub)]
        if integer is not None or nested:
            table[wire] = (integer, nested)
    return table


def integer_errors(
    model: type[BaseModel], data: Any, path: FieldPath = (), go_path: str = ""
) -> list[FieldError]:
    """Every integer in `data` (an object as read, of `model`) outside its Go type's range."""
    errors: list[FieldError] = []
    if not isinstance(data, dict):
        return errors
    table = _table(model)
    for wire, value in data.items():
        entry = table.get(wire)
        if entry is None or value is None:
            continue
        integer, nested = entry
        here: FieldPath = (*path, wire)
        named = f"{go_path}.{wire}" if go_path else wire
        if integer is not None:
            for at, item in _items(integer.shape, value, here):
                if type(item) is int and not integer.fits(item):
                    errors.append(FieldError(at, decode_error(integer, named, f"number {item}"), True))
        for container, sub in nested:
            if container == "direct":
                errors += integer_errors(sub, value, here, named)
            elif container == "list" and isinstance(value, list):
                for i, item in enumerate(value):
                    errors += integer_errors(sub, item, (*here, i), named)
            elif container == "map" and isinstance(value, dict):
                for key, item in value.items():
                    errors += integer_errors(sub, item, (*here, key), named)
    return errors


def _items(shape: str, value: Any, path: FieldPath) -> list[tuple[FieldPath, Any]]:
    if shape == "scalar":
        return [(path, value)]
    if shape == "list" and isinstance(value, list):
        return [((*path, i), item) for i, item in enumerate(value)]
    if shape == "map" and isinstance(value, dict):
        return [((*path, key), item) for key, item in value.items()]
    return []


def decode_error(integer: GoInteger, go_path: str, what: str) -> str:
    """The API server's words for a value that does not decode into the field's Go type."""
    what = _shortened(what)
    if integer.int_or_string:
        return f"json: cannot unmarshal {what} into Go value of type {integer.go_type}"
    field = f"{integer.struct}.{go_path}"
    return f"json: cannot unmarshal {what} into Go struct field {field} of type {integer.go_type}"


def _shortened(what: str) -> str:
    # A number of thousands of digits is printed whole by Go; a line that holds it helps nobody.
    kind, _, literal = what.partition(" ")
    if len(literal) <= 40:
        return what
    return f"{kind} {literal[:20]}...{literal[-8:]} ({len(literal.lstrip('+-'))} digits)"


# --- the loader's type errors -----------------------------------------------------------------------


def type_error(model: type[BaseModel], path: FieldPath, value: Any) -> str | None:
    """For a value the model refused at an integer field: what the API server says decoding it (None
    when the field is no integer, or the value is one the API server decodes)."""
    found = _field_at(model, path)
    if found is None:
        return None
    integer, go_path = found
    what = _go_value(value)
    return None if what is None else decode_error(integer, go_path, what)


def _field_at(model: type[BaseModel], path: FieldPath) -> tuple[GoInteger, str] | None:
    current: type[BaseModel] = model
    names: list[str] = []
    parts = list(path)
    while parts:
        part = parts.pop(0)
        if not isinstance(part, str):
            return None
        entry = _table(current).get(part)
        if entry is None:
            return None
        names.append(part)
        integer, nested = entry
        # Below the field: list indexes and map keys, then the next field of a nested model.
        rest = parts
        if integer is not None and _reaches_integer(integer.shape, rest):
            return integer, ".".join(names)
        containers = {container: sub for container, sub in nested}
        if rest and isinstance(rest[0], int) and "list" in containers:
            current = containers["list"]
            parts = rest[1:]
        elif rest and "map" in containers:
            current = containers["map"]
            parts = rest[1:]
        elif "direct" in containers:
            current = containers["direct"]
        else:
            return None
    return None


def _reaches_integer(shape: str, rest: list[str | int]) -> bool:
    if shape == "scalar":
        return not rest
    return len(rest) == 1 and (isinstance(rest[0], int) if shape == "list" else True)


def _go_value(value: Any) -> str | None:
    """How encoding/json names a JSON value it cannot decode into an integer."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return f"number {value}"
    if isinstance(value, float):
        return f"number {value!r}" if value == value and abs(value) != float("inf") else None
    if isinstance(value, str):
        digits = value.lstrip("+-")
        limit = sys.get_int_max_str_digits()
        # A number too long for Python's int() is read as its text (go-yaml reads it as a string too).
        if digits.isdigit() and digits.isascii() and limit and len(digits) > limit:
            return f"number {value}"
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return None
