"""rules/node/cpu_hints.lp: the CPU manager's hints for a container the pod is placing — which masks it
prefers (by capacity), and when the merged hint is no CPU hint at all."""

from __future__ import annotations

from node_rules_support import Assign, Merged, container, in_every, machine, pool

from kubefit.solver.node.asp import schema as s

FILES = ["cpus.lp", "cpu_hints.lp"]
# Two NUMA nodes of 2 cores x 2 threads: node 0 holds CPUs 0, 1, 4, 5; node 1 holds 2, 3, 6, 7.
TWO = machine(numa_per_socket=2)


def preferred(facts: list[s.Predicate]) -> set[str]:
    return in_every(FILES, facts, ("cpu_preferred",))


def test_the_narrowest_masks_whose_cpus_could_hold_the_request_are_preferred_busy_or_not() -> None:
    # 3 CPUs fit one NUMA node by capacity, even though node 0's are all taken.
    facts = [*TWO, *pool([2, 3, 6, 7]), s.Guaranteed(), *container(0, 3)]
    assert preferred(facts) == {"cpu_preferred(0,1)", "cpu_preferred(0,2)"}
    facts = [*TWO, *pool(range(8)), s.Guaranteed(), *container(0, 5)]
    assert preferred(facts) == {"cpu_preferred(0,3)"}


def test_align_by_socket_also_prefers_masks_within_as_few_sockets() -> None:
    # Two sockets of two NUMA nodes each: 5 CPUs need two NUMA nodes, which one socket holds; so every
    # mask within one socket is preferred too (the kubelet marks even single nodes, which the request's
    # own CPU count then rules out as hints).
    facts = [*machine(sockets=2, numa_per_socket=2), s.Guaranteed(), *container(0, 5)]
    plain = preferred(facts)
    by_socket = preferred([*facts, s.Option(option="align_by_socket")])
    assert plain == {f"cpu_preferred(0,{m})" for m in (3, 5, 6, 9, 10, 12)}
    assert by_socket - plain == {f"cpu_preferred(0,{m})" for m in (1, 2, 4, 8)}


def test_a_merged_mask_without_enough_usable_cpus_is_no_cpu_hint() -> None:
    facts = [*TWO, *pool([0, 2, 3, 6, 7]), s.Guaranteed(), *container(0, 2), s.CpuUnit(unit=0, slot=0)]
    facts += [s.TopologyPolicy(policy="restricted"), Assign(slot=0, cpu=2), Assign(slot=0, cpu=3)]
    on_node_0 = in_every(FILES, [*facts, Merged(unit=0, mask=1)], ("violated",))
    assert "violated(cpu_hint(0))" in on_node_0
    assert "violated(cpu_hint(0))" not in in_every(FILES, [*facts, Merged(unit=0, mask=2)], ("violated",))
    assert in_every(FILES, facts, ("blame",)) >= {"blame(cpu_hint(0),cpu(0))", "blame(cpu_hint(0),policy(0))"}


def test_a_reusable_cpu_outside_the_merged_mask_makes_it_no_cpu_hint() -> None:
    # The init container held CPU 0 (node 0); the app container's hint must contain node 0.
    facts = [*TWO, *pool([1, 2, 3, 6, 7]), s.Guaranteed(), *container(0, 1, kind="init"), *container(1, 2)]
    facts += [s.Fixed(slot=0, cpu=0), s.CpuUnit(unit=1, slot=1), s.TopologyPolicy(policy="restricted")]
    outside = in_every(FILES, [*facts, Merged(unit=1, mask=2)], ("violated",))
    assert "violated(cpu_hint(1))" in outside
    assert "violated(cpu_hint(1))" not in in_every(FILES, [*facts, Merged(unit=1, mask=1)], ("violated",))
