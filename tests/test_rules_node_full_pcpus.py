"""rules/node/full_pcpus.lp: full-pcpus-only's checks before a container is allocated (SMTAlignmentError):
a request of whole cores' worth, and no more CPUs than the physical ones still free outside the reserved
CPUs' cores."""

from __future__ import annotations

from node_rules_support import admissions, container, in_every, machine, pool

from kubefit.solver.node.asp import schema as s

FILES = ["cpus.lp", "full_pcpus.lp"]
OPTION = s.Option(option="full_pcpus_only")


def test_a_request_that_is_not_a_multiple_of_the_threads_per_core_is_refused_in_two_groups() -> None:
    facts = [*machine(), *pool(range(4)), s.Guaranteed(), *container(0, 3), OPTION]
    assert "violated(not_whole_cores(0))" in in_every(FILES, facts, ("violated",))
    assert in_every(FILES, facts, ("blame",)) >= {
        "blame(not_whole_cores(0),cpu(0))",
        "blame(not_whole_cores(0),whole_cores(0))",
    }
    assert "violated(not_whole_cores(0))" not in in_every(FILES, facts[:-1], ("violated",))


def test_a_reserved_cpus_siblings_are_not_physical_cpus() -> None:
    # Cores {0, 2} and {1, 3}; CPU 0 is reserved, so only core {1, 3} is free for full cores.
    facts = [*machine(), *pool(range(4)), s.Reserved(cpu=0), s.Guaranteed(), OPTION]
    assert in_every(FILES, [*facts, *container(0, 2)], ("physical",)) == {"physical(1)", "physical(3)"}
    assert len(admissions([*facts, *container(0, 2)])) == 3
    assert "violated(physical_cpus(0))" in in_every(FILES, [*facts, *container(0, 4)], ("violated",))


def test_earlier_containers_take_their_cpus_from_the_physical_ones_first() -> None:
    facts = [*machine(cores_per_numa=3), *pool(range(6)), s.Guaranteed(), OPTION]
    facts += [*container(0, 2), *container(1, 4)]
    assert admissions(facts) != []
    facts += container(2, 2)
    assert admissions(facts) == []  # 2 + 4 + 2 > 6 physical CPUs
