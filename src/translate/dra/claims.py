"""ResourceClaims as facts: requests (and firstAvailable subrequests) as slots, and constraints."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ...model.problem import Claim, Constraint, DerivedAttribute, Request, Slot
from ...model.terms import Toleration
from .amounts import quantity


def toleration(t: Any) -> Toleration:
    return Toleration(
        key=t.key or "",
        operator=t.operator or "Equal",
        value=t.value or "",
        effect=t.effect or "",
        toleration_seconds=t.toleration_seconds,
    )


def _slot(body: Any, name: str, parent: str, classes: Collection[str], admin_access: bool | None) -> Slot:
    mode = body.allocation_mode or "ExactCount"
    count = body.count if body.count is not None else 1
    missing_cel = next((i for i, s in enumerate(body.selectors or ()) if s.cel is None), -1)
    requests = body.capacity.requests if body.capacity is not None else None
    return Slot(
        name=name,
        parent=parent,
        device_class=body.device_class_name or "",
        class_exists=(body.device_class_name or "") in classes,
        mode=mode,
        count=int(count),
        admin_access=admin_access,
        tolerations=tuple(toleration(t) for t in body.tolerations or ()),
        capacity_requests={k: quantity(v) for k, v in requests.items()} if requests is not None else None,
        selectors_without_cel=missing_cel,
        derived=tuple(
            DerivedAttribute(d.name, d.expression) for d in getattr(body, "derived_attributes", None) or ()
        ),
    )


def build_claim(claim_id: int, namespace: str, name: str, spec: Any, classes: Collection[str]) -> Claim:
    """A claim's spec (ResourceClaimSpec) as facts; `classes` are the DeviceClass names that exist."""
    devices = spec.devices if spec is not None else None
    requests = []
    for r in (devices.requests if devices is not None else None) or ():
        if r.first_available:
            slots = tuple(_slot(sub, sub.name, r.name, classes, None) for sub in r.first_available)
            requests.append(Request(r.name, slots, first_available=True))
        else:
            body = r.exactly
            if body is None:
                slots = (Slot(name=r.name, device_class="", class_exists=False),)
            else:
                slots = (_slot(body, r.name, "", classes, body.admin_access),)
            requests.append(Request(r.name, slots))
    constraints = []
    for c in (devices.constraints if devices is not None else None) or ():
        if c.match_attribute is not None:
            constraints.append(Constraint("match", c.match_attribute, tuple(c.requests or ())))
        elif c.distinct_attribute is not None:
            constraints.append(Constraint("distinct", c.distinct_attribute, tuple(c.requests or ())))
        else:
            constraints.append(Constraint("invalid", "", tuple(c.requests or ())))
    return Claim(claim_id, namespace, name, tuple(requests), tuple(constraints))
