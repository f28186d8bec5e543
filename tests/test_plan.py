"""The batch planner (solver/cluster/plan) as a library: cpsat places at least what kube-scheduler (greedy)
places and more where greedy fragments MIG GPUs, every plan passes the Solution validator, gangs are
all-or-nothing, a higher priority goes first, the scheduler's filters hold between the pods planned
together, existing allocations stay as they are, and the objectives do what they say.

Problems are tiny (a node or three, a GPU or two) so that every answer is known by hand; the generated
MIG inventories come from benchmarks/generate.py, as kubefit users would publish them."""

from __future__ import annotations

import io
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from benchmark_modules import BENCHMARKS, benchmark_module
from cluster_manifests import DRIVER, device_class, gpus
from cluster_manifests import claim as gpu_claim
from cluster_manifests import node as base_node
from cluster_manifests import pod as base_pod
from cluster_manifests import template as one_gpu_template

from kubefit.model.solution import Status
from kubefit.solver.cluster.plan.planner import PlanOptions, PlanResult, plan
from kubefit.solver.validate import validate
from kubefit.translate.dra.build import Built, build

Doc = dict[str, Any]
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
PROFILES = ("1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")
TIME_LIMIT = 15.0


gen = benchmark_module("generate")
bench = benchmark_module("cluster")
NS = gen.NAMESPACE


# --- building problems --------------------------------------------------------------------------------------


def mig_pod(name: str, profile: str, *, priority: str = "", group: str = "") -> Doc:
    """A pending pod with one MIG partition of the profile (the generator's claim templates)."""
    pod = base_pod(name, template_name=None, namespace=NS, requests={"cpu": "1"})
    pod["metadata"]["labels"] = {"app": "mig"}
    container = pod["spec"]["containers"][0]
    container["resources"]["claims"] = [{"name": "mig"}]
    pod["spec"]["resourceClaims"] = [{"name": "mig", "resourceClaimTemplateName": gen.template_name(profile)}]
    if priority:
        pod["spec"]["priorityClassName"] = priority
    if group:
        pod["spec"]["schedulingGroup"] = {"podGroupName": group}
    return pod


def mig_templates() -> list[Doc]:
    return [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": gen.template_name(p), "namespace": NS},
            "spec": {"spec": gen.mig_claim_spec(p)},
        }
        for p in PROFILES
    ]


def mig_docs(nodes: int, gpus: int, pods: Sequence[Doc], busy: float = 0.0, seed: int = 1) -> list[Doc]:
    """`nodes` A100 nodes of `gpus` partitionable GPUs, the batch namespace and MIG templates, and `pods`."""
    return [*gen.mig_cluster(nodes, gpus, seed, busy), bench.namespace(NS), *mig_templates(), *pods]


def priority_class(name: str, value: int) -> Doc:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }


def pod_group(name: str, min_count: int, namespace: str = NS) -> Doc:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def plain_node(
    name: str,
    *,
    zone: str = "a",
    cpu: str = "8",
    pods: str = "110",
    taints: Sequence[Doc] = (),
    **labels: str,
) -> Doc:
    doc = base_node(
        name, labels={ZONE: zone, **labels}, allocatable={"cpu": cpu, "memory": "32Gi", "pods": pods}
    )
    if taints:
        doc["spec"] = {"taints": list(taints)}
    return doc


def web_pod(name: str, *, cpu: str = "1", app: str = "web", memory: str = "", **spec: Any) -> Doc:
    """A pending pod without claims, labelled app=<app>."""
    requests = {"cpu": cpu, **({"memory": memory} if memory else {})}
    pod = base_pod(name, template_name=None, requests=requests, **spec)
    pod["metadata"]["labels"] = {"app": app}
    return pod


def term(app: str, key: str) -> Doc:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}


def built_of(docs: Sequence[Doc]) -> Built:
    objects = bench.load_docs(docs)
    assert objects.warnings == []
    return build(objects)


def planned(built: Built, engine: str = "cpsat", objective: str = "pack", **more: Any) -> PlanResult:
    """The plan, checked the way every plan must be: the Solution validator finds nothing."""
    result = plan(built.problem, PlanOptions(engine, objective, TIME_LIMIT, 1, False, **more))
    assert validate(built.problem, result.solution) == []
    allocated = {o.unit for o in result.solution.units if o.status == Status.ALLOCATED}
    assert allocated == set(result.placements)
    return result


def nodes_of(built: Built, result: PlanResult) -> dict[str, str]:
    """Pod name (without namespace) -> node, for the pods the plan places."""
    return {built.problem.units[u].name.split("/")[-1]: p.node for u, p in sorted(result.placements.items())}


