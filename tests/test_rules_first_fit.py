"""rules/first_fit.lp: the optimum is the first allocation in the allocator's search order."""

from __future__ import annotations

import clingo
from rules_support import ENTRY, one_slot

import kubefit.rules
from kubefit.solver.asp import schema as s


def _optimum(facts: list[object]) -> set[str]:
    ctl = clingo.Control(["--warn=none", "--opt-mode=optN", "0"])
    for name in ["input.lp", *ENTRY, "first_fit.lp"]:
        ctl.add("base", [], kubefit.rules.read(name))
    with ctl.backend() as backend:
        for fact in facts:
            backend.add_rule([backend.add_atom(fact.raw)])  # type: ignore[attr-defined]
    ctl.ground([("base", [])])
    optimal: list[set[str]] = []
    ctl.solve(
        on_model=lambda m: (
            optimal.append({str(a) for a in m.symbols(shown=True) if a.name != "group"})
            if m.optimality_proven
            else None
        )
    )
    (answer,) = {frozenset(m) for m in optimal}
    return set(answer)


def _levels(slot: int, devices: int, top: int) -> list[object]:
    return [s.PickLevel(slot=slot, device=d, level=top - d) for d in range(devices)]


def test_the_lowest_ranked_devices_are_picked_as_a_combination() -> None:
    facts = [*one_slot(4, count=2), *_levels(0, 4, 10), s.Held(device=0, holder=0)]
    assert _optimum(facts) == {"chosen(0)", "use(0,1)", "use(0,2)"}


def test_the_first_alternative_wins_even_with_worse_devices() -> None:
    facts: list[object] = [
        s.MaxResults(n=32),
        s.Alternatives(claim=0, request=0),
        s.ChoiceLevel(claim=0, request=0, level=20),
    ]
    for sub in (0, 1):
        facts += [s.SlotFact(slot=sub, claim=0, request=0, sub=sub), s.Count(slot=sub, n=1)]
    facts += [s.Cand(slot=0, device=3), s.Cand(slot=1, device=0), *_levels(1, 1, 19)]
    facts += [s.PickLevel(slot=0, device=3, level=19)]
    assert _optimum(facts) == {"chosen(0)", "use(0,3)"}


def test_an_earlier_request_takes_its_first_devices_before_a_later_one() -> None:
    facts = [*one_slot(2), *one_slot(2, slot=1, request=1)[1:], *_levels(0, 2, 10), *_levels(1, 2, 8)]
    assert _optimum(facts) == {"chosen(0)", "chosen(1)", "use(0,0)", "use(1,1)"}
