"""The CP-SAT model of one pod admission: its variables, named with the ids they stand for.

* `x[s][cpu]` — slot s (a container, or the pod-level bubble) gets logical CPU `cpu` exclusively;
* `merged[u][mask]` — the topology manager's merged hint for unit u is `mask` (one of them);
* `preferred[u]` — that merged hint is preferred;
* `hint[u][resource][mask]` — best-effort only: the hint of one resource the merge took;
* `block[g][mask]` — the memory blocks of memory group g lie on `mask`.

Constraint families live in their own modules (cpus, topology, memory), the criteria in objective;
each family is one function that adds its constraints and says why.

(Explanations draw their reasons from the kubelet's rules, rules/node; this model only places pods.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from ..greedy.admit import Admitter
from ..topology import CPUTopology
from ..view import PodView

BoolVar = cp_model.IntVar
Expr = cp_model.LinearExpr | int


@dataclass
class PodModel:
    admitter: Admitter
    view: PodView
    model: cp_model.CpModel = field(default_factory=cp_model.CpModel)
    x: dict[int, dict[int, BoolVar]] = field(default_factory=dict)
    merged: dict[int, dict[int, BoolVar]] = field(default_factory=dict)
    preferred: dict[int, BoolVar] = field(default_factory=dict)
    hint: dict[int, dict[str, dict[int, BoolVar]]] = field(default_factory=dict)
    block: dict[int, dict[int, BoolVar]] = field(default_factory=dict)
    memory_masks: dict[int, dict[int, bool]] = field(default_factory=dict)  # group -> mask -> preferred
    unit_resources: dict[int, list[Any]] = field(default_factory=dict)
    taken: dict[int, BoolVar] | None = None  # per CPU: some container of the pod holds it
    # Per slot: which NUMA nodes / sockets / uncore caches its CPUs touch (criteria, and alignment).
    touched: dict[tuple[int, str], dict[int, BoolVar]] = field(default_factory=dict)
    # The criteria, most important first: (name, expression, upper bound); see objective.py.
    terms: list[tuple[str, Expr, int]] = field(default_factory=list)
    tiebreak: list[tuple[str, Expr, int]] = field(default_factory=list)

    @property
    def topo(self) -> CPUTopology:
        return self.admitter.topo

    @property
    def nodes(self) -> tuple[int, ...]:
        return self.admitter.numa.nodes

    @property
    def policy(self) -> str:
        return self.admitter.policy.topology_policy

    def bool(self, name: str) -> BoolVar:
        return self.model.new_bool_var(name)

    def cpu_vars(self) -> None:
        """One literal per slot and candidate CPU; CPUs already in the state are fixed to 1."""
        pod = self.view.pod.name
        for s in self.view.exclusive:
            row = {cpu: self.bool(f"x_{pod}_{s.name}_{cpu}") for cpu in sorted(s.candidates)}
            if s.fixed_cpus is not None:
                for cpu, lit in row.items():
                    self.model.add(lit == int(cpu in s.fixed_cpus))
            self.x[s.index] = row

    def touch(self, s: int, level: str) -> dict[int, BoolVar]:
        """Literals "slot s has a CPU in this NUMA node / socket / uncore cache" (forced up by the CPUs
        taken; the objective keeps them down, so they are exact at an optimum)."""
        key = (s, level)
        if key not in self.touched:
            row: dict[int, BoolVar] = {}
            by_domain: dict[int, list[BoolVar]] = {}
            for cpu, lit in self.x[s].items():
                by_domain.setdefault(self.topo.of(cpu, level), []).append(lit)
            for domain, lits in sorted(by_domain.items()):
                t = self.bool(f"touch_{self.view.slots[s].name}_{level}{domain}")
                for lit in lits:
                    self.model.add_implication(lit, t)
                row[domain] = t
            self.touched[key] = row
        return self.touched[key]

    def usable(self, slot: int, cpu: int) -> Expr:
        """1 when `cpu` is free for the slot at its turn: a candidate not held by an earlier container
        of the pod still running beside it (those are pairwise disjoint, so a sum is exact)."""
        if cpu not in self.view.slots[slot].candidates:
            return 0
        held = [
            self.x[w][cpu]
            for w in range(slot)
            if w in self.x and cpu in self.x[w] and self.view.conflicts(w, slot)
        ]
        return 1 - sum(held)

    def reusable(self, slot: int, cpu: int) -> list[Expr]:
        """Per earlier init container: 1 when it held `cpu` and no container still running at the slot's
        turn took it since (the kubelet's reusable set of the pod)."""
        out: list[Expr] = []
        for v in range(slot):
            if v in self.x and cpu in self.x[v] and not self.view.conflicts(v, slot):
                held = [
                    self.x[w][cpu]
                    for w in range(slot)
                    if w in self.x and cpu in self.x[w] and self.view.conflicts(w, slot)
                ]
                out.append(self.x[v][cpu] - sum(held))
        return out

    def node_of(self, mask_vars: dict[int, BoolVar], node: int) -> Expr:
        """1 when the chosen mask contains `node`."""
        return sum(v for m, v in mask_vars.items() if m >> node & 1)

    def value_hints(self, values: dict[int, int]) -> None:
        self.model.clear_hints()  # type: ignore[no-untyped-call]
        for index, value in values.items():
            self.model.add_hint(self.model.get_int_var_from_proto_index(index), value)
