"""NodeResourcesFit and NodeResourcesBalancedAllocation, with upstream's unit-test tables ported as data
(pkg/scheduler/framework/plugins/noderesources: fit_test.go, least_allocated_test.go,
most_allocated_test.go, requested_to_capacity_ratio_test.go, balanced_allocation_test.go).

Pod requests are given as translation computes them (init containers, sidecars, overhead and pod-level
resources already folded in; `score` holds the non-zero-defaulted requests scoring counts). Where an
upstream table gives cpu in whole cores (st.MakeNode().Capacity), it is written in millicores here.

Upstream cases not ported, and why:
- TestEnoughRequests "extended resource backed by DRA", "... nil draManager", "... was backed by Device
  Plugin (Allocatable: 0)" and "... global cache": requests backed by DRA device classes are taken out of
  the pod's requests by translation before the plugin sees them.
- TestFitScore and TestNodeResourcesBalancedAllocation cases with DRA extended resources (4): scoring
  DRA-backed extended resources by device counts is not modelled (their requests are taken out).
- TestRestartableInitContainers cases with SidecarContainers disabled: the plugin sees no containers and
  the gate is always on for it.
- Weight validation ("resource with negative weight", "... zero weight", "... larger than
  MaxNodeScore") and "Resources not set, pods scheduled with error": configuration validation and
  defaulting belong to translation; the plugin always gets valid, non-empty resources.
- In-place pod resize (cache discrepancy deltas), SignPod, EventsToRegister and the queueing hints:
  kubefit does not model resizes, pod signatures or the scheduling queue's events.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from kubefit.model.cluster.args import (
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
    ShapePoint,
)
from kubefit.model.cluster.facts import Cluster, Node, Pod
from kubefit.model.cluster.profile import MULTI_POINT, PluginEntry, PluginSet, Profile
from kubefit.solver.cluster.framework import Code, CycleState, Handle, NodeInfo, Snapshot, Status
from kubefit.solver.cluster.plugins.noderesources.balanced_allocation import BalancedAllocation
from kubefit.solver.cluster.plugins.noderesources.fit import Fit
from kubefit.solver.cluster.plugins.noderesources.requested_to_capacity_ratio import broken_linear
from kubefit.solver.cluster.runtime import Framework, FrameworkError

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"
DRA_NAMED = "extended.resource.dra.io/something"
XYZ = "abc.com/xyz"
GPU = "nvidia.com/gpu"
FOO = "intel.com/foo"
BAR = "intel.com/bar"
MI = 1024 * 1024

_uid = iter(range(10**9))


def pod(requests: Mapping[str, int] | None = None, score: Mapping[str, int] | None = None) -> Pod:
    """A pod with these requests; scoring counts `score` (the same as the requests unless given)."""
    n = next(_uid)
    requests = dict(requests or {})
    return Pod("default", f"p{n}", f"uid-{n}", requests=requests, score_requests=dict(score or requests))


def node_info(name: str, allocatable: Mapping[str, int], *pods: Pod) -> NodeInfo:
    info = NodeInfo(Node(name, allocatable=dict(allocatable)))
    for p in pods:
        info.add_pod(p)
    return info


def cores(cpu: int, memory: int, **extra: int) -> dict[str, int]:
    return {"cpu": cpu * 1000, "memory": memory, **extra}


def handle(infos: list[NodeInfo]) -> Handle:
    return Handle(Cluster(tuple(i.node for i in infos)), Snapshot(infos))


# --- Filter -----------------------------------------------------------------------------------------

# makeAllocatableResources(10, 20, 32, 5, 20, 5)
ENOUGH_NODE = {"cpu": 10, "memory": 20, "pods": 32, EXT_A: 5, "ephemeral-storage": 20, HUGE_A: 5}

UNSCHED, UNRES = Code.UNSCHEDULABLE, Code.UNRESOLVABLE


def ins(name: str) -> str:
    return f"Insufficient {name}"


# (name, pod requests, what the node's one pod requests (None: no pod), want)
ENOUGH_REQUESTS: list[tuple[str, dict[str, int], dict[str, int] | None, object]] = [
    ("no resources requested always fits", {}, {"cpu": 10, "memory": 20}, None),
    (
        "too many resources fails",
        {"cpu": 1, "memory": 1},
        {"cpu": 10, "memory": 20},
        (UNSCHED, ins("cpu"), ins("memory")),
    ),
    (
        "too many resources fails due to init container cpu",
        {"cpu": 3, "memory": 1},
        {"cpu": 8, "memory": 19},
        (UNSCHED, ins("cpu")),
    ),
    (
        "too many resources fails due to highest init container cpu",
        {"cpu": 3, "memory": 1},
        {"cpu": 8, "memory": 19},
        (UNSCHED, ins("cpu")),
    ),
    (
        "too many resources fails due to init container memory",
        {"cpu": 1, "memory": 3},
        {"cpu": 9, "memory": 19},
        (UNSCHED, ins("memory")),
    ),
    (
        "too many resources fails due to highest init container memory",
        {"cpu": 1, "memory": 3},
        {"cpu": 9, "memory": 19},
        (UNSCHED, ins("memory")),
    ),
    (
        "init container fits because it's the max, not sum, of containers and init containers",
        {"cpu": 1, "memory": 1},
        {"cpu": 9, "memory": 19},
        None,
    ),
    (
        "multiple init containers fit because it's the max, not sum, of containers and init containers",
        {"cpu": 1, "memory": 1},
        {"cpu": 9, "memory": 19},
        None,
    ),
    ("both resources fit", {"cpu": 1, "memory": 1}, {"cpu": 5, "memory": 5}, None),
    (
        "one resource memory fits",
        {"cpu": 2, "memory": 1},
        {"cpu": 9, "memory": 5},
        (UNSCHED, ins("cpu")),
    ),
    (
        "one resource cpu fits",
        {"cpu": 1, "memory": 2},
        {"cpu": 5, "memory": 19},
        (UNSCHED, ins("memory")),
    ),
    ("equal edge case", {"cpu": 5, "memory": 1}, {"cpu": 5, "memory": 19}, None),
    (
        "equal edge case for init container",
        {"cpu": 5, "memory": 1},
        {"cpu": 5, "memory": 19},
        None,
    ),
    ("extended resource fits", {EXT_A: 1}, {}, None),
    ("extended resource fits for init container", {EXT_A: 1}, {}, None),
    (
        "extended resource capacity enforced",
        {"cpu": 1, "memory": 1, EXT_A: 10},
        {},
        (UNRES, ins(EXT_A)),
    ),
    (
        "extended resource capacity enforced for init container",
        {"cpu": 1, "memory": 1, EXT_A: 10},
        {},
        (UNRES, ins(EXT_A)),
    ),
    (
        "extended resource allocatable enforced",
        {"cpu": 1, "memory": 1, EXT_A: 1},
        {EXT_A: 5},
        (UNSCHED, ins(EXT_A)),
    ),
    (
        "extended resource allocatable enforced for init container",
        {"cpu": 1, "memory": 1, EXT_A: 1},
        {EXT_A: 5},
        (UNSCHED, ins(EXT_A)),
    ),
    (
        "extended resource allocatable enforced for multiple containers",
        {"cpu": 2, "memory": 2, EXT_A: 6},
        {EXT_A: 2},
        (UNRES, ins(EXT_A)),
    ),
    (
        "extended resource allocatable admits multiple init containers",
        {"cpu": 1, "memory": 1, EXT_A: 3},
        {EXT_A: 2},
        None,
    ),
    (
        "extended resource allocatable enforced for multiple init containers",
        {"cpu": 1, "memory": 1, EXT_A: 6},
        {EXT_A: 2},
        (UNRES, ins(EXT_A)),
    ),
    (
        "extended resource allocatable enforced for unknown resource",
        {"cpu": 1, "memory": 1, EXT_B: 1},
        {},
        (UNRES, ins(EXT_B)),
    ),
    (
        "extended resource allocatable enforced for unknown resource for init container",
        {"cpu": 1, "memory": 1, EXT_B: 1},
        {},
        (UNRES, ins(EXT_B)),
    ),
    (
        "kubernetes.io resource capacity enforced",
        {"cpu": 1, "memory": 1, K8S_IO_A: 10},
        {},
        (UNRES, ins(K8S_IO_A)),
    ),
    (
        "kubernetes.io resource capacity enforced for init container",
        {"cpu": 1, "memory": 1, K8S_IO_B: 10},
        {},
        (UNRES, ins(K8S_IO_B)),
    ),
    (
        "hugepages resource capacity enforced",
        {"cpu": 1, "memory": 1, HUGE_A: 10},
        {},
        (UNRES, ins(HUGE_A)),
    ),
    (
        "hugepages resource capacity enforced for init container",
        {"cpu": 1, "memory": 1, HUGE_A: 10},
        {},
        (UNRES, ins(HUGE_A)),
    ),
    (
        "hugepages resource allocatable enforced for multiple containers",
        {"cpu": 2, "memory": 2, HUGE_A: 6},
        {HUGE_A: 2},
        (UNRES, ins(HUGE_A)),
    ),
    (
        "skip checking ignored extended resource",
        {"cpu": 1, "memory": 1, EXT_B: 1},
        {},
        None,
    ),
    (
        "resources + pod overhead fits",
        {"cpu": 4, "memory": 14},
        {"cpu": 5, "memory": 5},
        None,
    ),
    (
        "requests + overhead does not fit for memory",
        {"cpu": 2, "memory": 16},
        {"cpu": 5, "memory": 5},
        (UNSCHED, ins("memory")),
    ),
    (
        "skip checking ignored extended resource via resource groups",
        {"cpu": 1, "memory": 1, EXT_B: 1, K8S_IO_A: 1},
        {},
        (UNRES, ins(K8S_IO_A)),
    ),
    (
        "skip checking extended resource request with quantity zero via resource groups",
        {"cpu": 1, "memory": 1, EXT_A: 0},
        {EXT_A: 6},
        None,
    ),
    (
        "skip checking resource request with quantity zero",
        {EXT_A: 1},
        {"cpu": 20, "memory": 30, EXT_A: 1},
        None,
    ),
    (
        "both pod-level and container-level resources fit",
        {"cpu": 1, "memory": 2},
        {"cpu": 5, "memory": 5},
        None,
    ),
    (
        "pod-level cpu resource not fit",
        {"cpu": 7, "memory": 2},
        {"cpu": 5, "memory": 5},
        (UNSCHED, ins("cpu")),
    ),
    (
        "pod-level memory resource not fit",
        {"cpu": 3, "memory": 2},
        {"cpu": 5, "memory": 19},
        (UNSCHED, ins("memory")),
    ),
    (
        "pod-level hugepages resource fit",
        {"cpu": 3, "memory": 2, HUGE_A: 5},
        None,
        None,
    ),
    (
        "both pod-level and container-level hugepages resource fit",
        {"cpu": 3, "memory": 2, HUGE_A: 5},
        None,
        None,
    ),
    (
        "pod-level hugepages resource not fit",
        {"cpu": 3, "memory": 2, HUGE_A: 10},
        None,
        (UNRES, ins(HUGE_A)),
    ),
    (
        "one pod-level cpu resource fits and all init and non-init containers resources fit",
        {"cpu": 3, "memory": 2},
        {"cpu": 5, "memory": 19},
        (UNSCHED, ins("memory")),
    ),
    ("extended resource backed by device plugin", {EXT_A: 1}, {}, None),
    (
        "extended resource backed by DRA not enabled",
        {"cpu": 1, "memory": 1, DRA_NAMED: 1},
        {},
        (UNRES, ins(DRA_NAMED)),
    ),
    (
        "extended resource NOT backed by DRA",
        {"cpu": 1, "memory": 1, EXT_B: 1},
        {},
        (UNRES, ins(EXT_B)),
    ),
]


ENOUGH_REQUESTS_ARGS = {
    "skip checking ignored extended resource": NodeResourcesFitArgs(ignored_resources=frozenset({EXT_B})),
    "skip checking ignored extended resource via resource groups": NodeResourcesFitArgs(
        ignored_resource_groups=frozenset({"example.com"})
    ),
}


def run_filter(
    fit: Fit, requests: Mapping[str, int], info: NodeInfo, state: CycleState | None = None
) -> Status | None:
    p = pod(requests)
    state = state or CycleState()
    result, status = fit.pre_filter(state, p, [info])
    assert (result, status) == (None, None)
    return fit.filter(state, p, info)


def check(status: Status | None, want: object) -> None:
    if want is None:
        assert status is None
        return
    assert isinstance(want, tuple)
    assert status is not None
    assert (status.code, status.reasons) == (want[0], want[1:])


@pytest.mark.parametrize("name,requests,used,want", ENOUGH_REQUESTS, ids=[c[0] for c in ENOUGH_REQUESTS])
def test_enough_requests(
    name: str, requests: dict[str, int], used: dict[str, int] | None, want: object
) -> None:
    existing = () if used is None else (pod(used),)
    info = node_info("node", ENOUGH_NODE, *existing)
    fit = Fit(handle([info]), ENOUGH_REQUESTS_ARGS.get(name))
    check(run_filter(fit, requests, info), want)


# makeAllocatableResources(10, 20, 1, 0, 0, 0)
ONE_POD_NODE = {"cpu": 10, "memory": 20, "pods": 1, EXT_A: 0, "ephemeral-storage": 0, HUGE_A: 0}

NOT_ENOUGH_REQUESTS = [
    (
        "even without specified resources, predicate fails when there's no space for additional pod",
        {},
        {"cpu": 10, "memory": 20},
    ),
    (
        "even if both resources fit, predicate fails when there's no space for additional pod",
        {"cpu": 1, "memory": 1},
        {"cpu": 5, "memory": 5},
    ),
    (
        "even for equal edge case, predicate fails when there's no space for additional pod",
        {"cpu": 5, "memory": 1},
        {"cpu": 5, "memory": 19},
    ),
    (
        "even for equal edge case, predicate fails when there's no space for additional pod due to init container",
        {"cpu": 5, "memory": 1},
        {"cpu": 5, "memory": 19},
    ),
]


@pytest.mark.parametrize("name,requests,used", NOT_ENOUGH_REQUESTS, ids=[c[0] for c in NOT_ENOUGH_REQUESTS])
def test_not_enough_pod_slots(name: str, requests: dict[str, int], used: dict[str, int]) -> None:
    info = node_info("node", ONE_POD_NODE, pod(used))
    check(run_filter(Fit(handle([info])), requests, info), (UNSCHED, "Too many pods"))


STORAGE_REQUESTS = [
    ("empty storage requested, and pod fits", {"cpu": 1, "memory": 1}, {"cpu": 2, "memory": 10}, None),
    (
        "storage ephemeral local storage request exceeds allocatable",
        {"ephemeral-storage": 25},
        {"cpu": 2, "memory": 2},
        (UNRES, ins("ephemeral-storage")),
    ),
    (
        "ephemeral local storage is sufficient",
        {"ephemeral-storage": 5},
        {"cpu": 2, "memory": 2, "ephemeral-storage": 10},
        None,
    ),
    ("pod fits", {"ephemeral-storage": 10}, {"cpu": 2, "memory": 2}, None),
]


@pytest.mark.parametrize("name,requests,used,want", STORAGE_REQUESTS, ids=[c[0] for c in STORAGE_REQUESTS])
def test_storage_requests(name: str, requests: dict[str, int], used: dict[str, int], want: object) -> None:
    info = node_info("node", ENOUGH_NODE, pod(used))
    check(run_filter(Fit(handle([info])), requests, info), want)


# makeAllocatableResources(2, 0, 1, 0, 0, 0); requests sum the regular container and its sidecar.
SIDECAR_NODE = {"cpu": 2, "memory": 0, "pods": 1, EXT_A: 0, "ephemeral-storage": 0, HUGE_A: 0}
RESTARTABLE_INIT_CONTAINERS = [
    ("allow pod with restartable init containers if sidecar containers is enabled", {}, None),
    (
        "allow pod if the total requested resources do not exceed the node's allocatable resources",
        {"cpu": 2},
        None,
    ),
    (
        "not allow pod if the total requested resources do exceed the node's allocatable resources",
        {"cpu": 3},
        (UNRES, ins("cpu")),
    ),
]


@pytest.mark.parametrize(
    "name,requests,want", RESTARTABLE_INIT_CONTAINERS, ids=[c[0] for c in RESTARTABLE_INIT_CONTAINERS]
)
def test_restartable_init_containers(name: str, requests: dict[str, int], want: object) -> None:
    info = node_info("node", SIDECAR_NODE)
    check(run_filter(Fit(handle([info])), requests, info), want)


def test_filter_without_pre_filter_is_an_error() -> None:
    info = node_info("node", {})
    status = Fit(handle([info])).filter(CycleState(), pod(), info)
    assert status is not None and status.code == Code.ERROR
    assert status.reasons == ('error reading "PreFilterNodeResourcesFit" from cycleState: not found',)


OWN_FILTER_CASES = [
    ("a node publishing no allocatable resources is not checked", {}, {"cpu": 100, "memory": 1}, None),
    ("a pod with no requests passes a node publishing no allocatable resources", {}, {}, None),
    (
        "a node publishing allocatable resources but no pod slots fits no pod",
        {"cpu": 10, "memory": 10},
        {},
        (UNSCHED, "Too many pods"),
    ),
    (
        "every shortfall is reported in upstream's order, scalar resources by name",
        {"pods": 0, "cpu": 1, "memory": 1, "ephemeral-storage": 1, EXT_B: 1, EXT_A: 1},
        {"cpu": 2, "memory": 1, "ephemeral-storage": 2, EXT_A: 2, EXT_B: 2},
        (
            UNRES,
            "Too many pods",
            ins("cpu"),
            ins("ephemeral-storage"),
            ins(EXT_A),
            ins(EXT_B),
        ),
    ),
    (
        "requests of resources the scheduler does not count are not checked",
        {"pods": 1},
        {"storage": 5, "requests.example.com/x": 1},
        None,
    ),
    (
        "ignoring a resource group does not ignore hugepages or kubernetes.io resources",
        {"pods": 1},
        {HUGE_A: 1, K8S_IO_A: 1},
        (UNRES, ins(HUGE_A), ins(K8S_IO_A)),
    ),
]


@pytest.mark.parametrize(
    "name,allocatable,requests,want", OWN_FILTER_CASES, ids=[c[0] for c in OWN_FILTER_CASES]
)
def test_filter_edges(name: str, allocatable: dict[str, int], requests: dict[str, int], want: object) -> None:
    info = node_info("node", allocatable)
    args = NodeResourcesFitArgs(
        ignored_resources=frozenset({HUGE_A}),
        ignored_resource_groups=frozenset({"kubernetes.io", "hugepages-2Mi"}),
    )
    check(run_filter(Fit(handle([info]), args), requests, info), want)


# --- Score: LeastAllocated / MostAllocated / RequestedToCapacityRatio ------------------------------------

DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
EXTENDED_RESOURCE_SET = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1), ResourceSpec(XYZ, 1))
NO_EXT_SPEC = (ResourceSpec(XYZ, 2), ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
MEMORY_HEAVY = (ResourceSpec("memory", 2), ResourceSpec("cpu", 1))

# A scoring case: (name, strategy, pod, [(node allocatable, [pods on the node])], scores)
ScoreCase = tuple[str, ScoringStrategy, Pod, list[tuple[dict[str, int], list[Pod]]], list[int]]


def least(resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES) -> ScoringStrategy:
    return ScoringStrategy(resources=resources)


def most(resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES) -> ScoringStrategy:
    return ScoringStrategy(MOST_ALLOCATED, resources)


def ratio(
    *points: tuple[int, int], resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES
) -> ScoringStrategy:
    return ScoringStrategy(REQUESTED_TO_CAPACITY_RATIO, resources, tuple(ShapePoint(u, s) for u, s in points))


def cm(cpu: int, memory: int) -> dict[str, int]:
    return {"cpu": cpu * 1000, "memory": memory}


POD_3_5 = {"cpu": 3000 * 1000, "memory": 5000}

LEAST_ALLOCATED: list[ScoreCase] = [
    ("nothing scheduled, nothing requested", least(), pod(), [(cores(4000, 10000), [])] * 2, [100, 100]),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        least(),
        pod(POD_3_5),
        [(cores(4000, 10000), []), (cores(6000, 10000), [])],
        [37, 50],
    ),
    (
        "no resources requested, pods scheduled",
        least(),
        pod(),
        [(cores(4000, 10000), [pod(), pod()])] * 2,
        [100, 100],
    ),
    (
        "no resources requested, pods scheduled with resources",
        least(),
        pod(),
        [
            (cores(10000, 20000), [pod(cm(3000, 0)), pod(cm(3000, 0))]),
            (cores(10000, 20000), [pod(cm(3000, 0)), pod(cm(3000, 5000))]),
        ],
        [70, 57],
    ),
    (
        "resources requested, pods scheduled with resources",
        least(),
        pod(POD_3_5),
        [(cores(10000, 20000), [pod(cm(3000, 0))]), (cores(10000, 20000), [pod(cm(3000, 5000))])],
        [57, 45],
    ),
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        least(),
        pod(POD_3_5),
        [(cores(10000, 20000), [pod(cm(3000, 0))]), (cores(10000, 50000), [pod(cm(3000, 5000))])],
        [57, 60],
    ),
    (
        "requested resources exceed node capacity",
        least(),
        pod(cm(3000, 0)),
        [(cores(4000, 10000), [pod(cm(3000, 0))]), (cores(4000, 10000), [pod(cm(3000, 5000))])],
        [50, 25],
    ),
    (
        "zero node resources, pods scheduled with resources",
        least(),
        pod(),
        [({}, [pod(cm(3000, 0))]), ({}, [pod(cm(3000, 5000))])],
        [0, 0],
    ),
    (
        "nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes",
        least(MEMORY_HEAVY),
        pod(POD_3_5),
        [(cores(4000, 10000), []), (cores(6000, 10000), [])],
        [41, 50],
    ),
    (
        "bypass extended resource if the pod does not request",
        least(EXTENDED_RESOURCE_SET),
        pod(POD_3_5),
        [(cores(6000, 10000), []), (cores(6000, 10000, **{XYZ: 4}), [])],
        [50, 50],
    ),
    (
        "honor extended resource if the pod requests",
        least(EXTENDED_RESOURCE_SET),
        pod({**POD_3_5, XYZ: 2}),
        [(cores(6000, 10000, **{XYZ: 4}), []), (cores(6000, 10000, **{XYZ: 10}), [])],
        [50, 60],
    ),
    (
        "if the node doesn't have a resource",
        least(NO_EXT_SPEC),
        pod(cm(3000, 4000)),
        [(cores(6000, 10000), []), (cores(6000, 10000, **{XYZ: 4}), [])],
        [55, 55],
    ),
]

NON_ZERO = {"cpu": 100, "memory": 200 * MI}  # a container requesting neither, as scoring counts it

MOST_ALLOCATED_CASES: list[ScoreCase] = [
    ("nothing scheduled, nothing requested", most(), pod(), [(cores(4000, 10000), [])] * 2, [0, 0]),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        most(),
        pod(POD_3_5),
        [(cores(4000, 10000), []), (cores(6000, 10000), [])],
        [62, 50],
    ),
    (
        "no resources requested, pods scheduled with resources",
        most(),
        pod(),
        [
            (cores(10000, 20000), [pod(cm(3000, 0)), pod(cm(3000, 0))]),
            (cores(10000, 20000), [pod(cm(3000, 0)), pod(cm(3000, 5000))]),
        ],
        [30, 42],
    ),
    (
        "resources requested, pods scheduled with resources",
        most(),
        pod(POD_3_5),
        [(cores(10000, 20000), [pod(cm(3000, 0))]), (cores(10000, 20000), [pod(cm(3000, 5000))])],
        [42, 55],
    ),
    (
        "resources requested equal node capacity",
        most(),
        pod(cm(5000, 9000)),
        [(cores(5000, 10000), []), (cores(10000, 9000), [])],
        [95, 75],
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes (memory weighs double)",
        most(MEMORY_HEAVY),
        pod(POD_3_5),
        [(cores(4000, 10000), []), (cores(6000, 10000), [])],
        [58, 50],
    ),
    (
        "no resources requested, pods scheduled, nonzero request for resource",
        most(),
        pod({}, NON_ZERO),
        [
            ({"cpu": 250, "memory": 1000 * MI}, [pod({}, NON_ZERO), pod({}, NON_ZERO)]),
            ({"cpu": 250, "memory": 1000 * MI}, []),
        ],
        [80, 30],
    ),
    (
        "bypass extended resource if the pod does not request",
        most(EXTENDED_RESOURCE_SET),
        pod(POD_3_5),
        [(cores(6000, 10000), []), (cores(6000, 10000, **{XYZ: 4}), [])],
        [50, 50],
    ),
    (
        "honor extended resource if the pod request",
        most(EXTENDED_RESOURCE_SET),
        pod({**POD_3_5, XYZ: 2}),
        [(cores(6000, 10000, **{XYZ: 4}), []), (cores(6000, 10000, **{XYZ: 10}), [])],
        [50, 40],
    ),
    (
        "if the node doesn't have a resource",
        most(NO_EXT_SPEC),
        pod(cm(3000, 4000)),
        [(cores(6000, 10000), []), (cores(6000, 10000, **{XYZ: 4}), [])],
        [45, 45],
    ),
]

LEAST_FAVOURED = ratio((0, 10), (100, 0))
MOST_FAVOURED = ratio((0, 0), (100, 10))


def milli(cpu: int, memory: int, **extra: int) -> dict[str, int]:
    return {"cpu": cpu, "memory": memory, **extra}


FOO_ONLY = ratio((0, 0), (100, 1), resources=(ResourceSpec(FOO, 1),))
FOO_BAR = ratio((0, 0), (100, 1), resources=(ResourceSpec(FOO, 3), ResourceSpec(BAR, 5)))
BIG = 10000 * MI

REQUESTED_TO_CAPACITY_RATIO_CASES: list[ScoreCase] = [
    (
        "nothing scheduled, nothing requested (default - least requested nodes have priority)",
        LEAST_FAVOURED,
        pod(),
        [(cores(4000, 10000), [pod(), pod()]), (cores(4000, 10000), [])],
        [100, 100],
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",
        LEAST_FAVOURED,
        pod(POD_3_5),
        [(cores(4000, 10000), [pod(), pod()]), (cores(6000, 10000), [])],
        [38, 50],
    ),
    (
        "no resources requested, pods scheduled with resources (default - least requested nodes have priority)",
        LEAST_FAVOURED,
        pod(),
        [(cores(4000, 10000), [pod(cm(3000, 5000))]), (cores(6000, 10000), [pod(cm(3000, 5000))])],
        [38, 50],
    ),
    # TestResourceBinPackingSingleExtended
    (
        "one extended resource: nothing scheduled, nothing requested",
        FOO_ONLY,
        pod(),
        [(milli(4000, BIG, **{FOO: 8}), []), (milli(4000, BIG, **{FOO: 4}), [])],
        [0, 0],
    ),
    (
        "one extended resource: resources requested, pods scheduled with less resources",
        FOO_ONLY,
        pod({FOO: 2}),
        [(milli(4000, BIG, **{FOO: 8}), [pod()]), (milli(4000, BIG, **{FOO: 4}), [])],
        [2, 5],
    ),
    (
        "one extended resource: resources requested, pods scheduled with resources, on node with existing pod running",
        FOO_ONLY,
        pod({FOO: 2}),
        [(milli(4000, BIG, **{FOO: 8}), []), (milli(4000, BIG, **{FOO: 4}), [pod({FOO: 2})])],
        [2, 10],
    ),
    (
        "one extended resource: resources requested, pods scheduled with more resources",
        FOO_ONLY,
        pod({FOO: 4}),
        [(milli(4000, BIG, **{FOO: 8}), [pod()]), (milli(4000, BIG, **{FOO: 4}), [])],
        [5, 10],
    ),
    # TestResourceBinPackingMultipleExtended
    (
        "two extended resources: nothing scheduled, nothing requested",
        FOO_BAR,
        pod(),
        [(milli(4000, BIG, **{FOO: 8, BAR: 4}), []), (milli(4000, BIG, **{FOO: 4, BAR: 8}), [])],
        [0, 0],
    ),
    (
        "two extended resources: resources requested, pods scheduled with less resources",
        FOO_BAR,
        pod({FOO: 2, BAR: 2}),
        [(milli(4000, BIG, **{FOO: 8, BAR: 4}), [pod()]), (milli(4000, BIG, **{FOO: 4, BAR: 8}), [])],
        [4, 3],
    ),
    (
        "two extended resources: resources requested, pods scheduled with resources, on node with existing pod running",
        FOO_BAR,
        pod({FOO: 2, BAR: 2}),
        [
            (milli(4000, BIG, **{FOO: 8, BAR: 4}), []),
            (milli(4000, BIG, **{FOO: 4, BAR: 8}), [pod({FOO: 4, BAR: 2})]),
        ],
        [4, 7],
    ),
    (
        "two extended resources: resources requested, pods scheduled with more resources",
        FOO_BAR,
        pod({FOO: 4, BAR: 2}),
        [(milli(4000, BIG, **{FOO: 8, BAR: 4}), [pod()]), (milli(4000, BIG, **{FOO: 4, BAR: 8}), [])],
        [5, 5],
    ),
]

POD_1_2 = {"cpu": 1000 * 1000, "memory": 2000}
FIT_SCORE_NODES = [
    (cores(4000, 10000), [pod(cm(2000, 4000))]),
    (cores(6000, 10000), [pod(cm(1000, 2000))]),
]
SIDECAR_NODES = [
    # The first pod's sidecar requests as much again as its container.
    (cores(4000, 10000), [pod(cm(2000, 4000))]),
    (cores(4000, 10000), [pod(cm(1000, 2000))]),
]

FIT_SCORE_CASES: list[ScoreCase] = [
    (
        "test case for ScoringStrategy RequestedToCapacityRatio case1",
        LEAST_FAVOURED,
        pod(POD_3_5),
        FIT_SCORE_NODES,
        [10, 32],
    ),
    (
        "test case for ScoringStrategy RequestedToCapacityRatio case2",
        MOST_FAVOURED,
        pod(POD_3_5),
        FIT_SCORE_NODES,
        [95, 68],
    ),
    ("test case for ScoringStrategy MostAllocated", most(), pod(POD_1_2), FIT_SCORE_NODES, [67, 36]),
    ("test case for ScoringStrategy LeastAllocated", least(), pod(POD_1_2), FIT_SCORE_NODES, [32, 63]),
    (
        "test case for ScoringStrategy MostAllocated with sidecar container",
        most(),
        pod(POD_1_2),
        SIDECAR_NODES,
        [67, 45],
    ),
    (
        "test case for ScoringStrategy LeastAllocated with sidecar container",
        least(),
        pod(POD_1_2),
        SIDECAR_NODES,
        [32, 55],
    ),
]

ALL_FIT_SCORES = LEAST_ALLOCATED + MOST_ALLOCATED_CASES + REQUESTED_TO_CAPACITY_RATIO_CASES + FIT_SCORE_CASES


def infos_of(nodes: list[tuple[dict[str, int], list[Pod]]]) -> list[NodeInfo]:
    return [node_info(f"node{i + 1}", allocatable, *pods) for i, (allocatable, pods) in enumerate(nodes)]


@pytest.mark.parametrize("pre_score", [True, False], ids=["with PreScore", "if PreScore is not called"])
@pytest.mark.parametrize("name,strategy,p,nodes,want", ALL_FIT_SCORES, ids=[c[0] for c in ALL_FIT_SCORES])
def test_fit_scores(
    name: str,
    strategy: ScoringStrategy,
    p: Pod,
    nodes: list[tuple[dict[str, int], list[Pod]]],
    want: list[int],
    pre_score: bool,
) -> None:
    infos = infos_of(nodes)
    fit = Fit(handle(infos), NodeResourcesFitArgs(scoring_strategy=strategy))
    state = CycleState()
    if pre_score:
        assert fit.pre_score(state, p, infos) is None
    assert [fit.score(state, p, info) for info in infos] == want


BROKEN_LINEAR = [
    (
        ((10, 1), (90, 9)),
        [
            (-10, 1),
            (0, 1),
            (9, 1),
            (10, 1),
            (15, 1),
            (19, 1),
            (20, 2),
            (89, 8),
            (90, 9),
            (99, 9),
            (100, 9),
            (110, 9),
        ],
    ),
    (
        ((0, 2), (40, 10), (100, 0)),
        [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)],
    ),
    (((0, 2), (40, 2), (100, 2)), [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
]


@pytest.mark.parametrize("shape,assertions", BROKEN_LINEAR, ids=["case_0", "case_1", "case_2"])
def test_broken_linear_function(
    shape: tuple[tuple[int, int], ...], assertions: list[tuple[int, int]]
) -> None:
    assert [broken_linear(shape, p) for p, _ in assertions] == [want for _, want in assertions]


def test_broken_linear_truncates_toward_zero_on_falling_segments() -> None:
    # 100 + (-100 * 31) / 60 is 100 - 51 in Go, where flooring would give 100 - 52.
    assert broken_linear(((0, 100), (60, 0)), 31) == 49


# --- NodeResourcesBalancedAllocation -------------------------------------------------------------------

CPU_MEM = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
CPU_MEM_GPU = (*CPU_MEM, ResourceSpec(GPU, 1))


def m(cpu: int, memory: int, **extra: int) -> Pod:
    return pod({"cpu": cpu, "memory": memory, **extra})


# (name, resources, pod, nodes, scores); cpu in millicores (makeNode).
BalancedCase = tuple[str, tuple[ResourceSpec, ...], Pod, list[tuple[dict[str, int], list[Pod]]], list[int]]

BALANCED_CASES: list[BalancedCase] = [
    (
        "nothing scheduled, resources requested, differently sized nodes",
        CPU_MEM,
        m(3000, 5000),
        [(milli(4000, 10000), []), (milli(6000, 10000), [])],
        [87, 100],
    ),
    (
        "resources requested, pods scheduled with resources",
        CPU_MEM,
        m(3000, 5000),
        [(milli(10000, 20000), [pod({"cpu": 3000})]), (milli(10000, 20000), [m(3000, 5000)])],
        [82, 95],
    ),
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        CPU_MEM,
        m(3000, 5000),
        [(milli(10000, 20000), [pod({"cpu": 3000})]), (milli(10000, 50000), [m(3000, 5000)])],
        [82, 80],
    ),
    (
        "resources requested, pods scheduled with resources, nodes to reach min/max score",
        CPU_MEM,
        pod({"memory": 5000}),
        [(milli(3000, 5000), [pod({"cpu": 3000})]), (milli(3000, 5000), [])],
        [100, 50],
    ),
    (
        "requested resources at node capacity",
        CPU_MEM,
        pod({"cpu": 3000}),
        [(milli(6000, 10000), [pod({"cpu": 3000})]), (milli(6000, 10000), [m(3000, 5000)])],
        [50, 75],
    ),
    (
        "scalar resource is included in the score computation if pod requests the scalar resource",
        CPU_MEM_GPU,
        pod({GPU: 1}),
        [
            (milli(3500, 40000, **{GPU: 8}), [m(3000, 5000, **{GPU: 3})]),
            (milli(3500, 40000, **{GPU: 8}), [m(3000, 5000)]),
        ],
        [70, 65],
    ),
    (
        "scalar resource is not included in the score computation if pod doesn't request the scalar resource",
        CPU_MEM_GPU,
        m(3000, 5000),
        [(milli(3500, 40000, **{GPU: 8}), []), (milli(3500, 40000), [])],
        [63, 63],
    ),
]


def balanced(infos: list[NodeInfo], resources: tuple[ResourceSpec, ...] = CPU_MEM) -> BalancedAllocation:
    return BalancedAllocation(handle(infos), NodeResourcesBalancedAllocationArgs(resources))


@pytest.mark.parametrize("pre_score", [True, False], ids=["with PreScore", "if PreScore not called"])
@pytest.mark.parametrize("name,resources,p,nodes,want", BALANCED_CASES, ids=[c[0] for c in BALANCED_CASES])
def test_balanced_allocation(
    name: str,
    resources: tuple[ResourceSpec, ...],
    p: Pod,
    nodes: list[tuple[dict[str, int], list[Pod]]],
    want: list[int],
    pre_score: bool,
) -> None:
    infos = infos_of(nodes)
    plugin = balanced(infos, resources)
    state = CycleState()
    if pre_score:
        assert plugin.pre_score(state, p, infos) is None
    assert [plugin.score(state, p, info) for info in infos] == want


def test_balanced_allocation_skips_best_effort_pods() -> None:
    # "nothing scheduled, nothing requested, skip in PreScore"; counting only the configured resources.
    infos = infos_of([(milli(4000, 10000), []), (milli(4000, 10000), [])])
    plugin = balanced(infos)
    for p in (pod(), pod({"ephemeral-storage": 5}, NON_ZERO)):
        status = plugin.pre_score(CycleState(), p, infos)
        assert status is not None and status.code == Code.SKIP
        assert plugin.score(CycleState(), p, infos[0]) == 0


def test_balanced_allocation_counts_requests_not_non_zero_defaults() -> None:
    # With the defaults, node1 would look full on cpu; balance counts only what is requested.
    infos = infos_of([(milli(200, 1000), [pod({}, NON_ZERO)]), (milli(200, 1000), [])])
    plugin = balanced(infos)
    p = pod({"memory": 500}, {"cpu": 100, "memory": 500})
    state = CycleState()
    assert plugin.pre_score(state, p, infos) is None
    # Both: cpu 0/200, memory 500/1000 with the pod: std 0.25, so 75.
    assert [plugin.score(state, p, info) for info in infos] == [75, 75]


# --- Through the framework -----------------------------------------------------------------------------


def framework_of(infos: list[NodeInfo], fit_args: NodeResourcesFitArgs | None = None) -> Framework:
    entries = (PluginEntry("NodeResourcesFit", 1), PluginEntry("NodeResourcesBalancedAllocation", 1))
    args: dict[str, object] = {} if fit_args is None else {"NodeResourcesFit": fit_args}
    profile = Profile(plugins={MULTI_POINT: PluginSet(entries)}, args=args)
    return Framework(profile, handle(infos))


def test_framework_filters_and_scores_with_both_plugins() -> None:
    infos = infos_of(
        [
            (cores(4, 8000, pods=10), [pod(cm(3, 1000))]),
            (cores(4, 8000, pods=10), [pod(cm(1, 1000))]),
            (cores(4, 8000, pods=1), [pod(cm(1, 1000))]),
        ]
    )
    fw = framework_of(infos)
    p = pod(cm(2, 2000))
    state = CycleState()
    assert fw.run_pre_filter(state, p, infos).status is None
    statuses = [fw.run_filters(state, p, info) for info in infos]
    assert statuses[1] is None
    first, third = statuses[0], statuses[2]
    assert first is not None and (first.code, first.reasons, first.plugin) == (
        UNSCHED,
        (ins("cpu"),),
        "NodeResourcesFit",
    )
    assert third is not None and third.reasons == ("Too many pods",)
    [scores] = fw.run_scores(state, p, [infos[1]])
    # cpu 3/4, memory 3000/8000: least allocated (25 + 62) / 2; balance 100 * (1 - 0.1875).
    assert scores.plugin == {"NodeResourcesFit": 43, "NodeResourcesBalancedAllocation": 81}


def test_framework_skips_balanced_allocation_for_best_effort_pods() -> None:
    infos = infos_of([({}, []), ({}, [])])
    fw = framework_of(infos)
    p = pod({}, NON_ZERO)
    state = CycleState()
    assert fw.run_pre_filter(state, p, infos).status is None
    assert [fw.run_filters(state, p, info) for info in infos] == [None, None]
    scores = fw.run_scores(state, p, infos)
    assert [s.plugin for s in scores] == [{"NodeResourcesFit": 0}] * 2


def test_unknown_scoring_strategy_is_refused() -> None:
    with pytest.raises(ValueError, match="scoring strategy Spread is not supported"):
        Fit(handle([]), NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("Spread")))


def test_framework_error_when_filter_state_is_missing() -> None:
    infos = infos_of([({"pods": 1}, [])])
    fw = framework_of(infos)
    with pytest.raises(FrameworkError, match="PreFilterNodeResourcesFit"):
        fw.run_filters(CycleState(), pod(), infos[0])
