"""NodePorts: a pod's host ports must be free on the node (pkg/scheduler/framework/plugins/nodeports).

The pod's host ports (facts.Pod.ports) are those of its regular containers and of its restartable
(sidecar) init containers, as util.GetHostPorts takes them: ordinary init containers have exited
before the pod runs. A port bound on 0.0.0.0 conflicts with the same protocol and port on any IP,
and a port bound on a specific IP conflicts with that IP and with 0.0.0.0.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence

from ....model.cluster import names
from ....model.cluster.facts import HostPort, Pod
from ....model.cluster.points import FILTER
from ..framework import SKIP, Code, CycleState, NodeInfo, Plugin, StateData, Status, error

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_PORTS

WILDCARD_IP = "0.0.0.0"

# Evicting the pod that holds the port frees it: preemption can help.
_CONFLICT = Status(Code.UNSCHEDULABLE, (ERR_REASON,), names.NODE_PORTS)


class PreFilterState(StateData):
    """The pod's host ports as lookups: the exact (ip, protocol, port) keys that a specific-IP port
    conflicts with, and the (protocol, port) pairs requested on the wildcard IP."""

    __slots__ = ("probes", "wildcard")

    def __init__(self, probes: frozenset[HostPort], wildcard: frozenset[tuple[str, int]]) -> None:
        self.probes = probes
        self.wildcard = wildcard


def pre_filter_state(ports: Sequence[HostPort]) -> PreFilterState:
    probes: set[HostPort] = set()
    wildcard: set[tuple[str, int]] = set()
    for p in ports:
        # HostPortInfo's defaults for an unset IP or protocol.
        ip = p.ip or WILDCARD_IP
        protocol = p.protocol or "TCP"
        if ip == WILDCARD_IP:
            wildcard.add((protocol, p.port))
        else:
            probes.add(HostPort(p.port, protocol, ip))
            probes.add(HostPort(p.port, protocol, WILDCARD_IP))
    return PreFilterState(frozenset(probes), frozenset(wildcard))


def fits(s: PreFilterState, used: Collection[HostPort]) -> bool:
    """HostPortInfo.CheckConflict for each of the pod's ports against the node's ports in use."""
    for key in s.probes:
        if key in used:
            return False
    if s.wildcard:
        for hp in used:
            if (hp.protocol, hp.port) in s.wildcard:
                return False
    return True


class NodePorts(Plugin):
    name = names.NODE_PORTS
    points = names.POINTS_OF[names.NODE_PORTS]

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        ports = [p for p in pod.ports if p.port > 0]
        if not ports:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, pre_filter_state(ports))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        s = state.read(PRE_FILTER_STATE_KEY)
        if not isinstance(s, PreFilterState):
            return error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if node.ports and not fits(s, node.ports):
            return _CONFLICT
        return None

    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        s = state.read(PRE_FILTER_STATE_KEY)
        return (s.probes, s.wildcard) if point == FILTER and isinstance(s, PreFilterState) else None
