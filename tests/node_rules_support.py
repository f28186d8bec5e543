"""Facts for the kubelet's rules (rules/node/), written by hand for the tests of each file: small machines,
slots, the shared pool, units and memory groups, as the typed predicate classes of
kubefit.solver.node.asp.schema. A rule file is run alone with the files whose predicates it reads."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

import clingo
from clorm import Predicate
from rules_support import control, derived, models

from kubefit.solver.asp.control import NODE
from kubefit.solver.node.asp import schema as s

FOLDER = "node/"
# The whole program but its entry (which only includes these), and the optimization's files.
RULES = [
    "cpus.lp",
    "full_pcpus.lp",
    "podlevel.lp",
    "cpu_hints.lp",
    "memory.lp",
    "topology.lp",
    "alignment.lp",
    "kubelet_order.lp",
    "forbid.lp",
]
PLACING = ["criteria.lp", "first_fit.lp", "symmetry.lp", "domain_counts.lp", "start.lp"]


def machine(
    sockets: int = 1, numa_per_socket: int = 1, cores_per_numa: int = 2, threads: int = 2, per_cache: int = 0
) -> list[Predicate]:
    """CPUs numbered as Linux numbers them: thread t of core k is CPU t * cores + k (k is the core's id);
    NUMA nodes fill sockets in order; `per_cache` cores share an uncore cache (0: one per NUMA node)."""
    cores = sockets * numa_per_socket * cores_per_numa
    numas = sockets * numa_per_socket
    out: list[Predicate] = []
    for t in range(threads):
        for k in range(cores):
            numa = k // cores_per_numa
            cache = k // per_cache if per_cache else numa
            out.append(
                s.Cpu(cpu=t * cores + k, core=k, socket=numa // numa_per_socket, numa=numa, uncore=cache)
            )
    out += [s.Numa(numa=n) for n in range(numas)]
    out.append(s.CpusPerCore(n=threads))
    out += [s.Mask(mask=m) for m in masks(range(numas))]
    return out


def masks(nodes: Iterable[int]) -> list[int]:
    ordered = sorted(nodes)
    return [sum(1 << n for n in c) for k in range(1, len(ordered) + 1) for c in combinations(ordered, k)]


def pool(cpus: Iterable[int]) -> list[Predicate]:
    """The shared pool before the pod."""
    return [s.Default(cpu=c) for c in cpus]


def container(
    slot: int, cpus: int | None = None, kind: str = "app", milli: int | None = None
) -> list[Predicate]:
    """A container of a Guaranteed pod asking for `cpus` CPUs (or `milli` millicores)."""
    out: list[Predicate] = [s.SlotKind(slot=slot, kind=kind), s.OwnGuaranteed(slot=slot)]
    request = milli if milli is not None else (cpus or 0) * 1000
    if request:
        out.append(s.CpuRequest(slot=slot, milli=request))
    return out


def unit(index: int, *slots: int) -> list[Predicate]:
    return [s.UnitFact(unit=index), *(s.UnitSlot(unit=index, slot=i) for i in slots)]


def node_models(files: Sequence[str], facts: Iterable[Predicate], show: Sequence[str]) -> list[set[str]]:
    return models(files, facts, show, FOLDER)


def node_derived(
    files: Sequence[str], facts: Iterable[Predicate], show: Sequence[str] = ("violated",)
) -> set[str]:
    return derived(files, facts, show, FOLDER)


def admissions(facts: Iterable[Predicate], show: Sequence[str] = ("assign",)) -> list[set[str]]:
    """Every admission the whole program allows (empty list: the pod is refused)."""
    return node_models(RULES, facts, show)


def best(
    facts: Iterable[Predicate], show: Sequence[str] = ("assign",), placing: Sequence[str] = PLACING
) -> set[str]:
    """The optimal admission, as the engine places the pod (the last, proven, model of the optimization)."""
    return optimum(facts, show, placing)[0]


def optimum(
    facts: Iterable[Predicate], show: Sequence[str] = ("assign",), placing: Sequence[str] = PLACING
) -> tuple[set[str], list[int]]:
    """The optimal admission and its cost, one number per priority level, most important first (solved
    as the engine solves: with clingo's domain heuristics, which start.lp directs)."""
    ctl = control([*RULES, *placing], facts, FOLDER, NODE.options)
    found: list[tuple[set[str], list[int]]] = []

    def on_model(model: clingo.Model) -> None:
        found.append(({str(a) for a in model.symbols(atoms=True) if a.name in show}, list(model.cost)))

    result = ctl.solve(on_model=on_model)
    assert result.satisfiable and result.exhausted
    return found[-1]


# What one rule file reads from another, given directly so that the file can be tested alone.
class Assign(Predicate, name="assign"):
    slot: int
    cpu: int


class Merged(Predicate, name="merged"):
    unit: int
    mask: int


class Block(Predicate, name="block"):
    group: int
    mask: int


def in_every(files: Sequence[str], facts: Iterable[Predicate], show: Sequence[str]) -> set[str]:
    """The atoms of `show` true in every model (the files have choices the test does not care about)."""
    found = node_models(files, facts, show)
    assert found, "no model"
    return set.intersection(*found)
