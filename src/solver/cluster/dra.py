"""The DRA side of a scheduling run: devices in use, the node-level engine's search, and its answers
reused while nothing they depend on changed.

The scheduler filters every node for every pod, so the same search (the same claims'
shape on the same node) repeats across identical pods. An answer depends only on the
pending claims' content, the node and the devices in use that the node can see; each node
carries a version that grows whenever a device it can see is taken or released, and an
answer is reused while its node's version stands. Answers name the pending claims by position (the
i-th pending claim as i), so that any pod with the same claims' shape can take them; `concrete` names
the claims of the pod at hand, for the one answer the cycle keeps.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...model.claim_holds import ClaimHold, HeldDevice, delta_of, give_back, share_counts
from ...model.problem import Claim, InUse, Problem, SelectableTable, Slot, Unit
from ...model.solution import ClaimAllocation, Status
from ..adjustment import Adjustment
from ..engines import Budget
from ..units import NodeAnswer, NodeSearch, State


@dataclass
class DraContext:
    problem: Problem
    search: NodeSearch
    budget: Budget
    deadline: float | None
    state: State = field(init=False)
    _frozen: InUse | None = field(default=None, init=False)
    # Per node: grows whenever a device the node's search can see is taken or released.
    versions: dict[str, int] = field(default_factory=dict, init=False)
    _device_nodes: dict[int, tuple[str, ...]] | None = field(default=None, init=False)
    _cache: dict[tuple[Any, str, int], NodeAnswer] = field(default_factory=dict, init=False)
    _signatures: dict[tuple[int, ...], Any] = field(default_factory=dict, init=False)
    # Selection columns by their outcomes: column -> the first column with the same outcomes, and the
    # columns seen by the hash of their outcomes.
    _same: dict[int, int] = field(default_factory=dict, init=False)
    _by_hash: dict[int, list[int]] = field(default_factory=dict, init=False)
    steps: int = 0
    # Some answer of the run was decided by another engine than the searching one (NodeAnswer.decided_by):
    # until then a cycle need not look through its answers for one.
    decided: bool = False
    shares: dict[str, int] = field(default_factory=dict, init=False)
    reuse: bool = True  # answers reused while their node's version stands (off: every search runs)

    def __post_init__(self) -> None:
        self.state = State.of(self.problem)
        # Device -> the claims holding a share of it (a device's last share given back frees it).
        self.shares = share_counts(self.problem.holds.values())
        # Devices that map to node resources (DRANodeAllocatableResources) need the node check after a search.
        self.maps_node_resources = any(d.node_allocatable for d in self.problem.devices)

    # --- in-use state ----------------------------------------------------------------------------

    def in_use(self) -> InUse:
        """The devices in use as the searches see them: the run's state itself, not a copy (a copy per
        placement costs a pass over every device in use, each time). No search runs while a commit or a
        release changes it, and none keeps it."""
        if self._frozen is None:
            state = self.state
            self._frozen = InUse(state.exclusive, state.capacity, state.shared)
        return self._frozen

    def pending(self, unit: Unit) -> list[Claim]:
        claims = self.problem.claims
        return [claims[c] for c in unit.claims if not claims[c].allocated and c not in self.state.allocations]

    def commit(self, answer: NodeAnswer) -> None:
        self.state.commit(answer)
        for t in answer.taken:
            if t.shared and not t.admin:
                self.shares[t.device.ref] = self.shares.get(t.device.ref, 0) + 1
        self._changed(t.device.id for t in answer.taken)

    def release(self, holds: Sequence[ClaimHold], claims: Sequence[int] = ()) -> None:
        """What claims gave back (their pods were evicted, or a trial is undone) taken off the devices in
        use; `claims`: those allocated in this run, allocated no more."""
        state = self.state
        give_back(delta_of(holds, self.shares), state.exclusive, state.shared, state.capacity)
        devices: list[int] = []
        for hold in holds:
            for held in hold.devices:
                devices += held.ids
                if held.shared:
                    self.shares[held.ref] = self.shares.get(held.ref, 0) - 1
        for claim in claims:
            state.allocations.pop(claim, None)
        self._changed(devices)

    def undo(self, answer: NodeAnswer) -> None:
        """Give back what committing `answer` took."""
        self.release([hold_of(answer)], [a.claim for a in answer.allocations])

    def _changed(self, devices: Any) -> None:
        self._frozen = None
        index = self._index()
        for d in devices:
            for node in index.get(d, ()):
                self.versions[node] = self.versions.get(node, 0) + 1

    def _index(self) -> dict[int, tuple[str, ...]]:
        """Device id -> the nodes whose search can see it (its pool's devices and counter consumers)."""
        if self._device_nodes is None:
            seen: dict[int, list[str]] = {}
            for name, view in self.problem.views.items():
                for pool in view.pools:
                    for d in (*pool.devices, *pool.counter_devices):
                        nodes = seen.setdefault(d, [])
                        if not nodes or nodes[-1] != name:
                            nodes.append(name)
            self._device_nodes = {d: tuple(n) for d, n in seen.items()}
        return self._device_nodes

    # --- the search --------------------------------------------------------------------------------

    def search_node(
        self, unit: Unit, node: str, pending: Sequence[Claim], change: Adjustment | None = None
    ) -> NodeAnswer:
        """The engine's search for the pending claims on the node, by claim position; `change`: what a
        simulation (preemption's dry run, nominated pods) gives back and holds besides the devices in use."""
        view = self.problem.views.get(node)
        if view is None:
            return _NO_VIEW
        signature = self.signature(unit, pending) if not change and self.reuse else None
        key = (signature, node, self.versions.get(node, 0)) if signature is not None else None
        if key is not None:
            cached = self._cache.get(key)
            if cached is not None:
                return cached
        if self.deadline is not None and time.monotonic() > self.deadline:
            return NodeAnswer(Status.UNKNOWN, message="time limit reached")
        in_use = self.in_use()
        if change:
            in_use = change.apply(in_use)
        answer = self.search(self.problem, unit, view, list(pending), in_use, self.budget, self.deadline)
        self.steps += answer.steps
        self.decided = self.decided or bool(answer.decided_by)
        answer = _with_claims(answer, {c.id: i for i, c in enumerate(pending)})
        if key is not None and answer.status in (Status.ALLOCATED, Status.UNSATISFIABLE):
            self._cache[key] = answer
        return answer

    def signature(self, unit: Unit, pending: Sequence[Claim]) -> Any:
        """What the search depends on besides the node: the pending claims' content (the selector outcomes
        by their shared column), or None when claims cannot be compared that way. Classes that select the
        same devices alike search alike (a class's name only shows in the error for a class that is
        missing): 25 classes backing 25 extended resources with one selector share their answers."""
        ids = tuple(c.id for c in pending)
        if ids in self._signatures:
            return self._signatures[ids]
        table = self.problem.selectable
        signature: Any = None
        if isinstance(table, SelectableTable) and not self.problem.derived:
            parts = []
            for claim in pending:
                requests = []
                for ri, request in enumerate(claim.requests):
                    slots = []
                    for si, slot in enumerate(request.slots):
                        column = table.slots.get((claim.id, ri, si))
                        if column is None or not slot.class_exists or not slot.device_class:
                            slots.append((None if column is None else column[0], slot.key()))
                        else:
                            slots.append((self._same_outcomes(table, column[0]), _classless(slot)))
                    requests.append((request.name, request.first_available, tuple(slots)))
                containers = len(unit.claim_containers.get(claim.id, ()))
                parts.append((tuple(requests), claim.constraints, containers))
            signature = tuple(parts)
        self._signatures[ids] = signature
        return signature

    def _same_outcomes(self, table: SelectableTable, column: int) -> int:
        """The first column seen with the same outcomes as `column` (compared once per column)."""
        found = self._same.get(column)
        if found is None:
            outcomes = table.columns[column]
            alike = self._by_hash.setdefault(hash(tuple(outcomes.items())), [])
            found = next((c for c in alike if table.columns[c] == outcomes), column)
            if found == column:
                alike.append(column)
            self._same[column] = found
        return found


def _classless(slot: Slot) -> tuple[object, ...]:
    return replace(slot, device_class="").key()


_NO_VIEW = NodeAnswer(Status.UNSATISFIABLE, message="cannot allocate all claims")


def hold_of(answer: NodeAnswer) -> ClaimHold:
    """What an answer's allocations hold, as one claim would."""
    taken = [t for t in answer.taken if not t.admin]
    return ClaimHold("", tuple(HeldDevice(t.device.ref, (t.device.id,), t.shared, t.consumed) for t in taken))


def concrete(answer: NodeAnswer, claims: Sequence[int]) -> NodeAnswer:
    """A search's answer with the pod's claims (ids in pending order) named (most answers only tell
    whether the node fits, and are never looked at again)."""
    return _with_claims(answer, dict(enumerate(claims)))


def _with_claims(answer: NodeAnswer, mapping: Mapping[int, int]) -> NodeAnswer:
    """The answer with its allocations' claim ids mapped (stored answers hold claim positions, so that any
    pod with the same claims' shape can take them)."""
    if not answer.allocations:
        return answer
    out = []
    for a in answer.allocations:
        claim = mapping[a.claim]
        results = tuple(replace(r, slot=(claim, r.slot[1], r.slot[2])) for r in a.results)
        out.append(ClaimAllocation(claim, a.node, results, a.chosen))
    return replace(answer, allocations=tuple(out))


def prioritized_score(problem: Problem, allocations: Sequence[ClaimAllocation]) -> int:
    """DynamicResources' score: per firstAvailable request, 8 minus the index of the subrequest chosen."""
    score = 0
    for allocation in allocations:
        claim = problem.claims[allocation.claim]
        chosen: Mapping[int, int] = allocation.chosen
        for ri, request in enumerate(claim.requests):
            if request.first_available and ri in chosen:
                score += FIRST_AVAILABLE_MAX - chosen[ri]
    return score


FIRST_AVAILABLE_MAX = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize
