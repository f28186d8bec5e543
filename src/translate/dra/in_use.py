"""What already-allocated claims hold: exclusive devices, shares and their consumed capacity."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from ...solver.problem import InUse
from .amounts import quantity


def qualified(name: str, driver: str) -> str:
    return name if "/" in name else f"{driver}/{name}"


def in_use(allocated_claims: Iterable[Any], consumable_capacity: bool) -> InUse:
    """From claim models that have status.allocation (results with adminAccess never block anyone)."""
    exclusive: set[str] = set()
    shared: set[str] = set()
    capacity: dict[str, dict[str, Fraction]] = {}
    for claim in allocated_claims:
        allocation = claim.status.allocation if claim.status is not None else None
        if allocation is None or allocation.devices is None:
            continue
        for result in allocation.devices.results or ():
            if result.admin_access:
                continue
            ref = f"{result.driver}/{result.pool}/{result.device}"
            if consumable_capacity and result.share_id:
                shared.add(ref)
                sums = capacity.setdefault(ref, {})
                for name, value in (result.consumed_capacity or {}).items():
                    key = qualified(name, result.driver)
                    sums[key] = sums.get(key, Fraction(0)) + quantity(value)
            else:
                exclusive.add(ref)
    return InUse(frozenset(exclusive), capacity, frozenset(shared))


def held_devices(objects: Any, table: Any) -> dict[str, tuple[tuple[int, str], ...]]:
    """Pod (namespace/name) -> the devices, (id, driver/pool/device), that claims reserved for that pod
    alone hold exclusively: freed when the pod is evicted."""
    held: list[tuple[str, str]] = []
    for obj in objects.of_kind("ResourceClaim"):
        status = obj.model.status
        allocation = status.allocation if status is not None else None
        users = [
            r for r in (status.reserved_for if status is not None else None) or () if r.resource == "pods"
        ]
        if allocation is None or allocation.devices is None or len(users) != 1:
            continue
        owner = f"{obj.namespace}/{users[0].name}"
        for result in allocation.devices.results or ():
            if result.admin_access or result.share_id:
                continue
            held.append((owner, f"{result.driver}/{result.pool}/{result.device}"))
    if not held:
        return {}  # most runs: no need to name every device of a large cluster
    wanted = {ref for _, ref in held}
    ids: dict[str, list[int]] = {}
    for device in table.devices:
        ref = device.ref
        if ref in wanted:
            ids.setdefault(ref, []).append(device.id)
    out: dict[str, list[tuple[int, str]]] = {}
    for owner, ref in held:
        out.setdefault(owner, []).extend((d, ref) for d in ids.get(ref, [-1]))
    return {pod: tuple(devices) for pod, devices in out.items()}
