"""Upstream's DRA scheduling benchmarks (kube-scheduler's scheduler_perf) as `kubefit allocate` inputs.

kubernetes/kubernetes test/integration/scheduler_perf/dra measures how many pods per second kube-scheduler
places on a cluster of nodes whose devices a test driver publishes. Two of its workloads, with the
parameters of their 500-node performance runs and the thresholds CI holds them to:

- `SchedulingWithResourceClaimTemplate` (dra/performance-config.yaml, `5000pods_500nodes`): 500 nodes
  `scheduler-perf-dra-<i>`, each with one ResourceSlice of 10 devices (`instance-0`..`instance-9`, driver
  `test-driver.cdi.k8s.io`, pool = node), DeviceClass `test-class` (CEL: that driver), ResourceClaimTemplate
  `test-claim-template` (one request `req-0`, ExactCount 1 of `test-class`) in namespaces `init` and
  `test`; 2,500 pods in `init` already scheduled with their generated claims allocated (2,500 devices in
  use), then 2,500 pods in `test` measured. Threshold 56 pods/s with SchedulerQueueingHints (40 without).
- `SchedulingWithExtendedResource` (dra/extendedresource/performance-config.yaml,
  `ExtendedResource_25Classes/5000pods_500nodes`): the same nodes and slices, 25 DeviceClasses
  `test-class-<k>` backing the extended resources `example.com/gpu-<k>` (DRAExtendedResource), pods
  `test-dra-<i>` asking for one `example.com/gpu-<i mod 25>` each: 2,500 in `init` running on the
  devices of their scheduler-made claims, 2,500 in `test` measured. Threshold 197 pods/s in the version
  read (other versions of the file held it at 120).

What is written is what a user applies and `kubectl get -o json` shows of the running part: Nodes (the
template's capacity, reported as allocatable too, as a kubelet does), the slices as the API server stores
them without DRADeviceBindingConditions (the driver's binding fields stripped), classes, templates, the
running pods bound to their nodes (init pod i on node i mod 500, device `instance-<i div 500>`: five devices
in use on every node) with their claims allocated and reserved for them, and the pending pods.

    python benchmarks/scheduler_perf.py --write DIR --workload SchedulingWithResourceClaimTemplate
    kubefit allocate -f DIR -o json

Without `--write` it measures: for each workload, `kubefit allocate -f DIR -o json` in fresh processes
(reading and writing included, output to /dev/null), medians of `--repeat` runs of CPU seconds
(user + system, from the process's rusage, children included) and wall seconds; pods/s is the pending
pods over those seconds, beside upstream's threshold. A last run's output is checked: every pending pod
placed, on a node of its devices, no device given twice.

    python benchmarks/scheduler_perf.py [--repeat 3] [--nodes 500] [--only claim-template,extended-resource]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cluster import table
from fleet import Measured, measure

Doc = dict[str, Any]

DRIVER = "test-driver.cdi.k8s.io"
NODE_PREFIX = "scheduler-perf-dra-"
TEMPLATE = "test-claim-template"
INIT, TEST = "init", "test"
# The apiserver's alphabet for generated name suffixes (no vowels, no look-alike digits).
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


@dataclass(frozen=True)
class Workload:
    name: str  # upstream's test case
    short: str  # --only
    source: str  # upstream's file and workload
    nodes: int
    devices: int  # maxClaimsPerNode: devices per node
    init: int  # pods already running
    measure: int  # pending pods
    threshold: int  # upstream's pods/s
    classes: int = 0  # extended resources: DeviceClasses (0: claim templates)


WORKLOADS = {
    w.short: w
    for w in (
        Workload(
            "SchedulingWithResourceClaimTemplate",
            "claim-template",
            "dra/performance-config.yaml 5000pods_500nodes_QueueingHintsEnabled",
            500,
            10,
            2500,
            2500,
            56,
        ),
        Workload(
            "SchedulingWithExtendedResource",
            "extended-resource",
            "dra/extendedresource/performance-config.yaml ExtendedResource_25Classes/5000pods_500nodes",
            500,
            10,
            2500,
            2500,
            197,
            classes=25,
        ),
    )
}
BY_NAME = {w.name: w for w in WORKLOADS.values()}


class Names:
    """Seeded names and uids, as the apiserver would give them (generateName suffixes, uids)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def suffix(self) -> str:
        return "".join(self.rng.choice(ALPHABET) for _ in range(5))

    def uid(self) -> str:
        return "%08x-%04x-4%03x-%04x-%012x" % (  # noqa: UP031 - a uuid4's layout
            self.rng.getrandbits(32),
            self.rng.getrandbits(16),
            self.rng.getrandbits(12),
            0x8000 | self.rng.getrandbits(14),
            self.rng.getrandbits(48),
        )


