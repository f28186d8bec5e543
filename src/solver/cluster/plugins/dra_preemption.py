"""DynamicResources' PreFilterExtensions (AddPod, RemovePod), which only DRAPreemption gives it (KEP-5690).

Without the gate the plugin has none: preemption's dry run removes victims from the node, but their
devices stay in use, so a pod that needs a victim's device cannot preempt for it.

With the gate, removing a pod in a simulation records it as gone from each of its allocated claims; a
claim is released once every pod reserving it is gone (shared claims need all their pods removed; a
claim reserved for a PodGroup never is), and only if every device it holds sits on one node's own
slice (`nodeName`). A preemptor of a PodGroup frees nothing: its preemption is workload-aware, out of
the KEP's scope. Adding a pod back undoes its removal. Adding a nominated pod (the framework's first
pass with nominated pods) holds the allocation its preemption was worked out with, so that pods of
lower or equal priority cannot take the devices freed for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ....model.claim_holds import ClaimHold, delta_of
from ....model.cluster.facts import Pod
from ...adjustment import Adjustment

# What the scheduler lends the plugin (Handle.services), absent in bare framework tests.
ClaimsOf = Callable[[Pod], tuple[str, ...]]
HoldOf = Callable[[str], "ClaimHold | None"]
Nomination = Callable[[Pod, str], "ClaimHold | None"]
Shares = Callable[[], Mapping[str, int]]


@dataclass
class Simulation:
    """One cycle's (or one dry-run node's) record: claims -> the pods removed from them, the claims
    released, and the allocations of nominated pods added, by pod."""

    removed: dict[str, set[str]] = field(default_factory=dict)
    released: set[str] = field(default_factory=set)
    nominated: dict[str, ClaimHold] = field(default_factory=dict)

    def clone(self) -> Simulation:
        return Simulation(
            {c: set(p) for c, p in self.removed.items()}, set(self.released), dict(self.nominated)
        )

    def __bool__(self) -> bool:
        return bool(self.released or self.nominated)


@dataclass(frozen=True)
class Extensions:
    services: Mapping[str, object]

    def _claims_of(self, pod: Pod) -> tuple[str, ...]:
        lent = self.services.get("claims_of")
        return tuple(dict.fromkeys(lent(pod))) if callable(lent) else pod.claims

    def _hold(self, ref: str) -> ClaimHold | None:
        lent = self.services.get("hold")
        found = lent(ref) if callable(lent) else None
        return found if isinstance(found, ClaimHold) else None

    def remove(self, sim: Simulation, preemptor: Pod, removed: Pod) -> None:
        if preemptor.pod_group:
            return
        for ref in self._claims_of(removed):
            hold = self._hold(ref)
            if hold is None:
                continue  # not allocated: nothing to give back
            gone = sim.removed.setdefault(ref, set())
            gone.add(removed.key)
            if hold.node_local and hold.freed_when_gone(gone):
                sim.released.add(ref)

    def add(self, sim: Simulation, added: Pod, node: str) -> None:
        for ref in self._claims_of(added):
            gone = sim.removed.get(ref)
            if gone is not None and added.key in gone:
                gone.discard(added.key)
                sim.released.discard(ref)
        lent = self.services.get("nomination")
        answer = lent(added, node) if callable(lent) else None
        if isinstance(answer, ClaimHold):
            sim.nominated[added.key] = answer

    def adjustment(self, sim: Simulation) -> Adjustment | None:
        if not sim:
            return None
        holds = [h for h in (self._hold(ref) for ref in sorted(sim.released)) if h is not None]
        lent = self.services.get("shares")
        shares = lent() if callable(lent) else {}
        delta = delta_of(holds, shares) if holds else None
        return Adjustment(delta, tuple(sim.nominated.values()))
