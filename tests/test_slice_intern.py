"""Reading a large JSON dump keeps less: equal parts of plain devices become one object, and a file's
text is dropped once read (read again only to locate a problem)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kubefit.model.errors import InputError
from kubefit.translate.loader import load
from kubefit.translate.reading.json_text import SourceText
from kubefit.translate.reading.slice_intern import share


def _slice(node: str, uuid: str, **extra: Any) -> dict[str, Any]:
    def device(i: int) -> dict[str, Any]:
        return {
            "name": f"gpu-{i}",
            "attributes": {
                "type": {"string": "gpu"},
                "index": {"int": i},
                "uuid": {"string": uuid},
                "driverVersion": {"version": "1.2.3"},
                "mig": {"bool": True},
            },
            "capacity": {"memory": {"value": "80Gi"}},
            "consumesCounters": [{"counterSet": f"set-{i}", "counters": {"memory": {"value": "80Gi"}}}],
        }

    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpus"},
        "spec": {
            "driver": "gpu.example.com",
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [device(0), device(1)],
            **extra,
        },
    }


def test_equal_parts_are_one_object_and_the_data_stays_equal() -> None:
    parts: dict[Any, Any] = {}
    first, second = _slice("a", "GPU-1"), _slice("b", "GPU-2")
    before = copy.deepcopy([first, second])
    share(first, parts)
    share(second, parts)
    assert [first, second] == before
    one, other = first["spec"]["devices"][0], second["spec"]["devices"][0]
    assert one["attributes"]["type"] is other["attributes"]["type"]
    assert one["capacity"] is other["capacity"]
    assert one["consumesCounters"] is other["consumesCounters"]
    assert one["attributes"]["uuid"] is not other["attributes"]["uuid"]
    # An int and a bool that are equal as keys stay apart.
    assert second["spec"]["devices"][1]["attributes"]["index"] == {"int": 1}
    assert second["spec"]["devices"][1]["attributes"]["mig"] == {"bool": True}


@pytest.mark.parametrize(
    "case",
    [
        {"taints": True},  # not plain
        {"apiVersion": "resource.k8s.io/v1beta2"},
    ],
    ids=["a device that is not plain", "another version"],
)
def test_only_plain_v1_devices_are_shared(case: dict[str, Any]) -> None:
    parts: dict[Any, Any] = {}
    first, second = _slice("a", "GPU-1"), _slice("b", "GPU-2")
    for item in (first, second):
        if "taints" in case:
            item["spec"]["devices"][0]["taints"] = [{"key": "k", "effect": "NoSchedule"}]
        else:
            item["apiVersion"] = case["apiVersion"]
        share(item, parts)
    assert first["spec"]["devices"][0]["capacity"] is not second["spec"]["devices"][0]["capacity"]


def test_a_released_text_is_read_again_to_locate_a_problem(tmp_path: Path) -> None:
    broken = _slice("b", "GPU-2")
    broken["spec"]["devices"][1]["attributes"]["type"] = {"string": "x" * 70}  # too long: API error
    path = tmp_path / "dump.json"
    path.write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": [_slice("a", "GPU-1"), broken]}, indent=4)
    )
    objects = load([str(path)])
    held = objects.objects[1].raw.source.lines.source  # type: ignore[attr-defined]
    assert held._text is None
    from kubefit.translate.validation.run import validate_objects

    (problem,) = validate_objects(objects)
    lines = path.read_text().splitlines()
    assert "x" * 70 in lines[problem.line - 1]
    assert "spec.devices[1].attributes[type]" in str(problem)


def test_the_text_of_stdin_is_kept() -> None:
    source = SourceText("text")
    source.release()
    assert source.get() == "text"


def test_a_file_that_is_not_json_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"apiVersion": "v1", "kind": "List", "items": [')
    with pytest.raises(InputError):
        load([str(path)])
