"""Whole-cluster questions (issue 12): one pending pod against a whole cluster dump, next to `json.load`.

Three clusters, each written as `kubectl get -o json` prints a List (indent 4), once per workload:

- `fleet`: N nodes of 8 A100-80GB GPUs published as NVIDIA's DRA driver does for dynamic MIG: per
  node a slice of counter sets (one per GPU: multiprocessors and 8 memory slices) and slices of 3
  GPUs' devices (57, under the API's 64 for devices that consume counters); each GPU is 19 devices,
  the full GPU and every placement of 1g.10gb (7), 1g.20gb (4), 2g.20gb (3), 3g.40gb (2), 4g.40gb
  and 7g.80gb: 76,000 devices at 500 nodes. No GPU is in use.
- `invalid`: the same objects with all of a node's 152 devices in one slice. The API server refuses
  such a slice; kubefit reads it and answers with warnings.
- `cluster`: `cluster.py`'s `generate(N)` (H100, A100 and L4 pools, 30% of the GPUs in use; 28,000
  devices at 500 nodes).

Workloads, one file each (the cluster's objects, then the workload's), in namespace `bench`:

- `one`: a pod with one claim for a 1g.10gb MIG partition (fits: exit 0);
- `nowhere`: a pod with one claim for two 4g.40gb partitions of one GPU (matchAttribute parentUUID),
  someone's two halves of a GPU: an A100 has a single 4g.40gb placement, and two 4g partitions do not
  fit one GPU anyway (exit 1);
- `pods`: `--pods` (1,000) pods with one 1g.10gb claim each (all fit at 500 nodes: exit 0; a node
  holds 23 of them, by CPU).

For each file, `json.load` of it in a fresh interpreter is the floor any Python tool pays; then each
command runs in a fresh process, as a user runs it, with `-o table` (what a terminal shows; the table
goes to /dev/null): `allocate` (one), `explain` (nowhere), `devices --class mig.nvidia.com` (one),
`allocate` (pods). Wall seconds, CPU seconds (user + system) and peak resident memory (ru_maxrss),
all from os.wait4, are medians over `--repeat` runs; `ratio` is the command's wall seconds over the
floor's, `CPU ratio` the same in CPU seconds (steadier when other work shares the machine); `pods/s`
is the pods over the whole command's wall seconds (reading and building included: kubefit logs no
timings of its stages). Every run must end with the expected exit code (a row that does not says so,
and the script exits 1); `devices` refuses what the API server would (exit 2), so on `invalid` 2 is
expected of it.

    python benchmarks/fleet.py [--nodes 500] [--pods 1000] [--repeat 3] [--only fleet,invalid,cluster]
        [--keep DIR]                                    # keep the generated files in DIR
        [--kubefit "/tmp/venv-before/bin/kubefit"]     # another installed kubefit, e.g. an older one
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cluster as gen
from cluster import A100, BENCH_NAMESPACE, GPU_DRIVER, GPUS_PER_NODE, Doc, table

MIG_CLASS = "mig.nvidia.com"
# Every A100-80GB MIG profile NVIDIA's driver offers for dynamic MIG (1g.10gb+me aside): (profile, profile
# id, multiprocessors, memory, placement starts, size in memory slices).
FLEET_PROFILES: list[gen.MigProfile] = [
    ("1g.10gb", 19, 14, "10Gi", range(7), 1),
    ("1g.20gb", 15, 14, "20Gi", (0, 2, 4, 6), 2),
    ("2g.20gb", 14, 28, "20Gi", (0, 2, 4), 2),
    ("3g.40gb", 9, 42, "40Gi", (0, 4), 4),
    ("4g.40gb", 5, 56, "40Gi", (0,), 4),
    ("7g.80gb", 0, 98, "80Gi", (0,), 8),
]
GPUS_PER_SLICE = 3  # 3 x 19 = 57 devices, under the API's limit of 64
CLUSTERS = ("fleet", "invalid", "cluster")
LOAD = "import json, sys; json.load(open(sys.argv[1], encoding='utf-8'))"


def fleet(nodes: int, per_slice: int = GPUS_PER_SLICE, seed: int = 1) -> list[Doc]:
    """The MIG fleet: the namespace of the workloads, the GPU and MIG DeviceClasses, then each node and
    its slices. The seed fixes the GPUs' UUIDs, so `per_slice` changes only how devices are sliced."""
    rng = random.Random(seed)
    docs = [gen.namespace(BENCH_NAMESPACE)]
    docs += [c for c in gen.device_classes() if c["metadata"]["name"] in (GPU_DRIVER, MIG_CLASS)]
    for i in range(nodes):
        name = f"node-{i:04d}"
        docs.append(gen.node_doc(name, A100, f"us-east-1{'abc'[i % 3]}"))
        uuids = [f"GPU-{gen._uid(rng)}" for _ in range(GPUS_PER_NODE)]
        docs += gen.partitionable_gpus(name, A100, uuids, GPUS_PER_NODE, FLEET_PROFILES, per_slice)
    return docs


