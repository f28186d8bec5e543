"""How fast is cpsat `allocate` of one claim on one node of the 500-node GPU cluster (`cluster.py`),
next to greedy on the same Problem?

For each claim kind, the claim is allocated on the first node of the pool that serves it
(`allocate --node N --claims c`); the Problem is built once and each engine solves it `--repeat`
times. The cpsat time is everything the engine does in-process: gathering the node's facts, greedy's
hint, building the CP-SAT model and solving it (all first-fit stages). The answers are checked by
the validator and must be identical.

    python benchmarks/cpsat_allocate.py [--nodes 500] [--kinds gpu,mig-1g] [--repeat 20]

Times are CPU seconds of this process (CP-SAT runs one worker), reported as median and 90th
percentile in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import cluster as gen

from kubefit.model.problem import Problem
from kubefit.model.solution import Solution
from kubefit.solver import engines
from kubefit.solver.validate import validate
from kubefit.translate.dra.build import build

# The pool whose nodes can serve each claim kind.
POOL_FOR = {"gpu": "h100", "gpu-pair": "h100", "mig-1g": "a100", "gpu-nic": "h100"}


def solve_times(engine: Any, p: Problem, repeat: int) -> tuple[Solution, list[float]]:
    times = []
    solution = None
    for _ in range(repeat):
        start = time.process_time()
        solution = engine.solve(p, engines.Budget())
        times.append(time.process_time() - start)
    assert solution is not None
    violations = validate(p, solution)
    if violations:
        raise SystemExit(f"{engine.name} gave an invalid solution: {violations[0]}")
    return solution, times


def ms(times: list[float], q: float) -> str:
    ordered = sorted(times)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:.1f}"


def row(cluster: gen.Cluster, kind: str, repeat: int) -> list[str]:
    node = cluster.nodes_of(POOL_FOR[kind])[0]
    objects = cluster.objects(*gen.claims(kind, 1))
    p = build(objects, node=node, claim_names=[f"{gen.BENCH_NAMESPACE}/{kind}-0"]).problem
    greedy, greedy_t = solve_times(engines.get("greedy"), p, repeat)
    cpsat, cpsat_t = solve_times(engines.get("cpsat"), p, repeat)
    if [(u.status, u.allocations) for u in greedy.units] != [(u.status, u.allocations) for u in cpsat.units]:
        raise SystemExit(f"{kind}: cpsat and greedy disagree")
    candidates = sum(1 for (key, d), ok in p.selectable.items() if ok is True)
    return [
        kind,
        node,
        str(cpsat.units[0].status),
        cpsat.units[0].proof,
        str(candidates),
        f"{statistics.median(greedy_t) * 1000:.1f}",
        ms(greedy_t, 0.9),
        f"{statistics.median(cpsat_t) * 1000:.1f}",
        ms(cpsat_t, 0.9),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kinds", default=",".join(gen.KINDS))
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    cluster = gen.generate(args.nodes, args.seed)
    print(f"cluster: {args.nodes} nodes; one claim on one node, {args.repeat} runs each (CPU ms)")
    rows = [row(cluster, kind, args.repeat) for kind in args.kinds.split(",") if kind]
    headers = ["kind", "node", "status", "proof", "selectable", "greedy p50", "p90", "cpsat p50", "p90"]
    print(gen.table(headers, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
