"""Fields whose feature gate is off, as the API server treats them (dropDisabledFields of
pkg/registry/resource/resourceclaimspec/strategy.go and resourceslice/strategy.go): on create it drops
them; on update it keeps them where the stored object already used them.

An object using such a field gets one warning per gate. When the gate is off because the emulated
release has it off, nothing stored can carry the field: the object is read as the API server would have
created it, without the field. When the user switched the gate off by name, the object is taken as one
stored while the gate was on: it keeps the field, and kube-scheduler's own checks of the gate decide (as
upstream's allocator tests exercise them).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from ..model.errors import FieldPath, Problem
from ..model.features import FeatureGates
from .kube import KubeObject, LazySlice, ObjectSet

CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")
# Kinds the API server serves only with a gate on; kube-scheduler ignores them with it off.
SERVED_WITH = {
    "PodGroup": "GenericWorkload",
    "CompositePodGroup": "CompositePodGroup",
    "DeviceTaintRule": "DRADeviceTaintRules",
}
_BINDING = ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus")
_LIST_VALUES = ("bools", "ints", "strings", "versions")


def _items(data: Any, key: str) -> Iterator[tuple[int, Any]]:
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, list):
        yield from ((i, item) for i, item in enumerate(value) if isinstance(item, dict))


def _present(data: Any, key: str) -> bool:
    return isinstance(data, dict) and data.get(key) is not None


def _bodies(request: Any, at: FieldPath, flat: bool, subrequests: bool) -> Iterator[tuple[Any, FieldPath]]:
    """Where a request's fields are: its `exactly` (v1beta1, `flat`: the request itself) and, with
    `subrequests`, each of its firstAvailable entries."""
    yield (request, at) if flat else (request.get("exactly"), (*at, "exactly"))
    if subrequests:
        for j, sub in _items(request, "firstAvailable"):
            yield sub, (*at, "firstAvailable", j)


# The request fields a gate governs, in dropDisabledFields' order, and whether subrequests have them.
# (Upstream also means to drop constraints' distinctAttribute, but assigns to a copy of each
# constraint: it stays.)
_REQUEST_FIELDS = (
    ("DRADeviceTaints", "tolerations", True),
    ("DRAAdminAccess", "adminAccess", False),
    ("DRAConsumableCapacity", "capacity", True),
)


def _claim_fields(devices: Any, at: FieldPath, flat: bool) -> Iterator[tuple[str, FieldPath]]:
    """(gate, path) of each gated field of a claim spec's `devices`. `flat`: v1beta1, where a request
    holds what later versions put under `exactly`."""
    requests = [(request, (*at, "requests", i)) for i, request in _items(devices, "requests")]
    for request, path in requests:
        if _present(request, "firstAvailable"):
            yield "DRAPrioritizedList", (*path, "firstAvailable")
    for gate, key, subrequests in _REQUEST_FIELDS:
        for request, path in requests:
            for body, where in _bodies(request, path, flat, subrequests):
                if _present(body, key):
                    yield gate, (*where, key)


_DEVICE_FIELDS = (
    ("DRADeviceTaints", ("taints",)),
    ("DRAPartitionableDevices", ("consumesCounters", "nodeName", "nodeSelector", "allNodes")),
    (_BINDING, ("bindingConditions", "bindingFailureConditions", "bindsToNode")),
    ("DRAConsumableCapacity", ("allowMultipleAllocations",)),
    ("DRANodeAllocatableResources", ("nodeAllocatableResources", "nodeAllocatableResourceMappings")),
)


# What a device a lazily read slice holds may carry of the above (slice_plain's device keys).
_PLAIN_FIELDS = (
    ("DRAPartitionableDevices", ("consumesCounters",)),
    ("DRAConsumableCapacity", ("allowMultipleAllocations",)),
)


def _slice_fields(
    spec: Any, basic: bool, on: FeatureGates, plain: bool
) -> Iterator[tuple[str | tuple[str, ...], FieldPath]]:
    """(gate or gates, path) of each gated field of a ResourceSlice spec whose gate is off. `basic`:
    v1beta1's devices keep their fields under `basic`; `plain`: the devices are plain (slice_plain), so
    only what such devices carry is looked for (a large dump's devices are not walked for nothing)."""
    for key in ("sharedCounters", "perDeviceNodeSelection"):
        if _present(spec, key):
            yield "DRAPartitionableDevices", ("spec", key)
    groups = [(g, keys) for g, keys in (_PLAIN_FIELDS if plain else _DEVICE_FIELDS) if not _all_on(on, g)]
    policies = not plain and not on.enabled("DRAConsumableCapacity")
    lists = not plain and not on.enabled("DRAListTypeAttributes")
    if not (groups or policies or lists):
        return
    for i, device in _items(spec, "devices"):
        body, at = (
            (device.get("basic"), ("spec", "devices", i, "basic"))
            if basic
            else (device, ("spec", "devices", i))
        )
        if not isinstance(body, dict):
            continue
        for gate, keys in groups:
            for key in keys:
                if _present(body, key):
                    yield gate, (*at, key)
        capacities = body.get("capacity")
        for k, capacity in capacities.items() if policies and isinstance(capacities, dict) else ():
            if _present(capacity, "requestPolicy"):
                yield "DRAConsumableCapacity", (*at, "capacity", k, "requestPolicy")
        attributes = body.get("attributes")
        for name, value in attributes.items() if lists and isinstance(attributes, dict) else ():
            for key in _LIST_VALUES:
                if _present(value, key):
                    yield "DRAListTypeAttributes", (*at, "attributes", name, key)


def _all_on(gates: FeatureGates, needs: str | tuple[str, ...]) -> bool:
    return all(gates.enabled(g) for g in ((needs,) if isinstance(needs, str) else needs))


def gated_fields(obj: KubeObject, gates: FeatureGates) -> list[tuple[tuple[str, ...], FieldPath]]:
    """The fields of `obj` (as written) whose feature gate is off: (the gates they need, the path)."""
    raw, beta1 = obj.raw, obj.written_api_version == "resource.k8s.io/v1beta1"
    found: list[tuple[str | tuple[str, ...], FieldPath]] = []
    if obj.kind == "ResourceClaim":
        found = list(_claim_fields((raw.get("spec") or {}).get("devices"), ("spec", "devices"), beta1))
    elif obj.kind == "ResourceClaimTemplate":
        inner = ((raw.get("spec") or {}).get("spec") or {}).get("devices")
        found = list(_claim_fields(inner, ("spec", "spec", "devices"), beta1))
    elif obj.kind == "ResourceSlice":
        found = list(_slice_fields(raw.get("spec"), beta1, gates, isinstance(obj, LazySlice)))
    needs = [((g,) if isinstance(g, str) else g, path) for g, path in found]
    return [(n, path) for n, path in needs if not _all_on(gates, n)]


def _without(data: Any, path: FieldPath) -> Any:
    """`data` with `path` removed, copying only the containers on the way."""
    head, rest = path[0], path[1:]
    out = copy.copy(data)
    if not rest:
        if isinstance(out, dict):
            out.pop(head, None)
        return out
    out[head] = _without(data[head], rest)
    return out


def _warning(
    obj: KubeObject, gates: FeatureGates, off: list[str], paths: list[FieldPath], drop: bool
) -> Problem:
    names = " and ".join(off)
    word = "gates are" if len(off) > 1 else "gate is"
    more = f" (and {len(paths) - 1} more such field{'s' if len(paths) > 2 else ''})" if len(paths) > 1 else ""
    if drop:
        text = (
            f"the {names} feature {word} off in Kubernetes {gates.release}: the API server drops this field "
            f"when it creates the object{more}; kubefit reads the object without it"
        )
    else:
        text = (
            f"the {names} feature {word} off (--feature-gates): the API server drops this field when it "
            f"creates an object, and keeps it on one stored while the gate was on{more}; kubefit reads this "
            "object as such a stored one"
        )
    return obj.problem(paths[0], text, warning=True)


def _unserved(obj: KubeObject, gates: FeatureGates, gate: str) -> Problem:
    where = (
        "(--feature-gates)"
        if gate in gates.explicit or not gates.emulated
        else f"in Kubernetes {gates.release}"
    )
    text = (
        f"the {gate} feature gate is off {where}: the API server does not serve {obj.kind} objects, and "
        "kube-scheduler ignores this one"
    )
    return obj.problem(("kind",), text, warning=True)


def apply(objects: ObjectSet, gates: FeatureGates, strict: bool = False) -> tuple[list[Problem], bool]:
    """Warn of every object's fields whose gate is off, and drop those the emulated release never
    stores (replacing the objects in `objects`). Returns the warnings and whether anything was dropped."""
    from .loader import remade

    warnings: list[Problem] = []
    changed = False
    for index, obj in enumerate(objects.objects):
        served_with = SERVED_WITH.get(obj.kind)
        if served_with and not gates.enabled(served_with):
            warnings.append(_unserved(obj, gates, served_with))
        if obj.kind not in (*CLAIM_KINDS, "ResourceSlice"):
            continue
        by_gates: dict[tuple[str, ...], list[FieldPath]] = {}
        for needs, path in gated_fields(obj, gates):
            off = tuple(g for g in needs if not gates.enabled(g))
            if off:
                by_gates.setdefault(off, []).append(path)
        if not by_gates:
            continue
        data = obj.raw
        for off, paths in by_gates.items():
            drop = bool(gates.emulated) and not any(g in gates.explicit for g in off)
            warnings.append(_warning(obj, gates, list(off), paths, drop))
            if drop:
                for path in paths:
                    data = _without(data, path)
        if data is not obj.raw:
            made, problems = remade(obj, data, strict)
            warnings += problems
            if made is not None:
                objects.objects[index] = made
                changed = True
    return warnings, changed
