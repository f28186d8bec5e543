"""The model of one node: variables, then every constraint family in turn."""

from __future__ import annotations

from collections.abc import Callable, Collection

from ...model.families import Family
from .attributes import attribute_constraints
from .capacity import consumable_capacity
from .counters import compatibility_groups, shared_counters
from .counts import device_counts, one_alternative, result_limit
from .exclusive import exclusive_devices
from .facts import NodeFacts
from .model import NodeModel, variables
from .node_selector import buildable_node_selector
from .symmetry import identical_devices

# Selectors, node reachability, binding conditions, taints, the in-use state, a pick's own capacity and
# counters: settled per (slot, device) while gathering facts (facts.py), so they need no constraint.
FAMILIES: dict[Family, Callable[[NodeModel], None]] = {
    Family.PRIORITIZED: one_alternative,
    Family.COUNT: device_counts,
    Family.RESULT_LIMIT: result_limit,
    Family.EXCLUSIVE: exclusive_devices,
    Family.COUNTERS: shared_counters,
    Family.COMPATIBILITY_GROUPS: compatibility_groups,
    Family.CAPACITY: consumable_capacity,
    Family.ATTRIBUTES: attribute_constraints,
    Family.NODE: buildable_node_selector,
}


def build(facts: NodeFacts) -> NodeModel:
    nm = variables(facts)
    constrain(nm)
    return nm


def constrain(nm: NodeModel, skip: Collection[Family] = ()) -> None:
    """Every family's constraints but those of `skip`, in a fixed order."""
    for family, add in FAMILIES.items():
        if family not in skip:
            add(nm)
    # Not a rule of the allocator: identical devices are interchangeable, so only one order of them is
    # searched (added last, as it reads the families' variables).
    identical_devices(nm)
