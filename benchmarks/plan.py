"""Does the batch planner's CP-SAT plan place as many pods as kube-scheduler, or more, and how near optimal?

Generated MIG clusters (`generate.py`: N nodes x 8 A100-80GB GPUs published for dynamic MIG) and pending
pods asking for `load` times all the GPUs' memory slices in the default mix of 1g/2g/3g/4g/7g profiles,
each row one (nodes, load, seed), planned by both engines of `kubefit plan`:

- `greedy`: kube-scheduler's cycle, one pod at a time in queue order (the baseline);
- `cpsat`: one optimization over the batch (pods placed first), with the bound it proves on the most
  pods any plan places; `gap` is how far its plan is from that bound, `status` CP-SAT's verdict.

Seconds are CPU seconds of this process (CP-SAT runs with one worker, so on an idle machine they are
wall seconds), and `cpsat wall s` the planner's own wall clock, which its time limit bounds: `build`
translates the objects to the Problem (once per row, both engines share it); `cpsat s` is the whole
planner as `kubefit plan` runs it (it runs kube-scheduler's cycle itself, for a hint, only when its first
short attempt is not proven optimal). Every greedy Solution is checked with the validator here; the
planner checks its own (a violation raises PlanError).

    python benchmarks/plan.py [--nodes 20,50,100] [--loads 0.9,1.0,1.1,1.2] [--seeds 1,2,3,4,5] \\
        [--time-limit 30] [--workers 1] [--busy 0] [--gangs 0]
    python benchmarks/plan.py --scale     # 250 nodes, load 1.0 (~5,700 pods), seed 1, time limit 240 s

The last line says whether cpsat placed at least as many pods as greedy on every row, and the largest gap.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import cluster as gen
import generate
from cluster import GPUS_PER_NODE

from kubefit.model.features import ALL_ON
from kubefit.model.problem import Problem
from kubefit.model.solution import Solution, Status
from kubefit.solver.cluster.plan.planner import PlanOptions, PlanResult, plan
from kubefit.solver.cluster.plan.solve import Stage
from kubefit.solver.validate import validate
from kubefit.translate.dra.build import build

GPUS = GPUS_PER_NODE
# Option defaults: (the table's, --scale's).
DEFAULTS: dict[str, tuple[str, str]] = {
    "nodes": ("20,50,100", "250"),
    "loads": ("0.9,1.0,1.1,1.2", "1.0"),
    "seeds": ("1,2,3,4,5", "1"),
    "time_limit": ("30", "240"),
}


@dataclass
class Row:
    nodes: int
    load: float
    seed: int
    pods: int
    build_s: float
    greedy: PlanResult
    greedy_s: float
    cpsat: PlanResult
    cpsat_s: float

    @property
    def greedy_placed(self) -> int:
        return placed(self.greedy.solution)

    @property
    def cpsat_placed(self) -> int:
        return placed(self.cpsat.solution)

    @property
    def gap(self) -> float | None:
        """How far cpsat's plan is below the proven bound, in % of the bound."""
        bound: int | None = self.cpsat.bound
        if not bound:
            return None
        return 100.0 * (bound - self.cpsat_placed) / bound


def placed(solution: Solution) -> int:
    return sum(u.status == Status.ALLOCATED for u in solution.units)


def problem_for(nodes: int, load: float, seed: int, busy: float, gangs: int) -> Problem:
    docs = [
        *generate.mig_cluster(nodes, GPUS, seed, busy),
        *generate.mig_pods(nodes, GPUS, load, generate.DEFAULT_MIX, seed, gangs),
    ]
    return build(gen.load_docs(docs), ALL_ON, None, None, None, None).problem


def measure(nodes: int, load: float, seed: int, args: argparse.Namespace) -> Row:
    problem, build_s = gen.timed(lambda: problem_for(nodes, load, seed, args.busy, args.gangs))
    greedy, greedy_s = gen.timed(lambda: plan(problem, PlanOptions(engine="greedy", time_limit=None)))
    violations = validate(problem, greedy.solution)
    if violations:
        # A wrong answer is worth more than any timing: stop and say which.
        raise SystemExit("an invalid greedy solution:\n" + "\n".join(str(v) for v in violations[:10]))
    options = PlanOptions(engine="cpsat", time_limit=args.time_limit, workers=args.workers)
    cpsat, cpsat_s = gen.timed(lambda: plan(problem, options))
    return Row(nodes, load, seed, len(problem.units), build_s, greedy, greedy_s, cpsat, cpsat_s)