def node(i: int) -> Doc:
    capacity = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"{NODE_PREFIX}{i}"},
        "spec": {},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "conditions": [{"status": "True", "type": "Ready"}],
            "phase": "Running",
        },
    }


def resource_slice(node_name: str, devices: int) -> Doc:
    """The test driver's slice for a node (createResourceDriver)."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": node_name},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 0, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"instance-{i}",
                    "attributes": {
                        "model": {"string": "A100"},
                        "family": {"string": "GPU"},
                        "driverVersion": {"version": "1.2.3"},
                        "dra.example.com/numa": {"int": i},
                    },
                    "capacity": {"memory": {"value": "1Gi"}},
                }
                for i in range(devices)
            ],
        },
    }


def device_class(name: str, extended: str = "") -> Doc:
    spec: Doc = {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}
    if extended:
        spec["extendedResourceName"] = extended
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": spec,
    }


def namespace(name: str) -> Doc:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def claim_template(ns: str) -> Doc:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": TEMPLATE, "namespace": ns},
        "spec": {
            "spec": {
                "devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "test-class"}}]}
            }
        },
    }


def template_pod(name: str, ns: str) -> Doc:
    """pod-with-claim-template.yaml."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "containers": [
                {
                    "image": "registry.k8s.io/pause:3.10.1",
                    "name": "pause",
                    "resources": {"claims": [{"name": "resource"}]},
                }
            ],
            "resourceClaims": [{"name": "resource", "resourceClaimTemplateName": TEMPLATE}],
        },
    }


