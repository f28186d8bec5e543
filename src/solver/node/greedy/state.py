"""The managers' running state while pods are admitted (mutable copies of the checkpoints)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from ....model.node.problem import Block, CPUState, MemoryState, MemoryTable, NUMANodeState


@dataclass
class CPUAssignments:
    policy: str
    default: set[int]
    entries: dict[str, dict[str, frozenset[int]]] = field(default_factory=dict)
    pod_entries: dict[str, frozenset[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, state: CPUState) -> CPUAssignments:
        entries: dict[str, dict[str, frozenset[int]]] = {}
        for uid, name, cpus in state.entries:
            entries.setdefault(uid, {})[name] = cpus
        return cls(state.policy, set(state.default), entries, dict(state.pod_entries))

    def get(self, uid: str, name: str) -> frozenset[int] | None:
        return self.entries.get(uid, {}).get(name)

    def set(self, uid: str, name: str, cpus: frozenset[int]) -> None:
        self.entries.setdefault(uid, {})[name] = cpus

    def freeze(self) -> CPUState:
        entries = tuple(
            (uid, name, cpus)
            for uid in sorted(self.entries)
            for name, cpus in sorted(self.entries[uid].items())
        )
        return CPUState(
            self.policy, frozenset(self.default), entries, tuple(sorted(self.pod_entries.items()))
        )

    def clone(self) -> CPUAssignments:
        return copy.deepcopy(self)


@dataclass
class Table:
    total: int
    system_reserved: int
    allocatable: int
    reserved: int = 0
    free: int = 0


@dataclass
class NUMAState:
    assignments: int
    memory: dict[str, Table]
    cells: list[int]


@dataclass
class MemoryAssignments:
    policy: str
    machine: dict[int, NUMAState] = field(default_factory=dict)
    entries: dict[str, dict[str, list[Block]]] = field(default_factory=dict)
    pod_entries: dict[str, list[Block]] = field(default_factory=dict)

    @classmethod
    def of(cls, state: MemoryState) -> MemoryAssignments:
        machine = {
            numa: NUMAState(
                s.assignments,
                {
                    r: Table(t.total, t.system_reserved, t.allocatable, t.reserved, t.free)
                    for r, t in s.memory
                },
                list(s.cells),
            )
            for numa, s in state.machine
        }
        entries: dict[str, dict[str, list[Block]]] = {}
        for uid, name, blocks in state.entries:
            entries.setdefault(uid, {})[name] = list(blocks)
        return cls(state.policy, machine, entries, {u: list(b) for u, b in state.pod_entries})

    def blocks(self, uid: str, name: str) -> list[Block] | None:
        return self.entries.get(uid, {}).get(name)

    def freeze(self) -> MemoryState:
        machine = tuple(
            (
                numa,
                NUMANodeState(
                    s.assignments,
                    tuple(
                        (r, MemoryTable(t.total, t.system_reserved, t.allocatable, t.reserved, t.free))
                        for r, t in sorted(s.memory.items())
                    ),
                    tuple(s.cells),
                ),
            )
            for numa, s in sorted(self.machine.items())
        )
        entries = tuple(
            (uid, name, tuple(blocks))
            for uid in sorted(self.entries)
            for name, blocks in sorted(self.entries[uid].items())
        )
        pod_entries = tuple((uid, tuple(b)) for uid, b in sorted(self.pod_entries.items()))
        return MemoryState(self.policy, machine, entries, pod_entries)

    def clone(self) -> MemoryAssignments:
        return copy.deepcopy(self)
