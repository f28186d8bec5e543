"""Objects -> what the device taint eviction controller reads (`kubefit.model.taints`).

Devices come from the Problem's device table with only the taints their ResourceSlices
publish (the controller reads slices as drivers publish them and matches DeviceTaintRules
itself), restricted to the newest generation of each pool. Rules, allocated claims and pods
are read with the same converters the Problem uses. Where a taint has no `timeAdded`, the
API server would have set it when the object was created: its creationTimestamp stands in.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...model.features import FeatureGates
from ...model.problem import Device
from ...model.taints import AllocatedClaim, AllocatedDevice, EvictionFacts, PodUse, RuleSelector, TaintRule
from ...model.terms import Taint
from ..kube import KubeObject, ObjectSet, shell_of
from .claims import toleration
from .devices import build_devices
from .field_facts import taint_of
from .pods import ClaimResolver, ClaimSource


def _created(obj: KubeObject) -> str:
    created = getattr(shell_of(obj), "metadata", None)
    stamp = getattr(created, "creation_timestamp", None)
    return stamp.isoformat() if stamp is not None else ""


def _dated(taint: Taint, created: str) -> Taint:
    return taint if taint.time_added or not created else replace(taint, time_added=created)


def _published(objects: ObjectSet, device_taints: bool) -> tuple[Device, ...]:
    table = build_devices(objects, taint_rules=False, device_taints=device_taints, node_allocatable=False)
    newest: dict[tuple[str, str], int] = {}
    for s in table.slices:
        key = (s.driver, s.pool)
        newest[key] = max(newest.get(key, s.generation), s.generation)
    out = []
    for s in table.slices:
        if s.generation != newest[(s.driver, s.pool)]:
            continue
        created = _created(s.obj)
        for i in s.devices:
            device = table.devices[i]
            if device.taints:
                device = replace(device, taints=tuple(_dated(t, created) for t in device.taints))
            out.append(device)
    return tuple(out)


def _rule(obj: KubeObject) -> TaintRule:
    model: Any = obj.model
    sel = model.spec.device_selector
    selector = RuleSelector(sel.driver, sel.pool, sel.device) if sel is not None else None
    meta = model.metadata
    return TaintRule(
        name=obj.name,
        uid=str(meta.uid or ""),
        generation=int(meta.generation or 1),  # the API server starts every rule at 1
        selector=selector,
        taint=_dated(taint_of(model.spec.taint), _created(obj)),
    )


def _claim(obj: KubeObject) -> AllocatedClaim | None:
    status: Any = getattr(obj.model, "status", None)
    allocation = status.allocation if status is not None else None
    if allocation is None:
        return None
    results = allocation.devices.results if allocation.devices is not None else None
    return AllocatedClaim(
        namespace=obj.namespace,
        name=obj.name,
        results=tuple(
            AllocatedDevice(
                request=r.request or "",
                driver=r.driver or "",
                pool=r.pool or "",
                device=r.device or "",
                admin_access=bool(r.admin_access),
                tolerations=tuple(toleration(t) for t in r.tolerations or ()),
            )
            for r in results or ()
        ),
        reserved_for=tuple(
            (r.name or "", str(r.uid or ""))
            for r in status.reserved_for or ()
            if r.resource == "pods" and not r.api_group
        ),
    )


def _pod(obj: KubeObject, resolver: ClaimResolver) -> PodUse:
    model: Any = obj.model
    claims = []
    for entry in model.spec.resource_claims or ():
        found = resolver.resolve(obj, entry)
        # A claim that does not exist yet (only its template does) is not allocated: nothing to evict.
        if isinstance(found, ClaimSource) and found.obj is not None:
            claims.append(found.name)
    meta = model.metadata
    return PodUse(
        namespace=obj.namespace,
        name=obj.name,
        uid=str(meta.uid or ""),
        node=model.spec.node_name or "",
        claims=tuple(claims),
        deleting=meta.deletion_timestamp is not None,
    )


def eviction_facts(objects: ObjectSet, gates: FeatureGates) -> EvictionFacts:
    taints_on = gates.enabled("DRADeviceTaints")
    resolver = ClaimResolver(objects, group_claims=False)
    claims = {}
    for obj in objects.of_kind("ResourceClaim"):
        claim = _claim(obj)
        if claim is not None:
            claims[claim.ref] = claim
    pods = sorted(objects.of_kind("Pod"), key=lambda o: (o.namespace, o.name))
    return EvictionFacts(
        published=_published(objects, taints_on),
        rules=tuple(_rule(o) for o in sorted(objects.of_kind("DeviceTaintRule"), key=lambda o: o.name)),
        claims=claims,
        pods=tuple(_pod(o, resolver) for o in pods),
        taints_enabled=taints_on,
        rules_enabled=gates.enabled("DRADeviceTaintRules"),
    )
