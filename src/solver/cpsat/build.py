"""The model of one node: variables, then every constraint family in turn."""

from __future__ import annotations

from collections.abc import Callable

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
FAMILIES: tuple[Callable[[NodeModel], None], ...] = (
    one_alternative,
    device_counts,
    result_limit,
    exclusive_devices,
    shared_counters,
    compatibility_groups,
    consumable_capacity,
    attribute_constraints,
    buildable_node_selector,
    identical_devices,
)


def build(facts: NodeFacts) -> NodeModel:
    nm = variables(facts)
    for family in FAMILIES:
        family(nm)
    return nm
