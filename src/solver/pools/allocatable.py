"""Exactly how many more devices of one partition type a pool can give out at the same time.

Upstream's controller estimates this per type (fresh devices taken greedily against
the free counters). Whether k more 3g.40gb partitions fit on a half-used GPU is a
packing question, though: which memory slices are still free matters, not how many.
So it is answered as the allocator would have to: the largest set of the type's
devices that the allocator could hand out together on top of what is allocated,
found by a small CP-SAT maximization.

A device can be one of them when the allocator would consider it at all: not
allocated, not kept off every request (gather.blocked: an untolerated taint, a
feature it needs being off), and accepted by the compatibility groups of its counter
sets' allocated peers. Together they must keep every counter of the pool within what is left, and
the devices on one counter set must share a compatibility group (or all declare
none). The allocator re-checks every counter of the pool for each device it adds,
so one counter already overdrawn by allocated devices blocks the whole pool.

What is left and what allocated peers imply are the allocator's own accounting
(`solver.dra.AllocatorView`), the same one every engine and the validator
agree on. Devices on disjoint counter sets do not interact, so each group of
connected counter sets is solved on its own, and identical groups (fresh GPUs of one
model) are solved once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ortools.sat.python import cp_model

from ...model.problem import Device, NodeView, PoolView, Problem, consumption
from ..cpsat.scale import integral
from ..dra import AllocatorView, admits

GroupState = tuple[bool, bool, frozenset[str]]  # the allocator's: has members, all group-less, common groups


@dataclass(frozen=True)
class Allocatable:
    count: int
    devices: tuple[int, ...] = ()  # one set of that many devices the allocator could give out together


@dataclass
class Solver:
    """Answers for the types of pools of one Problem, remembering components it has solved."""

    problem: Problem
    solved: dict[tuple[object, ...], tuple[int, ...]] = field(default_factory=dict)

    def most(self, view: PoolView, devices: Iterable[int]) -> Allocatable:
        """How many of `devices` (one partition type of the pool `view`) can be allocated at once."""
        if view.state != "complete":
            return Allocatable(0)
        allocator = AllocatorView(self.problem, NodeView("", (view,)), (), self.problem.in_use)
        left = allocator.available(view)
        if any(value < 0 for counters in left.values() for value in counters.values()):
            return Allocatable(0)
        members = set(view.devices)
        candidates = [d for d in devices if d in members and self.candidate(allocator, view, d)]
        chosen: list[int] = []
        for component in _components([self.problem.devices[d] for d in candidates]):
            chosen += self.component(allocator, view, left, component)
        order = {d: i for i, d in enumerate(view.devices)}
        return Allocatable(len(chosen), tuple(sorted(chosen, key=order.__getitem__)))

    def candidate(self, allocator: AllocatorView, view: PoolView, d: int) -> bool:
        device = self.problem.devices[d]
        if self.problem.in_use.allocated(device.ref) or blocked(self.problem, device) is not None:
            return False
        if not self.problem.on("CompatibilityGroups"):
            return not allocator.peers_grouped(device)
        return all(
            admits(allocator.group_state(view, u.counter_set), frozenset(u.groups)) for u in device.consumes
        )

    def component(
        self,
        allocator: AllocatorView,
        view: PoolView,
        left: dict[str, dict[str, Fraction]],
        members: Sequence[Device],
    ) -> list[int]:
        sets = list(dict.fromkeys(u.counter_set for device in members for u in device.consumes))
        index = {name: i for i, name in enumerate(sets)}
        seeds = [allocator.group_state(view, name) for name in sets]
        # The component up to the names of its counter sets: what the answer depends on.
        key = (
            tuple(
                tuple(
                    sorted(
                        (index[u.counter_set], tuple(sorted(u.counters.items())), tuple(sorted(u.groups)))
                        for u in device.consumes
                    )
                )
                for device in members
            ),
            tuple(tuple(sorted(left.get(name, {}).items())) for name in sets),
            tuple((has, empty, tuple(sorted(common))) for has, empty, common in seeds),
        )
        positions = self.solved.get(key)
        if positions is None:
            groups = self.problem.on("CompatibilityGroups")
            positions = _maximize(members, {name: left.get(name, {}) for name in sets}, seeds, groups)
            self.solved[key] = positions
        return [members[i].id for i in positions]


def _components(devices: Sequence[Device]) -> list[list[Device]]:
    """Devices grouped by connected counter sets, in their order."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    for device in devices:
        names = [u.counter_set for u in device.consumes]
        for other in names[1:]:
            parent[root(other)] = root(names[0])
    out: dict[str, list[Device]] = {}
    for device in devices:
        # A device drawing no counters is only limited by being free: a component of its own.
        key = root(device.consumes[0].counter_set) if device.consumes else f"\0{device.id}"
        out.setdefault(key, []).append(device)
    return list(out.values())


