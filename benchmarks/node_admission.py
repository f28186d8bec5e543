"""The node engines (greedy = the kubelet, cpsat, asp) over sequences of pod admissions on one big node,
and over the admit cases of a scenario suite.

The machine: 2 sockets, 8 NUMA nodes (4 per socket), 128 cores with 2 threads = 256 CPUs, an L3
(uncore) cache per 8 cores; core 0 (CPUs 0 and 128) reserved. Each sequence draws Guaranteed pods
(integral CPU requests; a share of them with two containers) from a seeded generator and admits them
in order until the first rejection; both engines see the same sequence.

Reported per kubelet configuration and engine: pods admitted before the first rejection (mean over
the sequences), NUMA nodes used per admitted pod (median and mean; the NUMA nodes its exclusive CPUs
touch), and the time per admission (median), in CPU seconds of this process. Every answer is checked
by the independent checker.

With --scenarios DIR, each admit case under DIR (../shared/scenarios/node: the upstream machines, up
to 384 CPUs) is admitted by each engine in this process, and the CPU time of each admission is
reported (median of --repeat runs), then the median over the cases.

    python benchmarks/node_admission.py [--engines greedy,cpsat,asp] [--seeds 5] [--pods 200]
        [--two-containers 0.25] [--configs single-numa-node,full-pcpus-only,...] [--small]
    python benchmarks/node_admission.py --scenarios ../shared/scenarios/node [--engines ...] [--repeat 3]

CPU seconds, not wall: the machine is shared, and a solve uses one thread.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from kubefit.model.features import ALL_ON
from kubefit.model.node.problem import APP, ContainerFacts, KubeletPolicy, Machine, NodeProblem, PodFacts
from kubefit.model.node.solution import NodeSolution
from kubefit.solver.node.asp.admit import AspAdmitter
from kubefit.solver.node.cpsat.admit import CpsatAdmitter
from kubefit.solver.node.greedy.admit import Admitter
from kubefit.solver.node.solving import SolvingAdmitter
from kubefit.solver.node.topology import CPUTopology
from kubefit.solver.node.validate import check
from kubefit.translate.loader import load
from kubefit.translate.node.build import StateFiles, build
from kubefit.translate.node.synthetic import GI, synthetic_machine

# name -> (topology manager policy, CPU manager options)
CONFIGS: dict[str, tuple[str, frozenset[str]]] = {
    "single-numa-node": ("single-numa-node", frozenset()),
    "full-pcpus-only": ("none", frozenset({"full-pcpus-only"})),
    "single-numa-node+full-pcpus-only": ("single-numa-node", frozenset({"full-pcpus-only"})),
    "best-effort+full-pcpus-only": ("best-effort", frozenset({"full-pcpus-only"})),
}
SIZES = (1, 2, 3, 4, 6, 8, 12, 16, 24)
ENGINES = ("greedy", "cpsat", "asp")


def admitter(problem: NodeProblem, engine: str) -> Admitter:
    if engine == "cpsat":
        return CpsatAdmitter(problem, None)
    if engine == "asp":
        return AspAdmitter(problem, None)
    return Admitter(problem)


def big_machine() -> Machine:
    return synthetic_machine(2, 4, 16, threads=2, cores_per_uncore=8, memory_per_numa=64 * GI)


def small_machine() -> Machine:
    return synthetic_machine(2, 2, 4, threads=2, cores_per_uncore=2, memory_per_numa=8 * GI)


def kubelet(machine: Machine, config: str) -> KubeletPolicy:
    topology, options = CONFIGS[config]
    first = min(c.id for c in machine.cpus)
    core = frozenset(c.id for c in machine.cpus if c.core == first)
    return KubeletPolicy(
        cpu_policy="static", cpu_options=options, reserved_cpus=core, topology_policy=topology
    )


def workload(seed: int, count: int, two: float, even: bool, biggest: int) -> tuple[PodFacts, ...]:
    """`count` Guaranteed pods; `even` keeps requests whole cores (full-pcpus-only would refuse odd)."""
    rng = random.Random(seed)
    sizes = [s for s in SIZES if s <= biggest and (not even or s % 2 == 0)]
    out = []
    for i in range(count):
        n = 2 if rng.random() < two else 1
        containers = []
        for j in range(n):
            cpus = rng.choice(sizes)
            containers.append(ContainerFacts(f"c{j}", APP, cpus * 1000, cpus * 1000, (("memory", GI),), True))
        out.append(PodFacts(f"pod{i}-uid", "default", f"pod{i}", "Guaranteed", tuple(containers)))
    return tuple(out)


@dataclass
class Run:
    before_rejection: list[int] = field(default_factory=list)
    numa_per_pod: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    proofs: dict[str, int] = field(default_factory=dict)


def sequence(problem: NodeProblem, engine: str, run: Run) -> None:
    """Admit the pods one by one until the first rejection; check the answers."""
    engine_admitter = admitter(problem, engine)
    topo = CPUTopology(problem.machine)
    admissions = []
    for pod in problem.pods:
        start = time.process_time()
        a = engine_admitter.admit(pod)
        run.seconds.append(time.process_time() - start)
        admissions.append(a)
        if isinstance(engine_admitter, SolvingAdmitter):
            proof = str(engine_admitter.proofs.get(pod.uid, ""))
            run.proofs[proof] = run.proofs.get(proof, 0) + 1
        if not a.admitted:
            break
        exclusive = frozenset().union(*(c.cpus for c in a.containers if c.exclusive))
        run.numa_per_pod.append(len(topo.levels_of(exclusive, "numa")))
    admitted = [a for a in admissions if a.admitted]
    run.before_rejection.append(len(admitted))
    done = replace(problem, pods=tuple(a.pod for a in admissions))
    solution = NodeSolution(tuple(admissions), engine_admitter.cpus.freeze(), engine_admitter.mem.freeze())
    problems = check(done, solution)
    if problems:
        sys.exit(f"{engine}: invalid answer: {problems[0]}")


def measure(
    machine: Machine, configs: Sequence[str], seeds: int, pods: int, two: float, engines: Sequence[str]
) -> list[tuple[str, str, Run]]:
    rows = []
    biggest = len(machine.cpus) // len(machine.numa_nodes) - 2
    for config in configs:
        policy = kubelet(machine, config)
        even = policy.option("full-pcpus-only")
        runs = {engine: Run() for engine in engines}
        for seed in range(seeds):
            problem = NodeProblem("node-1", machine, policy, workload(seed, pods, two, even, biggest))
            for engine, run in runs.items():
                sequence(problem, engine, run)
        rows += [(config, engine, run) for engine, run in runs.items()]
    return rows


def table(rows: list[tuple[str, str, Run]]) -> str:
    head = [
        "configuration",
        "engine",
        "pods before 1st rejection",
        "NUMA/pod median",
        "NUMA/pod mean",
        "CPU ms/admission",
    ]
    lines = [head]
    for config, engine, run in rows:
        lines.append(
            [
                config,
                engine,
                f"{statistics.mean(run.before_rejection):.1f}",
                f"{statistics.median(run.numa_per_pod):.0f}" if run.numa_per_pod else "-",
                f"{statistics.mean(run.numa_per_pod):.2f}" if run.numa_per_pod else "-",
                f"{1000 * statistics.median(run.seconds):.0f}",
            ]
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in lines]
    return "\n".join(out)


def scenario_problems(root: Path) -> list[tuple[str, NodeProblem]]:
    """The NodeProblem of each admit case under `root`, as `kubefit admit` builds it."""
    out = []
    for case_dir in sorted(p.parent for p in root.rglob("case.yaml")):
        case = yaml.safe_load((case_dir / "case.yaml").read_text(encoding="utf-8"))
        if case.get("command") != "admit":
            continue
        with tempfile.TemporaryDirectory() as tmp:
            files: dict[str, str] = {}
            for key in ("cpuManagerState", "memoryManagerState"):
                if case.get(key):
                    path = Path(tmp) / key
                    path.write_text(json.dumps(case[key]), encoding="utf-8")
                    files[key] = str(path)
            gates = ALL_ON.with_values({k: bool(v) for k, v in (case.get("featureGates") or {}).items()})
            objects = load([str(case_dir / "objects.yaml")])
            state = StateFiles(files.get("cpuManagerState"), files.get("memoryManagerState"))
            out.append((case_dir.name, build(objects, gates, case["node"], case.get("pod"), state)))
    return out


def scenario_table(root: Path, engines: Sequence[str], repeat: int) -> str:
    """CPU milliseconds per case and engine (median of `repeat` runs), then the median over cases."""
    problems = scenario_problems(root)
    head = ["case", "CPUs", *engines]
    lines = [head]
    per_engine: dict[str, list[float]] = {e: [] for e in engines}
    for name, problem in problems:
        row = [name, str(len(problem.machine.cpus))]
        for engine in engines:
            times = []
            for _ in range(repeat):
                start = time.process_time()
                run_engine(problem, engine)
                times.append(time.process_time() - start)
            ms = 1000 * statistics.median(times)
            per_engine[engine].append(ms)
            row.append(f"{ms:.0f}")
        lines.append(row)
    lines.append(["median", "", *(f"{statistics.median(per_engine[e]):.0f}" for e in engines)])
    lines.append(["max", "", *(f"{max(per_engine[e]):.0f}" for e in engines)])
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in lines
    )


def run_engine(problem: NodeProblem, engine: str) -> None:
    engine_admitter = admitter(problem, engine)
    for pod in problem.pods:
        engine_admitter.admit(pod)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated: greedy, cpsat, asp")
    ap.add_argument("--seeds", type=int, default=5, help="sequences per configuration (default 5)")
    ap.add_argument("--pods", type=int, default=200, help="longest sequence (default 200)")
    ap.add_argument("--two-containers", type=float, default=0.25, help="share of two-container pods")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: " + ", ".join(CONFIGS))
    ap.add_argument("--small", action="store_true", help="a 32-CPU machine instead (for a quick check)")
    ap.add_argument("--scenarios", metavar="DIR", help="time the admit cases under DIR instead")
    ap.add_argument("--repeat", type=int, default=3, help="--scenarios: runs per case (default 3)")
    args = ap.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    if any(e not in ENGINES for e in engines):
        ap.error(f"unknown engine in {args.engines!r}")
    if args.scenarios:
        print(f"CPU milliseconds per admission, median of {args.repeat} run(s), in this process")
        print(scenario_table(Path(args.scenarios), engines, args.repeat))
        return 0
    machine = small_machine() if args.small else big_machine()
    configs = [c for c in args.configs.split(",") if c]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        ap.error(f"unknown configuration {unknown[0]!r}")
    rows = measure(machine, configs, args.seeds, args.pods, args.two_containers, engines)
    topo = CPUTopology(machine)
    print(
        f"machine: {topo.num_sockets} sockets, {topo.num_numa} NUMA nodes, {topo.num_cpus} CPUs; "
        f"{args.seeds} sequences per configuration, {args.two_containers:.0%} two-container pods"
    )
    print(table(rows))
    for engine in engines:
        proofs: dict[str, int] = {}
        for _, e, r in rows:
            if e == engine:
                for k, v in r.proofs.items():
                    proofs[k] = proofs.get(k, 0) + v
        if proofs:
            print(f"{engine} answers: " + ", ".join(f"{v} {k}" for k, v in sorted(proofs.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
