"""Pool statuses as Kubernetes prints them: a List of ResourcePoolStatusRequests, or tables.

Each pool is one ResourcePoolStatusRequest: the request that asks for exactly that
pool (its driver and name, with the default partition-type attribute if one was
given), and the status the controller writes for it. Its condition has no
lastTransitionTime, so that the same input always prints the same output. What the
API has no field for is in annotations, as JSON: why each unavailable device is
unavailable, and for each partition type a set of devices that can be allocated
together, as many as `allocatable` says.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..model.pools import PoolRequest
from ..output import table
from ..solver.pools.status import PoolStatus

API_VERSION = "resource.k8s.io/v1alpha3"
UNAVAILABLE_ANNOTATION = "kubefit.io/unavailable-devices"
ALLOCATABLE_ANNOTATION = "kubefit.io/allocatable-devices"
NAMES_SHOWN = 4  # devices named per reason in the table's notes


def document(statuses: Sequence[PoolStatus], request: PoolRequest, matched: int) -> dict[str, Any]:
    """A v1 List; `matched` pools were found, the first len(statuses) are listed."""
    doc: dict[str, Any] = {"apiVersion": "v1", "kind": "List", "items": [_item(s, request) for s in statuses]}
    if matched > len(statuses):
        doc["metadata"] = {"remainingItemCount": matched - len(statuses)}
    return doc


def _item(status: PoolStatus, request: PoolRequest) -> dict[str, Any]:
    annotations = {}
    if status.why_unavailable:
        annotations[UNAVAILABLE_ANNOTATION] = json.dumps(dict(status.why_unavailable))
    if status.partitions:
        together = {f"{p.attribute}={p.type}": list(p.devices) for p in status.partitions}
        annotations[ALLOCATABLE_ANNOTATION] = json.dumps(together)
    metadata: dict[str, Any] = {"name": _name(status)}
    if annotations:
        metadata["annotations"] = annotations
    spec: dict[str, Any] = {"driver": status.driver, "poolName": status.pool}
    if request.default_attribute is not None:
        spec["defaultPartitionTypeAttribute"] = request.default_attribute
    incomplete = 1 if status.validation_error else 0
    message = "Calculated status for 1 pools" + (f" ({incomplete} incomplete)" if incomplete else "")
    return {
        "apiVersion": API_VERSION,
        "kind": "ResourcePoolStatusRequest",
        "metadata": metadata,
        "spec": spec,
        "status": {
            "poolCount": 1,
            "pools": [_pool(status)],
            "conditions": [
                {"type": "Complete", "status": "True", "reason": "CalculationComplete", "message": message}
            ],
        },
    }


def _name(status: PoolStatus) -> str:
    """A DNS subdomain naming the pool: `<pool>.<driver>` (a pool name's slashes become dots)."""
    return f"{status.pool.replace('/', '.')}.{status.driver}".lower()[:253].rstrip(".-")


def _pool(status: PoolStatus) -> dict[str, Any]:
    pool: dict[str, Any] = {"driver": status.driver, "poolName": status.pool}
    if status.node_name:
        pool["nodeName"] = status.node_name
    pool["generation"] = status.generation
    counts = {
        "resourceSliceCount": status.slices,
        "totalDevices": status.total,
        "allocatedDevices": status.allocated,
        "availableDevices": status.available,
        "unavailableDevices": status.unavailable,
    }
    pool.update({k: v for k, v in counts.items() if v is not None})
    if status.partitions is not None:
        pool["partitionSummary"] = [
            {"attribute": p.attribute, "type": p.type, "total": p.total, "allocatable": p.allocatable}
            for p in status.partitions
        ]
    if status.shareable is not None:
        shareable = status.shareable
        pool["shareableSummary"] = {
            "fullyAvailableDevices": shareable.fully_available,
            "partiallyAvailableDevices": shareable.partially_available,
            "capacity": [
                {"name": c.name, "total": c.total, "consumed": c.consumed, "available": c.available}
                for c in shareable.capacity
            ],
        }
    if status.validation_error:
        pool["validationError"] = status.validation_error
    return pool


def text(statuses: Sequence[PoolStatus], matched: int) -> str:
    if not statuses:
        return "No pools.\n"

    def shown(value: int | None) -> str:
        return "-" if value is None else str(value)

    rows = [
        [
            s.driver,
            s.pool,
            s.node_name or "",
            s.generation,
            shown(s.slices),
            shown(s.total),
            shown(s.allocated),
            shown(s.available),
            shown(s.unavailable),
        ]
        for s in statuses
    ]
    headers = [
        "DRIVER",
        "POOL",
        "NODE",
        "GENERATION",
        "SLICES",
        "TOTAL",
        "ALLOCATED",
        "AVAILABLE",
        "UNAVAILABLE",
    ]
    out = table(headers, rows)
    partitions = [
        [s.ref, p.attribute, p.type, p.total, p.allocatable] for s in statuses for p in s.partitions or ()
    ]
    if partitions:
        out += "\n" + table(["POOL", "PARTITION ATTRIBUTE", "TYPE", "TOTAL", "ALLOCATABLE"], partitions)
    capacities = []
    for s in statuses:
        if s.shareable is None:
            continue
        share = [s.ref, s.shareable.fully_available, s.shareable.partially_available]
        capacities += [[*share, c.name, c.total, c.consumed, c.available] for c in s.shareable.capacity]
        if not s.shareable.capacity:
            capacities.append([*share, "-", "-", "-", "-"])
    if capacities:
        headers = [
            "POOL",
            "FULLY AVAILABLE",
            "PARTIALLY AVAILABLE",
            "CAPACITY",
            "TOTAL",
            "CONSUMED",
            "AVAILABLE",
        ]
        out += "\n" + table(headers, capacities)
    notes = [f"{s.ref}: {s.validation_error}" for s in statuses if s.validation_error]
    for s in statuses:
        by_reason: dict[str, list[str]] = {}
        for device, reason in s.why_unavailable:
            by_reason.setdefault(reason, []).append(device)
        for reason, devices in by_reason.items():
            names = ", ".join(devices[:NAMES_SHOWN]) + (
                f" and {len(devices) - NAMES_SHOWN} more" if len(devices) > NAMES_SHOWN else ""
            )
            notes.append(f"{s.ref}: unavailable ({reason}): {names}")
    if matched > len(statuses):
        notes.append(f"{matched - len(statuses)} more pools match (--limit {len(statuses)})")
    return out + ("\n" + "\n".join(notes) + "\n" if notes else "")
