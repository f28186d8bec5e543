"""`explain` for a pending PodGroup: per placement (topology domain), the group's status there, the nodes
where the pod would fit alone, and what would make the placement fit."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubefit.cli import main

GATES = ["--feature-gates", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"]


def _node(name: str, zone: str, cpu: int) -> dict[str, Any]:
    labels = {"topology.kubernetes.io/zone": zone}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": {"cpu": str(cpu), "pods": "110"}},
    }


def _docs() -> list[dict[str, Any]]:
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "trainer", "namespace": "default"},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
        },
    }
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"worker-{i}", "namespace": "default"},
            "spec": {
                "schedulingGroup": {"podGroupName": "trainer"},
                "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "2"}}}],
            },
        }
        for i in range(4)
    ]
    return [_node("a-1", "zone-a", 4), _node("b-1", "zone-b", 4), _node("b-2", "zone-b", 2), group, *pods]


@pytest.mark.parametrize("engine", ["greedy", "cpsat", "asp"])
def test_a_pending_gang_is_explained_placement_by_placement(tmp_path: Path, engine: str) -> None:
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(_docs()))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            [*GATES, "explain", "-f", str(path), "--pod", "worker-0", "--engine", engine, "-o", "json"]
        )
    assert code == 1
    (item,) = json.loads(out.getvalue())["items"]
    assert (
        item["summary"]
        == "0/3 nodes can run pod default/worker-0: 3 wait for the rest of pod group default/trainer."
    )
    by_name = {p["placement"]: p for p in item["placements"]}
    assert by_name["zone-a"]["status"] == "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining"
    assert by_name["zone-a"]["podFitsOn"] == ["a-1"]
    assert by_name["zone-a"]["hints"][0].startswith("room in zone-a for 2 more pods of the group (2 cpu each")
    assert by_name["zone-b"]["status"] == "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"
    assert by_name["zone-b"]["podFitsOn"] == ["b-1", "b-2"]
    assert by_name["zone-b"]["hints"] == [
        "room in zone-b for 1 more pod of the group (2 cpu each, as this pod asks) would make it fit",
        "a minCount of 3 would let the group run in zone-b as it is",
    ]