def nowhere() -> list[Doc]:
    """A template for two 4g.40gb partitions of one GPU and a pod that uses it."""
    profile = f'device.attributes["{GPU_DRIVER}"].profile == "4g.40gb"'
    mig = {"deviceClassName": MIG_CLASS, "selectors": [{"cel": {"expression": profile}}], "count": 2}
    spec = {
        "devices": {
            "requests": [{"name": "halves", "exactly": mig}],
            "constraints": [{"requests": ["halves"], "matchAttribute": f"{GPU_DRIVER}/parentUUID"}],
        }
    }
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "mig-4g-pair", "namespace": BENCH_NAMESPACE},
        "spec": {"spec": spec},
    }
    return [template, gen._pod("mig-4g-pair-00000", BENCH_NAMESPACE, "devices", "mig-4g-pair")]


def workloads(pods: int) -> dict[str, Callable[[], list[Doc]]]:
    return {
        "one": lambda: gen.pods("mig-1g", 1),
        "nowhere": nowhere,
        "pods": lambda: gen.pods("mig-1g", pods),
    }


def cluster_docs(name: str, nodes: int) -> list[Doc]:
    if name == "fleet":
        return fleet(nodes)
    if name == "invalid":
        return fleet(nodes, per_slice=GPUS_PER_NODE)
    return gen.generate(nodes).docs  # with the namespace of the workloads


def devices_of(docs: Sequence[Doc]) -> int:
    return sum(len(d["spec"].get("devices", ())) for d in docs if d["kind"] == "ResourceSlice")


_END = "\n    ]\n}"


def _items(docs: Sequence[Doc]) -> str:
    """The items of a List as `json.dumps(..., indent=4)` writes them, without the closing bracket."""
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(docs)}, indent=4)
    return text[: -len(_END)]


