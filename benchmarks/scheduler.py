"""How fast is kube-scheduler's cycle in kubefit on a 500-node GPU cluster (1,000 pending pods)?

The cluster of `cluster.py` (500 nodes, 4,000 GPUs, 30% in use) and K pending pods, each with one
claim from a template and cpu/memory requests, scheduled as kube-scheduler does: PreFilter, Filter
until enough feasible nodes are found (percentageOfNodesToScore), Score with the default profile's
weights, host selection, Reserve. Rows compare profiles:

- `default`: the v1 default profile (what `kubefit allocate` runs);
- `no-scoring`: every score plugin disabled (filters only, the first feasible node wins);
- `score-all-nodes`: percentageOfNodesToScore 100 (every node filtered and scored, every cycle).

Measured through the library, in CPU seconds of this process: build (translate), solve (the
scheduling cycles, DRA allocation included) and render (the objects with kubefit's result
annotations); pods/s for solve alone and for build + solve. Every Solution is checked with the
engine-independent validator; a violation stops the run.

    python benchmarks/scheduler.py [--nodes 500] [--pods 1000] [--kinds gpu] [--profiles default,no-scoring]

Compare rows of one run: timings depend on whatever else the machine runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import cluster as gen

from kubefit.app.render import render_list
from kubefit.model.solution import Status
from kubefit.solver import engines
from kubefit.solver.validate import validate
from kubefit.translate.dra.build import build
from kubefit.translate.kube.objects import ObjectSet

PROFILES: dict[str, dict[str, Any]] = {
    "default": {},
    "no-scoring": {"profiles": [{"plugins": {"score": {"disabled": [{"name": "*"}]}}}]},
    "score-all-nodes": {"percentageOfNodesToScore": 100},
}


def config_doc(overrides: dict[str, Any]) -> list[dict[str, Any]]:
    if not overrides:
        return []
    return [
        {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", **overrides}
    ]


def measure(cluster: gen.Cluster, kind: str, count: int, profile: str) -> dict[str, Any]:
    objects: ObjectSet = cluster.objects(*gen.pods(kind, count), *config_doc(PROFILES[profile]))
    built, build_s = gen.timed(lambda: build(objects))
    engine = engines.get("greedy")
    solution, solve_s = gen.timed(lambda: engine.solve(built.problem, engines.Budget()))
    violations = validate(built.problem, solution)
    if violations:
        # A wrong answer is worth more than any timing: stop and say which.
        raise SystemExit("an invalid solution:\n" + "\n".join(str(v) for v in violations[:10]))
    _, render_s = gen.timed(lambda: render_list(built, solution))
    placed = sum(u.status == Status.ALLOCATED for u in solution.units)
    evaluated = [u.record.evaluated for u in solution.units if u.record is not None]
    return {
        "profile": profile,
        "kind": kind,
        "pods": count,
        "placed": placed,
        "nodes/pod": f"{sum(evaluated) / max(len(evaluated), 1):.0f}",
        "build s": f"{build_s:.2f}",
        "solve s": f"{solve_s:.2f}",
        "render s": f"{render_s:.2f}",
        "pods/s solve": f"{count / solve_s:.0f}" if solve_s else "-",
        "pods/s build+solve": f"{count / (build_s + solve_s):.0f}",
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--kinds", default="gpu")
    parser.add_argument("--profiles", default=",".join(PROFILES))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cluster, generate_s = gen.timed(lambda: gen.generate(args.nodes, seed=args.seed))
    print(
        f"cluster: {args.nodes} nodes, {len(cluster.docs)} objects, {cluster.busy_gpus} busy GPUs; "
        f"generated in {generate_s:.1f} s (CPU seconds of this process below)"
    )
    rows = [
        measure(cluster, kind, args.pods, profile)
        for kind in args.kinds.split(",")
        for profile in args.profiles.split(",")
    ]
    headers = list(rows[0])
    print(gen.table(headers, [[str(r[h]) for h in headers] for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
