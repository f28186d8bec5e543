"""Which allocated claims hold which devices for which pods, as a scheduling run goes on.

It starts from the input's allocated claims (`Problem.holds`) and the claims the bound pods use; a
pod the run places reserves its claims (a claim it allocates holds what the allocation took); a pod
the run evicts is gone from its claims, and a claim nothing reserves any more is deallocated, as
the resourceclaim controller does.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...model.claim_holds import ClaimHold, HeldDevice, freed
from ...model.cluster.facts import Pod
from ...model.problem import Problem, Unit
from ...model.solution import ClaimAllocation
from ..capacity import qualified_consumed


class Holdings:
    def __init__(self, problem: Problem, bound: Sequence[Pod]) -> None:
        self.problem = problem
        self.holds: dict[str, ClaimHold] = dict(problem.holds)
        self.claims: dict[str, tuple[str, ...]] = {p.key: p.claims for p in bound}
        self.gone: set[str] = set()
        self.allocated: dict[str, int] = {}  # claim -> its id, for claims this run allocated

    def claims_of(self, pod: Pod) -> tuple[str, ...]:
        return self.claims.get(pod.key, pod.claims)

    def hold(self, ref: str) -> ClaimHold | None:
        return self.holds.get(ref)

    def placed(self, pod: Pod, unit: Unit, allocations: Sequence[ClaimAllocation]) -> None:
        claims = self.problem.claims
        self.claims[pod.key] = tuple(dict.fromkeys(claims[c].key for c in unit.claims))
        new = {a.claim: a for a in allocations}
        for c in dict.fromkeys(unit.claims):
            claim = claims[c]
            if c in new:
                self.holds[claim.key] = allocation_hold(
                    self.problem, new[c], frozenset({pod.key}), claim.pod_group
                )
                self.allocated[claim.key] = c
            elif claim.key in self.holds:
                self.holds[claim.key] = self.holds[claim.key].with_pod(pod.key)

    def evict(self, pod: Pod) -> tuple[list[ClaimHold], list[int]]:
        """The claims the pod's eviction deallocates, and the ids of those this run had allocated."""
        self.gone.add(pod.key)
        out = freed(self.holds, {pod.key: self.claims_of(pod)}, self.gone)
        for hold in out:
            del self.holds[hold.ref]
        return out, [self.allocated.pop(h.ref) for h in out if h.ref in self.allocated]


def allocation_hold(
    problem: Problem, allocation: ClaimAllocation, pods: frozenset[str], others: bool = False
) -> ClaimHold:
    """What an allocation made in this run holds, reserved for `pods` (and a PodGroup: `others`)."""
    devices = []
    local = True
    for r in allocation.results:
        device = problem.devices[r.device]
        local = local and bool(device.placement.node_name)
        if r.admin_access:
            continue
        consumed = qualified_consumed(device, r.consumed_capacity) if r.shared else None
        devices.append(HeldDevice(device.ref, (device.id,), r.shared, consumed))
    return ClaimHold(problem.claims[allocation.claim].key, tuple(devices), pods, others, local)