def pending_of(built: Built, result: PlanResult) -> list[str]:
    return sorted(
        built.problem.units[o.unit].name.split("/")[-1]
        for o in result.solution.units
        if o.status != Status.ALLOCATED
    )


def by_priority(built: Built, result: PlanResult) -> list[int]:
    """Pods placed per priority, the highest first: the planner's first objective, compared as a vector."""
    cluster = built.problem.cluster
    assert cluster is not None
    priority = {u.id: cluster.pending[u.id].priority for u in built.problem.units}
    levels = sorted(set(priority.values()), reverse=True)
    return [sum(1 for u in result.placements if priority[u] == p) for p in levels]


def devices_of(built: Built, result: PlanResult) -> dict[str, list[str]]:
    """Pod name -> the devices of its claims."""
    problem = built.problem
    return {
        problem.units[u].name.split("/")[-1]: [
            problem.devices[r.device].name for a in p.allocations for r in a.results
        ]
        for u, p in sorted(result.placements.items())
    }


def counter_sets_touched(built: Built, result: PlanResult) -> set[tuple[str, str]]:
    devices = built.problem.devices
    return {
        (devices[r.device].pool, use.counter_set)
        for p in result.placements.values()
        for a in p.allocations
        for r in a.results
        for use in devices[r.device].consumes
    }


# --- cpsat against greedy -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Generated:
    nodes: int
    gpus: int
    load: float
    mix: Mapping[str, int]
    seed: int
    busy: float = 0.0
    gangs: int = 0
    priorities: Mapping[str, int] | None = None

    def docs(self) -> list[Doc]:
        cluster = gen.mig_cluster(self.nodes, self.gpus, self.seed, self.busy)
        pods = gen.mig_pods(
            self.nodes, self.gpus, self.load, self.mix, self.seed, self.gangs, 2, self.priorities
        )
        return [*cluster, *pods]


GENERATED = {
    "an idle cluster of 2 nodes x 2 GPUs at 120% with the default mix": Generated(
        2, 2, 1.2, gen.DEFAULT_MIX, 1
    ),
    "a busy cluster with a gang and two priorities": Generated(
        2, 2, 1.1, gen.DEFAULT_MIX, 2, 0.4, 1, {"low": 0, "high": 1000}
    ),
    "whole GPUs and single slices only": Generated(2, 2, 1.0, {"1g.10gb": 3, "7g.80gb": 1}, 3),
    "one node of 3 GPUs, mostly 3g and 4g": Generated(
        1, 3, 1.1, {"3g.40gb": 2, "4g.40gb": 2, "1g.10gb": 1}, 4
    ),
}


@pytest.mark.parametrize("case", GENERATED.values(), ids=GENERATED.keys())
def test_cpsat_places_at_least_what_greedy_places_by_priority_and_both_plans_are_valid(
    case: Generated,
) -> None:
    built = built_of(case.docs())
    greedy = planned(built, "greedy")
    cpsat = planned(built, "cpsat")
    assert greedy.status == "heuristic"
    assert cpsat.status == "optimal"
    assert by_priority(built, cpsat) >= by_priority(built, greedy)
    assert cpsat.bound == len(cpsat.placements)


def test_cpsat_plans_gpus_and_nics_under_one_pcie_root_at_least_as_well_as_greedy() -> None:
    built = built_of([*gen.pcie_cluster(1, seed=2, busy=0.3), *gen.pcie_pods(12, seed=2)])
    greedy = planned(built, "greedy")
    cpsat = planned(built, "cpsat")
    assert len(cpsat.placements) >= len(greedy.placements) > 0
    problem = built.problem
    for p in cpsat.placements.values():
        for a in p.allocations:
            roots = {
                str(problem.devices[r.device].attributes.get(gen.PCIE_ROOT))
                for r in a.results
                if problem.devices[r.device].driver != gen.CPU_DRIVER
            }
            assert len(roots) <= 1, a


@dataclass(frozen=True)
class Fragmenting:
    nodes: int
    gpus: int
    queue: tuple[str, ...]  # profiles, in queue order
    greedy_pending: tuple[str, ...]  # the pods kube-scheduler leaves pending


# Pods are p0, p1, ... in queue order. kube-scheduler takes the first free placement for each pod in turn,
# and spreads pods over nodes (LeastAllocated): slices end up where a later, bigger partition needed them.
FRAGMENTING = {
    "a 1g at slice 0 blocks the only 4g placement on the one GPU": Fragmenting(
        1, 1, ("1g.10gb", "4g.40gb", "2g.20gb"), ("p1",)
    ),
    "two 1g spread over two nodes leave no whole GPU for a 7g": Fragmenting(
        2, 1, ("1g.10gb", "1g.10gb", "7g.80gb"), ("p2",)
    ),
    "a 1g at the front of one of two GPUs leaves one 4g without a place": Fragmenting(
        1, 2, ("1g.10gb", "4g.40gb", "4g.40gb", "3g.40gb"), ("p2",)
    ),
}


