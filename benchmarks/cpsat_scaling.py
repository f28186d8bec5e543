"""Where first-fit search explodes and CP-SAT does not: adversarial claims on one node, as the node
grows from 10 to 1,000 devices.

Three cases, each a ResourceSlice pool on node-1 and one claim, built from Kubernetes objects:

- distinct: devices cycle through 4 models, the claim asks for 5 devices with distinctAttribute on
  the model: impossible, but first-fit only learns it at the 5th device of every combination.
- counters: partitions of one GPU draw 10Gi each from a shared 35Gi counter, the claim asks for 4:
  impossible, found out at the 4th pick of every combination.
- backtracking (upstream's benchmark, generalized): 70Gi shared, the first device draws 20Gi and
  every other one 10Gi, the claim asks for 7: only the 7 first 10Gi devices fit, and first-fit
  tries every combination with the 20Gi device first.

For each size: greedy's steps, time and answer (it stops at --steps), and cpsat's time, answer and
CP-SAT solve count, with greedy's hint (the engine as shipped: the hint run has a small budget) and
without. Every answer is checked by the validator; where greedy decides, cpsat must agree exactly.

    python benchmarks/cpsat_scaling.py [--sizes 10,30,100,300,1000] [--steps 1000000]

Times are CPU seconds of the solve alone (the Problem is built before the clock starts).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import cluster as gen

from kubefit.model.problem import Problem
from kubefit.model.solution import Solution, Status
from kubefit.solver import engines
from kubefit.solver.cpsat import CpsatEngine
from kubefit.solver.validate import validate
from kubefit.translate.dra.build import build

Doc = dict[str, Any]
DRIVER = "gpu.example.com"
NODE = "node-1"


def node() -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": NODE, "labels": {"kubernetes.io/hostname": NODE}},
    }


def device_class() -> Doc:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }


def slices(devices: list[Doc], counters: Doc | None = None) -> list[Doc]:
    """One pool on the node: a counter slice if any, and the devices in slices of at most 64."""
    chunks = [devices[k : k + 64] for k in range(0, len(devices), 64)]
    count = len(chunks) + (counters is not None)

    def piece(name: str, **spec: Any) -> Doc:
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"{NODE}-{name}"},
            "spec": {
                "driver": DRIVER,
                "nodeName": NODE,
                "pool": {"name": NODE, "generation": 1, "resourceSliceCount": count},
                **spec,
            },
        }

    out = [piece("counters", sharedCounters=[counters])] if counters is not None else []
    return out + [piece(f"devices-{k:03d}", devices=chunk) for k, chunk in enumerate(chunks)]


def claim(count: int, constraints: Sequence[Doc] = ()) -> Doc:
    spec: Doc = {
        "devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu", "count": count}}]}
    }
    if constraints:
        spec["devices"]["constraints"] = list(constraints)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "claim", "namespace": "default"},
        "spec": spec,
    }


def distinct(n: int) -> list[Doc]:
    devices = [{"name": f"gpu-{i:04d}", "attributes": {"model": {"string": f"m{i % 4}"}}} for i in range(n)]
    return [*slices(devices), claim(5, [{"distinctAttribute": f"{DRIVER}/model"}])]


def partitions(draws: Sequence[str], total: str) -> list[Doc]:
    counters = {"name": "gpu-0", "counters": {"memory": {"value": total}}}
    devices = [
        {
            "name": f"part-{i:04d}",
            "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": q}}}],
        }
        for i, q in enumerate(draws)
    ]
    return slices(devices, counters)


def counters(n: int) -> list[Doc]:
    return [*partitions(["10Gi"] * n, "35Gi"), claim(4)]


def backtracking(n: int) -> list[Doc]:
    return [*partitions(["20Gi", *["10Gi"] * (n - 1)], "70Gi"), claim(7)]


CASES: dict[str, Callable[[int], list[Doc]]] = {
    "distinct": distinct,
    "counters": counters,
    "backtracking": backtracking,
}


def problem(docs: list[Doc]) -> Problem:
    objects = gen.load_docs([node(), device_class(), *docs])
    return build(objects, node=NODE, claim_names=["default/claim"]).problem


def timed(engine: Any, p: Problem, budget: engines.Budget) -> tuple[Solution, float]:
    start = time.process_time()
    solution = engine.solve(p, budget)
    seconds = time.process_time() - start
    violations = validate(p, solution)
    if violations:
        raise SystemExit(f"{engine.name} gave an invalid solution: {violations[0]}")
    return solution, seconds


def answer(solution: Solution) -> str:
    unit = solution.units[0]
    if unit.status == Status.ALLOCATED:
        return "fits"
    return {Status.UNSATISFIABLE: "no fit", Status.UNKNOWN: "gave up", Status.ERROR: "error"}[unit.status]


def row(case: str, n: int, steps: int) -> list[str]:
    p = problem(CASES[case](n))
    budget = engines.Budget(steps=steps)
    greedy, greedy_s = timed(engines.get("greedy"), p, budget)
    cells = [case, str(n), answer(greedy), str(greedy.units[0].steps), f"{greedy_s:.3f}"]
    for hint in (True, False):
        engine = CpsatEngine(hint=hint)
        solution, seconds = timed(engine, p, budget)
        if greedy.units[0].status != Status.UNKNOWN and (
            solution.units[0].status,
            solution.units[0].allocations,
        ) != (
            greedy.units[0].status,
            greedy.units[0].allocations,
        ):
            raise SystemExit(f"{case}/{n}: cpsat and greedy disagree")
        cells += [answer(solution), f"{seconds:.3f}", str(engine.options.solves)]
    return cells


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,30,100,300,1000", help="devices per node, comma-separated")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--steps", type=int, default=1_000_000, help="greedy's step budget")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    headers = ["case", "devices", "greedy", "steps", "greedy s", "cpsat", "cpsat s", "solves"]
    headers += ["no hint", "no-hint s", "solves"]
    print(" ".join(f"{h:>12}" for h in headers), flush=True)
    for case in args.cases.split(","):
        for n in sizes:
            print(" ".join(f"{c:>12}" for c in row(case, n, args.steps)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
