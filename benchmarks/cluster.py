"""A realistic, deterministic GPU cluster for benchmarks, as the objects `kubectl get -o yaml` would show.

Three node pools, interleaved in name order the way a seeded shuffle leaves them:

- `h100`: 8 plain H100 GPUs (one ResourceSlice) and 8 RDMA NICs from DraNet (another driver, its
  own slice), two GPUs and two NICs per PCIe root, so a GPU+NIC claim can ask for a shared root.
- `a100`: 8 partitionable A100-80GB GPUs as NVIDIA's DRA driver publishes them for dynamic MIG: a
  slice of shared counter sets (one per GPU: multiprocessors and 8 memory slices) and two slices of
  devices (the full GPU and every MIG placement, each consuming counters; 60 per slice because a
  slice with counter consumers holds at most 64 devices).
- `l4`: 8 plain L4 GPUs, no NICs (inference nodes).

About 30% of the GPUs are already in use by running pods (claims generated from templates, with
`status.allocation`, `reservedFor` and owner references, as the control plane leaves them); on
A100 nodes some GPUs are taken whole and some are partly carved into MIG partitions.

    python benchmarks/cluster.py --nodes 500 --write /tmp/cluster [--pods gpu:1]
    kubefit allocate -f /tmp/cluster

Library use: `generate(500).objects(*pods("gpu", 10))` gives an ObjectSet ready for
`kubefit.translate.dra.build.build`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import yaml

from kubefit.translate.kube.objects import ObjectSet
from kubefit.translate.loader import load_text

Doc = dict[str, Any]

GPU_DRIVER = "gpu.nvidia.com"
NIC_DRIVER = "dra.net"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
RUNNING_NAMESPACE = "prod"
BENCH_NAMESPACE = "bench"
GPUS_PER_NODE = 8
ROOTS = ["pci0000:15", "pci0000:3a", "pci0000:9a", "pci0000:c0"]  # two GPUs (and NICs) per root

# The claim kinds a workload can ask for (see `claim_spec`).
KINDS = ("gpu", "gpu-pair", "mig-1g", "gpu-nic")


@dataclass(frozen=True)
class NodeType:
    pool: str
    instance: str
    product: str
    architecture: str
    compute: str
    memory: str
    cpu: str
    node_memory: str
    partitionable: bool = False
    nics: bool = False


H100 = NodeType(
    "h100", "p5.48xlarge", "NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", "80Gi", "192", "2Ti", nics=True
)
A100 = NodeType(
    "a100", "p4de.24xlarge", "NVIDIA A100-SXM4-80GB", "Ampere", "8.0.0", "80Gi", "96", "1152Gi", True
)
L4 = NodeType("l4", "g6.48xlarge", "NVIDIA L4", "Ada Lovelace", "8.9.0", "24Gi", "192", "768Gi")
TYPES = {t.pool: t for t in (H100, A100, L4)}
# Share of nodes in each pool.
MIX = {"h100": 0.4, "a100": 0.4, "l4": 0.2}

# A100-80GB MIG profiles: (profile, profile id, multiprocessors, memory, placement starts, size in slices).
MigProfile = tuple[str, int, int, str, Sequence[int], int]
MIG_PROFILES: list[MigProfile] = [
    ("1g.10gb", 19, 14, "10Gi", range(7), 1),
    ("2g.20gb", 14, 28, "20Gi", (0, 2, 4), 2),
    ("3g.40gb", 9, 42, "40Gi", (0, 4), 4),
    ("4g.40gb", 5, 56, "40Gi", (0,), 4),
    ("7g.80gb", 0, 98, "80Gi", (0,), 8),
]
FULL_MULTIPROCESSORS = 98
MEMORY_SLICES = 8
# Partitions running workloads leave on a GPU that is partly in use: each layout fits the counters.
MIG_LAYOUTS = [
    [("3g.40gb", 0)],
    [("1g.10gb", 0), ("1g.10gb", 1), ("2g.20gb", 4)],
    [("4g.40gb", 0)],
    [("2g.20gb", 0), ("2g.20gb", 2), ("3g.40gb", 4)],
    [("1g.10gb", 6)],
]
GPUS_PER_MIG_SLICE = 4  # whole GPUs' worth of devices (4 x 15), under the limit of 64 per slice


@dataclass
class Cluster:
    """The generated objects (`docs`, plain manifests) and what benchmarks need to know about them."""

    docs: list[Doc]
    node_types: dict[str, str]  # node name -> pool
    in_use_devices: int = 0  # devices held by running pods (GPUs, MIG partitions, NICs)
    busy_gpus: int = 0  # GPUs a running pod uses in whole or in part
    _loaded: ObjectSet | None = field(default=None, repr=False)

    def nodes_of(self, pool: str) -> list[str]:
        return [name for name, p in self.node_types.items() if p == pool]

    def base(self) -> ObjectSet:
        """The cluster as kubefit's loader reads it, loaded once: loading is most of the cost of a
        large cluster, and the objects are only read afterwards."""
        if self._loaded is None:
            self._loaded = load_docs(self.docs)
        return self._loaded

    def objects(self, *workload: Doc) -> ObjectSet:
        """The cluster plus `workload`, ready for `build`."""
        extra = load_docs(workload) if workload else ObjectSet()
        return ObjectSet([*self.base().objects, *extra.objects], [*self.base().warnings, *extra.warnings])


def _uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _attrs(**values: Any) -> dict[str, Any]:
    """Device attributes in the API's one-of form; a "v:" prefix marks a semantic version."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        name = PCIE_ROOT if key == "pcieRoot" else key
        if isinstance(value, bool):
            out[name] = {"bool": value}
        elif isinstance(value, int):
            out[name] = {"int": value}
        elif isinstance(value, str) and value.startswith("v:"):
            out[name] = {"version": value[2:]}
        else:
            out[name] = {"string": value}
    return out


