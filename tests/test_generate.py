"""The batch workload generator (benchmarks/generate.py): what it writes is valid input, asks for the
load it was given, is the same for a seed, carries gangs and priorities when asked, and the
scheduler's greedy cycle places pods from it. Sizes stay tiny; the benchmarks measure the big ones."""

from __future__ import annotations

import importlib
import math
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from benchmark_modules import BENCHMARKS, benchmark_module

from kubefit.cli import main as kubefit
from kubefit.model.solution import Status
from kubefit.solver import engines
from kubefit.solver.validate import validate
from kubefit.translate.dra.build import build
from kubefit.translate.validation.run import validate_objects

SCRIPT = BENCHMARKS / "generate.py"
Doc = dict[str, Any]
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return benchmark_module("generate")


def of_kind(docs: list[Doc], kind: str) -> list[Doc]:
    return [d for d in docs if d["kind"] == kind]


def slices_per_profile(cluster: list[Doc]) -> dict[str, int]:
    """Memory slices each MIG profile takes, read off the published devices (not the generator's table)."""
    out: dict[str, int] = {}
    for s in of_kind(cluster, "ResourceSlice"):
        for device in s["spec"].get("devices", []):
            profile = device["attributes"].get("profile", {}).get("string")
            if profile:
                counters = device["consumesCounters"][0]["counters"]
                out[profile] = sum(1 for name in counters if name.startswith("memory-slice-"))
    return out


def profile_of(pod: Doc, workload: list[Doc]) -> str:
    """The profile a pod's claim template selects, from the template's CEL selector."""
    template = pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"]
    (spec,) = [
        t["spec"]["spec"]
        for t in of_kind(workload, "ResourceClaimTemplate")
        if t["metadata"]["name"] == template
    ]
    expression = spec["devices"]["requests"][0]["exactly"]["selectors"][0]["cel"]["expression"]
    match = re.search(r'profile == "([^"]+)"', expression)
    assert match, expression
    return match.group(1)


def greedy(docs: list[Doc]) -> tuple[Any, Any]:
    built = build(_load(docs))
    solution = engines.get("greedy").solve(built.problem, engines.Budget())
    assert validate(built.problem, solution) == []
    return built, solution


def _load(docs: list[Doc]) -> Any:
    # The loader `cluster.py` feeds its own objects through (the fixture put benchmarks/ on the path).
    return importlib.import_module("cluster").load_docs(docs)


@dataclass(frozen=True)
class Case:
    nodes: int
    gpus: int
    busy: float
    gangs: int
    priorities: dict[str, int] | None


