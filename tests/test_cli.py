"""The command line: versions, verbs, output formats, exit codes, and one line per bad input."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from kubefit import __version__
from kubefit.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# FILE:LINE: Kind/namespace/name: field.path: what is wrong
PROBLEM_LINE = re.compile(r"^[^:\s]+:\d+: [A-Za-z]+(/[a-z0-9.-]+){1,2}: [\w.\[\]/-]+: .+$")

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: gpus
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: A100}
      memoryGiB: {int: 40}
    capacity:
      memory: {value: 40Gi}
  - name: gpu-1
    attributes:
      model: {string: H100}
      memoryGiB: {int: 80}
    capacity:
      memory: {value: 80Gi}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
"""


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, text: str, name: str = "in.yaml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"kubefit {__version__} (Kubernetes 1.37 feature-gate defaults")


def test_python_dash_m_kubefit_runs_the_command_line() -> None:
    done = subprocess.run([sys.executable, "-m", "kubefit", "--version"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.startswith(f"kubefit {__version__} (Kubernetes ")


def test_every_bundled_example_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    # Each directory is a cluster of its own (two may both define the NVIDIA DeviceClasses).
    kinds: set[str] = set()
    # examples/ is also the kubefit.examples package: its __pycache__ is no example.
    for directory in sorted(p for p in EXAMPLES.iterdir() if p.is_dir() and not p.name.startswith("_")):
        code, out, err = run(["validate", "-f", str(directory), "-o", "json"], capsys)
        assert code == 0, f"{directory.name}: {err}"
        report = json.loads(out)
        assert report["valid"] is True and report["problems"] == [], directory.name
        kinds |= {o["kind"] for o in report["objects"]}
    assert {"ResourceSlice", "DeviceClass", "Pod", "KubeletConfiguration", "NodeTopology"} <= kinds


def test_validate_prints_a_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(["validate", "-f", write(tmp_path, SLICE), "-o", "table"], capsys)
    assert code == 0
    assert out.splitlines()[0].split() == ["KIND", "NAMESPACE", "NAME", "SOURCE", "STATUS"]
    assert "ResourceSlice" in out and "valid" in out


BROKEN = {
    "bad YAML": ("apiVersion: v1\nkind: Node\nmetadata: {name: [}\n", r"in\.yaml:3: invalid YAML: "),
    "wrong type": (
        SLICE.replace("generation: 1", "generation: one"),
        r"in\.yaml:8: ResourceSlice/gpus: spec\.pool\.generation: json: cannot unmarshal string into Go struct "
        r"field ResourcePool\.spec\.pool\.generation of type int64",
    ),
    "unknown kind": (
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
        r'in\.yaml:2: Widget/w: kind: unknown kind "Widget" in apiVersion "example\.com/v1"',
    ),
    "invalid quantity": (
        SLICE.replace("value: 80Gi", "value: 80 GiB"),
        r"in\.yaml:21: ResourceSlice/gpus: spec\.devices\[1\]\.capacity\[memory\]\.value: Invalid value: "
        r'"80 GiB": quantities must match the regular expression',
    ),
    "CEL that does not compile": (
        SLICE.replace('device.driver == "gpu.example.com"', 'device.driver == "gpu.example.com" &&'),
        r"in\.yaml:30: DeviceClass/gpu\.example\.com: spec\.selectors\[0\]\.cel\.expression: Invalid value: .*"
        r"compilation failed: ERROR: <input>:1:38: Syntax error",
    ),
}


@pytest.mark.parametrize("text,expected", BROKEN.values(), ids=list(BROKEN))
def test_broken_input_is_one_precise_line_and_exit_2(
    text: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for verb in (["validate"], ["devices"]):
        code, out, err = run([*verb, "-f", write(tmp_path, text)], capsys)
        assert code == 2
        lines = err.splitlines()
        assert len(lines) == 1, err
        assert re.search(expected, lines[0]), lines[0]
        assert "Traceback" not in err
        if verb == ["devices"]:
            assert out == ""


def test_a_claim_with_33_results_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": f"gpu-{i}"}
        for i in range(33)
    ]
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "big", "namespace": "ml"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "All"},
                    }
                ]
            }
        },
        "status": {"allocation": {"devices": {"results": results}}},
    }
    code, _, err = run(["validate", "-f", write(tmp_path, yaml.safe_dump(claim))], capsys)
    assert code == 2
    (line,) = err.splitlines()
    assert line.startswith("")
    assert re.match(
        r".*in\.yaml:\d+: ResourceClaim/ml/big: status\.allocation\.devices\.results: Too many: 33: "
        r"must have at most 32 items$",
        line,
    ), line


def test_problem_lines_name_file_line_object_and_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SLICE.replace("name: gpu-1", "name: GPU_1").replace("generation: 1", "generation: -1")
    code, _, err = run(["validate", "-f", write(tmp_path, text)], capsys)
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 2
    for line in lines:
        assert PROBLEM_LINE.match(line.split(str(tmp_path) + "/", 1)[-1]), line


def test_the_real_entry_point_never_prints_a_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: 3}\n")
    done = subprocess.run(
        [sys.executable, "-m", "kubefit", "validate", "-f", path], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_unknown_flags_and_verbs_are_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["frobnicate"], ["validate"], ["validate", "-f", "x", "--nope"]):
        code, _, err = run(argv, capsys)
        assert code == 2
        assert len(err.strip().splitlines()) == 1, err