def cells(row: Row) -> list[str]:
    gap = row.gap
    return [
        str(row.nodes),
        f"{row.load:g}",
        str(row.seed),
        str(row.pods),
        str(row.greedy_placed),
        str(row.cpsat_placed),
        "-" if row.cpsat.bound is None else str(row.cpsat.bound),
        "-" if gap is None else f"{gap:.2f}",
        row.cpsat.status,
        f"{row.build_s:.1f}",
        f"{row.greedy_s:.1f}",
        f"{row.cpsat_s:.1f}",
        f"{row.cpsat.seconds:.1f}",
    ]


HEADERS = ["nodes", "load", "seed", "pods", "greedy", "cpsat", "bound", "gap %", "status"]
HEADERS += ["build s", "greedy s", "cpsat s", "cpsat wall s"]


def summary(rows: Sequence[Row]) -> str:
    worse = [r for r in rows if r.cpsat_placed < r.greedy_placed]
    gaps = [g for g in (r.gap for r in rows) if g is not None]
    unbounded = sum(1 for r in rows if r.gap is None)
    verdict = "yes"
    if worse:
        verdict = "NO (" + ", ".join(f"{r.nodes}/{r.load:g}/{r.seed}" for r in worse) + ")"
    text = f"cpsat >= greedy on every row: {verdict}; max gap to bound: "
    text += f"{max(gaps):.2f}%" if gaps else "-"
    if unbounded:
        text += f" ({unbounded} rows without a bound)"
    gained = sum(r.cpsat_placed - r.greedy_placed for r in rows)
    return text + f"; cpsat placed {gained} more pods than greedy over {len(rows)} rows"


def stage_text(stage: Stage) -> str:
    return f"{stage.name} {stage.status} {stage.value} (bound {stage.bound}) {stage.seconds:.1f} s"


def numbers(text: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise SystemExit(f"{text!r} is not a comma-separated list of numbers") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", action="store_true", help="250 nodes, load 1.0 (~5,700 pods), 240 s")
    for option in ("nodes", "loads", "seeds"):
        parser.add_argument(
            f"--{option}", help=f"comma-separated ({' / '.join(DEFAULTS[option])} with --scale)"
        )
    parser.add_argument("--time-limit", type=float, help="cpsat's, in seconds (30 / 240 with --scale)")
    parser.add_argument("--workers", type=int, default=1, help="CP-SAT workers")
    parser.add_argument("--busy", type=float, default=0.0, help="share of GPUs already in use")
    parser.add_argument("--gangs", type=int, default=0, help="PodGroups of 4 pods among the pending pods")
    args = parser.parse_args(argv)
    pick = int(args.scale)
    nodes = [int(n) for n in numbers(args.nodes or DEFAULTS["nodes"][pick])]
    loads = numbers(args.loads or DEFAULTS["loads"][pick])
    seeds = [int(n) for n in numbers(args.seeds or DEFAULTS["seeds"][pick])]
    if args.time_limit is None:
        args.time_limit = float(DEFAULTS["time_limit"][pick])
    print(
        f"MIG clusters: nodes x {GPUS} A100-80GB, mix "
        + ",".join(f"{p}={w}" for p, w in generate.DEFAULT_MIX.items())
        + f", busy {args.busy:g}, gangs {args.gangs}; cpsat time limit {args.time_limit:g} s, "
        f"{args.workers} worker(s); CPU seconds of this process"
    )
    rows: list[Row] = []
    for size in nodes:
        for load in loads:
            for seed in seeds:
                row = measure(size, load, seed, args)
                rows.append(row)
                # One line per row as it finishes: long runs show progress, and a crash keeps what was done.
                print(" ".join(cells(row)), file=sys.stderr, flush=True)
    print(gen.table(HEADERS, [cells(r) for r in rows]))
    for row in rows:
        name = f"{row.nodes}/{row.load:g}/{row.seed}"
        if row.cpsat.status != "optimal":
            # Where the time went when CP-SAT proved nothing better: each stage's verdict, value and bound.
            print(f"stages {name}: " + "; ".join(stage_text(s) for s in row.cpsat.stages))
        if row.cpsat.note:
            print(f"note {name}: {row.cpsat.note}")
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
