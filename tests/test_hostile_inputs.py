"""Hostile values in the fields kubefit turns into numbers, CPU lists and NUMA ids: every one is
answered as bad input on one line that names the file, line, object and field (exit 2), or answered
as Kubernetes answers it; none stops kubefit with an internal error.

Quantities the API server accepts but nobody can compute with ("1e999999999" as a capacity: Go's
allocator would build a billion-digit number to add it to anything) are refused with kubefit's
reason; CPU lists are read as the kubelet's cpuset.Parse reads them, with its messages, and bounded
by the CPU ids Linux can have.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

import pytest

from kubefit.cli import main

HERE = Path(__file__).resolve().parent
SINGLE_SOCKET_HT = (HERE / "data" / "topologies" / "topoSingleSocketHT.yaml").read_text(encoding="utf-8")


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


# --- DRA: capacities, counters, capacity requests ----------------------------------------------------

DRA = """---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s0}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: p, generation: 1, resourceSliceCount: 2}
  sharedCounters:
  - name: mem
    counters:
      bytes: {value: "COUNTER"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: p, generation: 1, resourceSliceCount: 2}
  devices:
  - name: d0
    allowMultipleAllocations: true
    capacity:
      mem: {value: "CAPACITY"}
    consumesCounters:
    - counterSet: mem
      counters:
        bytes: {value: 1Gi}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: gpu
        capacity:
          requests: {mem: "REQUEST"}
"""


def dra(capacity: str = "40Gi", counter: str = "80Gi", request: str = "1Gi") -> str:
    return DRA.replace("CAPACITY", capacity).replace("COUNTER", counter).replace("REQUEST", request)


# --- node: kubelet configuration, topology, checkpoints, pods ----------------------------------------

NODE = """---
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
SETTINGS
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, uid: p-uid}
spec:
  nodeName: node-1
  containers:
  - name: app
    image: pause
    resources:
      requests: {cpu: '@CPU@', memory: '@MEMORY@'}
      limits: {cpu: '@CPU@', memory: '@MEMORY@'}
