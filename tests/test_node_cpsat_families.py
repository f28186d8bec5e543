"""The cpsat node engine, one constraint family (or criterion) at a time: what it allows, what it
forbids, and where it places a pod better than the kubelet's first fit.

Machines: `small` is one socket, two NUMA nodes of two cores with two threads (NUMA 0 = CPUs
0,1,4,5 with cores {0,4} {1,5}; NUMA 1 = CPUs 2,3,6,7 with cores {2,6} {3,7}); `returnMachineInfo`
is the upstream 12-CPU, 2-socket fixture; `memoryNUMA4` four NUMA nodes of 2 CPUs and 2Gi.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from node_fixtures import cpus
from node_fixtures import machine as fixture

from kubefit.model.errors import KubefitError
from kubefit.model.node.problem import (
    APP,
    INIT,
    SIDECAR,
    ContainerFacts,
    CPUState,
    DeviceGroup,
    KubeletPolicy,
    Machine,
    NodeProblem,
    PodFacts,
)
from kubefit.model.node.solution import NodeSolution, PodAdmission
from kubefit.solver import registry
from kubefit.solver.node.cpsat import CpsatNodeEngine
from kubefit.solver.node.greedy import GreedyNodeEngine
from kubefit.solver.node.topology import CPUTopology
from kubefit.solver.node.validate import check
from kubefit.translate.node.synthetic import synthetic_machine

MI = 2**20
GI = 2**30
SMALL = synthetic_machine(1, 2, 2, 2)


def container(name: str, n: float, kind: str = APP, memory: int = 100 * MI, **more: object) -> ContainerFacts:
    milli = int(n * 1000)
    return ContainerFacts(name, kind, milli, milli, (("memory", memory),), True, **more)  # type: ignore[arg-type]


def pod(name: str, *containers: ContainerFacts, qos: str = "Guaranteed") -> PodFacts:
    return PodFacts(f"{name}-uid", "default", name, qos, containers)


def policy(**settings: object) -> KubeletPolicy:
    options = settings.pop("options", ())
    return KubeletPolicy(cpu_policy="static", cpu_options=frozenset(options), **settings)  # type: ignore[arg-type]


def holding(machine: Machine, held: str) -> CPUState:
    """A checkpoint in which another pod holds `held` exclusively."""
    taken = cpus(held)
    return CPUState("static", frozenset(c.id for c in machine.cpus) - taken, (("other-uid", "other", taken),))


def admit(
    machine: Machine,
    kubelet: KubeletPolicy,
    *pods: PodFacts,
    state: CPUState | None = None,
    engine: str = "cpsat",
) -> NodeSolution:
    problem = NodeProblem("node-1", machine, kubelet, pods, state)
    solution = (CpsatNodeEngine(time_limit=None) if engine == "cpsat" else GreedyNodeEngine()).admit(problem)
    assert check(problem, solution) == []
    return solution


def numa_of(machine: Machine, cpuset: frozenset[int]) -> set[int]:
    return CPUTopology(machine).levels_of(cpuset, "numa")


def only(solution: NodeSolution) -> PodAdmission:
    (a,) = solution.admissions
    return a


# --- CPU counts and lifetimes -----------------------------------------------------------------------


def test_a_guaranteed_container_gets_exactly_its_integral_request() -> None:
    a = only(admit(SMALL, policy(), pod("p", container("app", 3))))
    assert a.admitted and a.proof == "optimal"
    assert len(a.containers[0].cpus) == 3 and a.containers[0].exclusive


def test_a_fractional_or_burstable_container_stays_in_the_shared_pool() -> None:
    fractional = pod("p", container("app", 1.5))
    burstable = pod("q", container("app", 2), qos="Burstable")
    for a in admit(SMALL, policy(), fractional, burstable).admissions:
        assert not a.containers[0].exclusive
        assert a.containers[0].cpus == frozenset(range(8))


def test_more_cpus_than_are_free_is_the_kubelets_rejection() -> None:
    a = only(admit(SMALL, policy(), pod("p", container("app", 9))))
    assert (a.admitted, a.reason, a.proof) == (False, "UnexpectedAdmissionError", "infeasible")
    assert "not enough cpus available" in a.message


def test_a_completed_init_containers_cpus_are_reused_by_the_app_container() -> None:
    a = only(admit(SMALL, policy(), pod("p", container("init", 2, INIT), container("app", 2))))
    init, app = a.containers
    assert init.cpus == app.cpus
    assert len(a.default_cpus) == 6


def test_a_sidecars_cpus_are_never_shared_with_the_app_container() -> None:
    a = only(admit(SMALL, policy(), pod("p", container("sidecar", 2, SIDECAR), container("app", 2))))
    sidecar, app = a.containers
    assert not sidecar.cpus & app.cpus


def test_init_sidecar_and_apps_fit_only_by_reusing_the_init_containers_cpus() -> None:
    # 8 CPUs: init 6, then sidecar 2 and app 6 run together (8); the init's 6 must be reused.
    a = only(
        admit(
            SMALL,
            policy(),
            pod("p", container("init", 6, INIT), container("sc", 2, SIDECAR), container("app", 6)),
        )
    )
    assert a.admitted
    init, sidecar, app = a.containers
    assert not sidecar.cpus & app.cpus and len(init.cpus | sidecar.cpus | app.cpus) == 8


# --- full-pcpus-only ------------------------------------------------------------------------------


def test_full_pcpus_only_hands_out_whole_cores_never_a_reserved_cpus_sibling() -> None:
    kubelet = policy(options=["full-pcpus-only"], reserved_cpus=frozenset({0}))
    a = only(admit(SMALL, kubelet, pod("p", container("app", 6))))
    assert a.containers[0].cpus == cpus("1-3,5-7")
    b = only(admit(SMALL, kubelet, pod("p", container("app", 7))))
    assert b.reason == "SMTAlignmentError" and "not multiple" in b.message


def test_full_pcpus_only_refuses_a_request_beyond_the_free_physical_cpus() -> None:
    kubelet = policy(options=["full-pcpus-only"], reserved_cpus=frozenset({0}))
    a = only(admit(SMALL, kubelet, pod("p", container("app", 8))))
    assert a.reason == "SMTAlignmentError" and "not enough free physical CPUs" in a.message


def test_full_pcpus_only_counts_what_earlier_containers_of_the_pod_took() -> None:
    kubelet = policy(options=["full-pcpus-only"])
    fits = only(admit(SMALL, kubelet, pod("p", container("a", 4), container("b", 4))))
    assert fits.admitted
    too_many = only(admit(SMALL, kubelet, pod("p", container("a", 4), container("b", 6))))
    assert too_many.reason == "SMTAlignmentError" and "available physical CPUs = 4" in too_many.message


# --- where the kubelet's first fit fragments --------------------------------------------------------


def test_cpsat_keeps_a_container_on_one_numa_node_where_the_kubelet_splits_it() -> None:
    # NUMA 0 has one whole core free, NUMA 1 three CPUs: the kubelet takes the whole core first.
    state = holding(SMALL, "0,2,4")
    mine = only(admit(SMALL, policy(), pod("p", container("app", 3)), state=state))
    kubelet = only(admit(SMALL, policy(), pod("p", container("app", 3)), state=state, engine="greedy"))
    assert numa_of(SMALL, kubelet.containers[0].cpus) == {0, 1}
    assert mine.containers[0].cpus == cpus("3,6-7")


def test_best_fit_keeps_a_whole_numa_node_free_so_a_later_pod_fits() -> None:
    # single-numa-node: the kubelet takes the lowest NUMA node with room (first fit) for 2 CPUs,
    # after which no NUMA node has 4 CPUs; cpsat takes the fuller NUMA node 1.
    state = holding(SMALL, "2,6")
    kubelet = policy(topology_policy="single-numa-node")
    pods = (pod("p", container("app", 2)), pod("q", container("app", 4)))
    greedy = admit(SMALL, kubelet, *pods, state=state, engine="greedy")
    mine = admit(SMALL, kubelet, *pods, state=state)
    assert [a.admitted for a in greedy.admissions] == [True, False]
    assert [a.admitted for a in mine.admissions] == [True, True]
    assert mine.admissions[0].numa_affinity == (1,)


def test_a_one_cpu_request_fills_a_half_used_core() -> None:
    state = holding(SMALL, "0-3,6")
    a = only(admit(SMALL, policy(), pod("p", container("app", 1)), state=state))
    assert a.containers[0].cpus == cpus("7")  # core {3,7} was half used; {4} / {5} would split a core


def test_fewer_uncore_caches_even_without_the_uncore_option() -> None:
    machine = synthetic_machine(1, 1, 4, 1, cores_per_uncore=2)  # caches {0,1} and {2,3}
    state = holding(machine, "0")
    a = only(admit(machine, policy(), pod("p", container("app", 2)), state=state))
    assert a.containers[0].cpus == cpus("2-3")


# --- topology manager -----------------------------------------------------------------------------


def test_restricted_admits_only_a_preferred_hint() -> None:
    machine = fixture("returnMachineInfo")
    kubelet = policy(topology_policy="restricted", reserved_cpus=frozenset({0}))
    fits = only(admit(machine, kubelet, pod("p", container("app", 7))))
    assert fits.numa_affinity == (0, 1)
    state = holding(machine, "3")
    refused = only(admit(machine, kubelet, pod("p", container("app", 6)), state=state))
    assert (refused.reason, refused.proof) == ("TopologyAffinityError", "infeasible")


def test_single_numa_node_never_spans_two_nodes() -> None:
    machine = fixture("returnMachineInfo")
    kubelet = policy(topology_policy="single-numa-node")
    a = only(admit(machine, kubelet, pod("p", container("app", 6))))
    assert a.numa_affinity == (0,) and numa_of(machine, a.containers[0].cpus) == {0}
    b = only(admit(machine, kubelet, pod("p", container("app", 7))))
    assert b.reason == "TopologyAffinityError"


def test_container_scope_places_a_pods_containers_jointly() -> None:
    # NUMA 0 has 4 free CPUs, NUMA 1 has 2. The kubelet puts the 2-CPU container on the lowest node
    # with room (NUMA 0), and then the 4-CPU container fits nowhere; placed together, both fit.
    machine = fixture("returnMachineInfo")
    kubelet = policy(topology_policy="single-numa-node")
    state = holding(machine, "0,3-4,6,9-10")
    p = pod("p", container("a", 2), container("b", 4))
    greedy = only(admit(machine, kubelet, p, state=state, engine="greedy"))
    mine = only(admit(machine, kubelet, p, state=state))
    assert greedy.reason == "TopologyAffinityError"
    a, b = mine.containers
    assert (a.numa_affinity, b.numa_affinity) == ((1,), (0,))


def test_pod_scope_aligns_every_container_to_one_hint() -> None:
    machine = fixture("returnMachineInfo")
    kubelet = policy(topology_policy="restricted", topology_scope="pod", reserved_cpus=frozenset({0}))
    a = only(admit(machine, kubelet, pod("p", container("a", 3), container("b", 3))))
    assert a.numa_affinity == (1,)
    assert all(numa_of(machine, c.cpus) == {1} for c in a.containers)


def test_an_app_containers_hint_holds_the_init_containers_cpus_it_may_reuse() -> None:
    kubelet = policy(topology_policy="restricted")
    a = only(admit(SMALL, kubelet, pod("p", container("init", 1, INIT), container("app", 2))))
    init, app = a.containers
    assert numa_of(SMALL, init.cpus) <= set(app.numa_affinity or ())


def test_best_effort_takes_what_fits_inside_the_hint_and_the_rest_outside() -> None:
    # A device on NUMA 0 and 6 CPUs: no preferred merge; CPUs fill NUMA 0 first.
    device = (DeviceGroup("claim/default/gpu", (frozenset({0}),)),)
    a = only(
        admit(SMALL, policy(topology_policy="best-effort"), pod("p", container("app", 6, devices=device)))
    )
    assert a.admitted
    assert numa_of(SMALL, a.containers[0].cpus) == {0, 1}
    assert cpus("0-1,4-5") <= a.containers[0].cpus


def test_a_devices_numa_node_pulls_the_cpus_there() -> None:
    device = (DeviceGroup("claim/default/gpu", (frozenset({1}),)),)
    a = only(
        admit(SMALL, policy(topology_policy="restricted"), pod("p", container("app", 2, devices=device)))
    )
    assert a.numa_affinity == (1,) and numa_of(SMALL, a.containers[0].cpus) == {1}


def test_align_by_socket_keeps_cpus_on_the_hints_sockets() -> None:
    machine = synthetic_machine(2, 2, 2, 1)  # sockets {0,1} and {2,3} of NUMA nodes, 2 CPUs each
    kubelet = policy(topology_policy="restricted", options=["align-by-socket"])
    a = only(admit(machine, kubelet, pod("p", container("app", 3))))
    topo = CPUTopology(machine)
    assert len(topo.levels_of(a.containers[0].cpus, "socket")) == 1


def test_prefer_closest_numa_nodes_picks_the_closer_pair() -> None:
    machine = synthetic_machine(2, 2, 1, 1)  # nodes 0,1 on socket 0 and 2,3 on socket 1
    state = holding(machine, "1")
    kubelet = policy(topology_policy="restricted", prefer_closest_numa=True)
    a = only(admit(machine, kubelet, pod("p", container("app", 2)), state=state))
    assert a.numa_affinity in ((2, 3),)


# --- memory manager -------------------------------------------------------------------------------


def memory_policy(**settings: object) -> KubeletPolicy:
    reserved = tuple((n, "memory", 512 * MI) for n in range(4))
    return policy(memory_policy="Static", reserved_memory=reserved, **settings)


def test_memory_that_needs_two_nodes_forms_a_group_no_single_node_use_may_join() -> None:
    machine = fixture("memoryNUMA4")  # 2Gi per node, 1Gi of it huge pages: 512Mi allocatable
    big = pod("big", container("a", 1, memory=GI))
    small = pod("small", container("b", 1, memory=256 * MI))
    first, second = admit(machine, memory_policy(), big, small).admissions
    group = first.containers[0].memory[0].numa
    assert len(group) == 2
    assert not set(second.containers[0].memory[0].numa) & set(group)


def test_restricted_refuses_memory_and_cpus_that_want_different_widths() -> None:
    machine = fixture("memoryNUMA4")
    a = only(
        admit(machine, memory_policy(topology_policy="restricted"), pod("p", container("a", 1, memory=GI)))
    )
    assert (a.reason, a.proof) == ("TopologyAffinityError", "infeasible")


def test_memory_follows_the_cpus_hint_under_single_numa_node() -> None:
    machine = fixture("memoryNUMA4")
    state = holding(machine, "0")
    a = only(
        admit(
            machine,
            memory_policy(topology_policy="single-numa-node"),
            pod("p", container("a", 2)),
            state=state,
        )
    )
    (block,) = a.containers[0].memory
    assert block.numa == a.numa_affinity and a.numa_affinity != (0,)


def test_memory_too_big_for_the_machine_is_the_kubelets_rejection() -> None:
    machine = fixture("memoryNUMA4")
    a = only(admit(machine, memory_policy(), pod("p", container("a", 1, memory=8 * GI))))
    assert a.reason == "UnexpectedAdmissionError" and a.proof == "infeasible"


# --- distribute options ---------------------------------------------------------------------------


def test_distribute_across_numa_leaves_the_free_cpus_balanced() -> None:
    state = holding(SMALL, "2")  # NUMA 1 has 3 free, NUMA 0 has 4
    kubelet = policy(options=["distribute-cpus-across-numa"])
    a = only(admit(SMALL, kubelet, pod("p", container("app", 1)), state=state))
    assert numa_of(SMALL, a.containers[0].cpus) == {0}


def test_distribute_across_numa_splits_evenly_when_one_node_is_not_enough() -> None:
    kubelet = policy(options=["distribute-cpus-across-numa"])
    a = only(admit(SMALL, kubelet, pod("p", container("app", 6))))
    topo = CPUTopology(SMALL)
    counts = sorted(len(a.containers[0].cpus & topo.cpus_in("numa", (n,))) for n in (0, 1))
    assert counts == [3, 3]


def test_distribute_across_cores_puts_cpus_on_different_cores() -> None:
    kubelet = policy(options=["distribute-cpus-across-cores"])
    a = only(admit(SMALL, kubelet, pod("p", container("app", 2))))
    assert len(CPUTopology(SMALL).levels_of(a.containers[0].cpus, "core")) == 2


# --- pod-level resource managers --------------------------------------------------------------------


def test_a_pod_level_bubble_is_aligned_and_shared_out() -> None:
    machine = fixture("returnMachineInfo")
    kubelet = policy(topology_policy="restricted", topology_scope="pod", reserved_cpus=frozenset({0}))
    items = (
        container("excl", 2),
        replace(container("shared", 1), cpu_request=None, cpu_limit=None, own_guaranteed=False),
    )
    p = PodFacts("p-uid", "default", "p", "Guaranteed", items, 4000, (("memory", GI),))
    a = only(admit(machine, kubelet, p))
    assert len(a.pod_cpus) == 4 and len(numa_of(machine, a.pod_cpus)) == 1
    excl, shared = a.containers
    assert len(excl.cpus) == 2 and shared.cpus == a.pod_cpus - excl.cpus


def test_an_empty_pod_shared_pool_is_refused_without_solving() -> None:
    machine = fixture("returnMachineInfo")
    kubelet = policy(topology_policy="best-effort", topology_scope="pod")
    items = (
        container("excl", 2),
        replace(container("shared", 1), cpu_request=None, cpu_limit=None, own_guaranteed=False),
    )
    p = PodFacts("p-uid", "default", "p", "Guaranteed", items, 2000, (("memory", GI),))
    a = only(admit(machine, kubelet, p))
    assert (a.reason, a.proof) == ("EmptyPodSharedPoolError", "infeasible")


# --- time limit, determinism, registry ----------------------------------------------------------------


def test_out_of_time_the_kubelets_own_answer_is_reported_unproven() -> None:
    problem = NodeProblem("node-1", SMALL, policy(), (pod("p", container("app", 2)),))
    a = only(CpsatNodeEngine(time_limit=0).admit(problem))
    assert a.admitted and a.proof == "feasible"


def test_out_of_time_a_pod_the_kubelet_rejects_is_unknown_not_rejected() -> None:
    state = holding(SMALL, "2,6")
    kubelet = policy(topology_policy="single-numa-node")
    problem = NodeProblem(
        "node-1", SMALL, kubelet, (pod("p", container("app", 2)), pod("q", container("app", 4))), state
    )
    first, second = CpsatNodeEngine(time_limit=0).admit(problem).admissions
    assert first.proof == "feasible"
    assert (second.admitted, second.reason, second.proof) == (False, "Unknown", "unknown")
    assert "not a proof" in second.message


def test_answers_are_deterministic() -> None:
    kubelet = policy(topology_policy="best-effort")
    pods = tuple(pod(f"p{i}", container("app", n)) for i, n in enumerate([1, 3, 2]))
    first = admit(SMALL, kubelet, *pods)
    assert admit(SMALL, kubelet, *pods) == first


def test_the_registry_offers_every_engine_and_refuses_an_unknown_one_out_loud() -> None:
    assert registry.node("cpsat").name == "cpsat"
    assert registry.node("cpsat", time_limit=5.0).name == "cpsat"
    assert registry.node("asp", time_limit=5.0).name == "asp"
    assert registry.names() == ["asp", "cpsat", "greedy"]
    with pytest.raises(KubefitError, match="unknown engine 'minizinc'"):
        registry.node("minizinc")