def node_doc(name: str, t: NodeType, zone: str) -> Doc:
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": t.instance,
        "topology.kubernetes.io/zone": zone,
        "nvidia.com/gpu.product": t.product.replace(" ", "-"),
        "nvidia.com/mig.capable": str(t.partitionable).lower(),
        "pool": t.pool,
    }
    allocatable = {"cpu": str(int(t.cpu) - 2), "memory": t.node_memory, "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {
            "capacity": {"cpu": t.cpu, "memory": t.node_memory, "pods": "110"},
            "allocatable": allocatable,
        },
    }


def _gpu_common(t: NodeType, index: int) -> dict[str, Any]:
    return {
        "productName": t.product,
        "cudaComputeCapability": f"v:{t.compute}",
        "driverVersion": "v:570.124.6",
        "pcieRoot": ROOTS[index // 2],
    }


def _slice(node: str, driver: str, suffix: str, count: int, **spec: Any) -> Doc:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{driver}-{suffix}"},
        "spec": {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": count},
            **spec,
        },
    }


def plain_gpus(node: str, t: NodeType, uuids: Sequence[str]) -> list[Doc]:
    devices = [
        {
            "name": f"gpu-{i}",
            "attributes": _attrs(
                type="gpu",
                index=i,
                uuid=uuids[i],
                brand="Nvidia",
                architecture=t.architecture,
                cudaDriverVersion="v:12.8.0",
                **_gpu_common(t, i),
            ),
            "capacity": {"memory": {"value": t.memory}},
        }
        for i in range(GPUS_PER_NODE)
    ]
    return [_slice(node, GPU_DRIVER, "gpus", 1, devices=devices)]


def _counters(start: int, size: int, multiprocessors: int) -> dict[str, Any]:
    counters = {"multiprocessors": {"value": str(multiprocessors)}}
    counters.update({f"memory-slice-{s}": {"value": "1"} for s in range(start, start + size)})
    return counters


def mig_device_name(gpu: int, profile: str, start: int, profiles: Sequence[MigProfile] = MIG_PROFILES) -> str:
    profile_id = next(p[1] for p in profiles if p[0] == profile)
    return f"gpu-{gpu}-mig-{profile.replace('.', '-')}-{profile_id}-{start}"


