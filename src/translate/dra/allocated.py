"""An allocated claim's status as DynamicResources reads it (solver/claim_status.py): its devices,
whether their binding finished or failed, when it was allocated, and whether its devices skip node
operations."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ...model.claim_status import AllocatedStatus
from ...model.go_strings import go_quote
from .amounts import quantity


def _true(conditions: Any, kind: str) -> Any:
    return next((c for c in conditions if c.type == kind and c.status == "True"), None)


def _binding(model: Any) -> tuple[str, bool]:
    """isClaimReadyForBinding: (the failure error, whether every binding condition is True)."""
    status = model.status
    statuses = {(d.driver, d.pool, d.device, d.share_id or ""): d for d in status.devices or ()}
    ready = True
    for result in status.allocation.devices.results or ():
        if not result.binding_conditions:
            continue
        found = statuses.get((result.driver, result.pool, result.device, result.share_id or ""))
        if found is None:
            return "", False
        conditions = found.conditions or ()
        for kind in result.binding_failure_conditions or ():
            failed = _true(conditions, kind)
            if failed is not None:
                reason, message = failed.reason or "", go_quote(failed.message or "")
                name = model.metadata.name
                return f"claim {name} binding failed: reason={reason}, message={message}", False
        if not all(_true(conditions, kind) is not None for kind in result.binding_conditions):
            return "", False
    return "", ready


def allocated_status(model: Any, device_ids: Mapping[str, int]) -> AllocatedStatus:
    """`device_ids`: driver/pool/device -> the first published device of that name."""
    allocation = model.status.allocation
    results = (allocation.devices.results if allocation.devices is not None else None) or ()
    devices = []
    for result in results:
        found = device_ids.get(f"{result.driver}/{result.pool}/{result.device}")
        if found is not None:
            consumed = {k: quantity(v) for k, v in (result.consumed_capacity or {}).items()}
            devices.append((found, consumed or None))
    failed, ready = _binding(model) if any(r.binding_conditions for r in results) else ("", True)
    stamp = allocation.allocation_timestamp
    consumed_devices: tuple[tuple[int, Mapping[str, Fraction] | None], ...] = tuple(devices)
    return AllocatedStatus(
        consumed_devices,
        failed,
        ready,
        stamp.timestamp() if stamp is not None else None,
        any(r.skip_node_operations for r in results),
    )