@pytest.mark.parametrize("case", FRAGMENTING.values(), ids=FRAGMENTING.keys())
def test_on_fragmenting_mig_mixes_cpsat_places_every_pod_where_greedy_leaves_some_pending(
    case: Fragmenting,
) -> None:
    pods = [mig_pod(f"p{i}", profile) for i, profile in enumerate(case.queue)]
    built = built_of(mig_docs(case.nodes, case.gpus, pods))
    greedy = planned(built, "greedy")
    cpsat = planned(built, "cpsat")
    assert pending_of(built, greedy) == list(case.greedy_pending)
    assert pending_of(built, cpsat) == []
    assert (cpsat.status, cpsat.bound) == ("optimal", len(case.queue))


# --- gangs and priorities -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GangCase:
    docs: list[Doc]
    gang: tuple[str, ...]  # the gang's pending pods
    min_count: int
    placed: bool  # whether the best plan places the gang


GANGS = {
    "three whole GPUs asked of two: none of the gang is placed, the 1g beside it is": GangCase(
        [
            *mig_docs(1, 2, [mig_pod(f"train-{i}", "7g.80gb", group="train") for i in range(3)]),
            mig_pod("solo", "1g.10gb"),
            pod_group("train", 3),
        ],
        ("train-0", "train-1", "train-2"),
        3,
        False,
    ),
    "a minimum of two of three whole GPUs on two: two are placed": GangCase(
        [
            *mig_docs(1, 2, [mig_pod(f"train-{i}", "7g.80gb", group="train") for i in range(3)]),
            pod_group("train", 2),
        ],
        ("train-0", "train-1", "train-2"),
        2,
        True,
    ),
    "a 1g queued first would split the two nodes: the plan leaves it for the gang of two": GangCase(
        [
            *mig_docs(2, 1, [mig_pod("solo", "1g.10gb")]),
            *(mig_pod(f"train-{i}", "7g.80gb", group="train") for i in range(2)),
            pod_group("train", 2),
        ],
        ("train-0", "train-1"),
        2,
        True,
    ),
}


@pytest.mark.parametrize("case", GANGS.values(), ids=GANGS.keys())
def test_a_gang_is_placed_all_or_nothing(case: GangCase) -> None:
    built = built_of(case.docs)
    placed = {}
    for engine in ("greedy", "cpsat"):
        placed[engine] = [p for p in case.gang if p in nodes_of(built, planned(built, engine))]
        assert len(placed[engine]) in (0, *range(case.min_count, len(case.gang) + 1)), (engine, placed)
    assert (len(placed["cpsat"]) >= case.min_count) == case.placed, placed


def test_a_gang_with_a_member_running_needs_only_the_rest_of_its_minimum() -> None:
    running = web_pod("member-0", cpu="1", schedulingGroup={"podGroupName": "train"}, nodeName="n1")
    members = [web_pod(f"member-{i}", cpu="2", schedulingGroup={"podGroupName": "train"}) for i in (1, 2)]
    group = pod_group("train", 3, "default")
    for cpu, placed in (("4", 0), ("5", 2)):  # after the running member: room for one, then for two
        built = built_of([plain_node("n1", cpu=cpu), running, *members, group])
        for engine in ("greedy", "cpsat"):
            assert len(planned(built, engine).placements) == placed, (cpu, engine)


@dataclass(frozen=True)
class PriorityCase:
    high: tuple[str, ...]  # profiles of the pods of PriorityClass high (1000), queued after the low ones
    low: tuple[str, ...]  # profiles of the pods of PriorityClass low (0)
    placed: list[int]  # high, low placed by the plan
    most: int  # the most pods placeable with no priorities at all


PRIORITIES = {
    "a whole GPU for one high pod rather than three 1g for low ones": PriorityCase(
        ("7g.80gb",), ("1g.10gb",) * 3, [1, 0], 3
    ),
    "two high 3g fill the GPU where one 3g and four low 1g would have fitted": PriorityCase(
        ("3g.40gb",) * 3, ("1g.10gb",) * 4, [2, 0], 5
    ),
    "low 1g pods fill what a high 4g leaves": PriorityCase(("4g.40gb",), ("1g.10gb",) * 4, [1, 3], 4),
}


