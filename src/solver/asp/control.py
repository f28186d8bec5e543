"""Running clingo on one call's facts: grounding the rules once, then solving under assumptions.

A `Program` is the rules grounded on facts. Without assumptions every violation is forbidden (the
allocator's semantics); an explanation assumes the violation groups it enforces and reads the
unsatisfiable core clingo reports. With `first_fit` the optimization of `rules/first_fit.lp` is grounded
too and a solve returns the first allocation in the allocator's search order, proven. The kubelet's
rules (`rules/node/`) run the same way from their own entry program and objective (`NODE`).

Grounding costs more than solving a node's small problem. A `shared` program is grounded once on the
union of the facts of many nodes, each fact a free external atom; a solve then fixes, by assumptions,
which of them hold for the node at hand — the same answers as a program of that node's facts alone.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from pathlib import Path

import clingo
from clorm import Predicate

ENTRY = "allocation.lp"
FIRST_FIT = "first_fit.lp"


@dataclass(frozen=True)
class Rules:
    """Which rules a program grounds: its entry program, and the files of its optimization (solved with
    clingo's `options`)."""

    entry: str
    objective: tuple[str, ...]
    options: tuple[str, ...] = ()


DRA = Rules(ENTRY, (FIRST_FIT,))
NODE = Rules(
    "node/admission.lp",
    ("node/criteria.lp", "node/first_fit.lp", "node/symmetry.lp", "node/domain_counts.lp", "node/start.lp"),
    ("--heuristic=Domain",),
)


class Outcome(StrEnum):
    SATISFIABLE = "satisfiable"
    UNSATISFIABLE = "unsatisfiable"
    UNKNOWN = "unknown"  # the time ran out before clingo decided


@dataclass
class Answer:
    outcome: Outcome
    uses: list[tuple[int, int]] = field(default_factory=list)  # (slot, device), local ids
    chosen: list[int] = field(default_factory=list)
    optimal: bool = False  # with an optimization: the optimum is proven
    core: list[int] = field(default_factory=list)  # enforced groups (literals) behind an UNSATISFIABLE
    groups: list[int] = field(default_factory=list)  # the groups the facts of the call can violate
    symbols: list[clingo.Symbol] = field(default_factory=list)  # the shown atoms of the model


@contextlib.contextmanager
def _rules_dir() -> Iterator[Path]:
    with resources.as_file(resources.files("kubefit.rules")) as path:
        yield Path(path)


class Program:
    """The rules grounded on facts (or, `shared`, on the facts of many calls, chosen per solve)."""

    def __init__(
        self, facts: Iterable[Predicate], first_fit: bool = False, shared: bool = False, rules: Rules = DRA
    ) -> None:
        # One thread and clingo's defaults otherwise: the answers do not depend on timing.
        options = rules.options if first_fit else ()
        self.ctl = clingo.Control(["--warn=none", "--parallel-mode=1", *options])
        with _rules_dir() as root:
            self.ctl.load(str(root / rules.entry))
            if first_fit:
                for name in rules.objective:
                    self.ctl.load(str(root / name))
        self.facts: dict[Predicate, int] = {}  # shared: fact -> its external atom
        with self.ctl.backend() as backend:
            for fact in facts:
                atom = backend.add_atom(fact.raw)
                if shared:
                    backend.add_external(atom, clingo.TruthValue.Free)
                    self.facts[fact] = atom
                else:
                    backend.add_rule([atom])
        self.ctl.ground([("base", [])])
        self.first_fit = first_fit
        self.shared = shared
        # Relaxable groups by the literal of their `relaxed` atom (solves take and give literals: hashing
        # clingo symbols in Python costs more than the solves of a small node).
        self.groups: dict[int, clingo.Symbol] = {}
        for atom in self.ctl.symbolic_atoms.by_signature("relaxed", 1):
            self.groups[atom.literal] = atom.symbol.arguments[0]
        relaxed = {group: lit for lit, group in self.groups.items()}
        # (literal of group(V), literal of relaxed(V)): which groups a call's facts give, read off a model.
        self._group_atoms = [
            (atom.literal, relaxed[atom.symbol.arguments[0]])
            for atom in self.ctl.symbolic_atoms.by_signature("group", 1)
            if atom.symbol.arguments[0] in relaxed
        ]
        self.probes = {
            a.symbol.arguments[0].number: a.literal for a in self.ctl.symbolic_atoms.by_signature("probe", 1)
        }
        for atom in self.ctl.symbolic_atoms.by_signature("probe", 1):
            self.ctl.assign_external(atom.symbol, None)  # free, so that assumptions decide it
        self._free: bool | None = None

    def given(self, facts: Collection[Predicate]) -> list[int]:
        """The assumptions that make a shared program's externals the facts of one call."""
        present = facts if isinstance(facts, set | frozenset) else set(facts)
        return [lit if fact in present else -lit for fact, lit in self.facts.items()]

    def solve(
        self,
        enforced: Sequence[int] | None = None,
        deadline: float | None = None,
        given: Sequence[int] | None = None,
        probe: int | None = None,
        read: bool = True,
    ) -> Answer:
        """Every violation forbidden (enforced None), or only those of the `enforced` groups (literals
        of `groups`; the rest may be relaxed). With first_fit and no assumptions, the answer is the
        first-fit allocation; with `probe` (a slot), the one giving that slot the most devices. A shared
        program solves the facts of one call at a time, `given` by `given()`. `read`: the answer carries
        the model (picks, and the groups the facts give); explanations often only need to know whether
        there is one."""
        assert given is not None or not self.shared, "a shared program solves one call's facts at a time"
        assumptions = list(given or ())
        free = enforced is not None
        if self._free is not free:
            for group in self.groups.values():
                self.ctl.assign_external(clingo.Function("relaxed", [group]), None if free else False)
            self._free = free
        if enforced is not None:
            assumptions += [-lit for lit in enforced]
        for slot, lit in self.probes.items():
            assumptions.append(lit if slot == probe else -lit)
        optimize = probe is not None or (self.first_fit and enforced is None)
        self.ctl.configuration.solve.opt_mode = "opt" if optimize else "ignore"  # type: ignore[union-attr]
        last: list[clingo.Symbol] = []
        groups: list[int] = []
        found: list[bool] = []

        def on_model(model: clingo.Model) -> None:
            found.append(True)
            if read:
                last[:] = model.symbols(shown=True)
                groups[:] = [relaxed for lit, relaxed in self._group_atoms if model.is_true(lit)]

        core: list[int] = []
        if deadline is None:
            result = self.ctl.solve(assumptions=assumptions, on_model=on_model, on_core=core.extend)
        else:
            timeout = max(0.0, deadline - time.monotonic())
            with self.ctl.solve(assumptions=assumptions, on_model=on_model, async_=True) as handle:
                if not handle.wait(timeout):
                    handle.cancel()
                result = handle.get()
                core = list(handle.core()) if result.unsatisfiable else []
        if result.unsatisfiable:
            return Answer(Outcome.UNSATISFIABLE, core=sorted({-lit for lit in core if -lit in self.groups}))
        if not found:
            return Answer(Outcome.UNKNOWN)
        answer = Answer(
            Outcome.SATISFIABLE, optimal=bool(result.exhausted) or not optimize, groups=groups, symbols=last
        )
        for sym in last:
            if sym.name == "use":
                answer.uses.append((sym.arguments[0].number, sym.arguments[1].number))
            elif sym.name == "chosen":
                answer.chosen.append(sym.arguments[0].number)
        answer.uses.sort()
        answer.chosen.sort()
        return answer
