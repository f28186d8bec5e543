"""kube-scheduler's pass on the batch planner's shapes: pods scheduled per second as the cluster grows.

The shape of issue 22 (`generate.py --load 1.2 --busy 0.3 --seed 7 --gangs 20 --gang-size 4 --priorities
low=0,high=1000`): N nodes x 8 A100-80GB published for dynamic MIG, 30% of the GPUs already in use
(whole or carved into partitions), pending pods asking for 1.2 times the GPUs' memory slices in MIG
profiles (1g.10gb ... 7g.80gb), 20 gangs of 4 pods, two PriorityClasses. About 1,400 pending pods at 50
nodes, 6,900 at 250, 27,500 at 1,000; a third or more stay pending once the cluster is full, each
filtered against every node and tried for preemption.

For each size, in this process: the objects are read and translated once, then the greedy engine's
pass (kube-scheduler's queue and cycles, the same pass `kubefit plan --engine greedy` and `kubefit
allocate` run) is timed `--repeat` times, in CPU seconds; its Solution is checked by the validator.
`pass pods/s` is the pending pods over the median (the objects are built with every gate on, as the
library's default). Then, unless `--no-command`, `kubefit --feature-gates GenericWorkload=true plan -f
DIR --engine greedy -o table` (gangs need the gate at 1.37) runs in fresh processes on the same objects
written as YAML (as `generate.py --write` writes them): its CPU seconds (user + system, children
included), wall seconds and pods per CPU second, reading and everything else included.

    python benchmarks/scheduler_pass.py [--nodes 50,250,1000] [--repeat 3] [--no-command]

Compare rows of one run: timings depend on whatever else the machine runs.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence

import generate as gen
from cluster import dump, load_docs, table
from fleet import measure

from kubefit.model.solution import Status
from kubefit.solver import engines
from kubefit.solver.validate import validate
from kubefit.translate.dra.build import build

SHAPE = {"load": 1.2, "busy": 0.3, "seed": 7, "gangs": 20, "gang_size": 4}
PRIORITIES = {"low": 0, "high": 1000}


def docs(nodes: int) -> tuple[list[gen.Doc], list[gen.Doc]]:
    """The cluster and the workload of the shape at `nodes` nodes."""
    cluster = gen.mig_cluster(nodes, gen.GPUS_PER_NODE, SHAPE["seed"], SHAPE["busy"])
    workload = gen.mig_pods(
        nodes,
        gen.GPUS_PER_NODE,
        SHAPE["load"],
        gen.DEFAULT_MIX,
        SHAPE["seed"],
        SHAPE["gangs"],
        SHAPE["gang_size"],
        PRIORITIES,
    )
    return cluster, workload


def passes(nodes: int, repeat: int) -> tuple[int, int, float, list[float]]:
    """Pending pods, pods placed, the CPU seconds of reading and translating, and of each pass."""
    cluster, workload = docs(nodes)
    start = time.process_time()
    built = build(load_docs([*cluster, *workload]))
    built_s = time.process_time() - start
    engine = engines.get("greedy")
    seconds = []
    for _ in range(repeat):
        start = time.process_time()
        solution = engine.solve(built.problem, engines.Budget())
        seconds.append(time.process_time() - start)
    violations = validate(built.problem, solution)
    if violations:
        raise SystemExit(f"{nodes} nodes: the Solution breaks {violations[0]}")
    placed = sum(1 for u in solution.units if u.status == Status.ALLOCATED)
    return len(built.problem.units), placed, built_s, seconds


def write(directory: str, nodes: int) -> None:
    cluster, workload = docs(nodes)
    os.makedirs(directory, exist_ok=True)
    for part, items in (("cluster", cluster), ("workload", workload)):
        with open(os.path.join(directory, f"{part}.yaml"), "w", encoding="utf-8") as f:
            f.write(dump(items))


HEADERS = [
    "nodes",
    "pending",
    "placed",
    "build CPU s",
    "pass CPU s",
    "pass pods/s",
    "plan CPU s",
    "plan wall s",
    "plan pods/CPU s",
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="50,250,1000", help="cluster sizes, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="passes (and commands) per size (median)")
    parser.add_argument("--no-command", action="store_true", help="time the pass only, not `kubefit plan`")
    parser.add_argument("--kubefit", metavar="CMD", help="the kubefit command (default: python -m kubefit)")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.nodes.split(",") if n]
    kubefit = shlex.split(args.kubefit) if args.kubefit else [sys.executable, "-m", "kubefit"]
    print(
        f"issue 22's shape (load {SHAPE['load']}, busy {SHAPE['busy']}, seed {SHAPE['seed']}, "
        f"{SHAPE['gangs']} gangs of {SHAPE['gang_size']}, priorities low=0,high=1000); medians of "
        f"{args.repeat} run(s), CPU = user + system seconds; {os.cpu_count()} CPUs"
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="kubefit-pass-") as scratch:
        for nodes in sizes:
            print(f"  {nodes} nodes: passes", file=sys.stderr, flush=True)
            pending, placed, built_s, seconds = passes(nodes, args.repeat)
            pass_s = statistics.median(seconds)
            row = [str(nodes), str(pending), str(placed), f"{built_s:.1f}", f"{pass_s:.1f}"]
            row.append(f"{pending / pass_s:.0f}")
            if args.no_command:
                row += ["-", "-", "-"]
            else:
                print(f"  {nodes} nodes: kubefit plan", file=sys.stderr, flush=True)
                directory = os.path.join(scratch, str(nodes))
                write(directory, nodes)
                # Gangs are PodGroups with a gang policy: GenericWorkload, off by default in 1.37.
                gates = ["--feature-gates", "GenericWorkload=true"]
                argv = [*kubefit, *gates, "plan", "-f", directory, "--engine", "greedy", "-o", "table"]
                got = measure(argv, args.repeat)
                row += [f"{got.cpu:.1f}", f"{got.wall:.1f}", f"{pending / got.cpu:.0f}"]
            rows.append(row)
    print(table(HEADERS, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
