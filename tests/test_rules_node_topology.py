"""rules/node/topology.lp: the topology manager merges one hint per unit from the hints of its resources;
restricted and single-numa-node admit only a hint every resource prefers (single-numa-node: of one node),
best-effort admits the AND of any hints, preferred only when they all agree and are preferred."""

from __future__ import annotations

from clorm import Predicate
from node_rules_support import Block, admissions, in_every, machine, node_models, unit

from kubefit.solver.node.asp import schema as s

FILES = ["cpus.lp", "memory.lp", "topology.lp"]
TWO = machine(numa_per_socket=2)


def device(u: int, *hints: tuple[int, int]) -> list[Predicate]:
    """A device claim's hints for unit u: (mask, preferred)."""
    name = "claim/default/gpu"
    return [s.StaticResource(unit=u, resource=name)] + [
        s.StaticHint(unit=u, resource=name, mask=m, preferred=p) for m, p in hints
    ]


def merged(facts: list[Predicate]) -> list[set[str]]:
    return admissions(facts, ("merged", "preferred"))


def test_restricted_merges_only_a_mask_every_resource_prefers() -> None:
    facts = [*TWO, s.TopologyPolicy(policy="restricted"), *unit(0), *device(0, (2, 1), (3, 0))]
    assert merged(facts) == [{"merged(0,2)"}]
    other = [
        s.StaticResource(unit=0, resource="other"),
        s.StaticHint(unit=0, resource="other", mask=1, preferred=1),
    ]
    assert merged([*facts, *other]) == []
    assert in_every(FILES, [*facts, *other], ("blame",)) >= {
        'blame(not_preferred(0,"other"),policy(0))',
        'blame(not_preferred(0,"other"),hint(0,"other"))',
    }


def test_single_numa_node_refuses_a_merged_hint_of_several_nodes() -> None:
    facts = [*TWO, s.TopologyPolicy(policy="single_numa_node"), *unit(0), *device(0, (3, 1))]
    assert merged(facts) == []
    assert merged([*facts[:-2], *device(0, (1, 1), (3, 1))]) == [{"merged(0,1)"}]


def test_a_resource_that_cannot_be_satisfied_leaves_only_unpreferred_best_effort_hints() -> None:
    facts = [*TWO, s.TopologyPolicy(policy="best_effort"), *unit(0), s.StaticResource(unit=0, resource="gpu")]
    found = merged(facts)
    assert found and all(not any(a.startswith("preferred") for a in m) for m in found)
    assert (
        merged(
            [*TWO, s.TopologyPolicy(policy="restricted"), *unit(0), s.StaticResource(unit=0, resource="gpu")]
        )
        == []
    )


def test_best_effort_merges_the_and_of_the_hints_it_picks() -> None:
    facts = [*TWO, s.TopologyPolicy(policy="best_effort"), *unit(0), *device(0, (3, 1))]
    other = [s.StaticResource(unit=0, resource="x"), s.StaticHint(unit=0, resource="x", mask=2, preferred=1)]
    found = merged([*facts, *other])
    assert found == [{"merged(0,2)"}]  # {0,1} AND {1}; not preferred: the picks differ


def test_the_merged_hint_is_where_the_units_memory_lies() -> None:
    memory = [
        s.SlotKind(slot=0, kind="app"),
        s.MemGroup(group=0),
        s.MemSlot(slot=0, group=0),
        s.MemStatic(group=0, mask=1, preferred=1),
        s.MemStatic(group=0, mask=2, preferred=1),
        s.MemUnit(unit=0, group=0),
    ]
    facts = [*TWO, s.TopologyPolicy(policy="restricted"), *unit(0, 0), *memory]
    assert admissions(facts, ("merged", "block")) == [
        {"merged(0,1)", "block(0,1)"},
        {"merged(0,2)", "block(0,2)"},
    ]
    # Alone, the file names the violation: memory on node 0, the merged hint on node 1.
    found = node_models(FILES, [*facts, Block(group=0, mask=1)], ("merged", "violated"))
    assert {"merged(0,2)", "violated(memory_hint(0))"} in found
    assert {"merged(0,1)"} in found