@pytest.mark.parametrize("case", PRIORITIES.values(), ids=PRIORITIES.keys())
def test_a_higher_priority_is_placed_first_even_when_that_places_fewer_pods(case: PriorityCase) -> None:
    low = [mig_pod(f"low-{i}", p, priority="low") for i, p in enumerate(case.low)]
    high = [mig_pod(f"high-{i}", p, priority="high") for i, p in enumerate(case.high)]
    classes = [priority_class("low", 0), priority_class("high", 1000)]
    built = built_of([*mig_docs(1, 1, [*low, *high]), *classes])
    result = planned(built)
    assert by_priority(built, result) == case.placed
    assert (result.status, result.bound) == ("optimal", sum(case.placed))
    plain = [mig_pod(f"p{i}", p) for i, p in enumerate((*case.low, *case.high))]
    alike = built_of(mig_docs(1, 1, plain))
    assert len(planned(alike).placements) == case.most


# --- the scheduler's filters between pods planned together ----------------------------------------------

Placed = dict[str, str]  # pod -> node


def zone_of(docs: Sequence[Doc]) -> dict[str, str]:
    return {d["metadata"]["name"]: d["metadata"]["labels"][ZONE] for d in docs if d["kind"] == "Node"}


def distinct_nodes(pods: Sequence[str]) -> Callable[[Placed, Mapping[str, str]], bool]:
    return lambda placed, zones: (
        len({placed[p] for p in pods if p in placed}) == sum(p in placed for p in pods)
    )


@dataclass(frozen=True)
class FilterCase:
    docs: list[Doc]
    placed: int  # pods the best plan places
    # The rule, checked on the plan (pod -> node) and the nodes' zones, independently of the scheduler's code
    # (None: the number of pods placed is the rule's whole effect).
    holds: Callable[[Placed, Mapping[str, str]], bool] | None = None
    greedy_placed: int | None = None  # when kube-scheduler places fewer, how many


TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
TOLERATION = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
SPREAD = {
    "maxSkew": 1,
    "topologyKey": ZONE,
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"app": "web"}},
}


def port(host_ip: str = "") -> list[Doc]:
    """The containers of a pod that takes host port 8080 (on one address, or on all)."""
    spec = {"containerPort": 80, "hostPort": 8080, **({"hostIP": host_ip} if host_ip else {})}
    return [{"name": "main", "image": "registry.example.com/app:1", "ports": [spec]}]


def required(kind: str, *terms: Doc) -> Doc:
    """A pod's affinity: `kind` (podAffinity, podAntiAffinity) with required terms."""
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