def extended_pod(name: str, ns: str, resource: str) -> Doc:
    """pod-with-extended-resource-mod25.yaml."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "containers": [
                {
                    "image": "registry.k8s.io/pause:3.9",
                    "name": "pause",
                    "resources": {"requests": {resource: "1"}, "limits": {resource: "1"}},
                }
            ]
        },
    }


def _allocated_claim(
    names: Names, pod: Doc, claim_name: str, request: Doc, device: str, node_name: str, annotations: Doc
) -> Doc:
    meta = pod["metadata"]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": claim_name,
            "namespace": meta["namespace"],
            "uid": names.uid(),
            "annotations": annotations,
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": meta["name"],
                    "uid": meta["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"devices": {"requests": [request]}},
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": request["name"], "driver": DRIVER, "pool": node_name, "device": device}
                    ]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
                    ]
                },
            },
            "reservedFor": [{"resource": "pods", "name": meta["name"], "uid": meta["uid"]}],
        },
    }


def running(names: Names, w: Workload, i: int, pod: Doc) -> list[Doc]:
    """Init pod i as the scheduler and the controllers left it: bound, its claim allocated and reserved."""
    node_name = f"{NODE_PREFIX}{i % w.nodes}"
    device = f"instance-{i // w.nodes}"
    meta = pod["metadata"]
    meta["uid"] = names.uid()
    meta["creationTimestamp"] = "2025-06-01T00:00:00Z"
    pod["spec"]["nodeName"] = node_name
    if w.classes:
        resource = next(iter(pod["spec"]["containers"][0]["resources"]["requests"]))
        request = {
            "name": "container-0-request-0",
            "exactly": {
                "deviceClassName": f"test-class-{i % w.classes}",
                "allocationMode": "ExactCount",
                "count": 1,
            },
        }
        claim_name = f"{meta['name']}-extended-resources-{names.suffix()}"
        annotations = {"resource.kubernetes.io/extended-resource-claim": "true"}
        pod["status"] = {
            "phase": "Running",
            "extendedResourceClaimStatus": {
                "requestMappings": [
                    {"containerName": "pause", "resourceName": resource, "requestName": request["name"]}
                ],
                "resourceClaimName": claim_name,
            },
        }
    else:
        request = {"name": "req-0", "exactly": {"deviceClassName": "test-class"}}
        claim_name = f"{meta['name']}-resource-{names.suffix()}"
        annotations = {"resource.kubernetes.io/pod-claim-name": "resource"}
        pod["status"] = {
            "phase": "Running",
            "resourceClaimStatuses": [{"name": "resource", "resourceClaimName": claim_name}],
        }
    return [_allocated_claim(names, pod, claim_name, request, device, node_name, annotations), pod]


def _pods(names: Names, w: Workload, ns: str, count: int) -> list[Doc]:
    if w.classes:
        return [extended_pod(f"test-dra-{i}", ns, f"example.com/gpu-{i % w.classes}") for i in range(count)]
    return [template_pod(f"test-dra{names.suffix()}", ns) for _ in range(count)]


def generate(w: Workload, seed: int = 1) -> dict[str, list[Doc]]:
    """The workload's objects by file: the cluster, the running pods with their claims, the pending pods."""
    names = Names(seed)
    cluster: list[Doc] = [namespace(INIT), namespace(TEST)]
    cluster += [node(i) for i in range(w.nodes)]
    cluster += [resource_slice(f"{NODE_PREFIX}{i}", w.devices) for i in range(w.nodes)]
    if w.classes:
        cluster += [device_class(f"test-class-{k}", f"example.com/gpu-{k}") for k in range(w.classes)]
    else:
        cluster += [device_class("test-class"), claim_template(INIT), claim_template(TEST)]
    run: list[Doc] = []
    for i, pod in enumerate(_pods(names, w, INIT, w.init)):
        run += running(names, w, i, pod)
    return {"cluster": cluster, "running": run, "workload": _pods(names, w, TEST, w.measure)}


def write(directory: str, w: Workload, seed: int = 1, fmt: str = "json") -> list[str]:
    """The files `kubefit allocate -f DIRECTORY` reads: JSON Lists as `kubectl get -o json` prints them."""
    import yaml

    os.makedirs(directory, exist_ok=True)
    paths = []
    for part, docs in generate(w, seed).items():
        path = os.path.join(directory, f"{part}.{fmt}")
        with open(path, "w", encoding="utf-8") as f:
            if fmt == "json":
                json.dump({"apiVersion": "v1", "kind": "List", "items": docs}, f, indent=4)
                f.write("\n")
            else:
                yaml.safe_dump_all(docs, f, sort_keys=False, explicit_start=True)
        paths.append(path)
    return paths


def check(w: Workload, output: str) -> str:
    """'' when every pending pod is placed on the node of its devices and no device is given twice."""
    doc = json.loads(output)
    items = doc["items"]
    pods = {(p["metadata"]["namespace"], p["metadata"]["name"]): p for p in items if p["kind"] == "Pod"}
    unplaced = [k for k, p in pods.items() if not p["spec"].get("nodeName")]
    if len(pods) != w.measure or unplaced:
        return f"{len(pods)} pods in the output, {len(unplaced)} not placed (want {w.measure} placed)"
    owners = {}
    taken: set[tuple[str, str]] = {
        (f"{NODE_PREFIX}{i % w.nodes}", f"instance-{i // w.nodes}") for i in range(w.init)
    }
    for claim in (c for c in items if c["kind"] == "ResourceClaim"):
        owner = claim["metadata"]["ownerReferences"][0]["name"]
        for r in claim["status"]["allocation"]["devices"]["results"]:
            key = (r["pool"], r["device"])
            if key in taken:
                return f"device {key} given twice"
            taken.add(key)
            owners[(claim["metadata"]["namespace"], owner)] = r["pool"]
    wrong = [k for k, p in pods.items() if owners.get(k) != p["spec"]["nodeName"]]
    return f"{len(wrong)} pods not on their devices' node" if wrong else ""