def _maximize(
    members: Sequence[Device],
    left: dict[str, dict[str, Fraction]],
    seeds: Sequence[GroupState],
    groups: bool,
) -> tuple[int, ...]:
    """Positions of a largest set of `members` that fits the counters left and the groups; all of them
    when nothing could ever be violated (the solver then has nothing to decide)."""
    model = cp_model.CpModel()
    take = [model.new_bool_var(f"take_{device.name}") for device in members]
    drawn = [consumption(device) for device in members]
    limited = False
    for name, counters in left.items():
        for counter, value in counters.items():
            terms = [(i, amount) for i, d in enumerate(drawn) if (amount := d.get(name, {}).get(counter))]
            if sum(amount for _, amount in terms) <= value:
                continue
            ints = integral([value, *(amount for _, amount in terms)])
            model.add(sum(coef * take[i] for (i, _), coef in zip(terms, ints[1:], strict=True)) <= ints[0])
            limited = True
    if groups:
        for name, seed in zip(left, seeds, strict=True):
            limited |= _share_a_group(model, take, members, name, seed)
    if not limited:
        return tuple(range(len(members)))
    model.maximize(sum(take))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1  # small models; one worker keeps the chosen set reproducible
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise RuntimeError(f"the allocatable count was not proven ({solver.status_name(status)})")
    return tuple(i for i, var in enumerate(take) if solver.value(var))


def _share_a_group(
    model: cp_model.CpModel,
    take: list[cp_model.IntVar],
    members: Sequence[Device],
    name: str,
    seed: GroupState,
) -> bool:
    """The devices taken on counter set `name` join its allocated peers (whose state is `seed`, and
    which admitted each of them alone): all group-less, or all sharing one group. False when any
    choice of them would."""
    declared = {
        i: frozenset(g for u in d.consumes if u.counter_set == name for g in u.groups)
        for i, d in enumerate(members)
        if any(u.counter_set == name for u in d.consumes)
    }
    grouped = {i: g for i, g in declared.items() if g}
    plain = [i for i, g in declared.items() if not g]
    mode = None
    if grouped and plain:
        # Only without allocated peers: which kind joins is still open.
        mode = model.new_bool_var(f"groupless_{name}")
        for i in plain:
            model.add_implication(take[i], mode)
        for i in grouped:
            model.add_implication(take[i], mode.negated())
    has_members, _, common = seed
    universe = frozenset().union(*grouped.values())
    if has_members:
        universe &= common
    if not grouped or universe & frozenset.intersection(*grouped.values()):
        return mode is not None
    survives = []
    for group in sorted(universe):
        kept = model.new_bool_var(f"group_{name}_{group}")
        for i, g in grouped.items():
            if group not in g:
                model.add_implication(kept, take[i].negated())
        survives.append(kept)
    model.add_bool_or([*survives, *([mode] if mode is not None else [])])
    return True


def blocked(problem: Problem, device: Device) -> str | None:
    """Why no request can be given the device whatever is free, if something keeps every one off it."""
    if problem.on("DeviceTaints"):
        # At pool level no request tolerates anything.
        for taint in device.taints:
            if taint.effect in ("NoSchedule", "NoExecute"):
                value = f"={taint.value}" if taint.value else ""
                return f"untolerated taint {taint.key}{value}:{taint.effect}"
    if device.binding_conditions and not problem.on("DeviceBindingAndStatus"):
        return "binding conditions, but DRADeviceBindingConditions is off"
    if device.consumes and not problem.on("PartitionableDevices"):
        return "consumes counters, but DRAPartitionableDevices is off"
    return None
