"""Running rule files on hand-written facts, for the tests of each file in rules/ (facts in, models out).

Facts are the typed predicate classes of kubefit.solver.asp.schema; what a rule file reads from another
file (`use/2`, `picked/1`, `chosen/1`) is given with the small classes below, so one file can be tested
alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import clingo
from clorm import Predicate

import kubefit.rules
from kubefit.solver.asp import schema as s


class Picked(Predicate, name="picked"):
    device: int


class Charged(Predicate, name="charged"):
    device: int


def control(
    files: Sequence[str], facts: Iterable[Predicate], folder: str = "", options: Sequence[str] = ()
) -> clingo.Control:
    ctl = clingo.Control(["--warn=none", "0", *options])
    ctl.add("base", [], kubefit.rules.read(f"{folder}input.lp"))
    for name in files:
        ctl.add("base", [], kubefit.rules.read(f"{folder}{name}"))
    with ctl.backend() as backend:
        for fact in facts:
            backend.add_rule([backend.add_atom(fact.raw)])
    ctl.ground([("base", [])])
    return ctl


def models(
    files: Sequence[str], facts: Iterable[Predicate], show: Sequence[str], folder: str = ""
) -> list[set[str]]:
    """Every model of the files (of `folder`, e.g. "node/") on the facts, as the atoms of the `show`
    predicates (text, sorted)."""
    ctl = control(files, facts, folder)
    out: list[set[str]] = []

    def on_model(model: clingo.Model) -> None:
        out.append({str(a) for a in model.symbols(atoms=True) if a.name in show})

    ctl.solve(on_model=on_model)
    return sorted(out, key=sorted)


def derived(
    files: Sequence[str], facts: Iterable[Predicate], show: Sequence[str] = ("violated",), folder: str = ""
) -> set[str]:
    """The one model of a stratified file (no choices) on the facts."""
    (model,) = models(files, facts, show, folder)
    return model


ENTRY = [
    "prioritized.lp",
    "devices.lp",
    "counts.lp",
    "taints.lp",
    "node_selector.lp",
    "constraints.lp",
    "counters.lp",
    "groups.lp",
    "capacity.lp",
    "forbid.lp",
]


def allocations(facts: Iterable[Predicate]) -> list[set[str]]:
    """Every allocation the whole semantics admits, as its `use/2` atoms (empty list: unsatisfiable)."""
    return models(ENTRY, facts, ("use",))


def one_slot(
    devices: int, count: int = 1, claim: int = 0, slot: int = 0, request: int = 0
) -> list[Predicate]:
    """A plain request slot with `count` and every device 0..devices-1 a candidate."""
    return [
        s.MaxResults(n=32),
        s.SlotFact(slot=slot, claim=claim, request=request, sub=0),
        s.Count(slot=slot, n=count),
        *(s.Cand(slot=slot, device=d) for d in range(devices)),
    ]