FILTERS = {
    "untolerated taint: only the pod that tolerates it goes to the tainted node": FilterCase(
        [
            plain_node("tainted", taints=[TAINT]),
            plain_node("plain", cpu="2"),
            *(web_pod(f"web-{i}") for i in range(3)),
            web_pod("tolerant", tolerations=[TOLERATION]),
        ],
        3,
        lambda placed, zones: (
            all(n != "tainted" for p, n in placed.items() if p != "tolerant")
            and placed.get("tolerant") == "tainted"
        ),
    ),
    "nodeSelector: only the ssd node, room for two": FilterCase(
        [
            plain_node("ssd", cpu="2", disk="ssd"),
            plain_node("hdd", disk="hdd"),
            *(web_pod(f"web-{i}", nodeSelector={"disk": "ssd"}) for i in range(3)),
        ],
        2,
        lambda placed, zones: set(placed.values()) == {"ssd"},
    ),
    "required node affinity for zone b, room for one": FilterCase(
        [
            plain_node("in-a", zone="a"),
            plain_node("in-b", zone="b", cpu="1"),
            *(
                web_pod(
                    f"web-{i}",
                    affinity={
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": [
                                    {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["b"]}]}
                                ]
                            }
                        }
                    },
                )
                for i in range(2)
            ),
        ],
        1,
        lambda placed, zones: set(placed.values()) == {"in-b"},
    ),
    "hostname anti-affinity: three replicas on two nodes, two placed apart": FilterCase(
        [
            plain_node("n1"),
            plain_node("n2"),
            *(
                web_pod(
                    f"web-{i}",
                    affinity={
                        "podAntiAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": [term("web", HOSTNAME)]
                        }
                    },
                )
                for i in range(3)
            ),
        ],
        2,
        distinct_nodes(["web-0", "web-1", "web-2"]),
    ),
    "zone affinity of a group to itself: all four in the zone that holds four": FilterCase(
        [
            plain_node("a1", zone="a", cpu="2"),
            plain_node("b1", zone="b", cpu="2"),
            plain_node("b2", zone="b", cpu="2"),
            *(
                web_pod(
                    f"db-{i}",
                    app="db",
                    affinity={
                        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term("db", ZONE)]}
                    },
                )
                for i in range(4)
            ),
        ],
        4,  # all in zone b: zone a holds two
        lambda placed, zones: len({zones[n] for n in placed.values()}) == 1,
        greedy_placed=2,  # kube-scheduler's first pod went to zone a
    ),
    "zone spread with maxSkew 1: zone b holds one, so zone a only two": FilterCase(
        [
            plain_node("a1", zone="a"),
            plain_node("a2", zone="a"),
            plain_node("b1", zone="b", cpu="1"),
            *(web_pod(f"web-{i}", topologySpreadConstraints=[SPREAD]) for i in range(5)),
        ],
        3,
        lambda placed, zones: sorted(Counter(zones[n] for n in placed.values()).values()) == [1, 2],
    ),
    "anti-affinity to another group: kube-scheduler spreads the db pods where web needed a node": FilterCase(
        [
            plain_node("n1"),
            plain_node("n2"),
            *(web_pod(f"db-{i}", app="db") for i in range(2)),
            *(
                web_pod(f"web-{i}", affinity=required("podAntiAffinity", term("db", HOSTNAME)))
                for i in range(2)
            ),
        ],
        4,
        lambda placed, zones: (
            not {n for p, n in placed.items() if p.startswith("db")}
            & {n for p, n in placed.items() if p.startswith("web")}
        ),
        greedy_placed=2,
    ),
    "a running pod's anti-affinity keeps the pending pods off its node": FilterCase(
        [
            plain_node("n1"),
            plain_node("n2", cpu="1"),
            web_pod(
                "guard",
                app="guard",
                nodeName="n1",
                affinity=required("podAntiAffinity", term("web", HOSTNAME)),
            ),
            *(web_pod(f"web-{i}") for i in range(2)),
        ],
        1,
        lambda placed, zones: set(placed.values()) == {"n2"},
    ),
    "affinity to a pending pod of another group: web joins db in the zone with room for both": FilterCase(
        [
            plain_node("a1", zone="a", cpu="3"),
            plain_node("b1", zone="b", cpu="1"),
            *(web_pod(f"web-{i}", affinity=required("podAffinity", term("db", ZONE))) for i in range(2)),
            web_pod("db-0", app="db"),
        ],
        3,
        lambda placed, zones: all(
            zones[n] in {zones[m] for p, m in placed.items() if p.startswith("db")}
            for p, n in placed.items()
            if p.startswith("web")
        ),
    ),
    "a self-affine group joins the zone of its running member": FilterCase(
        [
            plain_node("a1", zone="a"),
            plain_node("b1", zone="b", cpu="2"),
            plain_node("b2", zone="b", cpu="1"),
            web_pod("db-running", app="db", nodeName="b1"),
            *(
                web_pod(f"db-{i}", app="db", affinity=required("podAffinity", term("db", ZONE)))
                for i in range(3)
            ),
        ],
        2,
        lambda placed, zones: {zones[n] for n in placed.values()} == {"b"},
    ),
    "a self-affine group lands in one zone where two zones could each hold half of it": FilterCase(
        [
            plain_node("a1", zone="a", cpu="2"),
            plain_node("b1", zone="b", cpu="2"),
            *(
                web_pod(f"db-{i}", app="db", affinity=required("podAffinity", term("db", ZONE)))
                for i in range(4)
            ),
        ],
        2,
        lambda placed, zones: len({zones[n] for n in placed.values()}) == 1,
    ),
    "hostname spread with minDomains 3 over two nodes: one pod per node": FilterCase(
        [
            plain_node("n1"),
            plain_node("n2"),
            *(
                web_pod(
                    f"web-{i}",
                    topologySpreadConstraints=[{**SPREAD, "topologyKey": HOSTNAME, "minDomains": 3}],
                )
                for i in range(4)
            ),
        ],
        2,
        distinct_nodes([f"web-{i}" for i in range(4)]),
    ),
    "host ports on two addresses share a node, the wildcard address conflicts with both": FilterCase(
        [
            plain_node("n1"),
            web_pod("ip-1", containers=port(host_ip="10.0.0.1")),
            web_pod("ip-2", containers=port(host_ip="10.0.0.2")),
            web_pod("any", containers=port()),
        ],
        2,
        lambda placed, zones: set(placed) == {"ip-1", "ip-2"},
    ),
    "the same host port: one pod per node": FilterCase(
        [
            plain_node("n1"),
            plain_node("n2"),
            *(web_pod(f"web-{i}", containers=port()) for i in range(3)),
        ],
        2,
        distinct_nodes(["web-0", "web-1", "web-2"]),
    ),
    "node cpu: three of five 1-cpu pods on 3 cpus": FilterCase(
        [plain_node("n1", cpu="3"), *(web_pod(f"web-{i}") for i in range(5))], 3
    ),
    "node memory: two 12Gi pods in 32Gi": FilterCase(
        [plain_node("n1"), *(web_pod(f"web-{i}", memory="12Gi") for i in range(4))], 2
    ),
    "node pods: a slot of two taken by a running pod leaves one": FilterCase(
        [
            plain_node("n1", pods="2"),
            web_pod("running", nodeName="n1"),
            *(web_pod(f"web-{i}") for i in range(3)),
        ],
        1,
    ),
}


