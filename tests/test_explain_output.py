"""`kubefit explain` output: golden text for one input per kind of reason, the JSON contract, exit codes,
and `allocate --explain`.

Regenerate the golden files after an intended change with `KUBEFIT_UPDATE_GOLDEN=1 python -m pytest
tests/test_explain_output.py` and review the diff.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from gate_support import EVERY_GATE
from golden import check_golden

from kubefit.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "explain"
GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
INPUTS = sorted(p.stem for p in DATA.glob("*.yaml"))


def run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    assert code in (0, 1), err.getvalue()
    return code, out.getvalue()


def explanation(name: str, *extra: str) -> tuple[int, dict[str, Any]]:
    code, text = run("explain", "-f", str(DATA / f"{name}.yaml"), "-o", "json", *extra)
    return code, json.loads(text)


# Inputs using features no release has on by default.
ALPHA_INPUTS = {"compatibility-groups": EVERY_GATE}


@pytest.mark.parametrize("name", INPUTS)
def test_explain_text_is_golden(name: str) -> None:
    gates = list(ALPHA_INPUTS.get(name, ()))
    code, text = run("explain", "-f", str(DATA / f"{name}.yaml"), "-o", "table", *gates)
    command = " ".join(["kubefit explain -f", f"tests/data/explain/{name}.yaml", "-o table", *gates])
    got = f"# {command}\n# exit {code}\n{text}"
    golden = GOLDEN / f"explain-{name}.txt"
    check_golden(golden, got)


def test_the_golden_inputs_cover_at_least_ten_kinds_of_reason() -> None:
    kinds = set()
    for name in INPUTS:
        _, doc = explanation(name)
        for item in doc["items"]:
            for node in item.get("nodes", []):
                kinds |= {r["kind"] for r in node.get("reasons", [])}
    assert len(kinds) >= 10, sorted(kinds)


def test_json_gives_per_node_reasons_with_id_kind_objects_numbers_and_message() -> None:
    code, doc = explanation("devices-in-use")
    assert code == 1
    assert doc["apiVersion"] == "kubefit.io/v1alpha1" and doc["kind"] == "Explanation"
    (item,) = doc["items"]
    assert item["fits"] is False and item["summary"].startswith("0/1 nodes can run claims train/gpus: ")
    (node,) = item["nodes"]
    assert node["node"] == "node-1" and node["minimal"] is True
    by_kind = {r["kind"]: r for r in node["reasons"]}
    assert set(by_kind) == {"DeviceRequest", "DevicesInUse"}
    held = by_kind["DevicesInUse"]
    assert held["id"] == "held/train/other"
    assert held["objects"]["holder"] == "train/other"
    assert held["numbers"] == {"devices": 3}
    need = by_kind["DeviceRequest"]
    assert need["numbers"]["count"] == 2 and need["numbers"]["inUse"] == 3
    assert "fits if claim train/other releases gpu-0, gpu-1, gpu-2" in node["hints"]


def test_a_pod_that_fits_says_where_with_its_allocation_and_exits_0() -> None:
    code, doc = explanation("node-filters", "--pod", "train/worker-1")
    assert code == 0
    (item,) = doc["items"]
    assert item["fits"] is True and item["node"] == "node-c"


def test_pod_selects_one_pending_pod_and_node_restricts_the_nodes() -> None:
    code, doc = explanation("node-filters", "--pod", "worker-0", "--node", "node-b")
    assert code == 1
    (item,) = doc["items"]
    assert [n["node"] for n in item["nodes"]] == ["node-b"]
    assert item["nodes"][0]["reasons"][0]["kind"] == "NodeResources"
    assert item["nodes"][0]["reasons"][0]["numbers"] == {"requested": "16", "used": "0", "allocatable": "4"}


def test_an_unknown_pod_is_bad_input() -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["explain", "-f", str(DATA / "node-filters.yaml"), "--pod", "nope"]) == 2
    assert err.getvalue().startswith('--pod nope: pods "nope" not found; ')


def test_allocate_puts_the_summary_after_the_schedulers_message_in_the_event() -> None:
    code, text = run("allocate", "-f", str(DATA / "match-attribute.yaml"), "-o", "json")
    assert code == 1
    (event,) = [i for i in json.loads(text)["items"] if i["kind"] == "Event"]
    assert event["message"] == (
        "0/1 nodes are available: 1 cannot allocate all claims. "
        "0/1 nodes can run claims train/gpu-nic: 1 cannot satisfy constraint matchAttribute "
        "resource.kubernetes.io/pcieRoot."
    )
    code, text = run("allocate", "-f", str(DATA / "match-attribute.yaml"), "-o", "json", "--no-explain")
    assert code == 1
    (event,) = [i for i in json.loads(text)["items"] if i["kind"] == "Event"]
    assert event["message"] == "0/1 nodes are available: 1 cannot allocate all claims."
