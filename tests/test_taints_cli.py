"""`kubefit taints` on the bundled GPU example: examples/gpu-mig's cluster with the running work and the
DeviceTaintRules of examples/gpu-mig-taints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden import check_golden

from kubefit.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ["-f", str(ROOT / "examples/gpu-mig/cluster.yaml"), "-f", str(ROOT / "examples/gpu-mig-taints")]
GOLDEN = ROOT / "tests/data/golden"
DRY_RUN_END = (
    "if the effect was NoExecute. This information will not be updated again. "
    "Recreate the DeviceTaintRule to trigger an update."
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["taints", *EXAMPLE, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_example_prints_the_rules_and_the_pods_as_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "-o", "table")
    assert (code, err) == (1, "")  # pods are pending eviction
    check_golden(
        GOLDEN / "taints-gpu-mig.txt",
        f"# kubefit taints -f examples/gpu-mig/cluster.yaml -f examples/gpu-mig-taints\n# exit {code}\n{out}",
    )


def test_the_example_as_a_list_of_rules_with_status_and_events_on_pods(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "-o", "json")
    doc = json.loads(out)
    assert (code, doc["apiVersion"], doc["kind"]) == (1, "v1", "List")
    rules = {
        i["metadata"]["name"]: i["status"]["conditions"]
        for i in doc["items"]
        if i["kind"] == "DeviceTaintRule"
    }
    assert {
        name: [(c["type"], c["status"], c["reason"], c["message"]) for c in cs] for name, cs in rules.items()
    } == {
        "gpu-node-1-maintenance": [
            (
                "EvictionInProgress",
                "False",
                "NoEffect",
                "30 published devices selected. 3 allocated devices selected. "
                f"3 pods would be evicted in 2 different namespaces {DRY_RUN_END}",
            )
        ],
        "gpu-node-2-gpu-1-xid-79": [
            (
                "EvictionInProgress",
                "True",
                "PodsPendingEviction",
                "2 pods need to be evicted in 2 different namespaces.",
            )
        ],
        "gpu-node-2-mig-19-0-hot": [
            ("EvictionInProgress", "False", "OtherEffect", "Eviction only happens for the NoExecute effect.")
        ],
    }
    events = [
        (
            f"{i['involvedObject']['namespace']}/{i['involvedObject']['name']}",
            i.get("firstTimestamp"),
            "kubefit.io/dry-run" in i["metadata"]["annotations"],
        )
        for i in doc["items"]
        if i["kind"] == "Event"
    ]
    assert events == [
        # the admin-access exporter has no toleration; the simulation tolerates the XID for ten minutes
        ("gpu-monitoring/dcgm-exporter", "2025-09-01T09:30:00Z", False),
        ("research/sim", "2025-09-01T09:40:00Z", False),
        # the maintenance dry run: the trainer tolerates it for an hour, the shared notebooks are elsewhere
        ("inference/chat-0", "2025-09-01T08:00:00Z", True),
        ("inference/chat-1", "2025-09-01T08:00:00Z", True),
        ("research/trainer", "2025-09-01T09:00:00Z", True),
    ]


def test_rule_narrows_the_answer_to_one_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-o", "table", "--rule", "gpu-node-2-mig-19-0-hot")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split()[:5] == [
        "gpu-node-2-mig-19-0-hot",
        "NoSchedule",
        "driver=gpu.nvidia.com,pool=gpu-node-2,device=gpu-0-mig-1g-10gb-19-0",
        "False",
        "OtherEffect",
    ]
    assert lines[-1] == "No pods to evict."


def test_the_verb_is_listed_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "taints" in capsys.readouterr().out