@pytest.mark.parametrize(
    "case",
    [pytest.param(case, id=name) for name, case in FILTERS.items()],
)
def test_the_plan_keeps_every_filter_between_the_pods_it_places_together(case: FilterCase) -> None:
    built = built_of(case.docs)
    zones = zone_of(case.docs)
    cpsat = planned(built)
    placed = nodes_of(built, cpsat)
    assert (len(placed), cpsat.status, cpsat.note) == (case.placed, "optimal", "")
    greedy = nodes_of(built, planned(built, "greedy"))
    if case.holds is not None:
        assert case.holds(placed, zones), placed
        assert case.holds(greedy, zones), greedy
    assert len(greedy) == (case.placed if case.greedy_placed is None else case.greedy_placed)


# --- existing allocations -----------------------------------------------------------------------------------


def running_gpu_pod(name: str, node: str, device: str) -> list[Doc]:
    """A running pod on `node` whose claim holds `device` of the plain GPUs (cluster_manifests.gpus)."""
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": f"{name}-gpu", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER}}]}},
        "status": {
            "allocation": {
                "devices": {"results": [{"request": "gpu", "driver": DRIVER, "pool": node, "device": device}]}
            },
            "reservedFor": [{"resource": "pods", "name": name, "uid": f"uid-{name}"}],
        },
    }
    pod = base_pod(name, template_name=None, claim_name=f"{name}-gpu", nodeName=node)
    pod["metadata"]["uid"] = f"uid-{name}"
    return [claim, pod]


def test_a_running_pods_device_is_never_planned_for_a_pending_pod() -> None:
    docs = [
        device_class(),
        one_gpu_template(),
        plain_node("n1"),
        gpus("n1", 2),
        *running_gpu_pod("old", "n1", "gpu-0"),
        *(base_pod(f"new-{i}") for i in range(2)),
    ]
    built = built_of(docs)
    for engine in ("greedy", "cpsat"):
        result = planned(built, engine)
        assert list(devices_of(built, result).values()) == [["gpu-1"]], engine


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_on_busy_mig_gpus_the_plan_draws_only_on_free_devices_and_counters(seed: int) -> None:
    docs = [*gen.mig_cluster(2, 2, seed, 0.7), *gen.mig_pods(2, 2, 1.0, gen.DEFAULT_MIX, seed)]
    built = built_of(docs)
    problem = built.problem
    held = [d.ref for d in problem.devices if problem.in_use.allocated(d.ref)]
    assert held, "the cluster has running MIG partitions"
    for engine in ("greedy", "cpsat"):
        result = planned(built, engine)
        planned_devices = {
            problem.devices[r.device].ref
            for p in result.placements.values()
            for a in p.allocations
            for r in a.results
        }
        assert not planned_devices & set(held)
        assert planned_devices
        # The validator checks counters too; here, independently: no memory slice of a GPU taken twice.
        slices: Counter[tuple[str, str, str]] = Counter()
        for d in problem.devices:
            if d.ref in planned_devices or d.ref in held:
                for use in d.consumes:
                    slices.update(
                        (d.pool, use.counter_set, c) for c in use.counters if c.startswith("memory-slice")
                    )
        assert max(slices.values()) == 1


# --- determinism and objectives -----------------------------------------------------------------------------


def test_the_same_problem_twice_gives_the_same_plan() -> None:
    docs = Generated(2, 2, 1.2, gen.DEFAULT_MIX, 5, 0.3, 1, {"low": 0, "high": 10}).docs()
    runs = []
    for _ in range(2):
        built = built_of(docs)
        result = planned(built)
        runs.append((nodes_of(built, result), devices_of(built, result), result.status, result.bound))
    assert runs[0] == runs[1]


def busiest(result: PlanResult) -> int:
    return max(Counter(p.node for p in result.placements.values()).values())


