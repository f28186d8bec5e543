"""rules/node/cpus.lp: which slots get exclusive CPUs, which CPUs they may take, what running together
forbids, and the shared pool they leave."""

from __future__ import annotations

from node_rules_support import admissions, container, in_every, machine, node_models, pool

from kubefit.solver.node.asp import schema as s

FILES = ["cpus.lp"]


def test_a_guaranteed_container_with_an_integral_request_gets_that_many_exclusive_cpus() -> None:
    facts = [*machine(), s.Guaranteed(), *container(0, 2), *container(1, milli=1500), *container(2)]
    assert in_every(FILES, facts, ("exclusive",)) == {"exclusive(0,2)"}


def test_a_burstable_pods_containers_run_in_the_shared_pool() -> None:
    assert in_every(FILES, [*machine(), *container(0, 2)], ("exclusive",)) == set()


def test_with_pod_level_resources_only_containers_guaranteed_on_their_own_with_the_managers_on() -> None:
    shared = [s.SlotKind(slot=1, kind="app"), s.CpuRequest(slot=1, milli=1000)]
    facts = [*machine(), s.Guaranteed(), s.PodResources(), *container(0, 1), *shared]
    assert in_every(FILES, facts, ("exclusive",)) == set()
    assert in_every(FILES, [*facts, s.PodLevelManagers()], ("exclusive",)) == {"exclusive(0,1)"}


def test_the_pod_level_bubble_gets_the_pods_whole_cpu_request() -> None:
    facts = [*machine(), s.SlotKind(slot=0, kind="app"), s.Bubble(slot=0), s.CpuRequest(slot=0, milli=3000)]
    assert in_every(FILES, facts, ("exclusive",)) == {"exclusive(0,3)"}


def test_reserved_cpus_are_never_exclusive_but_stay_in_the_shared_pool() -> None:
    facts = [*machine(), *pool(range(4)), s.Reserved(cpu=0), s.Guaranteed(), *container(0, 3)]
    (only,) = admissions(facts, ("assign", "shared"))
    assert only == {"assign(0,1)", "assign(0,2)", "assign(0,3)", "shared(0)"}


def test_a_completed_init_containers_cpus_are_reused_a_sidecars_are_not() -> None:
    init = [*machine(), *pool(range(4)), s.Guaranteed(), *container(0, 2, kind="init"), *container(1, 4)]
    assert len(admissions(init)) == 6  # any two CPUs for the init container, then all four for the app
    sidecar = [
        *machine(),
        *pool(range(4)),
        s.Guaranteed(),
        *container(0, 2, kind="sidecar"),
        *container(1, 4),
    ]
    assert admissions(sidecar) == []


def test_app_containers_never_share_a_cpu() -> None:
    facts = [*machine(), *pool(range(4)), s.Guaranteed(), *container(0, 2), *container(1, 2)]
    for model in admissions(facts):
        cpus = [a.split(",")[1] for a in model]
        assert len(cpus) == len(set(cpus)) == 4


def test_cpus_the_state_holds_for_a_container_are_kept_and_reusable_after_an_init_container() -> None:
    facts = [*machine(), *pool([0, 2]), s.Guaranteed(), *container(0, 2, kind="init"), *container(1, 2)]
    facts += [s.Fixed(slot=0, cpu=1), s.Fixed(slot=0, cpu=3)]
    models = admissions(facts, ("assign", "cand"))
    assert all({"assign(0,1)", "assign(0,3)", "cand(1,1)", "cand(1,3)"} <= m for m in models)
    assert {frozenset(a for a in m if a.startswith("assign(1,")) for m in models} == {
        frozenset({f"assign(1,{a})", f"assign(1,{b})"})
        for a, b in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    }


def test_a_count_other_than_the_request_is_a_violation_of_the_containers_cpu_group() -> None:
    facts = [*machine(cores_per_numa=1, threads=2), *pool(range(2)), s.Guaranteed(), *container(0, 2)]
    found = node_models(FILES, facts, ("assign", "violated"))
    assert {"assign(0,0)", "assign(0,1)"} in found
    assert {"assign(0,0)", "violated(cpu_count(0))"} in found
    assert in_every(FILES, facts, ("blame",)) == {"blame(cpu_count(0),cpu(0))"}