def partitionable_gpus(
    node: str,
    t: NodeType,
    uuids: Sequence[str],
    gpus: int = GPUS_PER_NODE,
    profiles: Sequence[MigProfile] = MIG_PROFILES,
    per_slice: int = GPUS_PER_MIG_SLICE,
) -> list[Doc]:
    """The counter-set slice and the device slices of a node's partitionable GPUs: the full GPU and
    every placement of `profiles`, `per_slice` GPUs' devices in each device slice."""
    counter_sets = [
        {"name": f"gpu-{i}-counter-set", "counters": _counters(0, MEMORY_SLICES, FULL_MULTIPROCESSORS)}
        for i in range(gpus)
    ]
    devices: list[Doc] = []
    for i in range(gpus):
        counter_set = f"gpu-{i}-counter-set"
        devices.append(
            {
                "name": f"gpu-{i}",
                "attributes": _attrs(type="gpu", index=i, uuid=uuids[i], brand="Nvidia", **_gpu_common(t, i)),
                "capacity": {"memory": {"value": t.memory}, "multiprocessors": {"value": "98"}},
                "consumesCounters": [
                    {"counterSet": counter_set, "counters": _counters(0, MEMORY_SLICES, FULL_MULTIPROCESSORS)}
                ],
            }
        )
        for profile, _, mps, memory, starts, size in profiles:
            for start in starts:
                devices.append(
                    {
                        "name": mig_device_name(i, profile, start, profiles),
                        "attributes": _attrs(
                            type="mig",
                            profile=profile,
                            parentUUID=uuids[i],
                            parentIndex=i,
                            placementStart=start,
                            placementSize=size,
                            **_gpu_common(t, i),
                        ),
                        "capacity": {"memory": {"value": memory}, "multiprocessors": {"value": str(mps)}},
                        "consumesCounters": [
                            {"counterSet": counter_set, "counters": _counters(start, size, mps)}
                        ],
                    }
                )
    step = per_slice * (len(devices) // gpus)  # every GPU has as many devices
    chunks = [devices[k : k + step] for k in range(0, len(devices), step)]
    count = 1 + len(chunks)
    out = [_slice(node, GPU_DRIVER, "counters", count, sharedCounters=counter_sets)]
    out += [_slice(node, GPU_DRIVER, f"devices-{k}", count, devices=chunk) for k, chunk in enumerate(chunks)]
    return out


def nic_name(i: int) -> str:
    # DraNet names devices after their PCI address.
    return f"pci-0000-{ROOTS[i // 2][-2:]}-0{i % 2}-0"


def nics(node: str) -> list[Doc]:
    devices = [
        {
            "name": nic_name(i),
            "attributes": _attrs(
                ifName=f"rdma{i}",
                rdma=True,
                pciVendor="Mellanox Technologies",
                model="ConnectX-7",
                linkSpeedGbps=400,
                numaNode=i // 4,
                pcieRoot=ROOTS[i // 2],
            ),
        }
        for i in range(GPUS_PER_NODE)
    ]
    return [_slice(node, NIC_DRIVER, "nics", 1, devices=devices)]


def device_classes() -> list[Doc]:
    def cls(name: str, expression: str) -> Doc:
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]},
        }

    return [
        cls(
            GPU_DRIVER, f"device.driver == '{GPU_DRIVER}' && device.attributes['{GPU_DRIVER}'].type == 'gpu'"
        ),
        cls(
            "mig.nvidia.com",
            f"device.driver == '{GPU_DRIVER}' && device.attributes['{GPU_DRIVER}'].type == 'mig'",
        ),
        cls("rdma-nic", f"device.driver == '{NIC_DRIVER}' && device.attributes['{NIC_DRIVER}'].rdma == true"),
    ]


def claim_spec(kind: str) -> Doc:
    """The ResourceClaimSpec of each workload kind."""
    gpu = {"deviceClassName": GPU_DRIVER}
    if kind == "gpu":
        return {"devices": {"requests": [{"name": "gpu", "exactly": gpu}]}}
    if kind == "gpu-pair":
        return {
            "devices": {
                "requests": [{"name": "gpus", "exactly": {**gpu, "count": 2}}],
                "constraints": [{"requests": ["gpus"], "matchAttribute": PCIE_ROOT}],
            }
        }
    if kind == "mig-1g":
        profile = f'device.attributes["{GPU_DRIVER}"].profile == "1g.10gb"'
        mig = {"deviceClassName": "mig.nvidia.com", "selectors": [{"cel": {"expression": profile}}]}
        return {"devices": {"requests": [{"name": "mig", "exactly": mig}]}}
    if kind == "gpu-nic":
        speed = f'device.attributes["{NIC_DRIVER}"].linkSpeedGbps >= 200'
        nic = {"deviceClassName": "rdma-nic", "selectors": [{"cel": {"expression": speed}}]}
        return {
            "devices": {
                "requests": [{"name": "gpu", "exactly": gpu}, {"name": "nic", "exactly": nic}],
                "constraints": [{"requests": ["gpu", "nic"], "matchAttribute": PCIE_ROOT}],
            }
        }
    raise ValueError(f"unknown claim kind {kind!r} (known: {', '.join(KINDS)})")


def namespace(name: str) -> Doc:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _pod(name: str, ns: str, claim: str, template: str, gpus: int = 1) -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": template}},
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": "nvcr.io/nvidia/pytorch:25.01-py3",
                    "resources": {
                        "requests": {"cpu": str(4 * gpus), "memory": f"{32 * gpus}Gi"},
                        "claims": [{"name": claim}],
                    },
                }
            ],
            "resourceClaims": [{"name": claim, "resourceClaimTemplateName": template}],
        },
    }


