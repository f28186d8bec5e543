"""Where kubefit's node answers must be the kubelet's: the CPUs cpsat picks never lose to the
kubelet's own criteria (whole free cores first), the kubelet's answer where NUMA alignment cuts a
core under full-pcpus-only, and every admission error in the kubelet's own words (reason, then the
message as the pod's status carries it), kubefit's detail after it."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from node_fixtures import cpus

from kubefit.cli import main
from kubefit.model.node.problem import (
    APP,
    INIT,
    SIDECAR,
    ContainerFacts,
    DeviceGroup,
    KubeletPolicy,
    Machine,
    NodeProblem,
    PodFacts,
)
from kubefit.solver.node.cpsat import CpsatNodeEngine
from kubefit.solver.node.criteria import criteria
from kubefit.solver.node.greedy import GreedyNodeEngine
from kubefit.solver.node.topology import CPUTopology
from kubefit.solver.node.validate import check, reserved_cpus
from kubefit.translate.node.synthetic import synthetic_machine

HERE = Path(__file__).resolve().parent
MI = 2**20
GI = 2**30


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


# --- whole free cores first ------------------------------------------------------------------------

SINGLE_SOCKET_HT = (HERE / "data" / "topologies" / "topoSingleSocketHT.yaml").read_text(encoding="utf-8")
TWO_CPU_POD = """---
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: '0'
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, uid: p-uid}
spec:
  nodeName: node-1
  containers:
  - name: app
    image: pause
    resources:
      requests: {cpu: '2', memory: 100Mi}
      limits: {cpu: '2', memory: 100Mi}
