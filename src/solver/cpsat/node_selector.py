"""The allocation's nodeSelector must be buildable from its results."""

from __future__ import annotations

from ...model.node_selector import is_node_local, terms_of
from .model import Literal, NodeModel


def buildable_node_selector(nm: NodeModel) -> None:
    """The allocator builds a claim's nodeSelector from its results in order once the search is done
    (createNodeSelector): the first node-local device pins it to the node, and a device whose slice
    selector has several terms before that is an error. Results list slots in search order and each
    slot's devices in candidate order, so a pick of such a device needs a node-local pick before it."""
    devices = nm.facts.problem.devices
    local_before: dict[int, list[Literal]] = {}  # claim -> node-local picks met so far, in result order
    for s in nm.facts.slots:
        earlier = local_before.setdefault(s.claim, [])
        for d in s.candidates:
            lit = nm.use[(s.position, d)]
            device = devices[d]
            if is_node_local(device):
                earlier.append(lit)
            elif terms_of(device) > 1:
                if earlier:
                    nm.model.add_bool_or(list(earlier)).only_enforce_if(lit)
                else:
                    nm.model.add(lit == 0)
