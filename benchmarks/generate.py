"""Seeded batch workloads for the planner: MIG clusters and the pending pods that overfill them.

- `mig_cluster`: N nodes of A100-80GB GPUs as NVIDIA's DRA driver publishes them for dynamic MIG
  (the devices of `cluster.py`), optionally partly used by running pods with allocated claims.
- `mig_pods`: pending pods, one MIG profile claim each (1g.10gb ... 7g.80gb), in a given mix of
  profiles and at a given load: the memory slices the pods ask for over all the GPUs' slices.
  Optional gangs (PodGroups with a gang policy) and PriorityClasses the pods are spread over.
- `pcie_cluster` / `pcie_pods`: H100 nodes with GPUs and RDMA NICs under PCIe roots and CPUs
  published per NUMA node by dra-driver-cpu (grouped mode); pods wanting a GPU and a NIC on one
  root, optionally with exclusive CPUs on the NIC's NUMA node.

Everything is deterministic for a seed (the same bytes), and names are readable: nodes
`gpu-node-001`, pods `mig-3g-0007`, gangs `train-002` with pods `train-002-0`...

    python benchmarks/generate.py --nodes 20 --gpus 8 --load 1.1 \\
        --mix 1g.10gb=4,2g.20gb=2,3g.40gb=2,4g.40gb=1,7g.80gb=1 --seed 3 [--gangs 4] [--busy 0.2] \\
        [--priorities low=0,high=1000] --write DIR     # DIR/cluster.yaml and DIR/workload.yaml
    python benchmarks/generate.py ... -o -            # one YAML stream on stdout
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice

from cluster import (
    A100,
    GPU_DRIVER,
    GPUS_PER_NODE,
    H100,
    MEMORY_SLICES,
    MIG_PROFILES,
    NIC_DRIVER,
    PCIE_ROOT,
    ROOTS,
    RUNNING_NAMESPACE,
    Doc,
    _in_use,
    _pod,
    _slice,
    _template,
    _uid,
    claim_spec,
    device_classes,
    dump,
    namespace,
    nics,
    node_doc,
    partitionable_gpus,
    plain_gpus,
)

NAMESPACE = "batch"
MIG_CLASS = "mig.nvidia.com"
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
MAX_GPUS = 2 * len(ROOTS)  # two GPUs per PCIe root
SLICES = {p[0]: p[5] for p in MIG_PROFILES}  # memory slices each profile takes
DEFAULT_MIX = {"1g.10gb": 4, "2g.20gb": 2, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}

# dra-driver-cpu, grouped by NUMA node: one device per NUMA node whose `dra.cpu/cpu` capacity is
# shared by many claims; `dra.net/numaNode` is its compatibility attribute for aligning with DraNet.
CPU_DRIVER = "dra.cpu"
CPU_CAPACITY = "dra.cpu/cpu"
NUMA_NODE = "resource.kubernetes.io/numaNode"
# A p5.48xlarge: two sockets, one NUMA node each, 96 CPUs (SMT) per node; the kubelet keeps the first
# core (CPUs 0 and 96, both on NUMA node 0) for the system, which leaves the node its 190 allocatable.
NUMA_CPUS = (94, 96)
# Exclusive CPUs each PCIe workload kind claims from dra.cpu (kinds not listed claim none).
CPU_CLAIMS = {"cpu": 32, "gpu-nic-cpu": 16}
PCIE_KINDS = ("gpu", "gpu-pair", "gpu-nic", "gpu-nic-cpu", "cpu")
DEFAULT_PCIE_MIX = {"gpu-nic": 2, "gpu-nic-cpu": 1, "cpu": 1}


def template_name(profile: str) -> str:
    """The ResourceClaimTemplate of a MIG profile: `mig-3g-40gb`."""
    return "mig-" + profile.replace(".", "-")


_PROFILE_OF = {template_name(p): p for p in SLICES}


def _node_name(prefix: str, i: int, nodes: int) -> str:
    # Zero-padded to the widest number so that name order is node order.
    return f"{prefix}-{i:0{max(3, len(str(nodes)))}d}"


def _check_size(nodes: int, gpus: int, busy: float) -> None:
    if nodes < 1:
        raise ValueError(f"nodes must be at least 1, not {nodes}")
    if not 1 <= gpus <= MAX_GPUS:
        raise ValueError(f"gpus must be between 1 and {MAX_GPUS} per node, not {gpus}")
    if not 0.0 <= busy <= 1.0:
        raise ValueError(f"busy must be between 0 and 1, not {busy}")


def _running(docs: list[Doc]) -> list[Doc]:
    """Running pods and their claims, with the namespace and template they came from."""
    if not docs:
        return []
    return [namespace(RUNNING_NAMESPACE), _template("running-job", RUNNING_NAMESPACE), *docs]


def mig_cluster(nodes: int, gpus: int = GPUS_PER_NODE, seed: int = 1, busy: float = 0.0) -> list[Doc]:
    """DeviceClasses, then each A100 node `gpu-node-001`... with its ResourceSlices (a slice of counter
    sets, one per GPU, and slices of at most 60 devices: the full GPUs and every MIG placement), then
    the running pods: each GPU is in use with probability `busy`, whole or carved into MIG partitions."""
    _check_size(nodes, gpus, busy)
    rng = random.Random(seed)
    docs = [c for c in device_classes() if c["metadata"]["name"] in (GPU_DRIVER, MIG_CLASS)]
    running: list[Doc] = []
    for i in range(nodes):
        name = _node_name("gpu-node", i + 1, nodes)
        docs.append(node_doc(name, A100, ZONES[i % len(ZONES)]))
        uuids = [f"GPU-{_uid(rng)}" for _ in range(gpus)]
        docs += partitionable_gpus(name, A100, uuids, gpus)
        running += _in_use(rng, name, A100, busy, gpus)[0]
    return docs + _running(running)


def _weights(mix: Mapping[str, int], known: Iterable[str]) -> dict[str, int]:
    """The mix in the order of `known`, without zero weights; unknown names and negative or all-zero
    weights are errors."""
    known = list(known)
    unknown = sorted(set(mix) - set(known))
    if unknown:
        raise ValueError(f"unknown in the mix: {', '.join(unknown)} (known: {', '.join(known)})")
    if any(w < 0 for w in mix.values()) or not any(mix.values()):
        raise ValueError("mix weights must be non-negative and not all zero")
    return {name: mix[name] for name in known if mix.get(name, 0) > 0}


def _round_robin(weights: Mapping[str, int]) -> Iterator[str]:
    """Names in proportion to their weights, evenly interleaved (smooth weighted round robin): any
    prefix of the sequence is as close to the mix as whole pods allow."""
    total = sum(weights.values())
    credit = dict.fromkeys(weights, 0)
    while True:
        for name, weight in weights.items():
            credit[name] += weight
        chosen = max(credit, key=lambda n: credit[n])  # the first of equals: the order is fixed
        credit[chosen] -= total
        yield chosen


def _priority_classes(priorities: Mapping[str, int]) -> list[Doc]:
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
            "globalDefault": False,
            "description": f"batch work of priority {name}",
        }
        for name, value in priorities.items()
    ]


def _claim_template(name: str, spec: Doc) -> Doc:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"spec": spec},
    }


def mig_claim_spec(profile: str) -> Doc:
    """One MIG partition of the profile (any placement on any GPU)."""
    selector = f'device.attributes["{GPU_DRIVER}"].profile == "{profile}"'
    mig = {"deviceClassName": MIG_CLASS, "selectors": [{"cel": {"expression": selector}}]}
    return {"devices": {"requests": [{"name": "mig", "exactly": mig}]}}


def _mig_pod(name: str, profile: str, priority: str, group: str) -> Doc:
    pod = _pod(name, NAMESPACE, "mig", template_name(profile))
    # Host resources grow with the partition's compute slices, modest enough that GPUs, not CPUs or
    # memory, limit how many fit (a node holds at most 56 compute slices).
    compute = int(profile.split("g.")[0])
    pod["spec"]["containers"][0]["resources"]["requests"].update(cpu=str(compute), memory=f"{12 * compute}Gi")
    if priority:
        pod["spec"]["priorityClassName"] = priority
    if group:
        pod["metadata"]["labels"]["job"] = group
        pod["spec"]["schedulingGroup"] = {"podGroupName": group}
    return pod


def _pod_group(name: str, size: int) -> Doc:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"schedulingPolicy": {"gang": {"minCount": size}}},
    }


def mig_pods(
    cluster_nodes: int,
    gpus: int,
    load: float,
    mix: Mapping[str, int],
    seed: int,
    gangs: int = 0,
    gang_size: int = 4,
    priorities: Mapping[str, int] | None = None,
) -> list[Doc]:
    """Pending pods asking for `load` times the memory slices of `cluster_nodes` x `gpus` GPUs, give or
    take less than one pod's slices: `gangs` PodGroups of `gang_size` pods of one profile each (drawn
    from the mix), then single pods in the proportions of `mix` until the load is reached. Pods are
    spread over the PriorityClasses of `priorities` (name -> value) in turn (a gang's pods share one),
    and queued in an order shuffled by `seed`, a gang's pods together. Returns the Namespace,
    PriorityClasses, ResourceClaimTemplates, PodGroups and Pods."""
    weights = _weights(mix, SLICES)
    if load < 0 or gangs < 0 or gang_size < 1:
        raise ValueError("load and gangs must be non-negative and gang_size at least 1")
    target = load * cluster_nodes * gpus * MEMORY_SLICES
    rng = random.Random(seed)
    classes = list(priorities or {})
    groups: list[Doc] = []
    units: list[list[Doc]] = []
    asked = 0
    for g in range(gangs):
        profile = rng.choices(list(weights), list(weights.values()))[0]
        name = f"train-{g:03d}"
        priority = classes[g % len(classes)] if classes else ""
        groups.append(_pod_group(name, gang_size))
        units.append([_mig_pod(f"{name}-{k}", profile, priority, name) for k in range(gang_size)])
        asked += gang_size * SLICES[profile]
    if asked > target:
        raise ValueError(f"the gangs alone ask for {asked} memory slices, more than the load's {target:g}")
    counts = dict.fromkeys(weights, 0)
    for profile in _round_robin(weights):
        if asked >= target:
            break
        n = counts[profile]
        counts[profile] += 1
        priority = classes[n % len(classes)] if classes else ""
        units.append([_mig_pod(f"mig-{profile.split('.')[0]}-{n:04d}", profile, priority, "")])
        asked += SLICES[profile]
    rng.shuffle(units)
    pods = [pod for unit in units for pod in unit]
    used = {_PROFILE_OF[_template_of(p)] for p in pods}
    templates = [_claim_template(template_name(p), mig_claim_spec(p)) for p in SLICES if p in used]
    return [namespace(NAMESPACE), *_priority_classes(priorities or {}), *templates, *groups, *pods]


def _template_of(pod: Doc) -> str:
    return str(pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"])


def demand(docs: Iterable[Doc]) -> int:
    """The memory slices the MIG pods among `docs` ask for."""
    return sum(
        SLICES[_PROFILE_OF[_template_of(d)]]
        for d in docs
        if d["kind"] == "Pod" and _template_of(d) in _PROFILE_OF
    )


# --- GPUs, NICs and CPUs under PCIe roots and NUMA nodes ----------------------------------------------------


def cpu_devices(node: str) -> list[Doc]:
    """The slice dra-driver-cpu publishes in grouped mode by NUMA node: each NUMA node's allocatable
    CPUs as one device many claims share, with the PCIe roots local to it (the roots of the NICs
    `cluster.nics` puts on that NUMA node)."""
    devices = []
    for numa, cpus in enumerate(NUMA_CPUS):
        roots = sorted({ROOTS[i // 2] for i in range(GPUS_PER_NODE) if i // 4 == numa})
        devices.append(
            {
                "name": f"cpudevnuma{numa:03d}",
                "attributes": {
                    NUMA_NODE: {"int": numa},
                    f"{CPU_DRIVER}/socketID": {"int": numa},
                    f"{CPU_DRIVER}/smtEnabled": {"bool": True},
                    f"{CPU_DRIVER}/numCPUs": {"int": cpus},
                    f"{NIC_DRIVER}/numaNode": {"int": numa},
                    PCIE_ROOT: {"strings": roots},
                },
                "capacity": {CPU_CAPACITY: {"value": str(cpus)}},
                "allowMultipleAllocations": True,
            }
        )
    return [_slice(node, CPU_DRIVER, "cpus", 1, devices=devices)]


def _cpu_class() -> Doc:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": CPU_DRIVER},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{CPU_DRIVER}"'}}]},
    }


def pcie_cluster(nodes: int, seed: int = 1, busy: float = 0.0) -> list[Doc]:
    """DeviceClasses, then H100 nodes `h100-node-001`... each with 8 GPUs, 8 RDMA NICs (two of each per
    PCIe root) and its CPUs per NUMA node, then running pods holding GPUs (and some the NIC beside)."""
    _check_size(nodes, GPUS_PER_NODE, busy)
    rng = random.Random(seed)
    docs = [*device_classes(), _cpu_class()]
    running: list[Doc] = []
    for i in range(nodes):
        name = _node_name("h100-node", i + 1, nodes)
        docs.append(node_doc(name, H100, ZONES[i % len(ZONES)]))
        uuids = [f"GPU-{_uid(rng)}" for _ in range(GPUS_PER_NODE)]
        docs += [*plain_gpus(name, H100, uuids), *nics(name), *cpu_devices(name)]
        running += _in_use(rng, name, H100, busy)[0]
    return docs + _running(running)


def pcie_claim_spec(kind: str) -> Doc:
    """`cluster.claim_spec`'s kinds, plus exclusive CPUs: `cpu` alone, or `gpu-nic-cpu`, a GPU and a NIC
    on one PCIe root with CPUs on the NIC's NUMA node."""
    if kind not in CPU_CLAIMS:
        return claim_spec(kind)
    capacity = {"requests": {CPU_CAPACITY: str(CPU_CLAIMS[kind])}}
    cpu = {"name": "cpu", "exactly": {"deviceClassName": CPU_DRIVER, "capacity": capacity}}
    if kind == "cpu":
        return {"devices": {"requests": [cpu]}}
    spec = claim_spec("gpu-nic")
    spec["devices"]["requests"].append(cpu)
    spec["devices"]["constraints"].append(
        {"requests": ["nic", "cpu"], "matchAttribute": f"{NIC_DRIVER}/numaNode"}
    )
    return spec


def pcie_pods(count: int, seed: int = 1, mix: Mapping[str, int] | None = None) -> list[Doc]:
    """`count` pending pods `<kind>-0000`... of the kinds in `mix` (default: GPU+NIC pairs, some with
    CPUs, and CPU-only pods) in proportion, queued in an order shuffled by `seed`. A pod's cpu request
    repeats the CPUs its claim takes, as dra-driver-cpu asks (nothing maps one onto the other)."""
    weights = _weights(mix or DEFAULT_PCIE_MIX, PCIE_KINDS)
    counts = dict.fromkeys(weights, 0)
    pods = []
    for kind in islice(_round_robin(weights), count):
        pod = _pod(f"{kind}-{counts[kind]:04d}", NAMESPACE, "devices", kind, 2 if kind == "gpu-pair" else 1)
        counts[kind] += 1
        if kind in CPU_CLAIMS:
            cpus = CPU_CLAIMS[kind]
            pod["spec"]["containers"][0]["resources"]["requests"].update(
                cpu=str(cpus), memory=f"{4 * cpus}Gi"
            )
        pods.append(pod)
    random.Random(seed).shuffle(pods)
    templates = [_claim_template(kind, pcie_claim_spec(kind)) for kind, n in counts.items() if n]
    return [namespace(NAMESPACE), *templates, *pods]


# --- command line ----------------------------------------------------------------------------------------


def _pairs(text: str) -> dict[str, int]:
    """`name=int,name=int` -> dict (argparse turns the error into a usage message, exit 2)."""
    out: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = int(value)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise argparse.ArgumentTypeError(f"{item!r} is not NAME=INTEGER")
    return out


def _summary(nodes: int, gpus: int, cluster: Sequence[Doc], workload: Sequence[Doc]) -> str:
    slices = nodes * gpus * MEMORY_SLICES
    pods = [d for d in workload if d["kind"] == "Pod"]
    per_profile = {p: sum(1 for d in pods if _template_of(d) == template_name(p)) for p in SLICES}
    running = sum(1 for d in cluster if d["kind"] == "Pod")
    grouped = sum(1 for d in pods if "schedulingGroup" in d["spec"])
    groups = sum(1 for d in workload if d["kind"] == "PodGroup")
    return (
        f"{nodes} nodes x {gpus} A100-80GB ({slices} memory slices), {running} running pods; "
        f"{len(pods)} pending pods ({grouped} in {groups} gangs) asking {demand(pods)} slices "
        f"(load {demand(pods) / slices:.3f}): " + ", ".join(f"{p} {n}" for p, n in per_profile.items() if n)
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--gpus", type=int, default=GPUS_PER_NODE, help="A100 GPUs per node")
    parser.add_argument("--load", type=float, default=1.0, help="memory slices asked / all GPUs' slices")
    default_mix = ",".join(f"{p}={w}" for p, w in DEFAULT_MIX.items())
    parser.add_argument("--mix", type=_pairs, default=DEFAULT_MIX, help=f"PROFILE=WEIGHT,... ({default_mix})")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gangs", type=int, default=0, help="PodGroups with a gang policy")
    parser.add_argument("--gang-size", type=int, default=4)
    parser.add_argument("--priorities", type=_pairs, default={}, help="PriorityClasses NAME=VALUE,...")
    parser.add_argument("--busy", type=float, default=0.0, help="share of GPUs already in use")
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--write", metavar="DIR", help="write DIR/cluster.yaml and DIR/workload.yaml")
    out.add_argument("-o", "--output", metavar="FILE", help="one stream of everything ('-': stdout)")
    args = parser.parse_args(argv)
    try:
        cluster = mig_cluster(args.nodes, args.gpus, args.seed, args.busy)
        workload = mig_pods(
            args.nodes, args.gpus, args.load, args.mix, args.seed, args.gangs, args.gang_size, args.priorities
        )
    except ValueError as e:
        parser.error(str(e))
    summary = _summary(args.nodes, args.gpus, cluster, workload)
    if args.output == "-":
        sys.stdout.write(dump([*cluster, *workload], args.format))
        print(summary, file=sys.stderr)
        return 0
    print(summary)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(dump([*cluster, *workload], args.format))
    elif args.write:
        os.makedirs(args.write, exist_ok=True)
        for part, docs in (("cluster", cluster), ("workload", workload)):
            path = os.path.join(args.write, f"{part}.{args.format}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(dump(docs, args.format))
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
