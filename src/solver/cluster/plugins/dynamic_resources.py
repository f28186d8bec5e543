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

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import eq, is_not, itemgetter
from typing import Any

from ....model.claim_status import UNAVAILABLE
from ....model.cluster.args import DynamicResourcesArgs
from ....model.cluster.facts import Pod
from ....model.cluster.points import FILTER, POST_FILTER, PRE_FILTER, RESERVE, SCORE
from ....model.problem import Claim, Unit
from ....model.solution import Status as Outcome
from ...claim_use import unusable
from ...units import NodeAnswer
from ..dra import DraContext, concrete, prioritized_score
from ..framework import (
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
from .claim_sharing import IN_USE, deallocatable, in_use, shared_mapped_claim
from .dra_preemption import Extensions, Simulation
from .node_allocatable_fit import footprint

NAME = "DynamicResources"


class AllocatorError(Exception):
    """The allocator failed with an error on a node (not a rejection): the cycle stops, as the scheduler's."""

    def __init__(self, node: str, answer: NodeAnswer) -> None:
        super().__init__(answer.message)
        self.node = node
        self.answer = answer


# What a Filter call left for its node: (node, answer, what became of the node's entry in `answers`, the
# node resources its devices map to); see _ANSWER_*.
Effect = tuple[str, NodeAnswer, int, Mapping[str, int] | None]
_ANSWER_KEPT, _ANSWER_SET, _ANSWER_DROPPED = range(3)
_NODE, _ANSWER, _FATE, _MAPPED = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)
_NODE_ANSWER = itemgetter(0, 1)


