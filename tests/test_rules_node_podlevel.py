"""rules/node/podlevel.lp: pod-level resource managers carve the exclusive containers' slices out of the
pod's bubble, in order."""

from __future__ import annotations

from clorm import Predicate
from node_rules_support import in_every, machine, pool

from kubefit.solver.node.asp import schema as s

FILES = ["cpus.lp", "podlevel.lp"]


def bubble(cpus: int, *shares: tuple[str, int]) -> list[Predicate]:
    facts = [
        *machine(),
        *pool(range(4)),
        s.SlotKind(slot=0, kind="app"),
        s.Bubble(slot=0),
        s.CpuRequest(slot=0, milli=cpus * 1000),
    ]
    return facts + [s.PodShare(index=i, kind=kind, n=n) for i, (kind, n) in enumerate(shares)]


def test_slices_that_fit_the_bubble_are_no_violation() -> None:
    facts = bubble(4, ("init", 4), ("sidecar", 1), ("app", 2), ("app", 0))
    assert in_every(FILES, facts, ("violated",)) == set()


def test_app_containers_slices_beyond_the_bubble_are_a_violation_of_the_one_that_overflows() -> None:
    facts = bubble(2, ("app", 1), ("app", 2))
    assert in_every(FILES, facts, ("violated",)) == {"violated(bubble_slice(1))"}


def test_an_init_containers_slice_sees_the_sidecars_started_before_it() -> None:
    assert in_every(FILES, bubble(2, ("sidecar", 1), ("init", 2)), ("violated",)) == {
        "violated(bubble_slice(1))"
    }
    assert in_every(FILES, bubble(2, ("init", 2), ("sidecar", 1)), ("violated",)) == set()


def test_a_bubble_slice_is_blamed_on_no_group() -> None:
    blamed = in_every(FILES, bubble(2, ("app", 3)), ("blame",))
    assert not any("bubble_slice" in b for b in blamed)
