"""Partition types: which devices of a partitionable pool count as the same kind of partition.

Upstream: `resolveDevicePartitions` and `computePartitionSummary` in
`pkg/controller/resourcepoolstatusrequest` (KEP-5677, DRAPartitionableDevicesType).
A device's grouping attribute is the `partitionTypeAttribute` its own slice declares;
the request's `defaultPartitionTypeAttribute` stands in only when no slice of the
pool declares one. Only devices that consume counters are partitions. The problems
upstream reports instead of a summary are reported with its words: an attribute
named while the pool publishes no counters, a partition without the attribute (or
with a value that is not a string), more types than the status may list.

Upstream also refuses a type whose devices draw different counters
(`PartitionCostMismatch`): its per-type count assumes one cost per type. kubefit
counts exactly over each device's own counters (every MIG placement draws its own
memory slices), so it needs no such rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...model.go_strings import go_quote
from ...model.pools import PoolFacts
from ...model.problem import Device

MAX_STATUS_LIST_ITEMS = 32  # +k8s:maxItems on the status lists

PARTITION_TYPE_MISSING = "PartitionTypeMissing:"
PARTITION_SUMMARY_OVER_CAP = "PartitionSummaryOverCap:"


@dataclass(frozen=True)
class PartitionGroup:
    attribute: str
    type: str
    devices: tuple[int, ...]  # in slice order


def partition_groups(
    facts: PoolFacts, devices: Sequence[Device], default_attribute: str | None
) -> tuple[list[PartitionGroup] | None, str]:
    """The pool's partition types sorted by (attribute, type), or None when the pool reports no
    partition summary; and upstream's validation error ("" when there is none)."""
    declared = {d: facts.partition_attribute(d) for d in facts.devices}
    fallback = default_attribute if not any(declared.values()) else None
    attribute = {d: a or fallback or "" for d, a in declared.items()}
    if not any(attribute.values()):
        return None, ""
    if not facts.shared_counters:
        return None, (
            f"{PARTITION_TYPE_MISSING} pool {facts.ref} declares partitionTypeAttribute but publishes no "
            "sharedCounters"
        )
    groups: dict[tuple[str, str], list[int]] = {}
    for d in facts.devices:
        device = devices[d]
        if not device.consumes or not attribute[d]:
            continue
        value = device.lookup_attribute(attribute[d])
        if value is None or value.kind != "string" or value.is_list:
            return None, (
                f"{PARTITION_TYPE_MISSING} device {go_quote(device.name)} in pool {facts.ref} does not carry "
                f"partition type attribute {go_quote(attribute[d])}"
            )
        groups.setdefault((attribute[d], str(value.values[0])), []).append(d)
    if len(groups) > MAX_STATUS_LIST_ITEMS:
        return None, (
            f"{PARTITION_SUMMARY_OVER_CAP} pool {facts.ref} has {len(groups)} partition types, exceeding the "
            f"maximum of {MAX_STATUS_LIST_ITEMS}"
        )
    return [PartitionGroup(a, t, tuple(ids)) for (a, t), ids in sorted(groups.items())], ""