CASES = {
    "an idle cluster with the default mix": Case(2, 8, 0.0, 0, None),
    "a busy cluster with gangs and priorities": Case(2, 8, 0.4, 2, {"batch-low": 0, "batch-high": 1000}),
    "nodes with three GPUs each": Case(3, 3, 0.2, 1, {"only": 10}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_generated_cluster_and_pods_load_and_pass_api_validation(gen: ModuleType, case: str) -> None:
    c = CASES[case]
    cluster = gen.mig_cluster(c.nodes, c.gpus, seed=4, busy=c.busy)
    workload = gen.mig_pods(c.nodes, c.gpus, 1.1, gen.DEFAULT_MIX, 4, c.gangs, 3, c.priorities)
    objects = _load([*cluster, *workload])
    assert objects.warnings == []
    assert validate_objects(objects) == []
    assert len(of_kind(cluster, "Node")) == c.nodes
    counter_sets = [
        cs for s in of_kind(cluster, "ResourceSlice") for cs in s["spec"].get("sharedCounters", [])
    ]
    assert len(counter_sets) == c.nodes * c.gpus
    assert bool(of_kind(cluster, "ResourceClaim")) == (c.busy > 0)


LOADS = [
    (2, 8, 0.9, {"1g.10gb": 4, "2g.20gb": 2, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}),
    (3, 8, 1.2, {"7g.80gb": 1}),
    (1, 5, 1.05, {"1g.10gb": 1, "3g.40gb": 3}),
    (4, 2, 1.0, {"2g.20gb": 5, "4g.40gb": 2, "7g.80gb": 0}),
]


@pytest.mark.parametrize(("nodes", "gpus", "load", "mix"), LOADS)
def test_the_pods_ask_for_the_load_within_one_pods_slices_and_in_the_mix(
    gen: ModuleType, nodes: int, gpus: int, load: float, mix: dict[str, int]
) -> None:
    cluster = gen.mig_cluster(nodes, gpus)
    workload = gen.mig_pods(nodes, gpus, load, mix, 7)
    size = slices_per_profile(cluster)
    total = sum(
        len(cs["counters"]) - 1
        for s in of_kind(cluster, "ResourceSlice")
        for cs in s["spec"].get("sharedCounters", [])
    )
    assert total == nodes * gpus * 8
    pods = of_kind(workload, "Pod")
    profiles = Counter(profile_of(p, workload) for p in pods)
    asked = sum(size[p] * n for p, n in profiles.items())
    target = load * total
    assert 0 <= asked - target < max(size[p] for p in profiles)
    assert asked == gen.demand(workload)
    weight = sum(mix.values())
    for profile, w in mix.items():
        assert math.isclose(profiles[profile], len(pods) * w / weight, abs_tol=1), profile


def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_cluster_and_queue(
    gen: ModuleType,
) -> None:
    def stream(seed: int) -> str:
        docs = [
            *gen.mig_cluster(2, 4, seed, 0.5),
            *gen.mig_pods(2, 4, 1.1, gen.DEFAULT_MIX, seed, 1, 2, {"p": 1}),
        ]
        return str(gen.dump(docs))

    assert stream(3) == stream(3)
    assert stream(3) != stream(4)
    names = [
        [p["metadata"]["name"] for p in of_kind(gen.mig_pods(2, 8, 1.0, gen.DEFAULT_MIX, s), "Pod")]
        for s in (1, 2)
    ]
    assert sorted(names[0]) == sorted(names[1]) and names[0] != names[1]
    assert names[0] != sorted(names[0]), "the queue is shuffled"


def test_names_are_stable_and_readable(gen: ModuleType) -> None:
    cluster = gen.mig_cluster(12, 2)
    assert [n["metadata"]["name"] for n in of_kind(cluster, "Node")][:2] == ["gpu-node-001", "gpu-node-002"]
    assert gen.mig_cluster(1000, 1)[2]["metadata"]["name"] == "gpu-node-0001"
    workload = gen.mig_pods(2, 8, 1.0, gen.DEFAULT_MIX, 1, gangs=1, gang_size=2)
    names = {p["metadata"]["name"] for p in of_kind(workload, "Pod")}
    assert {"mig-1g-0000", "mig-3g-0007", "mig-7g-0000", "train-000-0", "train-000-1"} <= names
    assert all(re.fullmatch(r"mig-[12347]g-\d{4}|train-\d{3}-\d", n) for n in names)


def test_gangs_are_pod_groups_whose_pods_share_a_profile_and_queue_together(gen: ModuleType) -> None:
    workload = gen.mig_pods(4, 8, 1.1, gen.DEFAULT_MIX, 5, gangs=3, gang_size=4)
    groups = of_kind(workload, "PodGroup")
    assert [g["metadata"]["name"] for g in groups] == ["train-000", "train-001", "train-002"]
    assert all(g["spec"]["schedulingPolicy"] == {"gang": {"minCount": 4}} for g in groups)
    pods = of_kind(workload, "Pod")
    for group in groups:
        name = group["metadata"]["name"]
        positions = [
            i for i, p in enumerate(pods) if p["spec"].get("schedulingGroup") == {"podGroupName": name}
        ]
        assert len(positions) == 4 and positions == list(range(positions[0], positions[0] + 4))
        assert len({profile_of(pods[i], workload) for i in positions}) == 1
    assert not of_kind(gen.mig_pods(4, 8, 1.1, gen.DEFAULT_MIX, 5), "PodGroup")


def test_pods_are_spread_over_the_priority_classes_asked_for(gen: ModuleType) -> None:
    priorities = {"low": 0, "mid": 500, "high": 1000}
    workload = gen.mig_pods(2, 8, 1.0, gen.DEFAULT_MIX, 2, gangs=2, gang_size=2, priorities=priorities)
    classes = {c["metadata"]["name"]: c["value"] for c in of_kind(workload, "PriorityClass")}
    assert classes == priorities
    pods = of_kind(workload, "Pod")
    by_class = Counter(p["spec"]["priorityClassName"] for p in pods)
    assert set(by_class) == set(priorities)
    assert max(by_class.values()) - min(by_class.values()) <= 2 * len(gen.DEFAULT_MIX)
    for name in ("train-000", "train-001"):
        members = [p for p in pods if p["metadata"].get("labels", {}).get("job") == name]
        assert len({p["spec"]["priorityClassName"] for p in members}) == 1
    plain = gen.mig_pods(2, 8, 1.0, gen.DEFAULT_MIX, 2)
    assert not of_kind(plain, "PriorityClass")
    assert all("priorityClassName" not in p["spec"] for p in of_kind(plain, "Pod"))


@pytest.mark.parametrize("inventory", ["mig", "pcie"])
def test_no_resource_slice_with_counter_consumers_holds_more_than_64_devices(
    gen: ModuleType, inventory: str
) -> None:
    cluster = gen.mig_cluster(2, 8, busy=0.5) if inventory == "mig" else gen.pcie_cluster(2, busy=0.5)
    slices = of_kind(cluster, "ResourceSlice")
    assert max(len(s["spec"].get("devices", [])) for s in slices) <= 64
    for s in slices:
        pool = s["spec"]["pool"]
        same = [
            t
            for t in slices
            if t["spec"]["pool"]["name"] == pool["name"] and t["spec"]["driver"] == s["spec"]["driver"]
        ]
        assert pool["resourceSliceCount"] == len(same)


def test_greedy_places_pods_on_a_two_node_cluster_and_keeps_gangs_whole(gen: ModuleType) -> None:
    cluster = gen.mig_cluster(2, 8, seed=1, busy=0.2)
    workload = gen.mig_pods(
        2, 8, 1.1, gen.DEFAULT_MIX, 1, gangs=2, gang_size=3, priorities={"low": 0, "high": 100}
    )
    built, solution = greedy([*cluster, *workload])
    statuses = Counter(u.status for u in solution.units)
    assert statuses[Status.ALLOCATED] > 0 and statuses[Status.UNSATISFIABLE] > 0  # the load is over 100%
    gangs: dict[str, set[Status]] = {}
    for outcome in solution.units:
        unit = built.problem.units[outcome.unit]
        if unit.gang is not None:
            gangs.setdefault(unit.gang.name, set()).add(outcome.status)
    assert sorted(gangs) == ["batch/train-000", "batch/train-001"]
    assert all(len(s) == 1 for s in gangs.values()), gangs


def test_the_pcie_inventory_is_valid_and_greedy_aligns_gpus_nics_and_cpus(gen: ModuleType) -> None:
    mix = {"gpu-nic": 2, "gpu-nic-cpu": 2, "cpu": 1, "gpu": 1}
    docs = [*gen.pcie_cluster(1, seed=2, busy=0.25), *gen.pcie_pods(10, seed=2, mix=mix)]
    objects = _load(docs)
    assert objects.warnings == [] and validate_objects(objects) == []
    cpus = of_kind(docs, "ResourceSlice")[-1]["spec"]["devices"]
    assert sum(int(d["capacity"]["dra.cpu/cpu"]["value"]) for d in cpus) == 190  # the node's allocatable
    built, solution = greedy(docs)
    placed = Counter(
        built.problem.units[u.unit].name.split("/")[1].rsplit("-", 1)[0]
        for u in solution.units
        if u.status == Status.ALLOCATED
    )
    assert set(placed) == set(mix)
    published = {
        (s["spec"]["pool"]["name"], d["name"]): d["attributes"]
        for s in of_kind(docs, "ResourceSlice")
        for d in s["spec"]["devices"]
    }
    aligned = 0
    for outcome in solution.units:
        for allocation in outcome.allocations:
            attrs = {}
            for r in allocation.results:
                device = built.problem.devices[r.device]
                attrs[r.request] = published[(device.pool, device.name)]
            if "nic" in attrs and "gpu" in attrs:
                assert attrs["gpu"][PCIE_ROOT] == attrs["nic"][PCIE_ROOT]
            if "nic" in attrs and "cpu" in attrs:
                assert attrs["nic"]["numaNode"] == attrs["cpu"]["dra.net/numaNode"]
                assert attrs["nic"][PCIE_ROOT]["string"] in attrs["cpu"][PCIE_ROOT]["strings"]
                aligned += 1
    assert aligned == placed["gpu-nic-cpu"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: g.mig_cluster(0), "nodes must be at least 1"),
        (lambda g: g.mig_cluster(1, 9), "gpus must be between 1 and 8"),
        (lambda g: g.mig_cluster(1, 8, busy=1.5), "busy must be between 0 and 1"),
        (lambda g: g.mig_pods(1, 8, 1.0, {"5g.50gb": 1}, 1), "unknown in the mix: 5g.50gb"),
        (lambda g: g.mig_pods(1, 8, 1.0, {"1g.10gb": 0}, 1), "not all zero"),
        (
            lambda g: g.mig_pods(1, 1, 0.5, {"7g.80gb": 1}, 1, gangs=1),
            "the gangs alone ask for 32 memory slices",
        ),
        (lambda g: g.pcie_pods(2, mix={"tpu": 1}), "unknown in the mix: tpu"),
    ],
)
def test_impossible_requests_are_refused_with_a_reason(gen: ModuleType, call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(gen)


ARGS = ["--nodes", "2", "--gpus", "4", "--load", "1.1", "--seed", "3", "--gangs", "1", "--busy", "0.2"]
ARGS += ["--mix", "1g.10gb=4,2g.20gb=2,3g.40gb=2,4g.40gb=1,7g.80gb=1", "--priorities", "low=0,high=1000"]


def test_the_command_line_writes_what_kubefit_validates_and_streams_the_same_objects(
    gen: ModuleType, tmp_path: Path
) -> None:
    assert gen.main([*ARGS, "--write", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cluster.yaml", "workload.yaml"]
    assert kubefit(["validate", "-f", str(tmp_path), "-o", "json"]) == 0
    streamed = subprocess.run([sys.executable, str(SCRIPT), *ARGS, "-o", "-"], capture_output=True, text=True)
    assert streamed.returncode == 0, streamed.stderr
    assert (
        streamed.stdout == (tmp_path / "cluster.yaml").read_text() + (tmp_path / "workload.yaml").read_text()
    )
    assert "load 1.1" in streamed.stderr


@pytest.mark.parametrize(
    "bad", [["--mix", "1g.10gb"], ["--mix", "9g=1"], ["--priorities", "high=x"], ["--gpus", "0"]]
)
def test_bad_command_line_input_exits_2_with_one_message(bad: list[str]) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), *bad, "-o", "-"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert "error:" in done.stderr and "Traceback" not in done.stderr
