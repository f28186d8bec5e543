"""Greedy (the kubelet) vs cpsat over sequences of pod admissions on one big node.

The machine: 2 sockets, 8 NUMA nodes (4 per socket), 128 cores with 2 threads = 256 CPUs, an L3
(uncore) cache per 8 cores; core 0 (CPUs 0 and 128) reserved. Each sequence draws Guaranteed pods
(integral CPU requests; a share of them with two containers) from a seeded generator and admits them
in order until the first rejection; both engines see the same sequence.

Reported per kubelet configuration and engine: pods admitted before the first rejection (mean over
the sequences), NUMA nodes used per admitted pod (median and mean; the NUMA nodes its exclusive CPUs
touch), and the time per admission (median). Every answer is checked by the independent checker.

    python benchmarks/node_admission.py [--seeds 5] [--pods 200] [--two-containers 0.25]
        [--configs single-numa-node,full-pcpus-only,...] [--small]

Timings are wall-clock on whatever else the machine runs: compare rows of one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from kubefit.solver.node.cpsat.admit import CpsatAdmitter
from kubefit.solver.node.greedy.admit import Admitter
from kubefit.solver.node.problem import APP, ContainerFacts, KubeletPolicy, Machine, NodeProblem, PodFacts
from kubefit.solver.node.solution import NodeSolution
from kubefit.solver.node.topology import CPUTopology
from kubefit.solver.node.validate import check
from kubefit.translate.node.synthetic import GI, synthetic_machine

# name -> (topology manager policy, CPU manager options)
CONFIGS: dict[str, tuple[str, frozenset[str]]] = {
    "single-numa-node": ("single-numa-node", frozenset()),
    "full-pcpus-only": ("none", frozenset({"full-pcpus-only"})),
    "single-numa-node+full-pcpus-only": ("single-numa-node", frozenset({"full-pcpus-only"})),
    "best-effort+full-pcpus-only": ("best-effort", frozenset({"full-pcpus-only"})),
}
SIZES = (1, 2, 3, 4, 6, 8, 12, 16, 24)


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
    admitter: Admitter = CpsatAdmitter(problem, None) if engine == "cpsat" else Admitter(problem)
    topo = CPUTopology(problem.machine)
    admissions = []
    for pod in problem.pods:
        start = time.perf_counter()
        a = admitter.admit(pod)
        run.seconds.append(time.perf_counter() - start)
        admissions.append(a)
        if isinstance(admitter, CpsatAdmitter):
            proof = str(admitter.proofs.get(pod.uid, ""))
            run.proofs[proof] = run.proofs.get(proof, 0) + 1
        if not a.admitted:
            break
        exclusive = frozenset().union(*(c.cpus for c in a.containers if c.exclusive))
        run.numa_per_pod.append(len(topo.levels_of(exclusive, "numa")))
    admitted = [a for a in admissions if a.admitted]
    run.before_rejection.append(len(admitted))
    done = replace(problem, pods=tuple(a.pod for a in admissions))
    solution = NodeSolution(tuple(admissions), admitter.cpus.freeze(), admitter.mem.freeze())
    problems = check(done, solution)
    if problems:
        sys.exit(f"{engine}: invalid answer: {problems[0]}")


def measure(
    machine: Machine, configs: Sequence[str], seeds: int, pods: int, two: float
) -> list[tuple[str, str, Run]]:
    rows = []
    biggest = len(machine.cpus) // len(machine.numa_nodes) - 2
    for config in configs:
        policy = kubelet(machine, config)
        even = policy.option("full-pcpus-only")
        runs = {"greedy": Run(), "cpsat": Run()}
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
        "ms/admission",
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


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="sequences per configuration (default 5)")
    ap.add_argument("--pods", type=int, default=200, help="longest sequence (default 200)")
    ap.add_argument("--two-containers", type=float, default=0.25, help="share of two-container pods")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: " + ", ".join(CONFIGS))
    ap.add_argument("--small", action="store_true", help="a 32-CPU machine instead (for a quick check)")
    args = ap.parse_args(argv)
    machine = small_machine() if args.small else big_machine()
    configs = [c for c in args.configs.split(",") if c]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        ap.error(f"unknown configuration {unknown[0]!r}")
    rows = measure(machine, configs, args.seeds, args.pods, args.two_containers)
    topo = CPUTopology(machine)
    print(
        f"machine: {topo.num_sockets} sockets, {topo.num_numa} NUMA nodes, {topo.num_cpus} CPUs; "
        f"{args.seeds} sequences per configuration, {args.two_containers:.0%} two-container pods"
    )
    print(table(rows))
    cpsat = [r for _, e, r in rows if e == "cpsat"]
    proofs: dict[str, int] = {}
    for r in cpsat:
        for k, v in r.proofs.items():
            proofs[k] = proofs.get(k, 0) + v
    print("cpsat answers: " + ", ".join(f"{v} {k}" for k, v in sorted(proofs.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
