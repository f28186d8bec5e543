"""Which pools a node sees, as the allocator gathers them (GatherPools).

Per node: the candidate slices (its own and those without a node name), the
relevant ones among them, the newest generation per pool, completeness (checked
against every slice of the pool in the cluster when the node's own view is short),
validity (duplicate device names, counter-set problems), and the first-fit order:
pools by driver then name, pools with binding-condition devices last, slices by
name, devices in slice order. Counter sets are pool-wide (a counter set published
in a slice for another node still applies).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ...model.problem import Device, Node, NodeView, Placement, PoolView
from ..nodes import term_matches
from .devices import DeviceTable, SliceInfo

OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations"


class NodeSelectionError(Exception):
    pass


def placement_matches(placement: Placement, node: Node) -> bool:
    if placement.node_name:
        return placement.node_name == node.name
    if placement.all_nodes:
        return True
    if placement.selector is not None:
        return any(term_matches(term, node.name, dict(node.labels)) for term in placement.selector)
    return False


def _relevant(s: SliceInfo, table: DeviceTable, node: Node) -> bool | None:
    """True/False, or None for a slice of an unknown node-selection mode (ignored)."""
    if s.has_shared_counters:
        return True
    p = s.placement
    if p.node_name or p.all_nodes or p.selector is not None:
        return placement_matches(p, node)
    if s.per_device_node_selection:
        return any(placement_matches(table.devices[i].placement, node) for i in s.devices)
    return None


def _skipped(s: SliceInfo, features: frozenset[str]) -> bool:
    if "PartitionableDevices" not in features and (
        s.per_device_node_selection is not None or s.has_shared_counters
    ):
        return True
    # A slice whose devices declare compatibility groups is ignored while the feature is off.
    return "CompatibilityGroups" not in features and s.has_compatibility_groups


def _pool_slices(slices: Sequence[SliceInfo]) -> dict[tuple[str, str], list[SliceInfo]]:
    """Per pool, the slices of the newest generation among `slices`."""
    pools: dict[tuple[str, str], list[SliceInfo]] = {}
    for s in slices:
        key = (s.driver, s.pool)
        current = pools.get(key)
        if current is None or s.generation > current[0].generation:
            pools[key] = [s]
        elif s.generation == current[0].generation:
            current.append(s)
    return pools


def _build(
    key: tuple[str, str],
    slices: list[SliceInfo],
    everything: list[SliceInfo] | None,
    table: DeviceTable,
    features: frozenset[str],
) -> PoolView:
    driver, pool = key
    slices = sorted(slices, key=lambda s: s.name)
    generation = slices[0].generation
    partitionable = "PartitionableDevices" in features
    device_slices = [s for s in slices if not (partitionable and s.has_shared_counters)]

    def invalid(reason: str) -> PoolView:
        return PoolView(driver, pool, "invalid", generation, reason)

    seen: set[str] = set()
    for s in device_slices:
        for i in s.devices:
            name = table.devices[i].name
            if name in seen:
                return invalid(f"duplicate device name {name}")
            seen.add(name)
    devices = tuple(i for s in device_slices for i in s.devices)
    if not partitionable:
        return PoolView(driver, pool, "complete", generation, devices=devices, counter_devices=devices)
    whole = sorted(everything, key=lambda s: s.name) if everything is not None else slices
    counter_sets: dict[str, dict[str, Fraction]] = {}
    for s in whole:
        for name, counters in s.shared_counters:
            if name in counter_sets:
                return invalid(f"duplicate counter set name {name}")
            counter_sets[name] = counters
    others = [s for s in whole if s.name not in {x.name for x in slices} and not s.has_shared_counters]
    for s in [*device_slices, *others]:
        for i in s.devices:
            for use in table.devices[i].consumes:
                counter_set = counter_sets.get(use.counter_set)
                if counter_set is None:
                    return invalid(f"counter set {use.counter_set} not found")
                for counter in use.counters:
                    if counter not in counter_set:
                        return invalid(f"counter {counter} not found in counter set {use.counter_set}")
    counter_devices = devices + tuple(i for s in others for i in s.devices)
    return PoolView(
        driver,
        pool,
        "complete",
        generation,
        devices=devices,
        counter_sets=counter_sets,
        counter_devices=counter_devices,
    )


def _has_binding_conditions(view: PoolView, devices: Sequence[Device]) -> bool:
    return any(devices[i].binding_conditions for i in view.devices)


def gather(node: Node, table: DeviceTable, features: frozenset[str]) -> NodeView:
    """The pools `node` can allocate from, in the allocator's search order."""
    candidates = table.near(node.name)
    relevant = []
    for s in candidates:
        if _skipped(s, features):
            continue
        if _relevant(s, table, node):
            relevant.append(s)
    usable: list[PoolView] = []
    with_binding: list[PoolView] = []
    for key, slices in _pool_slices(relevant).items():
        count = slices[0].slice_count
        if len(slices) == count:
            view = _build(key, slices, None, table, features)
        else:
            generation = slices[0].generation
            # Slices ignored for their compatibility groups do not exist for the allocator at all, so
            # they cannot complete the pool either (0c8a1b07).
            same_pool = [
                s
                for s in table.slices
                if (s.driver, s.pool) == key
                and not ("CompatibilityGroups" not in features and s.has_compatibility_groups)
            ]
            if any(s.generation > generation for s in same_pool):
                continue  # the driver is replacing this generation: ignore the old one silently
            everything = [s for s in same_pool if s.generation == generation]
            if len(everything) != count:
                usable.append(PoolView(key[0], key[1], "incomplete", generation))
                continue
            view = _build(key, slices, everything, table, features)
        (with_binding if _has_binding_conditions(view, table.devices) else usable).append(view)
    usable.sort(key=lambda v: (v.driver, v.pool))
    with_binding.sort(key=lambda v: (v.driver, v.pool))
    return NodeView(node.name, tuple(usable + with_binding), _unreachable(node, table, relevant, features))


def _unreachable(
    node: Node, table: DeviceTable, slices: list[SliceInfo], features: frozenset[str]
) -> frozenset[int]:
    out: set[int] = set()
    node_ops = OPTIONAL_NODE_OPERATIONS in node.declared_features
    for s in slices:
        for i in s.devices:
            device = table.devices[i]
            if s.per_device_node_selection and not placement_matches(device.placement, node):
                out.add(i)
            elif s.skip_node_operations and "OptionalNodeOperations" in features and not node_ops:
                # An older kubelet would not honour the skip, so the scheduler keeps such devices off it.
                out.add(i)
    return frozenset(out)