@pytest.mark.parametrize("seed", [1, 2])
def test_pack_touches_no_more_gpus_than_spread_and_spread_loads_no_node_more_than_pack(seed: int) -> None:
    # Half the cluster's slices asked for: everything fits, so the objectives alone decide where.
    built = built_of([*gen.mig_cluster(3, 2, seed), *gen.mig_pods(3, 2, 0.5, gen.DEFAULT_MIX, seed)])
    results = {objective: planned(built, "cpsat", objective) for objective in ("pack", "spread", "scheduler")}
    everyone = len(built.problem.units)
    assert {o: len(r.placements) for o, r in results.items()} == dict.fromkeys(results, everyone)
    pack, spread = results["pack"], results["spread"]
    assert len(counter_sets_touched(built, pack)) <= len(counter_sets_touched(built, spread))
    assert len(counter_sets_touched(built, pack)) <= len(counter_sets_touched(built, results["scheduler"]))
    assert busiest(spread) <= busiest(pack)
    assert busiest(spread) == -(-everyone // 3)  # as even as three nodes allow


# --- an independent brute force over MIG layouts -----------------------------------------------------------

# A100-80GB: 8 memory slices and 98 multiprocessors per GPU; a profile takes `size` slices from one of its
# placement starts and its multiprocessors (the generator's table, as NVIDIA documents it).
MIG = {p[0]: (p[5], p[2], tuple(p[4])) for p in bench.MIG_PROFILES}
GpuState = tuple[int, int]  # (memory slices taken, as a bit mask; multiprocessors taken)


def most_placeable(profiles: Sequence[str], gpus: Sequence[GpuState], weights: Sequence[int] = ()) -> int:
    """The most pods (one MIG partition of the profile each; with `weights`, the highest sum of their
    weights) that fit on the GPUs together, by exhaustive search. GPUs in the same state are interchangeable,
    so only one of them is tried."""
    weight = list(weights) or [1] * len(profiles)
    order = sorted(range(len(profiles)), key=lambda i: (-MIG[profiles[i]][0], -weight[i]))
    pods = [(MIG[profiles[i]], weight[i]) for i in order]
    rest = [sum(w for _, w in pods[i:]) for i in range(len(pods) + 1)]
    memo: dict[tuple[int, tuple[GpuState, ...]], int] = {}

    def best(i: int, state: tuple[GpuState, ...]) -> int:
        if i == len(pods):
            return 0
        key = (i, state)
        if key not in memo:
            (size, mps, starts), w = pods[i]
            found = best(i + 1, state)  # this pod left pending
            for g, (taken, used) in enumerate(state):
                if (taken, used) in state[:g] or used + mps > bench.FULL_MULTIPROCESSORS:
                    continue
                for start in starts:
                    mask = ((1 << size) - 1) << start
                    if not taken & mask:
                        after = (*state[:g], (taken | mask, used + mps), *state[g + 1 :])
                        found = max(found, w + best(i + 1, tuple(sorted(after))))
                if found == rest[i]:
                    break
            memo[key] = found
        return memo[key]

    return best(0, tuple(sorted(gpus)))


def idle(gpus: int) -> list[GpuState]:
    return [(0, 0)] * gpus


def gpu_states(built: Built) -> list[GpuState]:
    """Every GPU's memory slices and multiprocessors taken by running pods, read off the devices in use."""
    problem = built.problem
    states: dict[tuple[str, str], GpuState] = {}
    for view in problem.views.values():
        for pool in view.pools:
            for name in pool.counter_sets:
                states[(pool.ref, name)] = (0, 0)
    for d in problem.devices:
        if not problem.in_use.allocated(d.ref):
            continue
        for use in d.consumes:
            key = (f"{d.driver}/{d.pool}", use.counter_set)
            taken, used = states[key]
            for counter, value in use.counters.items():
                if counter.startswith("memory-slice-"):
                    taken |= 1 << int(counter.removeprefix("memory-slice-"))
                elif counter == "multiprocessors":
                    used += int(value)
            states[key] = (taken, used)
    return sorted(states.values())


BRUTE = {
    "seven 1g fill a GPU, the eighth finds no slice": (("1g.10gb",) * 8, 1, 7),
    "a 4g and a 3g fill a GPU by multiprocessors": (("4g.40gb", "3g.40gb", "1g.10gb"), 1, 2),
    "a 4g, a 2g and a 1g fill a GPU": (("4g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"), 1, 3),
    "two 3g share a GPU, the third takes another": (("3g.40gb",) * 3 + ("7g.80gb",), 2, 3),
}


@pytest.mark.parametrize(("profiles", "gpus", "most"), BRUTE.values(), ids=BRUTE.keys())
def test_the_brute_force_knows_the_a100_layouts(profiles: tuple[str, ...], gpus: int, most: int) -> None:
    assert most_placeable(profiles, idle(gpus)) == most
    built = built_of(mig_docs(1, gpus, [mig_pod(f"p{i}", p) for i, p in enumerate(profiles)]))
    assert len(planned(built).placements) == most


# --- DRA requests beyond one device -------------------------------------------------------------------------


def gpu_template(requests: list[Doc]) -> Doc:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "one-gpu", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": requests}}},
    }


