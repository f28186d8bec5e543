"""Running API validation over every loaded object and turning field errors into located problems."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ...model.errors import MAX_PROBLEMS, FieldPath, Problem
from ...model.features import ALL_ON, FeatureGates
from ..cel.environment import Features
from ..cel.selector import compile_error_text
from ..kube import KubeObject, LazySlice, ObjectSet, quantity_values
from . import FieldError, ValidationContext, unstorable
from .go_integers import integer_errors
from .names import validate_dns1123_label
from .object_meta import validate_object_meta
from .quantities import validate_quantity


@dataclass
class Context:
    """The ValidationContext of one kubefit run."""

    gates: FeatureGates = ALL_ON

    @property
    def cel_features(self) -> Features:
        return cel_features(self.gates)

    def cel_compile_error(self, expression: str) -> str | None:
        return compile_error_text(expression, self.cel_features, new=True)

    def derived_attribute_compile_error(self, expression: str) -> str | None:
        return compile_error_text(expression, self.cel_features, new=True, result="attribute")

    def feature_enabled(self, gate: str) -> bool:
        return self.gates.enabled(gate)


def cel_features(gates: FeatureGates) -> Features:
    return Features(
        consumable_capacity=gates.enabled("DRAConsumableCapacity"),
        list_type_attributes=gates.enabled("DRAListTypeAttributes"),
    )


Validator = Callable[[Any, ValidationContext], list[FieldError]]


@functools.cache
def _validators() -> dict[str, Validator]:
    from .core_node import validate_node
    from .device_class import validate_device_class
    from .device_taint_rule import validate_device_taint_rule
    from .disruption_budget import validate_disruption_budget
    from .node import validate_kubelet_configuration, validate_node_topology
    from .pod import validate_pod, validate_pod_template
    from .priority_class import validate_priority_class
    from .resource_claim import validate_resource_claim, validate_resource_claim_template
    from .resource_slice import validate_resource_slice
    from .scheduler_config import validate_kube_scheduler_configuration

    return {
        "ResourceSlice": validate_resource_slice,
        "DeviceClass": validate_device_class,
        "ResourceClaim": validate_resource_claim,
        "ResourceClaimTemplate": validate_resource_claim_template,
        "DeviceTaintRule": validate_device_taint_rule,
        "KubeletConfiguration": validate_kubelet_configuration,
        "NodeTopology": validate_node_topology,
        "KubeSchedulerConfiguration": validate_kube_scheduler_configuration,
        "Pod": validate_pod,
        "Node": validate_node,
        "PriorityClass": validate_priority_class,
        "PodDisruptionBudget": validate_disruption_budget,
        # The workloads kubefit expands into pods (dra/workloads.py): their pod templates.
        **dict.fromkeys(("Deployment", "ReplicaSet", "StatefulSet", "Job"), validate_pod_template),
    }


def validate_metadata(obj: KubeObject) -> list[FieldError]:
    """Object metadata of kinds without a validator of their own (which checks it itself)."""
    meta = getattr(obj.model, "metadata", None)
    if obj.kind in ("KubeletConfiguration", "NodeTopology") or meta is None:
        return []
    errors = validate_object_meta(meta, namespaced=obj.info.namespaced)
    if obj.kind == "Namespace" and meta.name:
        errors += validate_dns1123_label(meta.name, ("metadata", "name"))
    return errors


def validate_quantities(obj: KubeObject) -> list[FieldError]:
    """Quantities that do not decode (the API server refuses the request before validating it; the
    answer would read each as nothing)."""
    errors: list[FieldError] = []
    for path, value in quantity_values(obj.written_info.model, obj.raw):
        if isinstance(value, str):
            errors += validate_quantity(value, path)[1]
    return unstorable(errors)


# The API groups of the kinds whose integers kubefit reads (Pods, Nodes, workloads, PodDisruptionBudgets,
# PriorityClasses, PodGroups), held to their Go types.
_GO_INTEGER_GROUPS = frozenset({"", "apps", "batch", "policy", "scheduling.k8s.io"})


def object_errors(obj: KubeObject, ctx: Context) -> Iterator[FieldError]:
    if obj.info.group in _GO_INTEGER_GROUPS:
        undecodable = integer_errors(obj.written_info.model, obj.raw)
        if undecodable:
            # The API server stops at the first value it cannot decode, before any validation.
            yield from undecodable
            return
    validator = _validators().get(obj.kind)
    if isinstance(obj, LazySlice) and not obj.built:
        # Without a model per device; None when only the full model can tell.
        from .slice_raw import validate_resource_slice_raw

        errors = validate_resource_slice_raw(obj.raw, obj.shell, ctx)  # type: ignore[arg-type]
        if errors is not None:
            yield from errors
            validator = None
    if validator is not None:
        yield from validator(obj.model, ctx)
    if obj.info.group != "resource.k8s.io":
        yield from validate_metadata(obj)
        yield from validate_quantities(obj)


def validate_objects(objects: ObjectSet, gates: FeatureGates = ALL_ON) -> list[Problem]:
    """Every API-validation problem of every object, located in its file: the objects in order, up to
    the one past MAX_PROBLEMS problems (see errors.capped)."""
    return validate_in_order(objects, Context(gates))


def validate_in_order(
    objects: Iterable[KubeObject], ctx: Context, problems: list[Problem] | None = None
) -> list[Problem]:
    """`problems` and those of `objects`, in order, until there are more than MAX_PROBLEMS."""
    problems = [] if problems is None else problems
    for obj in objects:
        if len(problems) > MAX_PROBLEMS:
            break
        problems += object_problems(obj, ctx)
    return problems


def object_problems(obj: KubeObject, ctx: Context) -> list[Problem]:
    """The API-validation problems of one object (each object's are its own: none depends on another)."""
    problems: list[Problem] = []
    seen: set[tuple[FieldPath, str]] = set()
    for error in object_errors(obj, ctx):
        key = (error.path, error.message)
        if key in seen:
            continue
        seen.add(key)
        problems.append(obj.problem(error.path, error.message, unstorable=error.unstorable))
        if len(problems) > MAX_PROBLEMS:
            break  # one object with a million CPUs: no more are looked for (see validate_in_order)
    return problems