"""


def node(
    settings: str = "reservedSystemCPUs: '0'", cpu: str = "2", memory: str = "100Mi", topology: str = ""
) -> str:
    text = NODE.replace("SETTINGS", settings).replace("@CPU@", cpu).replace("@MEMORY@", memory)
    return (topology or SINGLE_SOCKET_HT) + text


def topology_with(extra_cpu: str = "", memory: str = "") -> str:
    text = SINGLE_SOCKET_HT
    if extra_cpu:
        text = text.replace("  - {id: 7,", f"  - {extra_cpu}\n  - {{id: 7,", 1)
    if memory:
        text += f"  memory:\n  - {memory}\n"
    return text


@dataclass(frozen=True)
class Case:
    documents: str
    verb: tuple[str, ...]
    code: int
    says: str  # a part of the one line on stderr (exit 2) or of stdout
    state: tuple[str, str] = ("", "")  # a checkpoint: (the flag that reads it, its content)


ADMIT = ("admit", "--node", "node-1", "--pod", "p")

CASES = {
    "a capacity of a billion decimal digits is refused at its field": Case(
        dra(capacity="1e999999999"),
        ("allocate",),
        2,
        'ResourceSlice/s1: spec.devices[0].capacity[mem].value: Invalid value: "1e999999999": too large for '
        "kubefit to compute with exactly",
    ),
    "a shared counter of a billion digits is refused at its field": Case(
        dra(counter="1e999999999"),
        ("allocate",),
        2,
        "ResourceSlice/s0: spec.sharedCounters[0].counters[bytes].value: Invalid value",
    ),
    "a capacity request of a billion digits is refused at the claim": Case(
        dra(request="1e999999999"),
        ("allocate",),
        2,
        "ResourceClaim/default/c: spec.devices.requests[0].exactly.capacity.requests[mem]: Invalid value",
    ),
    "devices still lists a slice whose capacity no one can add to": Case(
        dra(capacity="1e999999999"), ("devices",), 0, "mem: 1e999999999"
    ),
    "a capacity exponent wider than 32 bits is Go's suffix error": Case(
        dra(capacity="1e99999999999"), ("validate",), 2, "unable to parse quantity's suffix"
    ),
    "reservedSystemCPUs reaching a billion is refused by validate": Case(
        node("reservedSystemCPUs: 0-999999999"),
        ("validate",),
        2,
        'KubeletConfiguration/<unnamed>: reservedSystemCPUs: Invalid value: "0-999999999": CPU 999999999 is '
        "beyond the largest CPU id Linux supports (8191)",
    ),
    "reservedSystemCPUs reaching a billion is refused by devices": Case(
        node("reservedSystemCPUs: 0-999999999"), ("devices",), 2, "reservedSystemCPUs: Invalid value"
    ),
    "a CPU list the kubelet cannot parse gets cpuset.Parse's words": Case(
        node("reservedSystemCPUs: 0-a"),
        ("validate",),
        2,
        "reservedSystemCPUs: Invalid value: invalid configuration: unable to parse reservedSystemCPUs "
        '(--reserved-cpus) 0-a, error: strconv.Atoi: parsing "a": invalid syntax',
    ),
    "a backwards CPU range gets cpuset.Parse's words": Case(
        node("reservedSystemCPUs: 5-3"), ("validate",), 2, 'invalid range "5-3" (5 > 3)'
    ),
    "reserved CPUs the machine lacks stop the kubelet at start-up": Case(
        node("reservedSystemCPUs: 0-20"),
        ADMIT,
        2,
        "reservedSystemCPUs: Invalid value: reserved-cpus: 0-20 is not a subset of online-cpus: 0-7",
    ),
    "a CPU listed twice in a NodeTopology is refused by validate": Case(
        node(topology=topology_with("{id: 7, core: 3, socket: 0, numa: 0, uncoreCache: 0}")),
        ("validate",),
        2,
        "NodeTopology/node-1: spec.cpus[8].id: Duplicate value: CPU 7 (also at spec.cpus[7])",
    ),
    "a CPU listed twice in a NodeTopology is refused by devices": Case(
        node(topology=topology_with("{id: 7, core: 3, socket: 0, numa: 0, uncoreCache: 0}")),
        ("devices",),
        2,
        "Duplicate value: CPU 7",
    ),
    "a NUMA node beyond the kubelet's 64-bit masks is refused": Case(
        node(topology=topology_with("{id: 8, core: 8, socket: 0, numa: 64, uncoreCache: 0}")),
        ("validate",),
        2,
        "spec.cpus[7].numa: Invalid value: 64: must be between 0 and 63",
    ),
    "a CPU id beyond Linux's is refused": Case(
        node(topology=topology_with("{id: 1000000000000000000000000000000, core: 8, socket: 0, numa: 0}")),
        ("validate",),
        2,
        "spec.cpus[7].id: Invalid value: 1000000000000000000000000000000: must be between 0 and 8191",
    ),
    "a NUMA node's memory beyond any machine's is refused": Case(
        node(topology=topology_with(memory="{numa: 0, capacity: 1e999999999}")),
        ("validate",),
        2,
        "spec.memory[0].capacity: Invalid value: '1e999999999': must be between 0 and 1Pi per NUMA node",
    ),
    "a hard eviction threshold the kubelet cannot parse gets its words": Case(
        node("evictionHard: {memory.available: abc%}"),
        ("validate",),
        2,
        'evictionHard[memory.available]: Invalid value: strconv.ParseFloat: parsing "abc": invalid syntax',
    ),
    "an unknown eviction signal gets the kubelet's words": Case(
        node("evictionHard: {memory.free: 1Gi}"),
        ("validate",),
        2,
        "Invalid value: unsupported eviction signal memory.free",
    ),
    "a negative reservation gets the kubelet's words": Case(
        node("kubeReserved: {cpu: '-1'}"),
        ("validate",),
        2,
        "kubeReserved[cpu]: Invalid value: resource quantity for 'cpu' cannot be negative: -1",
    ),
    "reserved memory on a NUMA node the machine lacks stops the kubelet": Case(
        node(
            "memoryManagerPolicy: Static\nreservedMemory: [{numaNode: 5, limits: {memory: 1100Mi}}]\n"
            "kubeReserved: {memory: 1Gi}",
            topology=topology_with(memory="{numa: 0, capacity: 64Gi}"),
        ),
        ADMIT,
        2,
        "reservedMemory: Invalid value: the reserved memory configuration references a NUMA node 5 that does "
        "not exist on this machine",
    ),
    "a reserved memory NUMA node beyond int32 is refused": Case(
        node("memoryManagerPolicy: Static\nreservedMemory: [{numaNode: 99999999999, limits: {memory: 1Gi}}]"),
        ("validate",),
        2,
        "reservedMemory[0].numaNode: Invalid value: 99999999999: not an int32",
    ),
    "a negative memory request is the API server's refusal": Case(
        node(memory="-1"),
        ADMIT,
        2,
        'Pod/default/p: spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater '
        "than or equal to 0",
    ),
    "a CPU request of a billion digits is refused at its field": Case(
        node(cpu="1e999999999"),
        ADMIT,
        2,
        "Pod/default/p: spec.containers[0].resources.requests[cpu]: Invalid value",
    ),
    "a checkpoint naming a billion CPUs is refused at its field": Case(
        node(),
        ADMIT,
        2,
        'cpu_manager_state: defaultCpuSet: Invalid value: "0-999999999": CPU 999999999 is beyond',
        ("--cpu-manager-state", '{"policyName":"static","defaultCpuSet":"0-999999999"}'),
    ),
    "a memory checkpoint naming NUMA node 1000 is refused at its field": Case(
        node("memoryManagerPolicy: Static\nreservedMemory: [{numaNode: 0, limits: {memory: 100Mi}}]"),
        ADMIT,
        2,
        "memory_manager_state: entries.u.c[0].numaAffinity: Invalid value: must be a list of NUMA node ids (0 to 63)",
        (
            "--memory-manager-state",
            '{"policyName":"Static","machineState":{},"entries":{"u":{"c":[{"numaAffinity":[1000],'
            '"type":"memory","size":1}]}}}',
        ),
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_hostile_input_is_answered_in_one_line_or_as_kubernetes_answers(tmp_path: Path, case: Case) -> None:
    objects = tmp_path / "objects.yaml"
    objects.write_text(case.documents, encoding="utf-8")
    verb = list(case.verb)
    flag, content = case.state
    if flag:
        state = tmp_path / flag.removeprefix("--").replace("-", "_")
        state.write_text(content, encoding="utf-8")
        verb += [flag, str(state)]
    code, out, err = run(*verb, "-f", str(objects))
    assert code == case.code, err
    if code == 2:
        # One line per problem, each naming where it is (warnings may come beside them).
        errors = [line for line in err.splitlines() if ": warning: " not in line]
        assert errors and all(line.startswith(str(tmp_path)) for line in errors), errors
        assert any(case.says in line for line in errors), errors
    else:
        assert case.says in out


DEVICE_ON_NUMA_10_18 = """---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: nic.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: d0
    attributes:
      resource.kubernetes.io/numaNode: {int: 1000000000000000000}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: nic, namespace: default}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: nic}
