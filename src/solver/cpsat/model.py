"""The CP-SAT model of one Allocate(node, claims) call: variables for candidate picks only.

Variables, named with their ids so a dumped model reads like the problem:
    choose_c{claim}_r{request}_s{sub}      a firstAvailable request takes this subrequest
    use_c{claim}_r{request}_s{sub}_d{dev}  the slot picks this device (All mode: its choose literal)
Every constraint family lives in its own module and is added by `build`; the families know nothing
of each other, only of `NodeModel`'s variables and `NodeFacts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from .facts import NodeFacts, SlotFacts

Literal = cp_model.IntVar


@dataclass
class NodeModel:
    facts: NodeFacts
    model: cp_model.CpModel = field(default_factory=cp_model.CpModel)
    chosen: dict[int, Literal] = field(default_factory=dict)  # slot position -> taken
    use: dict[tuple[int, int], Literal] = field(default_factory=dict)  # (slot position, device) -> picked
    uses_of: dict[int, list[tuple[SlotFacts, Literal]]] = field(default_factory=dict)  # in search order
    _picked: dict[int, Literal] = field(default_factory=dict)

    def slot_name(self, s: SlotFacts) -> str:
        return f"c{s.key[0]}_r{s.request}_s{s.sub}"

    def picked(self, d: int) -> Literal:
        """Whether any slot picks the device (a share opens a multi-allocatable device once)."""
        cached = self._picked.get(d)
        if cached is None:
            uses = [lit for _, lit in self.uses_of[d]]
            if len(uses) == 1:
                cached = uses[0]
            else:
                cached = self.model.new_bool_var(f"picked_d{d}")
                self.model.add_max_equality(cached, uses)
            self._picked[d] = cached
        return cached

    def times(self, d: int) -> cp_model.LinearExprT:
        """How many slots pick the device."""
        return sum(lit for _, lit in self.uses_of[d])

    def bound(self, d: int) -> int:
        return len(self.uses_of[d])


def variables(facts: NodeFacts) -> NodeModel:
    """One choose literal per subrequest, one use literal per candidate pick."""
    nm = NodeModel(facts)
    m = nm.model
    for s in facts.slots:
        name = nm.slot_name(s)
        chosen = m.new_bool_var(f"choose_{name}") if s.first_available else m.new_constant(1)
        nm.chosen[s.position] = chosen
        for d in s.candidates:
            # All mode takes the whole frozen list or nothing: its picks are the choice itself.
            lit = chosen if s.all_mode else m.new_bool_var(f"use_{name}_d{d}")
            nm.use[(s.position, d)] = lit
            nm.uses_of.setdefault(d, []).append((s, lit))
    return nm


def fix(var: Literal, value: int) -> None:
    """Narrow a variable to one value in place (cheaper than a constraint, and presolve sees it)."""
    domain = var.proto.domain
    domain.clear()
    domain.extend([value, value])
