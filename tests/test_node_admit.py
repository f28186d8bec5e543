"""`kubefit admit`: the Admission object (golden), lists of admissions, exit codes, checkpoint files
written and read back, device NUMA hints from DRA claims, pod-level rejections, and bad input as one
line naming the file, object and field.

Regenerate the golden files after an intended change with `KUBEFIT_UPDATE_GOLDEN=1`.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
import yaml
from gate_support import EVERY_GATE
from golden import check_golden

from kubefit.cli import main

HERE = Path(__file__).resolve().parent
CASES = HERE / "scenarios" / "node"
GOLDEN = HERE / "data" / "golden"
TOPOLOGIES = HERE / "data" / "topologies"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def machine(fixture: str) -> str:
    return (TOPOLOGIES / f"{fixture}.yaml").read_text(encoding="utf-8")


def kubelet(text: str) -> str:
    return "---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" + text


def pod(name: str, cpu: int | str, memory: str = "100Mi", node: str = "node-1", extra: str = "") -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, uid: {name}-uid}}
spec:
  nodeName: {node}
  containers:
  - name: app
    image: pause
    resources:
      requests: {{cpu: '{cpu}', memory: {memory}}}
      limits: {{cpu: '{cpu}', memory: {memory}}}
{extra}"""


def write(tmp_path: Path, *docs: str) -> str:
    path = tmp_path / "objects.yaml"
    path.write_text("".join(docs), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "case",
    [
        "tm-pod-scope-both-containers-one-numa",
        "memory-restricted-two-numa-group",
        "static-full-pcpus-not-enough-physical",
    ],
)
def test_admission_json_is_golden(case: str) -> None:
    spec = yaml.safe_load((CASES / case / "case.yaml").read_text(encoding="utf-8"))
    code, out, _ = run(
        "admit",
        "-f",
        str(CASES / case / "objects.yaml"),
        "--node",
        "node-1",
        "--pod",
        spec["pod"],
        "-o",
        "json",
    )
    assert code == (0 if spec["expect"]["admitted"] else 1)
    check_golden(GOLDEN / f"admit-{case}.json", out)


def test_without_pod_every_pod_of_the_node_is_admitted_in_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        machine("topoDualSocketHT"),
        kubelet("cpuManagerPolicy: static\ntopologyManagerPolicy: single-numa-node\n"),
        pod("first", 6),
        pod("second", 6),
        pod("third", 2),
        pod("elsewhere", 2, node="node-2"),
    )
    code, out, _ = run("admit", "-f", path, "--node", "node-1", "-o", "json")
    doc = json.loads(out)
    assert code == 1
    assert doc["kind"] == "List"
    assert [(i["pod"], i["admitted"], i["reason"]) for i in doc["items"]] == [
        ("default/first", True, ""),
        ("default/second", True, ""),
        ("default/third", False, "TopologyAffinityError"),
    ]
    assert [i["containers"][0]["cpus"] for i in doc["items"][:2]] == ["0,2,4,6,8,10", "1,3,5,7,9,11"]


def test_written_state_is_read_back_by_the_next_admission(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        machine("topoDualSocketHT"),
        kubelet("cpuManagerPolicy: static\ntopologyManagerPolicy: none\nreservedSystemCPUs: '0'\n"),
        pod("first", 4),
    )
    state = tmp_path / "state"
    code, _, _ = run(
        "admit", "-f", path, "--node", "node-1", "--pod", "first", "-o", "json", "--write-state", str(state)
    )
    assert code == 0
    cpu_state = json.loads((state / "cpu_manager_state").read_text(encoding="utf-8"))
    assert cpu_state["entries"] == {"first-uid": {"app": "2,4,8,10"}}
    assert cpu_state["defaultCpuSet"] == "0-1,3,5-7,9,11"
    assert json.loads((state / "memory_manager_state").read_text(encoding="utf-8"))["policyName"] == "None"
    path2 = write(tmp_path, Path(path).read_text(encoding="utf-8"), pod("second", 4))
    code, out, _ = run(
        "admit",
        "-f",
        path2,
        "--node",
        "node-1",
        "--pod",
        "second",
        "-o",
        "json",
        "--cpu-manager-state",
        str(state / "cpu_manager_state"),
    )
    assert code == 0
    assert json.loads(out)["containers"][0]["cpus"] == "1,3,7,9"


