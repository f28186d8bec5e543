"""How fast is `kubefit explain` for one pending pod on the 500-node benchmark cluster (`cluster.py`)?

The pod asks for four GPUs under one PCIe root (a matchAttribute constraint): no node has more than
two GPUs per root, so it is pending everywhere and every node needs its own minimal reasons — the
worst case for explain, since no node is ruled out before DRA. Timed through the library: build (the
Problem), solve (greedy, which places nothing here), explain (every node: facts, cores shrunk to
minimal, hints, rendering); the table also says how many distinct node shapes clingo solved (nodes of
the same shape share one answer) and the summary line.

    python benchmarks/explain.py [--nodes 500] [--repeat 3]

Times are CPU seconds of this process (single-threaded), so a busy machine does not inflate them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence
from typing import Any

import cluster as gen

from kubefit.model.solution import Status
from kubefit.solver import engines
from kubefit.solver.explain import Explainer, Options, UnitExplanation
from kubefit.translate.dra.build import Built, build

NAMESPACE = gen.BENCH_NAMESPACE


def pending_pod(gpus: int = 4) -> list[dict[str, Any]]:
    """A template asking for `gpus` GPUs under one PCIe root, and one pod using it."""
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "train-same-root", "namespace": NAMESPACE},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "gpus", "exactly": {"deviceClassName": gen.GPU_DRIVER, "count": gpus}}
                    ],
                    "constraints": [{"requests": ["gpus"], "matchAttribute": gen.PCIE_ROOT}],
                }
            }
        },
    }
    pod = gen._pod("train-0", NAMESPACE, "devices", "train-same-root", gpus)
    return [template, pod]


def explain_once(built: Built, options: Options) -> tuple[list[UnitExplanation], int, float, float]:
    """(explanations, distinct shapes solved, solve seconds, explain seconds)."""
    engine = engines.get("greedy")
    solution, solve_s = gen.timed(lambda: engine.solve(built.problem, engines.Budget(1_000_000)))
    assert all(u.status == Status.UNSATISFIABLE for u in solution.units), "the pod was expected to be pending"
    explainer = Explainer(built.problem, solution, built.holders(), built.class_match(), options)
    units, explain_s = gen.timed(explainer.run)
    return units, explainer.cores.shapes, solve_s, explain_s


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    cluster = gen.generate(args.nodes, args.seed)
    objects = cluster.objects(*pending_pod())
    rows = []
    last: list[UnitExplanation] = []
    builds, solves, explains = [], [], []
    shapes = 0
    for _ in range(args.repeat):
        built, build_s = gen.timed(lambda: build(objects))
        last, shapes, solve_s, explain_s = explain_once(built, Options())
        builds.append(build_s)
        solves.append(solve_s)
        explains.append(explain_s)
    (unit,) = last
    reasons = sum(len(n.reasons) for n in unit.nodes)
    minimal = all(n.minimal for n in unit.nodes)
    rows.append(
        [
            str(args.nodes),
            str(len(unit.nodes)),
            str(shapes),
            f"{reasons / len(unit.nodes):.1f}",
            str(minimal).lower(),
            f"{statistics.median(builds):.2f}",
            f"{statistics.median(solves):.2f}",
            f"{statistics.median(explains):.2f}",
        ]
    )
    print(f"explain one pending pod ({unit.name}), median of {args.repeat} (CPU seconds)")
    headers = [
        "nodes",
        "explained",
        "shapes solved",
        "reasons/node",
        "minimal",
        "build s",
        "solve s",
        "explain s",
    ]
    print(gen.table(headers, rows))
    print(f"\n{unit.summary}")
    first = unit.nodes[0]
    print(f"\nnode {first.node}:")
    for r in first.reasons:
        print(f"  - {r.message}")
    for h in first.hints:
        print(f"  hint: {h}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
