"""DynamicResources: the pod's ResourceClaims, allocated by the node-level engine on each node.

PreFilter gathers the claims still to allocate; Filter checks that claims allocated already
can be used from the node, then runs the engine's search there (greedy is the structured
allocator itself) and checks what the chosen devices map to node resources; Score prefers
nodes where higher-priority firstAvailable alternatives were chosen; Reserve takes the
devices of the chosen node's allocation, so that later pods see them in use.

The engine's search answers "unknown" when its budget runs out: the node is then rejected for
this cycle, and the cycle remembers it, so that the pod is reported undecided rather than
not fitting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...node_fit import shortfalls, unit_demand
from ...problem import Claim, Unit
from ...solution import Status as Outcome
from ...units import NodeAnswer, placement_conflict
from ..dra import DraContext, Found, prioritized_score
from ..facts import Pod
from ..framework import (
    FILTER,
    POST_FILTER,
    PRE_FILTER,
    RESERVE,
    SCORE,
    SKIP,
    CycleState,
    NodeInfo,
    Plugin,
    StateData,
    Status,
    default_normalize,
    unresolvable,
    unschedulable,
)

NAME = "DynamicResources"


class AllocatorError(Exception):
    """The allocator failed with an error on a node (not a rejection): the cycle stops, as the scheduler's."""

    def __init__(self, node: str, answer: NodeAnswer) -> None:
        super().__init__(answer.message)
        self.node = node
        self.answer = answer


@dataclass
class CycleData(StateData):
    unit: Unit
    pending: list[Claim]
    answers: dict[str, Found] = field(default_factory=dict)  # nodes where the claims fit
    mapped: dict[str, Mapping[str, int]] = field(default_factory=dict)  # node -> mapped node resources
    undecided: dict[str, str] = field(default_factory=dict)  # node -> why the search stopped
    prioritized: bool = False
    seen: dict[str, Found] = field(default_factory=dict)  # every node's answer
    # Devices (driver/pool/device) that pods removed in a simulation (preemption) hold: free there.
    released: frozenset[str] = frozenset()
    placed_claims: bool = True  # some claim of the pod is allocated already (its node selector counts)

    def clone(self) -> CycleData:
        return CycleData(
            self.unit,
            list(self.pending),
            dict(self.answers),
            dict(self.mapped),
            dict(self.undecided),
            self.prioritized,
            dict(self.seen),
            self.released,
            self.placed_claims,
        )


class DynamicResources(Plugin):
    name = NAME
    points = frozenset({PRE_FILTER, FILTER, POST_FILTER, SCORE, RESERVE})
    normalizes = True

    @property
    def dra(self) -> DraContext:
        context: DraContext = self.handle.services["dra"]
        return context

    def _unit(self, pod: Pod) -> Unit | None:
        units: Mapping[str, Unit] = self.handle.services["units"]
        return units.get(pod.key)

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[set[str] | None, Status | None]:
        unit = self._unit(pod)
        if unit is None or not unit.claims:
            return None, SKIP
        dra = self.dra
        pending = dra.pending(unit)
        prioritized = any(r.first_available for c in pending for r in c.requests)
        claims = dra.problem.claims
        placed = any(claims[c].allocated or c in dra.state.allocations for c in unit.claims)
        state.write(NAME, CycleData(unit, pending, prioritized=prioritized, placed_claims=placed))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        data: CycleData = state.read(NAME)
        dra = self.dra
        problem = dra.problem
        if data.placed_claims:
            where = placement_conflict(problem, data.unit, node.name, dra.state)
            if where:
                return unresolvable(where)
        if not data.pending:
            return None
        found = dra.search_node(data.unit, node.name, data.pending, data.released)
        data.seen[node.name] = found
        answer = found.answer
        if answer.status == Outcome.ERROR:
            if answer.per_node:
                return unresolvable(answer.message)
            raise AllocatorError(node.name, answer)
        if answer.status == Outcome.UNKNOWN:
            data.undecided[node.name] = answer.message
            return unschedulable(answer.message)
        if answer.status != Outcome.ALLOCATED:
            return unschedulable(answer.message or "cannot allocate all claims")
        data.answers[node.name] = found
        if not dra.maps_node_resources:
            return None
        answer = found.concrete()
        demand = unit_demand(problem, data.unit, answer.allocations)
        mapped = {r: v - data.unit.requests.get(r, 0) for r, v in demand.items()}
        mapped = {r: v for r, v in mapped.items() if v > 0}
        fact = problem.nodes.get(node.name)
        if mapped and fact is not None:
            used = dict(node.requested)
            used["pods"] = len(node.pods)
            short = shortfalls(fact, used, demand)
            if short:
                # Devices mapped to node resources (cpu, memory) need room on the node too.
                del data.answers[node.name]
                return unschedulable(*short)
        data.mapped[node.name] = mapped
        return None

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[str | None, Status | None]:
        """Upstream frees an allocated claim that no node can use when no other pod holds it; kubefit does
        not deallocate claims, so it says what the scheduler says when it has nothing to free."""
        data: CycleData | None = state.read(NAME)
        if data is None or not data.unit.claims:
            return None, unschedulable("no new claims to deallocate")
        return None, unschedulable("still not schedulable")

    # PreFilterExtensions: a pod removed from a node in a simulation (a preemption victim) frees the devices
    # its claims alone hold; added back (reprieved), it takes them again.
    def remove_pod(self, state: CycleState, pod: Pod, removed: Pod, node: NodeInfo) -> Status | None:
        data: CycleData | None = state.read(NAME)
        held = self._held(removed)
        if data is not None and held:
            data.released = data.released | held
        return None

    def add_pod(self, state: CycleState, pod: Pod, added: Pod, node: NodeInfo) -> Status | None:
        data: CycleData | None = state.read(NAME)
        held = self._held(added)
        if data is not None and held:
            data.released = data.released - held
        return None

    def _held(self, pod: Pod) -> frozenset[str]:
        holds = self.handle.services.get("held")
        return frozenset(holds(pod)) if holds is not None else frozenset()

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        data: CycleData | None = state.read(NAME)
        if data is None or not data.prioritized:
            return 0
        found = data.answers.get(node.name)
        return prioritized_score(self.dra.problem, found.concrete().allocations) if found is not None else 0

    def normalize(self, state: CycleState, pod: Pod, scores: dict[str, int]) -> Status | None:
        default_normalize(scores)
        return None

    def reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        data: CycleData | None = state.read(NAME)
        if data is None:
            return None
        found = data.answers.get(node)
        if found is not None:
            self.dra.commit(found.concrete())
        return None