def claims(kind: str, count: int, ns: str = BENCH_NAMESPACE) -> list[Doc]:
    """`count` unallocated ResourceClaims `<kind>-<i>` of one kind."""
    return [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": f"{kind}-{i}", "namespace": ns},
            "spec": claim_spec(kind),
        }
        for i in range(count)
    ]


def pods(kind: str, count: int, ns: str = BENCH_NAMESPACE) -> list[Doc]:
    """A ResourceClaimTemplate `<kind>` and `count` pending pods `<kind>-<i>` that use it."""
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": kind, "namespace": ns},
        "spec": {"spec": claim_spec(kind)},
    }
    gpus = 2 if kind == "gpu-pair" else 1
    return [template, *(_pod(f"{kind}-{i:05d}", ns, "devices", kind, gpus) for i in range(count))]


def _running(
    rng: random.Random, node: str, n: int, request: str, results: list[tuple[str, str]]
) -> list[Doc]:
    """A running pod on `node` and its claim generated from a template, allocated to `results`
    (driver, device) and reserved for the pod, with the metadata the resourceclaim controller writes."""
    pod_name = f"{node}-job-{n}"
    claim_name = f"{pod_name}-devices-{rng.getrandbits(20):05x}"
    pod_uid = _uid(rng)
    classes = {GPU_DRIVER: GPU_DRIVER, NIC_DRIVER: "rdma-nic"}
    if request == "mig":
        classes[GPU_DRIVER] = "mig.nvidia.com"
    requests = [
        {"name": f"{request}-{k}", "exactly": {"deviceClassName": classes[driver]}}
        for k, (driver, _) in enumerate(results)
    ]
    pod = _pod(pod_name, RUNNING_NAMESPACE, "devices", "running-job")
    pod["metadata"]["uid"] = pod_uid
    pod["metadata"]["creationTimestamp"] = "2025-06-01T00:00:00Z"
    pod["spec"]["nodeName"] = node
    pod["status"] = {
        "phase": "Running",
        "resourceClaimStatuses": [{"name": "devices", "resourceClaimName": claim_name}],
    }
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": claim_name,
            "namespace": RUNNING_NAMESPACE,
            "uid": _uid(rng),
            "annotations": {"resource.kubernetes.io/pod-claim-name": "devices"},
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": pod_name,
                    "uid": pod_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"devices": {"requests": requests}},
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": f"{request}-{k}", "driver": driver, "pool": node, "device": device}
                        for k, (driver, device) in enumerate(results)
                    ]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                    ]
                },
            },
            "reservedFor": [{"resource": "pods", "name": pod_name, "uid": pod_uid}],
        },
    }
    return [claim, pod]


def _in_use(
    rng: random.Random, node: str, t: NodeType, busy: float, gpus: int = GPUS_PER_NODE
) -> tuple[list[Doc], int, int]:
    """Running pods on `node`: each GPU is busy with probability `busy` (on H100 nodes some jobs
    also hold the NIC next to their GPU; on A100 nodes half the busy GPUs are carved into MIG
    partitions). Returns the documents, the number of devices they hold, and of GPUs they use."""
    docs: list[Doc] = []
    held = busy_gpus = 0
    for i in range(gpus):
        if rng.random() >= busy:
            continue
        busy_gpus += 1
        if t.partitionable and rng.random() < 0.5:
            for profile, start in rng.choice(MIG_LAYOUTS):
                docs += _running(
                    rng, node, len(docs) // 2, "mig", [(GPU_DRIVER, mig_device_name(i, profile, start))]
                )
                held += 1
            continue
        results = [(GPU_DRIVER, f"gpu-{i}")]
        if t.nics and rng.random() < 0.5:
            results.append((NIC_DRIVER, nic_name(i)))
        docs += _running(rng, node, len(docs) // 2, "gpu", results)
        held += len(results)
    return docs, held, busy_gpus


def _pools(n: int, rng: random.Random) -> list[str]:
    """The pool of each of `n` nodes: MIX shares (at least one node per pool when n allows), shuffled."""
    counts = {pool: max(1 if n >= len(MIX) else 0, round(n * share)) for pool, share in MIX.items()}
    while sum(counts.values()) > n:
        counts[max(counts, key=lambda p: counts[p])] -= 1
    while sum(counts.values()) < n:
        counts["h100"] += 1
    order = [pool for pool, c in counts.items() for _ in range(c)]
    rng.shuffle(order)
    return order


def generate(nodes: int = 500, seed: int = 1, busy: float = 0.3) -> Cluster:
    """The cluster: Nodes, DeviceClasses, ResourceSlices, and running pods with their allocated claims."""
    rng = random.Random(seed)
    docs: list[Doc] = [namespace(RUNNING_NAMESPACE), namespace(BENCH_NAMESPACE), *device_classes()]
    running: list[Doc] = []
    types: dict[str, str] = {}
    held = busy_gpus = 0
    for i, pool in enumerate(_pools(nodes, rng)):
        t = TYPES[pool]
        name = f"node-{i:04d}"
        types[name] = pool
        docs.append(node_doc(name, t, f"us-east-1{'abc'[i % 3]}"))
        uuids = [f"GPU-{_uid(rng)}" for _ in range(GPUS_PER_NODE)]
        docs += partitionable_gpus(name, t, uuids) if t.partitionable else plain_gpus(name, t, uuids)
        if t.nics:
            docs += nics(name)
        pod_docs, n, g = _in_use(rng, name, t, busy)
        running += pod_docs
        held += n
        busy_gpus += g
    docs.append(_template("running-job", RUNNING_NAMESPACE))
    return Cluster([*docs, *running], types, held, busy_gpus)


def _template(name: str, ns: str) -> Doc:
    # The template the running pods were created from (its claims are already generated).
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"spec": claim_spec("gpu")},
    }