def bench(w: Workload, directory: str, kubefit: Sequence[str], repeat: int) -> tuple[list[str], str]:
    argv = [*kubefit, "allocate", "-f", directory, "-o", "json"]
    got: Measured = measure(argv, repeat)
    if any(got.codes):
        return [], f"{w.name}: exit {sorted(set(got.codes))}; stderr ends:\n" + "\n".join(
            got.stderr.splitlines()[-5:]
        )
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    problem = check(w, done.stdout)
    row = [
        w.name,
        str(w.nodes),
        str(w.nodes * w.devices),
        str(w.init),
        str(w.measure),
        f"{got.cpu:.2f}",
        f"{got.wall:.2f}",
        f"{got.peak:.0f}",
        f"{w.measure / got.cpu:.0f}",
        f"{w.measure / got.wall:.0f}",
        str(w.threshold),
    ]
    return row, f"{w.name}: {problem}" if problem else ""


HEADERS = [
    "workload",
    "nodes",
    "devices",
    "running",
    "pending",
    "CPU s",
    "wall s",
    "peak MB",
    "pods/CPU s",
    "pods/s",
    "upstream pods/s",
]


def scaled(w: Workload, factor: float) -> Workload:
    """The workload with its nodes and pods times `factor` (devices per node kept)."""
    if factor == 1:
        return w
    size = {k: max(1, round(getattr(w, k) * factor)) for k in ("nodes", "init", "measure")}
    return dataclasses.replace(w, **size)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=sorted(BY_NAME), help="with --write: the workload to write")
    parser.add_argument("--write", metavar="DIR", help="write the workload's files here and stop")
    parser.add_argument("--format", choices=("json", "yaml"), default="json", help="file format for --write")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (median)")
    parser.add_argument(
        "--only", default=",".join(WORKLOADS), help=f"workloads to measure ({', '.join(WORKLOADS)})"
    )
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="nodes and pods times this (upstream's sizes at 1; tests use less)",
    )
    parser.add_argument("--keep", metavar="DIR", help="write the measured files under DIR and keep them")
    parser.add_argument("--kubefit", metavar="CMD", help="the kubefit command (default: python -m kubefit)")
    args = parser.parse_args(argv)
    if args.write:
        if not args.workload:
            parser.error("--write needs --workload")
        w = BY_NAME[args.workload]
        for path in write(args.write, w, args.seed, args.format):
            print(f"wrote {path}")
        print(f"{w.nodes} nodes x {w.devices} devices, {w.init} pods running, {w.measure} pending")
        return 0
    chosen = args.only.split(",")
    unknown = sorted(set(chosen) - set(WORKLOADS))
    if unknown or args.repeat < 1:
        parser.error(f"--only takes {', '.join(WORKLOADS)}; --repeat at least 1")
    kubefit = shlex.split(args.kubefit) if args.kubefit else [sys.executable, "-m", "kubefit"]
    print(
        f"kubefit allocate -f DIR -o json, fresh processes, reading and writing included; kubefit: "
        f"{shlex.join(kubefit)}; medians of {args.repeat} run(s); CPU = user + system seconds; "
        f"{os.cpu_count()} CPUs"
    )
    rows, failures = [], []
    with tempfile.TemporaryDirectory(prefix="kubefit-sched-perf-") as scratch:
        for short in chosen:
            w = scaled(WORKLOADS[short], args.scale)
            directory = os.path.join(args.keep or scratch, short)
            write(directory, w, args.seed)
            print(f"  {w.name}: measuring", file=sys.stderr, flush=True)
            row, failure = bench(w, directory, kubefit, args.repeat)
            if row:
                rows.append(row)
            if failure:
                failures.append(failure)
    print(table(HEADERS, rows))
    for failure in failures:
        print(f"FAILED {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