@dataclass
class CycleData(StateData):
    """Answers name the pending claims by position (DraContext.search_node); `concrete` names them."""

    unit: Unit
    pending: list[Claim]
    answers: dict[str, NodeAnswer] = field(default_factory=dict)  # nodes where the claims fit
    mapped: dict[str, Mapping[str, int]] = field(default_factory=dict)  # node -> mapped node resources
    undecided: dict[str, str] = field(default_factory=dict)  # node -> why the search stopped
    prioritized: bool = False
    seen: dict[str, NodeAnswer] = field(default_factory=dict)  # every node's answer
    # Pods removed and nominated pods added in a simulation (DRAPreemption): see dra_preemption.
    sim: Simulation = field(default_factory=Simulation)
    placed_claims: bool = True  # some claim of the pod is allocated already (its node selector counts)
    last: Effect | None = None  # what the last Filter call left (None: nothing that can be reused)
    # Node -> the answer the pass with nominated pods found, which the pass without them keeps.
    pinned: dict[str, NodeAnswer] = field(default_factory=dict)
    # Allocated claims some node could not use (PostFilter may deallocate one): claim id -> why.
    unavailable: dict[int, str] = field(default_factory=dict)
    # PreFilter got through the claims (when it turns the pod away first, PostFilter sees none).
    read: bool = True

    def clone(self) -> CycleData:
        return CycleData(
            self.unit,
            list(self.pending),
            dict(self.answers),
            dict(self.mapped),
            dict(self.undecided),
            self.prioritized,
            dict(self.seen),
            self.sim.clone(),
            self.placed_claims,
            unavailable=dict(self.unavailable),
            read=self.read,
        )

    def concrete(self, node: str) -> NodeAnswer | None:
        """The answer on the node where the claims fit, with the pod's claims named."""
        answer = self.answers.get(node)
        return concrete(answer, [c.id for c in self.pending]) if answer is not None else None

    def apply(self, effect: Effect) -> None:
        node, answer, fate, mapped = effect
        self.seen[node] = answer
        if fate == _ANSWER_SET:
            self.answers[node] = answer
        elif fate == _ANSWER_DROPPED:
            self.answers.pop(node, None)
        if mapped is not None:
            self.mapped[node] = mapped
        self.last = effect

    def apply_many(self, effects: list[Effect]) -> None:
        """`apply` of each effect in turn (each on a node of its own, so the maps can take them a kind at
        a time): most say that the claims do not fit the node, or fit it with nothing mapped."""
        self.seen.update(zip(map(_NODE, effects), map(_ANSWER, effects), strict=True))
        fates = list(map(_FATE, effects))
        if _ANSWER_SET in fates:
            self.answers.update(map(_NODE_ANSWER, compress(effects, map(eq, fates, repeat(_ANSWER_SET)))))
        if _ANSWER_DROPPED in fates:
            for effect in compress(effects, map(eq, fates, repeat(_ANSWER_DROPPED))):
                self.answers.pop(effect[0], None)
        mapped = list(map(_MAPPED, effects))
        if any(map(is_not, mapped, repeat(None))):
            self.mapped.update(
                compress(zip(map(_NODE, effects), mapped, strict=True), map(is_not, mapped, repeat(None)))
            )
        self.last = effects[-1]


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
        hold = self.handle.services.get("hold")
        if placed and callable(hold) and in_use(dra.problem, unit, pod, hold):
            state.read(NAME).read = False
            return None, unresolvable(IN_USE)
        return None, None

    def filter(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        data: CycleData = state.read(NAME)
        dra = self.dra
        problem = dra.problem
        data.last = None
        if data.placed_claims:
            timeout = (self.args or DynamicResourcesArgs()).binding_timeout_seconds
            unusable_here = unusable(problem, data.unit, node.name, dra.state.allocations, timeout)
            if unusable_here:
                data.unavailable.update(unusable_here)
                return unresolvable(UNAVAILABLE)
            hold = self.handle.services.get("hold")
            shared = shared_mapped_claim(problem, data.unit, pod, hold) if callable(hold) else ""
            if shared:
                return unresolvable(shared)
        if not data.pending:
            if dra.maps_node_resources:
                # Claims allocated already may charge node resources too; the node carries them once placed.
                rejection, mapped = footprint(problem, data.unit, (), node)
                if rejection is None and mapped:
                    data.mapped[node.name] = mapped
                return rejection
            return None
        answer = data.pinned.pop(node.name, None)
        if answer is None:
            change = Extensions(self.handle.services).adjustment(data.sim)
            answer = dra.search_node(data.unit, node.name, data.pending, change)
        if answer.status == Outcome.ERROR:
            data.seen[node.name] = answer
            if answer.per_node:
                return unresolvable(answer.message)
            raise AllocatorError(node.name, answer)
        if answer.status == Outcome.UNKNOWN:
            data.seen[node.name] = answer
            data.undecided[node.name] = answer.message
            return unschedulable(answer.message)
        if answer.status != Outcome.ALLOCATED:
            data.apply((node.name, answer, _ANSWER_KEPT, None))
            return unschedulable(answer.message or "cannot allocate all claims")
        if not dra.maps_node_resources:
            data.apply((node.name, answer, _ANSWER_SET, None))
            return None
        named = concrete(answer, [c.id for c in data.pending])
        rejection, mapped = footprint(problem, data.unit, named.allocations, node)
        if rejection is not None:
            # Devices mapped to node resources (cpu, memory) need room on the node too.
            data.apply((node.name, answer, _ANSWER_DROPPED, None))
            return rejection
        data.apply((node.name, answer, _ANSWER_SET, mapped or {}))
        return None

    # --- reuse across cycles (see Plugin.memo_key) -------------------------------------------------------

    def memo_key(self, state: CycleState, pod: Pod, point: str) -> Hashable | None:
        """The pending claims' shape (DraContext.signature); the node's version stands for the devices in use
        it sees. Claims already allocated (their nodes) and simulated removals are not reused."""
        data: CycleData | None = state.read(NAME)
        if point == SCORE and (data is None or not data.prioritized):
            return 0
        if data is None or data.placed_claims or data.sim:
            return None
        if not data.pending:
            return ()
        signature: Hashable | None = self.dra.signature(data.unit, data.pending)
        if signature is None:
            return None
        if point == FILTER and self.dra.maps_node_resources:
            # What the devices map to is checked against the node with the pod's own requests and containers.
            return signature, tuple(sorted(data.unit.requests.items())), data.unit.shape
        return signature

    def memo_versions(self) -> Mapping[str, int]:
        return self.dra.versions

    def memo_save(self, state: CycleState, node: NodeInfo) -> tuple[bool, Any]:
        data: CycleData | None = state.read(NAME)
        if data is None or not data.pending:
            return True, None
        last = data.last
        return (last is not None and last[0] == node.name), last

    def memo_loader(self, state: CycleState) -> Callable[[Any], None] | None:
        data: CycleData | None = state.read(NAME)
        return data.apply if data is not None else None

    def memo_load_many(self, state: CycleState) -> Callable[[list[Any]], None] | None:
        data: CycleData | None = state.read(NAME)
        return data.apply_many if data is not None else None

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[str | None, Status | None]:
        """Upstream deallocates one allocated claim that some node could not use when nothing but this pod
        reserves it; kubefit answers for this cycle and leaves the claim as it is, saying what the
        scheduler says."""
        data: CycleData | None = state.read(NAME)
        if data is None or not data.unit.claims or not data.read:
            return None, unschedulable("no new claims to deallocate")
        hold = self.handle.services.get("hold")
        if callable(hold) and deallocatable(self.dra.problem, data.unavailable, pod, hold):
            return None, unschedulable("deallocation of ResourceClaim completed")
        return None, unschedulable("still not schedulable")

    # PreFilterExtensions exist with DRAPreemption only (see dra_preemption).
    @property
    def has_extensions(self) -> bool:
        return self.dra.problem.on("Preemption")

    def remove_pod(self, state: CycleState, pod: Pod, removed: Pod, node: NodeInfo) -> Status | None:
        data: CycleData | None = state.read(NAME)
        if data is not None:
            Extensions(self.handle.services).remove(data.sim, pod, removed)
        return None

    def add_pod(self, state: CycleState, pod: Pod, added: Pod, node: NodeInfo) -> Status | None:
        data: CycleData | None = state.read(NAME)
        if data is not None:
            Extensions(self.handle.services).add(data.sim, added, node.name)
        return None

    def carry_over(self, passed: CycleState, state: CycleState, node: str) -> None:
        """The pass with nominated pods passed: the pass without them keeps the allocation it found, so
        that the devices held for nominated pods stay theirs (KEP-5690)."""
        found: CycleData | None = passed.read(NAME)
        data: CycleData | None = state.read(NAME)
        if found is None or data is None or not found.sim.nominated:
            return
        answer = found.answers.get(node)
        if answer is not None:
            data.pinned[node] = answer

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        data: CycleData | None = state.read(NAME)
        if data is None or not data.prioritized:
            return 0
        found = data.concrete(node.name)
        return prioritized_score(self.dra.problem, found.allocations) if found is not None else 0

    def normalize(self, state: CycleState, pod: Pod, scores: dict[str, int]) -> Status | None:
        default_normalize(scores)
        return None

    def reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        data: CycleData | None = state.read(NAME)
        if data is None:
            return None
        found = data.concrete(node)
        if found is not None:
            self.dra.commit(found)
        return None