@dataclass(frozen=True)
class DraCase:
    docs: list[Doc]
    devices: dict[str, int]  # pod -> how many devices the plan gives it (pods not listed stay pending)
    shared: bool = False  # the pods share their claim: one allocation (on any one of them), one node


TWO_OR_ONE = gpu_template(
    [
        {
            "name": "gpu",
            "firstAvailable": [
                {"name": "two", "deviceClassName": DRIVER, "count": 2},
                {"name": "one", "deviceClassName": DRIVER, "count": 1},
            ],
        }
    ]
)
DRA = {
    "a prioritized list: three pods on four GPUs, each with the one-GPU alternative": DraCase(
        [device_class(), TWO_OR_ONE, plain_node("n1"), gpus("n1", 4), *(base_pod(f"p{i}") for i in range(3))],
        {"p0": 1, "p1": 1, "p2": 1},
    ),
    "two GPUs a pod: five and three GPUs hold three pods": DraCase(
        [
            device_class(),
            one_gpu_template(count=2),
            plain_node("n1"),
            gpus("n1", 5),
            plain_node("n2"),
            gpus("n2", 3),
            *(base_pod(f"p{i}") for i in range(4)),
        ],
        {"p0": 2, "p1": 2, "p2": 2},
    ),
    "three pods sharing one claim: one GPU for all of them, on its node": DraCase(
        [
            device_class(),
            plain_node("n1"),
            gpus("n1", 1),
            plain_node("n2"),
            gpus("n2", 1),
            gpu_claim("shared"),
            *(base_pod(f"p{i}", claim_name="shared") for i in range(3)),
        ],
        {"p0": 1, "p1": 0, "p2": 0},
        shared=True,
    ),
}


@pytest.mark.parametrize(
    "case",
    [pytest.param(case, id=name) for name, case in DRA.items()],
)
def test_requests_of_several_devices_alternatives_and_shared_claims_are_planned_exactly(
    case: DraCase,
) -> None:
    built = built_of(case.docs)
    result = planned(built)
    got = {pod: len(devices) for pod, devices in devices_of(built, result).items()}
    assert (result.status, result.bound, result.note) == ("optimal", len(case.devices), "")
    if case.shared:
        assert (set(got), sum(got.values())) == (set(case.devices), sum(case.devices.values()))
        assert len(set(nodes_of(built, result).values())) == 1
    else:
        assert got == case.devices


# --- progress on stderr -------------------------------------------------------------------------------------


def test_progress_line_says_the_phase_the_pods_placed_against_kube_scheduler_the_bound_and_the_gap() -> None:
    from kubefit.solver.cluster.plan.progress import Progress
    from kubefit.solver.deadline import Deadline

    progress = Progress(True, io.StringIO())
    progress.deadline = Deadline(60)
    progress.solving("priority 0", 25)
    progress.found(30)
    progress.bounded(40)
    line = progress.line()
    assert line.startswith("plan: solving priority 0, 30 placed (kube-scheduler 25), bound 40, gap 25.0%, ")
    assert line.endswith("s left")
    progress.enter("kube-scheduler's pass")
    progress.tried(12, 40)
    assert progress.line().startswith("plan: kube-scheduler's pass, 12/40 pods (")


def test_progress_is_written_every_tick_while_a_phase_works_and_not_when_switched_off() -> None:
    from kubefit.solver.cluster.plan.progress import Progress

    stream = io.StringIO()
    with Progress(True, stream, every=0.01) as progress:
        progress.enter("building")
        for _ in range(500):  # a phase that takes a while; the thread writes meanwhile
            if stream.getvalue().count("plan: building") >= 2:
                break
            time.sleep(0.01)
    assert stream.getvalue().count("plan: building") >= 2
    quiet = io.StringIO()
    with Progress(False, quiet, every=0.01):
        time.sleep(0.05)
    assert quiet.getvalue() == ""


def test_no_progress_is_printed_when_it_is_switched_off(capsys: pytest.CaptureFixture[str]) -> None:
    from kubefit.cli import main

    path = str(BENCHMARKS.parent / "examples" / "mig-batch")
    assert main(["plan", "-f", path, "--no-progress", "-o", "json"]) == 1
    assert "plan priority" not in capsys.readouterr().err
