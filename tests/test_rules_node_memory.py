"""rules/node/memory.lp: the memory manager's Static policy — which masks a memory group may lie on, what
it prefers, free memory per phase of the pod, and the NUMA grouping rules."""

from __future__ import annotations

from clorm import Predicate
from node_rules_support import Block, admissions, in_every, machine

from kubefit.solver.node.asp import schema as s

FILES = ["cpus.lp", "memory.lp"]
TWO = machine(numa_per_socket=2)


def tables(free: dict[int, int], allocatable: dict[int, int] | None = None) -> list[Predicate]:
    """Per-mask sums of free and allocatable memory over two NUMA nodes (amounts per node given)."""
    allocatable = allocatable or free
    out: list[Predicate] = []
    for m in (1, 2, 3):
        nodes = [n for n in (0, 1) if m >> n & 1]
        out.append(s.MemFree(mask=m, resource="memory", amount=sum(free[n] for n in nodes)))
        out.append(s.MemAllocatable(mask=m, resource="memory", amount=sum(allocatable[n] for n in nodes)))
    return out


def group(g: int, slot: int, amount: int, kind: str = "app") -> list[Predicate]:
    return [
        s.SlotKind(slot=slot, kind=kind),
        s.MemGroup(group=g),
        s.MemSlot(slot=slot, group=g),
        s.MemRequest(group=g, resource="memory", amount=amount),
    ]


def masks(facts: list[Predicate]) -> set[str]:
    return in_every(FILES, facts, ("mem_mask",))


def test_the_narrowest_masks_whose_allocatable_memory_covers_the_request_are_preferred() -> None:
    assert masks([*TWO, *tables({0: 4, 1: 4}), *group(0, 0, 3)]) == {
        "mem_mask(0,1,1)",
        "mem_mask(0,2,1)",
        "mem_mask(0,3,0)",
    }
    # Neither node alone: only both, and then preferred.
    assert masks([*TWO, *tables({0: 2, 1: 2}), *group(0, 0, 3)]) == {"mem_mask(0,3,1)"}


def test_a_node_used_alone_joins_no_group_and_a_grouped_node_serves_no_single_node_block() -> None:
    facts = [*TWO, *tables({0: 4, 1: 4}), *group(0, 0, 1)]
    assert masks([*facts, s.NumaUsed(numa=0)]) == {"mem_mask(0,1,1)", "mem_mask(0,2,1)"}
    # Nodes 0 and 1 serve memory together: neither alone any more, the pair still.
    grouped = [*facts, s.NumaUsed(numa=0), s.NumaGrouped(numa=0, mask=3), s.NumaGrouped(numa=1, mask=3)]
    assert masks(grouped) == {"mem_mask(0,3,0)"}


def test_masks_the_state_or_the_managers_own_hints_give_are_taken_as_they_are() -> None:
    facts = [*TWO, *tables({0: 0, 1: 0}), *group(0, 0, 1), s.MemFixed(group=0, mask=2)]
    assert masks(facts) == {"mem_mask(0,2,1)"}
    facts = [*TWO, *tables({0: 0, 1: 0}), *group(0, 0, 1), s.MemStatic(group=0, mask=3, preferred=0)]
    assert masks(facts) == {"mem_mask(0,3,0)"}


def test_containers_alive_together_share_the_free_memory_an_init_containers_is_reused() -> None:
    facts = [*TWO, *tables({0: 3, 1: 3}), *group(0, 0, 2), *group(1, 1, 2), Block(group=0, mask=1)]
    apps = in_every(FILES, [*facts, Block(group=1, mask=1)], ("violated",))
    assert 'violated(memory_capacity(last,1,"memory"))' in apps
    init = [*TWO, *tables({0: 3, 1: 3}), *group(0, 0, 2, "init"), *group(1, 1, 2), Block(group=0, mask=1)]
    assert not any(
        "memory_capacity" in v for v in in_every(FILES, [*init, Block(group=1, mask=1)], ("violated",))
    )
    assert in_every(FILES, facts, ("blame",)) >= {
        'blame(memory_capacity(last,1,"memory"),memory(0))',
        'blame(memory_capacity(last,1,"memory"),memory(1))',
    }


def test_each_group_lies_on_one_mask_and_the_pods_groups_keep_the_grouping_rules() -> None:
    facts = [*TWO, *tables({0: 4, 1: 4}, {0: 1, 1: 1}), *group(0, 0, 1), *group(1, 1, 2)]
    # Group 1 needs both nodes; group 0 then cannot use node 0 or node 1 alone.
    assert admissions(facts, ("block",)) == [{"block(0,3)", "block(1,3)"}]
