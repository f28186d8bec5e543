"""The same error on many objects is printed once, with a count and the first few names (issue 26,
item 11): a CEL key typo in a DeviceClass fails on every device; a misspelt field on every object. The
line starts with the message as it is (upstream's words), a single occurrence prints as before, and
-o json|yaml documents keep every entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubefit.cli import main
from kubefit.model.errors import Problem
from kubefit.model.repeated import Repeated, lines, problem_lines

GPU_MIG = Path(__file__).resolve().parent.parent / "examples" / "gpu-mig"
HINT = "Consider using CEL optional chaining (?), has() macro, or orValue() for optional fields"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _cluster(tmp_path: Path, old: str, new: str) -> str:
    text = (GPU_MIG / "cluster.yaml").read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "cluster.yaml").write_text(text.replace(old, new), encoding="utf-8")
    return str(tmp_path / "cluster.yaml")


def _typo_class(tmp_path: Path) -> str:
    """mig.nvidia.com's selector with a misspelt attribute: it fails on every device of the driver."""
    return _cluster(
        tmp_path,
        "device.attributes['gpu.nvidia.com'].type\n        == 'mig'",
        "device.attributes['gpu.nvidia.com'].tpye\n        == 'mig'",
    )


def test_a_cel_key_typo_on_60_devices_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        ["devices", "-f", _typo_class(tmp_path), "--class", "mig.nvidia.com", "-o", "table"], capsys
    )
    assert code == 1
    assert err.splitlines() == [
        f"class mig.nvidia.com: selector #0: CEL runtime error: no such key: tpye. {HINT} (on 60 devices: "
        "gpu-node-1/gpu-0, gpu-node-1/gpu-0-mig-1g-10gb-19-0, gpu-node-1/gpu-0-mig-1g-10gb-19-1, … and 57 more)"
    ]
    assert "0 of 60 devices selected" in out


def test_the_json_document_keeps_every_device_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        ["devices", "-f", _typo_class(tmp_path), "--class", "mig.nvidia.com", "-o", "json"], capsys
    )
    assert code == 1
    items = json.loads(out)["items"]
    assert len(items) == 60
    for item in items:
        assert set(item) == {
            "driver", "pool", "device", "nodeName", "selected", "error", "slice", "attributes", "capacity"
        }  # fmt: skip
        assert item["error"] == (
            f"class mig.nvidia.com: selector #0 on device {item['device']}: CEL runtime error: "
            f"no such key: tpye. {HINT}"
        )
    assert len(err.splitlines()) == 1


def test_an_error_on_one_device_prints_as_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # gpu-0's uuid matches, the MIG devices are of type mig: only gpu-1 reaches the missing key.
    selector = (
        'device.attributes["gpu.nvidia.com"].type == "mig" || '
        'device.attributes["gpu.nvidia.com"].uuid.startsWith("GPU-4cf8") || '
        'device.attributes["gpu.nvidia.com"].missing'
    )
    argv = ["devices", "-f", str(GPU_MIG), "--node", "gpu-node-1", "--selector", selector, "-o", "json"]
    code, out, err = run(argv, capsys)
    assert code == 1
    failed = [i["error"] for i in json.loads(out)["items"] if i["error"]]
    assert failed == [f"--selector #0 on device gpu-1: CEL runtime error: no such key: missing. {HINT}"]
    assert err.splitlines() == failed


def test_the_same_unknown_field_on_many_devices_is_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _cluster(tmp_path, "    attributes:\n", "    atributes: {}\n    attributes:\n")
    code, out, err = run(["validate", "-f", path, "-o", "json"], capsys)
    assert code == 0
    assert err.splitlines() == [
        f"{path}:127: ResourceSlice/gpu-node-1-gpu.nvidia.com-devices: spec.devices[0].atributes: warning: "
        'unknown field "atributes" (on 60 fields of 2 objects: ResourceSlice/gpu-node-1-gpu.nvidia.com-devices, '
        "ResourceSlice/gpu-node-2-gpu.nvidia.com-devices)"
    ]
    problems = json.loads(out)["problems"]
    assert len(problems) == 60  # the report keeps every one
    assert len({p["path"] for p in problems}) == 30


def test_two_different_messages_stay_two_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _cluster(tmp_path, "    attributes:\n", "    atributes: {}\n    capacityy: {}\n    attributes:\n")
    code, _, err = run(["validate", "-f", path, "--strict", "-o", "table"], capsys)
    assert code == 2
    shown = err.splitlines()
    assert len(shown) == 2
    assert shown[0].endswith('atributes: unknown field "atributes" (on 60 fields of 2 objects: '
                             "ResourceSlice/gpu-node-1-gpu.nvidia.com-devices, "
                             "ResourceSlice/gpu-node-2-gpu.nvidia.com-devices)")  # fmt: skip
    assert 'capacityy: unknown field "capacityy" (on 60 fields' in shown[1]


# --- the grouping itself -----------------------------------------------------------------------------


def test_lines_group_by_message_in_first_seen_order() -> None:
    entries = [Repeated(f"x on d{i}: boom", "x: boom", f"p/d{i}", "devices") for i in range(5)] + [
        Repeated("y on d9: bang", "y: bang", "p/d9", "devices"),
        "plain",
        "plain",
    ]
    assert lines(entries) == [
        "x: boom (on 5 devices: p/d0, p/d1, p/d2, … and 2 more)",
        "y on d9: bang",
        "plain (2 times)",
    ]
    assert lines([Repeated("a", "t", "s1", "devices"), Repeated("b", "t", "s2", "devices")]) == [
        "t (on 2 devices: s1, s2)"
    ]


def test_problem_lines_keep_a_single_problem_as_it_is() -> None:
    one = Problem("Required value", file="a.yaml", line=3, obj="Pod/ns/p", path=("spec", "containers"))
    other = Problem("unknown field", file="a.yaml", line=9, obj="Pod/ns/p", path=("spec", "x"), warning=True)
    assert problem_lines([one, other]) == [str(one), str(other)]
    same = [
        Problem("Required value", file="a.yaml", line=i, obj=f"Pod/ns/p{i}", path=("spec",)) for i in range(4)
    ]
    assert problem_lines(same) == [f"{same[0]} (on 4 objects: Pod/ns/p0, Pod/ns/p1, Pod/ns/p2, … and 1 more)"]
    # A warning and an error with the same words are told apart.
    assert len(problem_lines([one, Problem("Required value", obj="Pod/ns/q", warning=True)])) == 2
    # Exactly the same problem twice (one object read twice at one place) is counted, not listed.
    assert problem_lines([one, one]) == [f"{one} (2 times)"]