def test_table_output_lists_containers_and_the_shared_pool(tmp_path: Path) -> None:
    path = write(tmp_path, machine("topoSingleSocketHT"), kubelet("cpuManagerPolicy: static\n"), pod("p", 2))
    code, out, _ = run("admit", "-f", path, "--node", "node-1", "-o", "table")
    assert code == 0
    assert out.splitlines()[0].split() == ["POD", "CONTAINER", "STATUS", "CPUS", "NUMA", "MEMORY"]
    assert "0,4 (exclusive)" in out and "shared pool: 1-3,5-7" in out


DRA = """---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      resource.kubernetes.io/numaNode: {int: 0}
  - name: gpu-1
    attributes:
      resource.kubernetes.io/numaNode: {int: 1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-1}
"""


def test_allocated_dra_devices_pull_cpus_to_their_numa_node(tmp_path: Path) -> None:
    claim = """  resourceClaims:
  - {name: gpu, resourceClaimName: gpu}
"""
    text = pod("p", 2, extra=claim).replace(
        "      limits: {cpu: '2', memory: 100Mi}\n",
        "      limits: {cpu: '2', memory: 100Mi}\n      claims:\n      - name: gpu\n",
    )
    path = write(
        tmp_path,
        machine("returnMachineInfo"),
        kubelet("cpuManagerPolicy: static\ntopologyManagerPolicy: restricted\n"),
        DRA,
        text,
    )
    code, out, err = run("admit", "-f", path, "--node", "node-1", "--pod", "p", "-o", "json")
    doc = json.loads(out)
    assert code == 0, err
    assert doc["numaAffinity"] == [1]
    assert doc["containers"][0]["cpus"] == "3,9"


def test_a_pod_level_pod_whose_shared_pool_would_be_empty_is_rejected(tmp_path: Path) -> None:
    text = """---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, uid: p-uid}
spec:
  nodeName: node-1
  resources:
    requests: {cpu: '2', memory: 200Mi}
    limits: {cpu: '2', memory: 200Mi}
  containers:
  - name: exclusive
    image: pause
    resources:
      requests: {cpu: '2', memory: 100Mi}
      limits: {cpu: '2', memory: 100Mi}
  - name: shared
    image: pause
"""
    config = "cpuManagerPolicy: static\ntopologyManagerPolicy: best-effort\ntopologyManagerScope: pod\n"
    path = write(tmp_path, machine("topoDualSocketHT"), kubelet(config), text)
    code, out, _ = run("admit", "-f", path, "--node", "node-1", "--pod", "p", "-o", "json", *EVERY_GATE)
    doc = json.loads(out)
    assert code == 1
    assert doc["reason"] == "EmptyPodSharedPoolError"
    assert "shared" in doc["message"]


def _one_line_error(args: list[str]) -> str:
    code, out, err = run(*args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_a_node_without_topology_is_bad_input(tmp_path: Path) -> None:
    node = "---\napiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n"
    path = write(tmp_path, node, kubelet("cpuManagerPolicy: static\n"), pod("p", 1))
    line = _one_line_error(["admit", "-f", path, "--node", "node-1", "--pod", "p"])
    assert "no NodeTopology named node-1" in line
    path = write(tmp_path, kubelet("cpuManagerPolicy: static\n"), pod("p", 1))
    assert _one_line_error(["admit", "-f", path, "--node", "node-1"]) == (
        '--node node-1: nodes "node-1" not found; the input has none'
    )


def test_a_bad_state_file_names_the_file_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, machine("topoSingleSocketHT"), kubelet("cpuManagerPolicy: static\n"), pod("p", 1))
    state = tmp_path / "cpu_manager_state"
    state.write_text('{"policyName":"static","defaultCpuSet":"0-x"}', encoding="utf-8")
    line = _one_line_error(["admit", "-f", path, "--node", "node-1", "--cpu-manager-state", str(state)])
    assert line.startswith(f"{state}: defaultCpuSet: Invalid value:")