"""
# Cores {0,4} {1,5} {2,6} {3,7}: CPU 0 reserved, another pod holds 2,3,6,7; free are 1, 4 and 5.
OCCUPIED = '{"policyName":"static","defaultCpuSet":"0-1,4-5","entries":{"other-uid":{"busy":"2-3,6-7"}}}'


@pytest.mark.parametrize("engine", ["greedy", "cpsat"])
def test_regression_a_two_cpu_container_gets_the_whole_free_core_not_a_split_one(
    tmp_path: Path, engine: str
) -> None:
    # cpsat used to answer 1,4 and call it optimal: 4 shares its core with the reserved CPU 0 and 1
    # leaves its sibling 5 behind, where the kubelet takes the whole free core 1,5.
    objects = tmp_path / "objects.yaml"
    objects.write_text(SINGLE_SOCKET_HT + TWO_CPU_POD, encoding="utf-8")
    state = tmp_path / "cpu_manager_state"
    state.write_text(OCCUPIED, encoding="utf-8")
    args = ["admit", "-f", str(objects), "--node", "node-1", "--pod", "p", "--engine", engine]
    code, out, err = run(*args, "--cpu-manager-state", str(state), "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["containers"][0]["cpus"] == "1,5"
    assert doc.get("proof", "optimal") == "optimal"


def test_the_cpsat_answer_prints_as_yaml_with_its_proof(tmp_path: Path) -> None:
    # The proof is an enum inside the engine; the YAML writer used to stop on it (internal error).
    objects = tmp_path / "objects.yaml"
    objects.write_text(SINGLE_SOCKET_HT + TWO_CPU_POD, encoding="utf-8")
    args = ("admit", "-f", str(objects), "--node", "node-1", "--pod", "p", "--engine", "cpsat")
    code, out, err = run(*args, "-o", "yaml")
    assert (code, err) == (0, "")
    assert "\nproof: optimal\n" in out


# --- full-pcpus-only where NUMA alignment cuts a core ------------------------------------------------


def _cut_core_problem() -> NodeProblem:
    # 2 sockets x 3 cores x 2 threads (core c = CPUs c and c+6; NUMA 0 = cores 0-2), CPU 0 reserved. The
    # device pins the pod to NUMA 0, which has 5 free CPUs: the kubelet takes them (two whole cores and
    # CPU 6, the reserved CPU's sibling) and the sixth CPU from NUMA 1 (CPU 3, half of core 3).
    policy = KubeletPolicy(
        cpu_policy="static",
        cpu_options=frozenset({"full-pcpus-only"}),
        reserved_cpu_count=1,
        topology_policy="best-effort",
        topology_scope="pod",
    )
    device = DeviceGroup("claim/default/nic", (frozenset({0}),))
    pod = PodFacts(
        "p-uid",
        "default",
        "p",
        "Guaranteed",
        (
            ContainerFacts("big", APP, 6000, 6000, (("memory", GI),), True, (device,)),
            ContainerFacts("small", APP, 500, 500, (("memory", GI),), True),
        ),
    )
    return NodeProblem("node-1", synthetic_machine(2, 1, 3, 2), policy, (pod,))


def test_the_kubelet_ends_on_part_of_a_core_where_numa_alignment_cuts_one() -> None:
    # full-pcpus-only only checks the count (a multiple of the threads per core, within the free CPUs
    # outside the reserved CPUs' cores); the allocation is the usual NUMA-aligned one.
    problem = _cut_core_problem()
    kubelet = GreedyNodeEngine().admit(problem)
    a = kubelet.admissions[0]
    assert a.admitted and a.numa_affinity == (0,)
    assert a.containers[0].cpus == cpus("1-3,6-8")
    assert check(problem, kubelet) == []


def test_on_the_cut_core_machine_cpsat_keeps_whole_cores_and_is_no_worse() -> None:
    problem = _cut_core_problem()
    kubelet, mine = GreedyNodeEngine().admit(problem), CpsatNodeEngine(time_limit=None).admit(problem)
    assert check(problem, mine) == []
    topo = CPUTopology(problem.machine)
    reserved = reserved_cpus(problem)
    theirs = criteria(topo, problem.policy, kubelet.admissions[0], kubelet.cpu_state, reserved)
    ours = criteria(topo, problem.policy, mine.admissions[0], mine.cpu_state, reserved)
    assert ours <= theirs
    big = mine.admissions[0].containers[0].cpus
    assert topo.siblings(big) == big  # whole cores


# --- the kubelet's words ------------------------------------------------------------------------------


def _policy(**settings: object) -> KubeletPolicy:
    options = settings.pop("options", ())
    return KubeletPolicy(cpu_policy="static", cpu_options=frozenset(options), **settings)  # type: ignore[arg-type]


def _container(
    name: str, milli: int, kind: str = APP, memory: int = 100 * MI, own: bool = True
) -> ContainerFacts:
    return ContainerFacts(name, kind, milli, milli if own else None, (("memory", memory),), own)


def _pod(*containers: ContainerFacts, cpu: int | None = None, memory: int = 0) -> PodFacts:
    pod_memory = (("memory", memory),) if memory else ()
    return PodFacts("p-uid", "default", "p", "Guaranteed", containers, cpu, pod_memory)


STATIC_MEMORY = {
    "memory_policy": "Static",
    "reserved_memory": ((0, "memory", 256 * MI), (1, "memory", 256 * MI)),
}
POD_SCOPE = {"topology_policy": "best-effort", "topology_scope": "pod"}


@dataclass(frozen=True)
class Refusal:
    machine: Machine
    policy: KubeletPolicy
    pod: PodFacts
    reason: str
    message: str  # the kubelet's message, exactly; kubefit's detail may follow in parentheses


REFUSALS = {
    "an odd request under full-pcpus-only is an SMT alignment error": Refusal(
        synthetic_machine(1, 2, 2, 2),
        _policy(options=["full-pcpus-only"]),
        _pod(_container("app", 3000)),
        "SMTAlignmentError",
        "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2",
    ),
    "a request beyond the free physical CPUs is an SMT alignment error": Refusal(
        synthetic_machine(1, 2, 2, 2),
        _policy(options=["full-pcpus-only"], reserved_cpus=frozenset({0})),
        _pod(_container("app", 8000)),
        "SMTAlignmentError",
        "SMT Alignment Error: not enough free physical CPUs: available physical CPUs = 6, requested CPUs = 8, "
        "CPUs per core = 2",
    ),
    "a container too big for one NUMA node under single-numa-node is a topology affinity error": Refusal(
        synthetic_machine(1, 2, 2, 2),
        _policy(topology_policy="single-numa-node"),
        _pod(_container("app", 6000)),
        "TopologyAffinityError",
        "Resources cannot be allocated with Topology locality",
    ),
    "more CPUs than the machine has is an unexpected admission error": Refusal(
        synthetic_machine(1, 2, 2, 2),
        _policy(),
        _pod(_container("app", 9000)),
        "UnexpectedAdmissionError",
        "Allocate failed due to not enough cpus available to satisfy request: requested=9, available=8, "
        "which is unexpected",
    ),
    "exclusive containers taking the whole pod budget leave no cpus for shared ones": Refusal(
        synthetic_machine(1, 2, 2, 2),
        _policy(**POD_SCOPE),
        _pod(_container("a", 1000), _container("b", 1000), _container("c", 500, own=False), cpu=2000),
        "EmptyPodSharedPoolError",
        "pod rejected, sum of exclusive container cpu requests equals pod budget, leaving no cpus for shared "
        "containers",
    ),
    "a shared init container with the budget taken by sidecars has no cpus": Refusal(
        synthetic_machine(1, 2, 2, 2),
        _policy(**POD_SCOPE),
        _pod(_container("sc", 2000, SIDECAR), _container("init", 500, INIT, own=False), cpu=2000),
        "EmptyPodSharedPoolError",
        "pod rejected, pod has shared init containers but no cpus available for them",
    ),
    "an exclusive init container larger than what the sidecars leave is refused": Refusal(
        synthetic_machine(1, 2, 2, 2),
        _policy(**POD_SCOPE),
        _pod(_container("sc", 2000, SIDECAR), _container("init", 2000, INIT), _container("app", 0), cpu=3000),
        "EmptyPodSharedPoolError",
        "pod rejected, largest exclusive init container requests 2 cpus, but only 1 available",
    ),
    "exclusive memory taking the whole pod budget leaves none for shared containers": Refusal(
        synthetic_machine(1, 2, 2, 2),
        _policy(**POD_SCOPE, **STATIC_MEMORY),
        _pod(
            _container("a", 1000, memory=GI), _container("b", 500, memory=0, own=False), cpu=2000, memory=GI
        ),
        "EmptyPodSharedPoolError",
        "pod rejected, sum of exclusive container memory requests equals pod budget, leaving no memory for "
        "shared containers",
    ),
    "memory on no NUMA node that can hold it is the memory manager's error": Refusal(
        synthetic_machine(1, 2, 2, 2, memory_per_numa=2 * GI),
        _policy(**STATIC_MEMORY),
        _pod(_container("app", 1000, memory=8 * GI)),
        "UnexpectedAdmissionError",
        "Allocate failed due to [memorymanager] failed to get the default NUMA affinity, no NUMA nodes with "
        "enough memory is available, which is unexpected",
    ),
}


@pytest.mark.parametrize("engine", ["greedy", "cpsat"])
@pytest.mark.parametrize("case", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_refused_pod_carries_the_kubelets_reason_and_message(case: Refusal, engine: str) -> None:
    problem = NodeProblem("node-1", case.machine, case.policy, (case.pod,))
    chosen = GreedyNodeEngine() if engine == "greedy" else CpsatNodeEngine(time_limit=None)
    a = chosen.admit(problem).admissions[0]
    assert not a.admitted
    assert a.reason == case.reason
    assert a.message == case.message or a.message.startswith(case.message + " (")


def test_the_detail_follows_the_kubelets_message() -> None:
    case = REFUSALS["exclusive containers taking the whole pod budget leave no cpus for shared ones"]
    problem = NodeProblem("node-1", case.machine, case.policy, (case.pod,))
    a = GreedyNodeEngine().admit(problem).admissions[0]
    assert a.message.endswith("(c would share no CPU: exclusive containers take all 2 of the pod's)")


def test_a_refusal_read_from_yaml_names_the_kubelets_words(tmp_path: Path) -> None:
    objects = tmp_path / "objects.yaml"
    topology = (HERE / "data" / "topologies" / "topoDualSocketHT.yaml").read_text(encoding="utf-8")
    pod = TWO_CPU_POD.replace("cpu: '2'", "cpu: '3'").replace(
        "reservedSystemCPUs: '0'", "cpuManagerPolicyOptions:\n  full-pcpus-only: 'true'"
    )
    objects.write_text(topology + pod, encoding="utf-8")
    code, out, _ = run("admit", "-f", str(objects), "--node", "node-1", "--pod", "p", "-o", "json")
    doc = json.loads(out)
    assert code == 1
    assert (doc["reason"], doc["message"]) == (
        "SMTAlignmentError",
        "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2",
    )
