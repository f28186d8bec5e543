"""The DRA CEL conformance table: kubefit's CEL must give Kubernetes' answer on every case,
both through the Python API and through `kubefit devices --selector`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from gate_support import gate_args

from kubefit.cli import main
from kubefit.model.errors import CelRuntimeError
from kubefit.model.features import ALL_ON, FeatureGates
from kubefit.translate.cel.environment import NEW, STORED
from kubefit.translate.cel.selector import AttributeValue, DeviceInput, Selector
from kubefit.translate.validation.run import cel_features

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "data" / "cel_conformance.yaml").read_text()
)
DRIVER = "dra.example.com"


def gates_of(case: dict[str, Any]) -> FeatureGates:
    """Every gate on but the case's (as upstream's CEL tests switch one feature at a time)."""
    return ALL_ON.with_values(case.get("gates") or {})


def device_of(case: dict[str, Any]) -> DeviceInput:
    attributes = {k: AttributeValue.of(v or {}) for k, v in (case.get("attributes") or {}).items()}
    capacity = {k: str(v) for k, v in (case.get("capacity") or {}).items()}
    return DeviceInput(case.get("driver", DRIVER), attributes, capacity, case.get("allowMultipleAllocations"))


def test_the_table_is_well_formed() -> None:
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
    for case in CASES:
        outcomes = [k for k in ("match", "compileError", "runtimeError") if k in case]
        assert len(outcomes) == 1, case["name"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_selector_gives_the_upstream_answer(case: dict[str, Any]) -> None:
    features = cel_features(gates_of(case))
    selector = Selector(case["expression"], features, NEW if case.get("env") == "new" else STORED)
    if "compileError" in case:
        assert selector.error is not None, "expected a compile error"
        assert case["compileError"] in selector.error.detail
        return
    assert selector.error is None, selector.error.detail if selector.error else ""
    device = device_of(case)
    if "runtimeError" in case:
        with pytest.raises(CelRuntimeError) as info:
            selector.evaluate(device)
        assert case["runtimeError"] in str(info.value)
        return
    assert selector.evaluate(device) is case["match"]


def slice_yaml(case: dict[str, Any]) -> str:
    device: dict[str, Any] = {"name": "dev-0"}
    if case.get("attributes"):
        device["attributes"] = case["attributes"]
    if case.get("capacity"):
        device["capacity"] = {k: {"value": str(v)} for k, v in case["capacity"].items()}
    if "allowMultipleAllocations" in case:
        device["allowMultipleAllocations"] = case["allowMultipleAllocations"]
    doc = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": case.get("driver", DRIVER),
            "nodeName": "node-1",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "devices": [device],
        },
    }
    return yaml.safe_dump(doc)


CLI_CASES = [c for c in CASES if c.get("cli", True)]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c["name"] for c in CLI_CASES])
def test_kubefit_devices_gives_the_same_answer(
    case: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "slice.yaml"
    path.write_text(slice_yaml(case))
    argv = ["devices", "-f", str(path), "--selector", case["expression"], "-o", "json"]
    argv += gate_args(case.get("gates"))
    code = main(argv)
    out, err = capsys.readouterr()
    expected_input_error = case.get("cliError") or case.get("compileError")
    if expected_input_error:
        assert code == 2, err
        assert expected_input_error in err
        assert out == ""
        return
    (item,) = json.loads(out)["items"]
    if "runtimeError" in case:
        assert code == 1
        assert case["runtimeError"] in item["error"]
        assert item["selected"] is False
        assert item["error"] in err
        return
    assert code == 0, err
    assert item["error"] == ""
    assert item["selected"] is case["match"]
