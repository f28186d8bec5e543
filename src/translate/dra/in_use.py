"""What already-allocated claims hold: exclusive devices, shares and their consumed capacity."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from ...model.claim_holds import ClaimHold, HeldDevice
from ...model.problem import InUse
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


def claim_holds(objects: Any, table: Any, consumable_capacity: bool) -> dict[str, ClaimHold]:
    """Claim (namespace/name) -> what its status.allocation holds and who its status.reservedFor names:
    freed when those pods are evicted."""
    found: list[tuple[str, list[tuple[str, bool, dict[str, Fraction] | None]], Any]] = []
    for obj in objects.of_kind("ResourceClaim"):
        status = obj.model.status
        allocation = status.allocation if status is not None else None
        if allocation is None or allocation.devices is None:
            continue
        results: list[tuple[str, bool, dict[str, Fraction] | None]] = []
        for result in allocation.devices.results or ():
            if result.admin_access:
                continue
            ref = f"{result.driver}/{result.pool}/{result.device}"
            if consumable_capacity and result.share_id:
                consumed = {
                    qualified(k, result.driver): quantity(v)
                    for k, v in (result.consumed_capacity or {}).items()
                }
                results.append((ref, True, consumed))
            else:
                results.append((ref, False, None))
        found.append((f"{obj.namespace}/{obj.name}", results, status.reserved_for or ()))
    if not found:
        return {}  # most runs: no need to name every device of a large cluster
    wanted = {ref for _, results, _ in found for ref, _, _ in results}
    ids: dict[str, list[int]] = {}
    local: dict[str, bool] = {}
    for device in table.devices:
        ref = device.ref
        if ref in wanted:
            ids.setdefault(ref, []).append(device.id)
            local[ref] = local.get(ref, True) and bool(device.placement.node_name)
    uids = {
        (o.namespace, o.name): getattr(o.model.metadata, "uid", None) or "" for o in objects.of_kind("Pod")
    }
    out = {}
    for claim, results, reserved in found:
        namespace = claim.partition("/")[0]
        held = tuple(
            HeldDevice(ref, tuple(ids.get(ref, ())), shared, consumed) for ref, shared, consumed in results
        )
        entries = [r for r in reserved if r.resource == "pods" and not r.api_group]
        pods = frozenset(_pod_key(namespace, r.name, r.uid or "", uids) for r in entries)
        others = len(entries) < len(reserved)
        node_local = all(local.get(h.ref, False) for h in held)
        out[claim] = ClaimHold(claim, held, pods, others, node_local, len(reserved))
    return out


def _pod_key(namespace: str, name: str, uid: str, uids: dict[tuple[str, str], str]) -> str:
    """A reservedFor entry as the pod it names: matched by uid (IsReservedForPod), so an entry left by a
    pod since replaced by another of the same name is not the new pod's."""
    current = uids.get((namespace, name), "")
    if uid and current and uid != current:
        return f"{namespace}/{name}@{uid}"
    return f"{namespace}/{name}"
