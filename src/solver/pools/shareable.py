"""The shareable summary: multi-allocatable devices of a pool and how much of their capacity is taken.

Upstream: `computeShareableSummary` in `pkg/controller/resourcepoolstatusrequest`.
Per capacity, as the devices publish its name: the sum over the pool's shareable
devices, what current allocations consume of it (admin-access results are observers,
not consumers), and the difference, never negative. A device is fully available
while no claim holds a share of it; partially available while some capacity is left
(the field's documented meaning: a device whose every capacity is taken is neither).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ...model.pools import PoolFacts
from ...model.problem import Problem
from ...model.quantity.amounts import quantity_text
from ..capacity import device_capacity
from .partitions import MAX_STATUS_LIST_ITEMS

SHAREABLE_OVER_CAP = "ShareableSummaryOverCap:"


@dataclass(frozen=True)
class ShareableCapacity:
    name: str
    total: str
    consumed: str
    available: str


@dataclass(frozen=True)
class Shareable:
    fully_available: int
    partially_available: int
    capacity: tuple[ShareableCapacity, ...]


def shareable_summary(problem: Problem, facts: PoolFacts) -> tuple[Shareable | None, str]:
    """None (and no error) when the pool has no shareable device; upstream's error when it has too many
    capacities to list."""
    in_use = problem.in_use
    total: dict[str, Fraction] = {}
    consumed: dict[str, Fraction] = {}
    like: dict[str, str] = {}  # a published value, whose format the sums keep
    full = partial = 0
    shareable = [problem.devices[d] for d in facts.devices if problem.devices[d].allow_multiple_allocations]
    if not shareable:
        return None, ""
    for device in shareable:
        taken = in_use.shared_capacity.get(device.ref, {})
        capacity = device_capacity(device)
        for qualified, entry in capacity.items():
            name = entry.published
            total[name] = total.get(name, Fraction(0)) + entry.capacity.value
            consumed[name] = consumed.get(name, Fraction(0)) + taken.get(qualified, Fraction(0))
            like.setdefault(name, facts.capacity_text(device.id, name))
        if not in_use.allocated(device.ref):
            full += 1
        elif device.ref not in in_use.exclusive and (
            not capacity or any(taken.get(q, Fraction(0)) < e.capacity.value for q, e in capacity.items())
        ):
            partial += 1
    if len(total) > MAX_STATUS_LIST_ITEMS:
        return None, (
            f"{SHAREABLE_OVER_CAP} pool {facts.ref} has {len(total)} shareable capacity keys, exceeding the "
            f"maximum of {MAX_STATUS_LIST_ITEMS}"
        )
    capacities = tuple(
        ShareableCapacity(
            name,
            quantity_text(total[name], like[name]),
            quantity_text(consumed[name], like[name]),
            quantity_text(max(Fraction(0), total[name] - consumed[name]), like[name]),
        )
        for name in sorted(total)
    )
    return Shareable(full, partial, capacities), ""