def write(directory: str, name: str, nodes: int, pods: int) -> tuple[dict[str, str], int]:
    """The files of a cluster, one per workload (workload -> path), and its number of devices. The
    cluster's text is encoded once and each workload's items appended: the bytes `json.dumps` gives
    for the whole List."""
    docs = cluster_docs(name, nodes)
    devices = devices_of(docs)
    head = _items(docs)
    del docs
    paths = {}
    for workload, make in workloads(pods).items():
        tail = _items(make())
        tail = tail[tail.index('"items": [\n') + len('"items": [\n') :]
        path = os.path.join(directory, f"{name}-{workload}.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"{head},\n{tail}{_END}\n")
        paths[workload] = path
    return paths, devices


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    cpu: float  # seconds, user and system
    peak: float  # MiB of resident memory, at most
    code: int
    stderr: str


# Starts the command (stdout to the file its first argument names), waits for it, and prints its wall and
# CPU seconds, peak RSS (KiB) and exit code. It runs in a small interpreter of its own because a process's
# ru_maxrss counts what the process it was forked from had resident, and this script's process holds a
# whole generated cluster.
RUNNER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
print(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def run(argv: Sequence[str], out: str = os.devnull) -> Run:
    """One fresh process: its wall and CPU seconds and peak RSS (from its rusage), exit code and stderr;
    its output goes to `out`."""
    with tempfile.TemporaryFile() as err:
        done = subprocess.run(
            [sys.executable, "-S", "-c", RUNNER, out, *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            check=True,
        )
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    wall, cpu, peak, code = done.stdout.split()
    return Run(float(wall), float(cpu), int(peak) / 1024, int(code), stderr)


@dataclass(frozen=True)
class Measured:
    wall: float
    cpu: float
    peak: float
    codes: list[int]
    stderr: str  # the last run's


def measure(argv: Sequence[str], repeat: int) -> Measured:
    runs = [run(argv) for _ in range(repeat)]
    return Measured(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.peak for r in runs),
        [r.code for r in runs],
        runs[-1].stderr,
    )


# (label, workload file, kubefit arguments after -f FILE, exit code when the cluster is valid)
COMMANDS = [
    ("allocate", "one", ["allocate"], 0),
    ("explain", "nowhere", ["explain"], 1),
    (f"devices --class {MIG_CLASS}", "one", ["devices", "--class", MIG_CLASS], 0),
    ("allocate {pods} pods", "pods", ["allocate"], 0),
]
# `devices` answers about objects as they are, not as the scheduler would see them once stored: what the
# API server refuses is bad input to it (exit 2), where allocate and explain answer with warnings.
REFUSED = {("invalid", "devices")}


def bench(
    name: str, paths: dict[str, str], devices: int, kubefit: Sequence[str], repeat: int, pods: int
) -> tuple[list[list[str]], list[str]]:
    """The rows of a cluster and the failures (commands that ended with an unexpected exit code)."""
    floors: dict[str, Measured] = {}
    rows, failures = [], []
    for template, workload, args, fits in COMMANDS:
        label = template.format(pods=pods)
        expected = 2 if (name, args[0]) in REFUSED else fits
        path = paths[workload]
        if workload not in floors:
            floors[workload] = measure([sys.executable, "-c", LOAD, path], repeat)
            if any(floors[workload].codes):
                raise SystemExit(f"json.load of {path} failed:\n{floors[workload].stderr}")
        floor = floors[workload]
        got = measure([*kubefit, args[0], "-f", path, "-o", "table", *args[1:]], repeat)
        wrong = sorted({c for c in got.codes if c != expected})
        if wrong:
            tail = "\n".join(got.stderr.splitlines()[-5:])
            failures.append(f"{name}: {label}: exit {wrong} (want {expected}); stderr ends:\n{tail}")
        rows.append(
            [
                f"{name}-{workload}",
                str(devices),
                f"{os.path.getsize(path) / 1e6:.0f}",
                f"{floor.wall:.2f}",
                f"{floor.cpu:.2f}",
                f"{floor.peak:.0f}",
                label,
                ",".join(str(c) for c in sorted(set(got.codes)))
                + ("" if not wrong else f" (want {expected})"),
                f"{got.wall:.2f}",
                f"{got.cpu:.2f}",
                f"{got.wall / floor.wall:.1f}",
                f"{got.cpu / floor.cpu:.1f}",
                f"{got.peak:.0f}",
                f"{pods / got.wall:.0f}" if workload == "pods" else "-",
            ]
        )
        print(
            f"  {name}: {label}: {got.wall:.2f} s ({got.cpu:.2f} CPU s), {got.peak:.0f} MB; "
            f"json.load {floor.wall:.2f} s ({floor.cpu:.2f} CPU s)",
            file=sys.stderr,
            flush=True,
        )
    return rows, failures


HEADERS = [
    "file",
    "devices",
    "MB",
    "json.load s",
    "load CPU s",
    "load MB",
    "command",
    "exit",
    "wall s",
    "CPU s",
    "ratio",
    "CPU ratio",
    "peak MB",
    "pods/s",
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=1000, help="pending pods of the last command")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command and json.load (median)")
    parser.add_argument(
        "--only", default=",".join(CLUSTERS), help=f"clusters to measure ({', '.join(CLUSTERS)})"
    )
    parser.add_argument("--keep", metavar="DIR", help="write the files here and keep them")
    parser.add_argument(
        "--kubefit", metavar="CMD", help="the kubefit command to measure (default: python -m kubefit)"
    )
    args = parser.parse_args(argv)
    names = args.only.split(",")
    unknown = sorted(set(names) - set(CLUSTERS))
    if unknown or min(args.repeat, args.nodes, args.pods) < 1:
        parser.error(f"--only takes {', '.join(CLUSTERS)}; --repeat, --nodes and --pods at least 1")
    kubefit = shlex.split(args.kubefit) if args.kubefit else [sys.executable, "-m", "kubefit"]
    print(
        f"{args.nodes} nodes; kubefit: {shlex.join(kubefit)}; medians of {args.repeat} run(s); "
        f"fresh processes: wall and CPU (user+system) seconds, peak RSS in MiB; {os.cpu_count()} CPUs"
    )
    with tempfile.TemporaryDirectory(prefix="kubefit-fleet-") as scratch:
        directory = args.keep or scratch
        os.makedirs(directory, exist_ok=True)
        rows, failures = [], []
        for name in names:
            print(f"writing {name} ({args.nodes} nodes)", file=sys.stderr, flush=True)
            paths, devices = write(directory, name, args.nodes, args.pods)
            got, failed = bench(name, paths, devices, kubefit, args.repeat, args.pods)
            rows += got
            failures += failed
    print(table(HEADERS, rows))
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
