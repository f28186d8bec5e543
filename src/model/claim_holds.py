"""What allocated claims hold and who reserves them: what evicting pods frees.

The resourceclaim controller takes a deleted pod out of the `status.reservedFor` of its claims and
deallocates a claim that nothing reserves any more; a claim reserved for a PodGroup stays allocated
for the group. Preemption's dry run asks the same question of the pods it removes (KEP-5690,
DRAPreemption): a claim is released once every pod reserving it is gone, and then only if all its
devices sit on node-local slices (`nodeName`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True)
class HeldDevice:
    """One result of an allocation as it blocks others (admin-access results block nobody)."""

    ref: str  # driver/pool/device
    ids: tuple[int, ...] = ()  # the published devices of that name (every generation); () for none
    shared: bool = False  # a share of a multi-allocatable device
    consumed: Mapping[str, Fraction] | None = None  # a share's capacity, by fully-qualified name


@dataclass(frozen=True)
class ClaimHold:
    """An allocated claim: its devices, the pods (namespace/name) reserving it, whether something else
    (a PodGroup) reserves it too, and whether every device it holds sits on one node's own slice."""

    ref: str  # namespace/name
    devices: tuple[HeldDevice, ...] = ()
    # namespace/name of each pod reserving it; an entry whose uid is not that of the pod of that name in
    # the input (a pod since replaced) is `namespace/name@uid`, which no pod matches (IsReservedForPod).
    pods: frozenset[str] = frozenset()
    others: bool = False
    node_local: bool = False
    reserved: int = 0  # entries in status.reservedFor

    @property
    def count(self) -> int:
        """How many status.reservedFor entries it has (at most ResourceClaimReservedForMaxSize)."""
        return max(self.reserved, len(self.pods) + self.others)

    def freed_when_gone(self, gone: Collection[str]) -> bool:
        """Deallocated once the pods `gone` are: every pod reserving it is among them, nothing else
        reserves it (a claim reserved for nobody is freed with the pod that references it)."""
        return not self.others and all(p in gone for p in self.pods)

    def with_pod(self, pod: str) -> ClaimHold:
        added = pod not in self.pods
        return ClaimHold(
            self.ref, self.devices, self.pods | {pod}, self.others, self.node_local, self.count + added
        )


@dataclass
class InUseDelta:
    """What claims being released give back: devices held whole, the capacity of shares, and the
    devices none of whose shares are left."""

    exclusive: set[str] = field(default_factory=set)
    capacity: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    emptied: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.exclusive or self.capacity or self.emptied)


def delta_of(released: Iterable[ClaimHold], shares: Mapping[str, int]) -> InUseDelta:
    """The in-use state given back by `released`; `shares`: device -> claims holding a share of it."""
    out = InUseDelta()
    given: dict[str, int] = {}
    for hold in released:
        for held in hold.devices:
            if not held.shared:
                out.exclusive.add(held.ref)
                continue
            given[held.ref] = given.get(held.ref, 0) + 1
            sums = out.capacity.setdefault(held.ref, {})
            for name, value in (held.consumed or {}).items():
                sums[name] = sums.get(name, Fraction(0)) + value
    out.emptied = {ref for ref, n in given.items() if n >= shares.get(ref, 0)}
    return out


def give_back(
    delta: InUseDelta, exclusive: set[str], shared: set[str], capacity: dict[str, dict[str, Fraction]]
) -> None:
    """Take what released claims held off an in-use state (changed in place)."""
    exclusive -= delta.exclusive
    for ref, given in delta.capacity.items():
        sums = capacity.get(ref)
        if sums is not None:
            for name, value in given.items():
                sums[name] = sums.get(name, Fraction(0)) - value
    for ref in delta.emptied:
        shared.discard(ref)
        capacity.pop(ref, None)


def share_counts(holds: Iterable[ClaimHold]) -> dict[str, int]:
    """Device -> how many claims hold a share of it."""
    out: dict[str, int] = {}
    for hold in holds:
        for held in hold.devices:
            if held.shared:
                out[held.ref] = out.get(held.ref, 0) + 1
    return out


def freed(
    holds: Mapping[str, ClaimHold], claims_of: Mapping[str, Sequence[str]], gone: Collection[str]
) -> list[ClaimHold]:
    """The claims the pods `gone` used (`claims_of`: pod -> its claims) that nothing reserves any more."""
    out: dict[str, ClaimHold] = {}
    for pod in gone:
        for ref in claims_of.get(pod, ()):
            hold = holds.get(ref)
            if hold is not None and hold.freed_when_gone(gone):
                out[ref] = hold
    return list(out.values())


def release_evicted(
    holds: Mapping[str, ClaimHold],
    evicted: Mapping[str, Sequence[str]],
    exclusive: set[str],
    shared: set[str],
    capacity: dict[str, dict[str, Fraction]],
) -> None:
    """Take off an in-use state what the claims of the `evicted` pods (pod -> its claims) gave back."""
    released = freed(holds, evicted, set(evicted)) if evicted else []
    if released:
        give_back(delta_of(released, share_counts(holds.values())), exclusive, shared, capacity)