status:
  allocation:
    devices:
      results:
      - {request: r, driver: nic.example.com, pool: p, device: d0}
---
apiVersion: v1
kind: Pod
metadata: {name: q, namespace: default, uid: q-uid}
spec:
  nodeName: node-1
  resourceClaims: [{name: nic, resourceClaimName: nic}]
  containers:
  - name: app
    image: pause
    resources:
      requests: {cpu: '1', memory: 100Mi}
      limits: {cpu: '1', memory: 100Mi}
      claims: [{name: nic}]
"""


def test_a_device_on_a_numa_node_no_machine_has_is_on_none_of_this_ones(tmp_path: Path) -> None:
    # The kubelet's masks are 64 bits: a device attribute naming NUMA node 10^18 touches none of the
    # machine's nodes, so single-numa-node finds no node with the device and refuses the pod.
    objects = tmp_path / "objects.yaml"
    objects.write_text(
        node("topologyManagerPolicy: single-numa-node") + DEVICE_ON_NUMA_10_18, encoding="utf-8"
    )
    code, out, err = run("admit", "--node", "node-1", "--pod", "q", "-f", str(objects), "-o", "json")
    assert (code, err) == (1, "")
    assert '"reason": "TopologyAffinityError"' in out


def test_amounts_too_large_for_cp_sat_are_decided_by_greedy_not_crashed_on() -> None:
    # A shareable device of capacity 1e30 and two claims of 1n and 1e30: exact, both do not fit together;
    # no 64-bit model holds 1e30 in units of 1n, so cpsat hands the node to first-fit, which decides.
    path = str(HERE / "data" / "huge-shared-capacity.yaml")
    for engine in ("greedy", "cpsat", "asp"):
        code, out, _ = run(
            "allocate", "-f", path, "--engine", engine, "--claims", "default/a,default/b", "-o", "table"
        )
        assert code == 1, (engine, out)
        assert "1 has too little capacity mem left" in out, (engine, out)
    _, out, _ = run(
        "allocate", "-f", path, "--engine", "cpsat", "--claims", "default/a,default/b", "-o", "table"
    )
    assert "do not fit CP-SAT's 64-bit integers; greedy's first-fit search decided" in out
    # The planner models the node without the claims that overflow: the two claims stay pending.
    code, out, _ = run("plan", "-f", path, "-o", "table")
    assert code == 1 and "0/1 nodes are available: 1 cannot allocate all claims." in out, out