def test_a_state_that_does_not_cover_the_machine_is_refused_as_the_kubelet_would(tmp_path: Path) -> None:
    path = write(tmp_path, machine("topoSingleSocketHT"), kubelet("cpuManagerPolicy: static\n"), pod("p", 1))
    state = tmp_path / "cpu_manager_state"
    state.write_text('{"policyName":"static","defaultCpuSet":"0-5"}', encoding="utf-8")
    line = _one_line_error(["admit", "-f", path, "--node", "node-1", "--cpu-manager-state", str(state)])
    assert "doesn't match with CPUs in state" in line


def test_reserved_memory_must_add_up_to_node_allocatable(tmp_path: Path) -> None:
    config = (
        "memoryManagerPolicy: Static\nreservedMemory:\n- numaNode: 0\n  limits: {memory: 1Gi}\n"
        "systemReserved: {memory: 500Mi}\n"
    )
    path = write(tmp_path, machine("memoryNUMA1"), kubelet(config), pod("p", 1))
    line = _one_line_error(["admit", "-f", path, "--node", "node-1"])
    assert "KubeletConfiguration" in line and "reservedMemory" in line and "not equal" in line


def test_an_unknown_engine_is_named_with_the_ones_there_are(tmp_path: Path) -> None:
    path = write(tmp_path, machine("topoSingleSocketHT"), kubelet("cpuManagerPolicy: static\n"), pod("p", 1))
    line = _one_line_error(["admit", "-f", path, "--node", "node-1", "--engine", "minizinc"])
    assert "unknown engine 'minizinc'" in line and "asp, cpsat, greedy" in line


@pytest.mark.parametrize("engine", ["cpsat", "asp"])
def test_the_solving_engines_admit_with_the_kubelets_rules_and_say_what_they_proved(
    tmp_path: Path, engine: str
) -> None:
    path = write(
        tmp_path,
        machine("topoDualSocketHT"),
        kubelet("cpuManagerPolicy: static\ntopologyManagerPolicy: single-numa-node\n"),
        pod("first", 6),
        pod("second", 6),
        pod("third", 2),
    )
    args = ["-f", path, "--node", "node-1", "-o", "json", "--engine", engine, "--time-limit", "30"]
    code, out, _ = run("admit", *args)
    doc = json.loads(out)
    assert code == 1
    assert [(i["admitted"], i["reason"], i["proof"]) for i in doc["items"]] == [
        (True, "", "optimal"),
        (True, "", "optimal"),
        (False, "TopologyAffinityError", "infeasible"),
    ]
    assert [i["numaAffinity"] for i in doc["items"][:2]] == [[0], [1]]
    assert doc["items"][2]["message"] == "Resources cannot be allocated with Topology locality"


def test_alpha_cpu_options_need_their_feature_gate(tmp_path: Path) -> None:
    case = CASES / "spread-2-cpus-dual-socket-ht" / "objects.yaml"
    args = ["admit", "--node", "node-1", "--pod", "test-pod", "-o", "json"]
    # Off (alpha) in every release kubefit carries: the kubelet refuses the option.
    code, out, err = run(*args, "-f", str(case))
    assert code == 2 and out == ""
    assert "distribute-cpus-across-cores" in err and "CPUManagerPolicyAlphaOptions" in err
    assert run(*args, "-f", str(case), "--feature-gates", "CPUManagerPolicyAlphaOptions=true")[0] in (0, 1)
    # The kubelet's own featureGates win over the cluster's.
    docs = list(yaml.safe_load_all(case.read_text(encoding="utf-8")))
    for doc in docs:
        if doc and doc.get("kind") == "KubeletConfiguration":
            doc["featureGates"] = {"CPUManagerPolicyAlphaOptions": True}
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    assert run(*args, "-f", str(path))[0] in (0, 1)
    assert run(*args, "-f", str(path), "--feature-gates", "CPUManagerPolicyAlphaOptions=false")[0] in (0, 1)
