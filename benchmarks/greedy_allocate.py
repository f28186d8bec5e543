"""How fast is greedy `allocate` on a realistic GPU cluster (500 nodes, 4,000 GPUs, 30% in use)?

Three measurements on the cluster of `cluster.py`, through the library:

1. one claim on one named node (`allocate --node N --claims c`): translate (`build`) and
   engine (`solve`) timed separately, medians over `--repeat` runs;
2. pods mode: K pending pods, each with a claim from one template, placed across all nodes in
   the scheduler's order (`allocate` with no --node): build and solve times, and claims/s;
3. the whole command, `kubefit allocate -f DIR` for one pending pod, as a user runs it, with the
   in-process breakdown (load, API validation, build, solve, render) that explains it.

Every Solution is checked with the engine-independent validator; a violation stops the run.

    python benchmarks/greedy_allocate.py [--nodes 500] [--pods 10,100] [--kinds gpu,mig-1g] [--repeat 3]

Timings are wall-clock on whatever else the machine runs: compare rows of one run.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cluster as gen

from kubefit.app.render import render_list
from kubefit.model.solution import Solution, Status
from kubefit.solver import engines
from kubefit.solver.validate import validate
from kubefit.translate.dra.build import Built, build
from kubefit.translate.kube.objects import ObjectSet
from kubefit.translate.loader import load
from kubefit.translate.validation.run import validate_objects

# The pool whose nodes can serve each claim kind (the named node of measurement 1).
POOL_FOR = {"gpu": "h100", "gpu-pair": "h100", "mig-1g": "a100", "gpu-nic": "h100"}


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Run:
    built: Built
    solution: Solution
    build_s: float
    solve_s: float

    @property
    def placed(self) -> int:
        return sum(u.status == Status.ALLOCATED for u in self.solution.units)

    @property
    def nodes_tried(self) -> int:
        return sum(len(u.nodes) for u in self.solution.units)


def solve(objects: ObjectSet, node: str | None = None, claims: Sequence[str] | None = None) -> Run:
    built, build_s = gen.timed(lambda: build(objects, node=node, claim_names=claims))
    engine = engines.get("greedy")
    engines.check_supported(engine, built.problem)
    solution, solve_s = gen.timed(lambda: engine.solve(built.problem, engines.Budget()))
    violations = validate(built.problem, solution)
    if violations:
        # A wrong answer is worth more than any timing: stop and say which.
        raise SystemExit("greedy gave an invalid solution:\n" + "\n".join(str(v) for v in violations[:10]))
    return Run(built, solution, build_s, solve_s)


def one_claim(cluster: gen.Cluster, kind: str, repeat: int) -> list[str]:
    node = cluster.nodes_of(POOL_FOR[kind])[0]
    objects = cluster.objects(*gen.claims(kind, 1))
    runs = [solve(objects, node, [f"{gen.BENCH_NAMESPACE}/{kind}-0"]) for _ in range(repeat)]
    build_ms = statistics.median(r.build_s for r in runs) * 1000
    solve_ms = statistics.median(r.solve_s for r in runs) * 1000
    status = runs[0].solution.status
    return [
        kind,
        node,
        str(status),
        f"{build_ms:.0f}",
        f"{solve_ms:.1f}",
        f"{1000 / (build_ms + solve_ms):.2f}",
    ]


def pods_mode(cluster: gen.Cluster, kind: str, count: int) -> list[str]:
    run = solve(cluster.objects(*gen.pods(kind, count)))
    total = run.build_s + run.solve_s
    return [
        kind,
        str(count),
        str(run.placed),
        f"{run.nodes_tried / count:.1f}",
        f"{run.build_s:.2f}",
        f"{run.solve_s:.3f}",
        f"{run.solve_s * 1000 / count:.1f}",
        f"{count / max(run.solve_s, 1e-6):.0f}",
        f"{count / total:.2f}",
    ]


def command_line(cluster: gen.Cluster, repeat: int) -> tuple[list[tuple[str, float]], float, str]:
    """`kubefit allocate -f DIR` for one pending pod: the in-process stages, and the command's time."""
    with tempfile.TemporaryDirectory(prefix="kubefit-bench-") as directory:
        # JSON files (a `kind: List`, as `kubectl get -o json` writes them): PyYAML dumps 500 nodes slowly.
        gen.write(directory, cluster, gen.pods("gpu", 1), "json")
        stages: list[tuple[str, float]] = []
        objects, seconds = gen.timed(lambda: load([directory]))
        stages.append(("load (parse + models)", seconds))
        problems, seconds = gen.timed(lambda: validate_objects(objects))
        stages.append(("API validation", seconds))
        if problems:
            raise SystemExit(f"the generated cluster is invalid: {problems[0]}")
        run = solve(objects)
        stages += [("build (translate)", run.build_s), ("solve (greedy)", run.solve_s)]
        _, seconds = gen.timed(lambda: render_list(run.built, run.solution))
        stages.append(("render", seconds))
        times = []
        node = "-"
        for _ in range(repeat):
            before = child_cpu()
            done = subprocess.run(
                [sys.executable, "-m", "kubefit", "allocate", "-f", directory, "-o", "json"],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise SystemExit(f"kubefit allocate exited {done.returncode}: {done.stderr.strip()[-500:]}")
            times.append(child_cpu() - before)
            node = _placed_on(json.loads(done.stdout))
        return stages, statistics.median(times), node


def _placed_on(doc: dict[str, Any]) -> str:
    for item in doc.get("items", []):
        if item.get("kind") == "Pod":
            return str(item.get("spec", {}).get("nodeName") or "-")
    return "-"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kinds", default=",".join(gen.KINDS), help="claim kinds to measure")
    parser.add_argument("--pods", default="10", help="pending pod counts for pods mode, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions of one-claim runs and the command")
    parser.add_argument(
        "--no-cli", action="store_true", help="skip the end-to-end command (slow on 500 nodes)"
    )
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    counts = [int(c) for c in args.pods.split(",") if c]

    wall = time.perf_counter()
    cluster, seconds = gen.timed(lambda: gen.generate(args.nodes, args.seed))
    objects, load_s = gen.timed(cluster.base)
    pools = {p: len(cluster.nodes_of(p)) for p in gen.TYPES}
    slices = [o.model.spec for o in objects.of_kind("ResourceSlice")]  # type: ignore[attr-defined]
    devices = sum(len(spec.devices or ()) for spec in slices)
    print(
        f"cluster: {args.nodes} nodes {pools}, {len(objects)} objects, {devices} devices, "
        f"{cluster.busy_gpus} of {args.nodes * gen.GPUS_PER_NODE} GPUs busy "
        f"({cluster.in_use_devices} devices held); generated in {seconds:.1f} s, loaded in {load_s:.1f} s",
        flush=True,
    )
    print("(all times are CPU seconds of the measured process)")

    print(f"\n1. one claim on one named node (median of {args.repeat})")
    rows = [one_claim(cluster, kind, args.repeat) for kind in kinds]
    print(gen.table(["kind", "node", "status", "build ms", "solve ms", "claims/s"], rows), flush=True)

    print("\n2. pods mode: K pending pods, one claim each from a template, across all nodes (one run each)")
    rows = [pods_mode(cluster, kind, count) for kind in kinds for count in counts]
    headers = ["kind", "pods", "placed", "nodes/pod", "build s", "solve s", "solve ms/pod", "solve claims/s"]
    print(gen.table([*headers, "claims/s (build+solve)"], rows), flush=True)

    if not args.no_cli:
        stages, cli_s, node = command_line(cluster, args.repeat)
        print("\n3. kubefit allocate -f DIR, one pending gpu pod")
        rows = [[name, f"{s:.2f}"] for name, s in stages]
        rows.append(["in-process total", f"{sum(s for _, s in stages):.2f}"])
        rows.append([f"command (median of {args.repeat}, pod -> {node})", f"{cli_s:.2f}"])
        print(gen.table(["stage", "seconds"], rows))
    print(f"\nwall-clock for the whole run: {time.perf_counter() - wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
