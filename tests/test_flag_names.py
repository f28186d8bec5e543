"""A name a flag gives that names nothing in the input (`--node`, `--pod`, `--claims`, `--rule`,
`--scheduler-name`) is bad input on every verb that takes it: one line naming the flag, the value and
what was looked for, with the nearest names, exit 2, nothing on stdout. Names that exist answer as
they did."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kubefit.app.names import nearest
from kubefit.cli import main

ROOT = Path(__file__).resolve().parent.parent
GPU = ["-f", str(ROOT / "examples/gpu-mig")]
TAINTS = ["-f", str(ROOT / "examples/gpu-mig/cluster.yaml"), "-f", str(ROOT / "examples/gpu-mig-taints")]
NUMA = ["-f", str(ROOT / "examples/numa-node")]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def bad(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The one line a run with an unknown name prints (and that it prints nothing else)."""
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1, err
    return err.rstrip("\n")


NODE = '--node gpu-node-3: nodes "gpu-node-3" not found; did you mean gpu-node-2, gpu-node-1?'


@pytest.mark.parametrize("verb", ["allocate", "explain", "devices"])
def test_an_unknown_node_is_bad_input_with_the_nearest_nodes(
    capsys: pytest.CaptureFixture[str], verb: str
) -> None:
    assert bad(capsys, verb, *GPU, "--node", "gpu-node-3") == NODE
    assert (
        bad(capsys, verb, *GPU, "--node", "x")
        == '--node x: nodes "x" not found; known: gpu-node-1, gpu-node-2'
    )


def test_admit_an_unknown_node_or_pod(capsys: pytest.CaptureFixture[str]) -> None:
    assert bad(capsys, "admit", *NUMA, "--node", "numa-node-2") == (
        '--node numa-node-2: nodes "numa-node-2" not found; did you mean numa-node-1?'
    )
    line = bad(capsys, "admit", *NUMA, "--node", "numa-node-1", "--pod", "trading-engin")
    assert line == '--pod trading-engin: pods "trading-engin" not found; did you mean trading-engine?'
    namespaces = {
        d["metadata"].get("namespace", "default") for d in _docs(ROOT / "examples/numa-node/pods.yaml")
    }
    (namespace,) = namespaces
    line = bad(capsys, "admit", *NUMA, "--node", "numa-node-1", "--pod", "nowhere/trading-engine")
    assert line == (
        f'--pod nowhere/trading-engine: pods "trading-engine" not found; did you mean {namespace}/trading-engine?'
    )


def test_admit_a_node_known_only_by_its_slices_is_not_a_kubelet(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The kubelet's node is a Node or a NodeTopology; a ResourceSlice's nodeName is no machine to admit on.
    path = tmp_path / "slices.yaml"
    path.write_text(
        yaml.safe_dump_all([d for d in _docs(ROOT / "examples/gpu-mig/cluster.yaml") if d["kind"] != "Node"])
    )
    assert bad(capsys, "admit", "-f", str(path), "--node", "gpu-node-1") == (
        '--node gpu-node-1: nodes "gpu-node-1" not found; the input has none'
    )
    # A Node without its NodeTopology is found, and then the kubelet's own need is what is said.
    line = bad(capsys, "admit", *GPU, "--node", "gpu-node-1")
    assert line.startswith("--node gpu-node-1: no NodeTopology named gpu-node-1 in the input")


def test_explain_an_unknown_pod(capsys: pytest.CaptureFixture[str]) -> None:
    assert bad(capsys, "explain", *GPU, "--pod", "embeder") == (
        '--pod embeder: pods "embeder" not found; did you mean embedder?'
    )
    assert bad(capsys, "explain", *GPU, "--pod", "ml/embeder") == (
        '--pod ml/embeder: pods "embeder" not found; did you mean ml/embedder?'
    )
    assert bad(capsys, "explain", *GPU, "--pod", "prod/embedder") == (
        '--pod prod/embedder: pods "embedder" not found; did you mean ml/embedder?'
    )
    assert bad(capsys, "explain", *GPU, "--pod", "zzz") == (
        '--pod zzz: pods "zzz" not found; known: embedder, llm-inference, trainer'
    )


def test_explain_a_pod_that_exists_but_is_not_pending_keeps_its_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bad(capsys, "explain", *TAINTS, "--pod", "inference/chat-0") == (
        "--pod inference/chat-0: no pending pod of that name"
    )


@pytest.mark.parametrize("verb", ["allocate", "explain"])
def test_unknown_claims_are_bad_input_one_line_each(capsys: pytest.CaptureFixture[str], verb: str) -> None:
    code, out, err = run(capsys, verb, *TAINTS, "--claims", "chat-0-mig-7xk2,inference/chat-1-mig-p9m4d,x/y")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        '--claims chat-0-mig-7xk2: resourceclaims.resource.k8s.io "chat-0-mig-7xk2" not found; '
        "did you mean chat-0-mig-7xk2q, chat-1-mig-p9m4d?",
        '--claims x/y: resourceclaims.resource.k8s.io "y" not found; '
        "known: gpu-monitoring/dcgm-gpu-node-2, inference/chat-0-mig-7xk2q, inference/chat-1-mig-p9m4d, …",
    ]
    assert bad(capsys, verb, *GPU, "--claims", "ml/a") == (
        '--claims ml/a: resourceclaims.resource.k8s.io "a" not found; the input has none'
    )


