"""The devices in use as a scheduling simulation sees them (preemption's dry run, nominated pods)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..model.claim_holds import ClaimHold, InUseDelta, give_back
from ..model.problem import InUse


@dataclass(frozen=True)
class Adjustment:
    """The devices in use as a simulation sees them: what released claims give back taken off, then what
    nominated pods are promised added (KEP-5690's AddPod of a nominated preemptor)."""

    released: InUseDelta | None = None
    held: tuple[ClaimHold, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.released) or bool(self.held)

    def apply(self, in_use: InUse) -> InUse:
        exclusive = set(in_use.exclusive)
        shared = set(in_use.shared)
        capacity = {ref: dict(sums) for ref, sums in in_use.shared_capacity.items()}
        if self.released:
            give_back(self.released, exclusive, shared, capacity)
        for hold in self.held:
            for held in hold.devices:
                if not held.shared:
                    exclusive.add(held.ref)
                    continue
                shared.add(held.ref)
                sums = capacity.setdefault(held.ref, {})
                for name, value in (held.consumed or {}).items():
                    sums[name] = sums.get(name, Fraction(0)) + value
        return InUse(frozenset(exclusive), capacity, frozenset(shared))