_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump(docs: Iterable[Doc], fmt: str = "yaml") -> str:
    """A multi-document YAML stream, or (`json`) a `kind: List` as `kubectl get -o json` prints it.
    PyYAML's dumper is slow on a large cluster (~20 s for 500 nodes), json is ~30 times faster."""
    if fmt == "json":
        return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(docs)}, indent=1) + "\n"
    return yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, explicit_start=True)


def load_docs(docs: Iterable[Doc], name: str = "<generated>") -> ObjectSet:
    """Plain manifests as kubefit's loader reads them. The loader takes text, not dicts (it records
    lines and coerces fields in place), so the documents go through JSON (a YAML subset) in memory."""
    return load_text("".join(f"---\n{json.dumps(d)}\n" for d in docs), name)


def write(directory: str, cluster: Cluster, workload: Sequence[Doc] = (), fmt: str = "yaml") -> list[str]:
    """The cluster as files `kubefit -f DIRECTORY` reads; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    parts = {"cluster": [d for d in cluster.docs if d["kind"] not in ("Pod", "ResourceClaim")]}
    parts["running"] = [d for d in cluster.docs if d["kind"] in ("Pod", "ResourceClaim")]
    if workload:
        parts["workload"] = list(workload)
    paths = []
    for file, docs in parts.items():
        path = os.path.join(directory, f"{file}.{fmt}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(dump(docs, fmt))
        paths.append(path)
    return paths


def _workload(specs: Sequence[str], make: Any) -> list[Doc]:
    out: list[Doc] = []
    for spec in specs:
        kind, _, count = spec.partition(":")
        out += make(kind, int(count or 1))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--busy", type=float, default=0.3, help="share of GPUs already in use")
    parser.add_argument("--write", metavar="DIR", help="write the YAML here (else print a summary)")
    parser.add_argument(
        "--pods", action="append", default=[], metavar="KIND[:N]", help=f"pending pods ({', '.join(KINDS)})"
    )
    parser.add_argument("--claims", action="append", default=[], metavar="KIND[:N]", help="pending claims")
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml", help="file format for --write")
    args = parser.parse_args(argv)
    cluster = generate(args.nodes, args.seed, args.busy)
    workload = _workload(args.pods, pods) + _workload(args.claims, claims)
    kinds: dict[str, int] = {}
    for d in [*cluster.docs, *workload]:
        kinds[d["kind"]] = kinds.get(d["kind"], 0) + 1
    pools = {p: len(cluster.nodes_of(p)) for p in TYPES}
    gpus = args.nodes * GPUS_PER_NODE
    print(
        f"nodes by pool: {pools}; {cluster.busy_gpus} of {gpus} GPUs busy, "
        f"{cluster.in_use_devices} devices in use (GPUs, MIG partitions, NICs)"
    )
    print("objects: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
    if args.write:
        for path in write(args.write, cluster, workload, args.format):
            print(f"wrote {path}")
    return 0


# --- reporting, shared by the benchmarks that use this cluster ---------------------------------------------

T = TypeVar("T")


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """The result and the CPU seconds it took: this runs single-threaded, so CPU time is its wall time
    on an idle machine and stays honest on a busy one."""
    start = time.process_time()
    result = fn()
    return result, time.process_time() - start


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = [" ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))]
    lines += [" ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