def test_an_unknown_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert bad(capsys, "taints", *TAINTS, "--rule", "gpu-node-1-maintenence") == (
        '--rule gpu-node-1-maintenence: devicetaintrules.resource.k8s.io "gpu-node-1-maintenence" not found; '
        "did you mean gpu-node-1-maintenance?"
    )
    assert bad(capsys, "taints", *GPU, "--rule", "r") == (
        '--rule r: devicetaintrules.resource.k8s.io "r" not found; the input has none'
    )


CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: gpu-scheduler
"""


@pytest.mark.parametrize("verb", ["allocate", "explain"])
def test_an_unknown_scheduler_name(capsys: pytest.CaptureFixture[str], tmp_path: Path, verb: str) -> None:
    assert bad(capsys, verb, *GPU, "--scheduler-name", "default-schedular") == (
        "--scheduler-name default-schedular: no profile of the KubeSchedulerConfiguration has schedulerName "
        '"default-schedular"; did you mean default-scheduler?'
    )
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    line = bad(capsys, verb, *GPU, "-f", str(config), "--scheduler-name", "gpu-schedulr")
    assert line.endswith("; did you mean gpu-scheduler, default-scheduler?")
    code, _, err = run(capsys, verb, *GPU, "-f", str(config), "--scheduler-name", "gpu-scheduler")
    assert code in (0, 1) and "--scheduler-name" not in err


def _docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_a_node_known_only_by_its_slices_is_a_node(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A DRA-only input describes a node by the slices on it: naming it is no error.
    docs = [d for d in _docs(ROOT / "examples/gpu-mig/cluster.yaml") if d["kind"] != "Node"]
    path = tmp_path / "slices.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    for verb in ("allocate", "explain", "devices"):
        code, _, err = run(
            capsys,
            verb,
            "-f",
            str(path),
            "-f",
            str(ROOT / "examples/gpu-mig/workloads.yaml"),
            "--node",
            "gpu-node-1",
            "-o",
            "json",
        )
        assert code in (0, 1) and "not found" not in err, (verb, err)
    assert bad(capsys, "allocate", "-f", str(path), "--node", "gpu-node-9").startswith(
        "--node gpu-node-9: nodes"
    )


VALID = [
    ("allocate", *GPU, "--node", "gpu-node-2"),
    ("allocate", *GPU, "--scheduler-name", "default-scheduler"),
    ("allocate", *TAINTS, "--claims", "inference/chat-0-mig-7xk2q"),
    ("explain", *GPU, "--pod", "ml/embedder"),
    ("explain", *GPU, "--pod", "embedder", "--node", "gpu-node-1"),
    ("explain", *TAINTS, "--claims", "chat-0-mig-7xk2q"),
    ("devices", *GPU, "--node", "gpu-node-1"),
    ("admit", *NUMA, "--node", "numa-node-1"),
    ("admit", *NUMA, "--node", "numa-node-1", "--pod", "trading-engine"),
    ("taints", *TAINTS, "--rule", "gpu-node-1-maintenance"),
]


@pytest.mark.parametrize("args", VALID, ids=lambda a: " ".join(x for x in a if "/" not in x or "-" in x))
def test_names_that_exist_answer(capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    code, out, err = run(capsys, *args, "-o", "json")
    assert code in (0, 1) and out and "not found" not in err, err


def test_the_nearest_names() -> None:
    assert nearest("gpu-node-3", ["gpu-node-1", "gpu-node-2", "cpu-node-1"]) == (
        "did you mean gpu-node-2, gpu-node-1, cpu-node-1?"
    )
    assert nearest("q", ["d", "c", "b", "a"]) == "known: a, b, c, …"
    assert nearest("q", ["b", "a", "a"]) == "known: a, b"
    assert nearest("q", []) == "the input has none"
