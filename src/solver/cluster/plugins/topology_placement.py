"""TopologyPlacement (pkg/scheduler/framework/plugins/topologyaware): one candidate placement per domain of
the group's topology key (spec.schedulingConstraints.topology[0].key) among the parent placement's
nodes; the parent placement itself when the group has no constraint. Members already on nodes pin the
group to their domain, and members in different domains, on a node the snapshot lacks or on a node
without the label are errors.
"""

from __future__ import annotations

from ....model.cluster import names
from ..framework import NodeInfo, Plugin, Status, error
from ..podgroup.info import GroupInfo, Placement

_UNDETERMINED = "cannot determine domain for already scheduled pods"


class TopologyPlacement(Plugin):
    name = names.TOPOLOGY_PLACEMENT
    points = names.POINTS_OF[names.TOPOLOGY_PLACEMENT]

    def generate_placements(
        self, group: GroupInfo, parent: Placement
    ) -> tuple[list[Placement], Status | None]:
        key = group.fact.topology_key
        if not key:
            return [parent], None
        required: str | None = None
        snapshot = self.handle.snapshot
        for pod in group.scheduled_pods():
            node = snapshot.get(pod.node_name)
            if node is None:
                return [], error(
                    f"{_UNDETERMINED}: getting node for pod "
                    f'{pod.key}: nodeinfo not found for node name "{pod.node_name}"'
                )
            domain = node.node.labels.get(key)
            if domain is None:
                return [], error(f"{_UNDETERMINED}: no topology domain found for pod {pod.key}")
            if required is not None and required != domain:
                return [], error(
                    f"{_UNDETERMINED}: more than 1 domain found for pod group: {required}, {domain}"
                )
            required = domain
        by_domain: dict[str, list[NodeInfo]] = {}
        for node in parent.nodes:
            domain = node.node.labels.get(key)
            if domain is not None and (required is None or domain == required):
                by_domain.setdefault(domain, []).append(node)
        # Upstream lists the domains in map order; kubefit in the order of their values.
        return [Placement(d, tuple(by_domain[d])) for d in sorted(by_domain)], None