def test_an_unknown_feature_gate_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["validate", "-f", write(tmp_path, SLICE), "--feature-gates", "DRANope=false"], capsys)
    assert code == 2
    assert err.strip() == "--feature-gates: unrecognized feature gate: DRANope"


def test_input_can_come_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(SLICE))
    code, out, _ = run(["devices", "-f", "-", "-o", "json"], capsys)
    assert code == 0
    assert [i["device"] for i in json.loads(out)["items"]] == ["gpu-0", "gpu-1"]


def test_devices_with_a_class_and_a_selector(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "devices",
        "-f",
        write(tmp_path, SLICE),
        "--class",
        "gpu.example.com",
        "--selector",
        'device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("50Gi"))',
        "-o",
        "json",
    ]
    code, out, _ = run(argv, capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["kind"] == "DeviceList"
    assert [(i["device"], i["selected"], i["error"]) for i in doc["items"]] == [
        ("gpu-0", False, ""),
        ("gpu-1", True, ""),
    ]
    item = doc["items"][1]
    assert {"driver": "gpu.example.com", "pool": "node-1", "nodeName": "node-1"}.items() <= item.items()


def test_devices_table_says_how_many_were_selected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "devices",
        "-f",
        write(tmp_path, SLICE),
        "--selector",
        'device.attributes["gpu.example.com"].model == "H100"',
        "-o",
        "table",
    ]
    code, out, _ = run(argv, capsys)
    assert code == 0
    header, first, second = out.splitlines()[:3]
    assert header.split() == ["DRIVER", "POOL", "DEVICE", "NODE", "ATTRIBUTES", "CAPACITY", "SELECTED"]
    assert first.split()[-1] == "no" and second.split()[-1] == "yes"
    assert out.rstrip().endswith("1 of 2 devices selected")


def test_devices_yaml_output_parses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["devices", "-f", write(tmp_path, SLICE), "-o", "yaml"], capsys)
    assert code == 0
    assert yaml.safe_load(out)["items"][0]["device"] == "gpu-0"


def test_a_runtime_error_is_exit_1_with_the_device_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "devices",
        "-f",
        write(tmp_path, SLICE),
        "--selector",
        'device.attributes["gpu.example.com"].cores > 2',
        "-o",
        "json",
    ]
    code, out, err = run(argv, capsys)
    assert code == 1
    items = json.loads(out)["items"]
    assert all(not i["selected"] for i in items)
    assert items[0]["error"].startswith(
        "--selector #0 on device gpu-0: CEL runtime error: no such key: cores"
    )
    # The same error on both devices: one line, upstream's words first, the devices counted after.
    assert err.splitlines() == [
        "--selector #0: CEL runtime error: no such key: cores. Consider using CEL optional chaining (?), "
        "has() macro, or orValue() for optional fields (on 2 devices: node-1/gpu-0, node-1/gpu-1)"
    ]


def test_a_selector_that_does_not_compile_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["devices", "-f", write(tmp_path, SLICE), "--selector", "device.model == 1"]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.startswith(
        "--selector #0: CEL compile error: compilation failed: ERROR: <input>:1:7: undefined field 'model'"
    )


def test_an_unknown_class_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["devices", "-f", write(tmp_path, SLICE), "--class", "nope"], capsys)
    assert code == 2
    assert "could not retrieve device class nope" in err


def test_devices_for_a_node_only_lists_what_it_can_reach(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = (
        SLICE.replace("name: gpus", "name: other")
        .replace("nodeName: node-1", "nodeName: node-2")
        .replace("name: node-1,", "name: node-2,")
    )
    path = write(tmp_path, SLICE + "---\n" + other.split("---")[0])
    code, out, _ = run(["devices", "-f", path, "--node", "node-2", "-o", "json"], capsys)
    assert code == 0
    assert {i["nodeName"] for i in json.loads(out)["items"]} == {"node-2"}


def test_feature_gates_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["feature-gates"], capsys)
    assert code == 0
    assert "DRAConsumableCapacity" in out and "PodLevelResourceManagers" in out


def _gate_values(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, bool]:
    code, out, _ = run([*args, "feature-gates", "-o", "json"], capsys)
    assert code == 0
    return {r["gate"]: r["value"] for r in json.loads(out)["gates"]}


def test_dra_preemption_is_off_unless_named(capsys: pytest.CaptureFixture[str]) -> None:
    """DRAPreemption is in no release yet: off by default and under AllAlpha, on only when named."""
    assert _gate_values(capsys)["DRAPreemption"] is False
    assert _gate_values(capsys, "--feature-gates", "AllAlpha=true,AllBeta=true")["DRAPreemption"] is False
    named = _gate_values(capsys, "--feature-gates", "AllAlpha=true,DRAPreemption=true")
    assert named["DRAPreemption"] is True and named["DRAListTypeAttributes"] is True
    assert _gate_values(capsys, "--emulated-version", "1.34", "--feature-gates", "DRAPreemption=true")[
        "DRAPreemption"
    ]


def test_the_process_ends_with_its_whole_answer_written() -> None:
    """The command line skips the interpreter's teardown (cli.run): what it printed is flushed first."""
    done = subprocess.run(
        [sys.executable, "-m", "kubefit", "allocate", "-f", str(EXAMPLES / "gpu-mig"), "-o", "json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["kind"] == "List"


def test_a_reader_that_goes_away_ends_the_process_quietly() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubefit", "allocate", "-f", str(EXAMPLES / "gpu-mig"), "-o", "yaml"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before kubefit writes anything: its first write finds no reader
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err and "Exception ignored" not in err
