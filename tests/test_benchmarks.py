"""The benchmarks keep working: the generated cluster is valid input, and every script runs on a tiny
size (no timings are asserted, only that the numbers come from correct answers)."""

from __future__ import annotations

import subprocess
import sys
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


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return benchmark_module("cluster")


@pytest.fixture(scope="module")
def small(gen: ModuleType) -> Any:
    return gen.generate(6, seed=3, busy=0.5)


def test_the_generated_cluster_passes_api_validation_with_every_kind_of_workload(
    gen: ModuleType, small: Any
) -> None:
    workload = [d for kind in gen.KINDS for d in [*gen.pods(kind, 2), *gen.claims(kind, 1)]]
    objects = small.objects(*workload)
    assert objects.warnings == []
    assert validate_objects(objects) == []


def test_the_same_seed_gives_the_same_cluster_and_another_seed_a_different_one(gen: ModuleType) -> None:
    assert gen.generate(4, seed=7).docs == gen.generate(4, seed=7).docs
    assert gen.generate(4, seed=7).docs != gen.generate(4, seed=8).docs


def test_every_pool_gets_a_node_even_in_a_tiny_cluster_and_the_mix_holds_at_scale(gen: ModuleType) -> None:
    assert sorted(gen.generate(3).node_types.values()) == ["a100", "h100", "l4"]
    pools = gen.generate(100).node_types.values()
    assert {p: sum(1 for q in pools if q == p) for p in gen.TYPES} == {"h100": 40, "a100": 40, "l4": 20}


def test_a_partly_used_gpu_never_holds_mig_partitions_that_overlap_or_overdraw_its_counters(
    gen: ModuleType,
) -> None:
    profiles = {p[0]: p for p in gen.MIG_PROFILES}
    for layout in gen.MIG_LAYOUTS:
        slices = [s for name, start in layout for s in range(start, start + profiles[name][5])]
        assert len(slices) == len(set(slices)), layout
        assert sum(profiles[name][2] for name, _ in layout) <= gen.FULL_MULTIPROCESSORS, layout


def test_greedy_places_every_kind_of_pod_and_respects_what_is_already_in_use(
    gen: ModuleType, small: Any
) -> None:
    taken = {
        (r["driver"], r["pool"], r["device"])
        for d in small.docs
        if d["kind"] == "ResourceClaim"
        for r in d["status"]["allocation"]["devices"]["results"]
    }
    assert taken, "the cluster should have devices in use"
    for kind in gen.KINDS:
        built = build(small.objects(*gen.pods(kind, 2)))
        solution = engines.get("greedy").solve(built.problem, engines.Budget())
        assert validate(built.problem, solution) == []
        assert [u.status for u in solution.units] == [Status.ALLOCATED] * 2, kind
        for unit in solution.units:
            for allocation in unit.allocations:
                for r in allocation.results:
                    device = built.problem.devices[r.device]
                    assert (device.driver, device.pool, device.name) not in taken


def test_the_loaded_cluster_can_be_shared_because_building_a_problem_leaves_it_unchanged(
    gen: ModuleType, small: Any
) -> None:
    objects = small.objects(*gen.pods("gpu-nic", 2))
    assert build(objects).problem == build(objects).problem
    assert [o.raw for o in small.base()] == [o.raw for o in gen.load_docs(small.docs)]


def test_the_written_cluster_is_what_kubefit_validate_accepts(gen: ModuleType, tmp_path: Path) -> None:
    cluster = gen.generate(3)
    gen.write(str(tmp_path / "yaml"), cluster, gen.pods("gpu", 1))
    gen.write(str(tmp_path / "json"), cluster, gen.pods("gpu", 1), "json")
    assert kubefit(["validate", "-f", str(tmp_path / "yaml"), "-o", "json"]) == 0
    assert kubefit(["validate", "-f", str(tmp_path / "json"), "-o", "json"]) == 0


# Every script in benchmarks/ with arguments that make it finish in seconds.
TINY = {
    "cluster.py": ["--nodes", "3", "--pods", "gpu:2", "--claims", "mig-1g"],
    "cel_selectors.py": ["--sizes", "10", "--repeat", "1"],
    "greedy_allocate.py": ["--nodes", "3", "--pods", "2", "--repeat", "1"],
    "cpsat_scaling.py": ["--sizes", "10", "--steps", "10000"],
    "cpsat_allocate.py": ["--nodes", "3", "--repeat", "1"],
    "load.py": ["--nodes", "3"],
    "explain.py": ["--nodes", "3", "--repeat", "1"],
    "node_admission.py": ["--seeds", "1", "--pods", "5", "--small"],
    # (--scenarios runs in test_node_admission_times_scenario_cases below)
    "scheduler.py": ["--nodes", "4", "--pods", "3"],
    "generate.py": ["--nodes", "2", "--gangs", "1", "--busy", "0.2"],
    "plan.py": ["--nodes", "2", "--loads", "1.1", "--seeds", "1", "--time-limit", "10"],
    "fleet.py": ["--nodes", "3", "--pods", "10", "--repeat", "1"],
    "output.py": ["--nodes", "2"],
    "batches.py": ["--sizes", "2", "--limits", "5"],
    "scheduler_pass.py": ["--nodes", "5", "--repeat", "1"],
    "scheduler_perf.py": ["--scale", "0.01", "--repeat", "1"],
}


def test_every_benchmark_script_has_a_tiny_run_here() -> None:
    assert sorted(p.name for p in BENCHMARKS.glob("*.py")) == sorted(TINY)


@pytest.mark.parametrize("script", sorted(TINY))
def test_each_benchmark_script_runs_on_a_tiny_size(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *TINY[script]], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip()
