"""PodGroup status conditions after the cycle (submitPodGroupResult): PodGroupInitiallyScheduled on the
PodGroup objects allocate writes, on every engine, and SetStatusCondition's rule that a True condition is
never taken back."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from kubefit.cli import main
from kubefit.model.cluster.record import GroupCondition
from kubefit.solver.cluster.podgroup.conditions import with_condition

CASES = Path(__file__).parent / "scenarios" / "sched"
GATES = ["--feature-gates", "AllAlpha=true,AllBeta=true"]


def groups_of(case: str, engine: str) -> dict[str, Any]:
    out = io.StringIO()
    args = ["allocate", "-f", str(CASES / case / "objects.yaml"), "--engine", engine, "-o", "json", *GATES]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(args)
    items = json.loads(out.getvalue())["items"]
    return {i["metadata"]["name"]: i for i in items if i.get("kind") in ("PodGroup", "CompositePodGroup")}


def condition(doc: dict[str, Any], kind: str = "PodGroup") -> dict[str, Any]:
    found = [c for c in doc["status"]["conditions"] if c["type"] == f"{kind}InitiallyScheduled"]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("engine", ["greedy", "cpsat", "asp"])
def test_scheduled_after_preemption(engine: str) -> None:
    got = condition(groups_of("podgroup-preemption-gang-evicts-lower-priority-pods", engine)["trainer"])
    assert got == {
        "type": "PodGroupInitiallyScheduled",
        "status": "True",
        "reason": "Scheduled",
        "message": "",
    }


@pytest.mark.parametrize("engine", ["greedy", "cpsat", "asp"])
def test_unschedulable_carries_the_group_status(engine: str) -> None:
    got = condition(groups_of("podgroup-preemption-policy-never", engine)["job"])
    assert got["status"] == "False" and got["reason"] == "Unschedulable"
    assert got["message"] == (
        "0/1 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, "
        "0 remaining, pod group preemption: not eligible due to preemptionPolicy=Never."
    )


def test_composite_groups_get_their_own_condition() -> None:
    docs = groups_of("podgroup-cpg-rack-that-holds-more-descendants", "greedy")
    composites = [d for d in docs.values() if d["kind"] == "CompositePodGroup"]
    assert composites
    for doc in composites:
        assert condition(doc, "CompositePodGroup")["reason"] in ("Scheduled", "Unschedulable")


def test_true_is_not_taken_back() -> None:
    stored = {
        "metadata": {"generation": 3},
        "status": {"conditions": [{"type": "PodGroupInitiallyScheduled", "status": "True"}]},
    }
    later = GroupCondition(
        "PodGroup", "ns", "g", "PodGroupInitiallyScheduled", "False", "Unschedulable", "no"
    )
    assert with_condition(stored, later) == stored
    fresh = with_condition({"metadata": {"generation": 2}}, later)
    assert fresh["status"]["conditions"] == [
        {
            "type": "PodGroupInitiallyScheduled",
            "status": "False",
            "reason": "Unschedulable",
            "message": "no",
            "observedGeneration": 2,
        }
    ]


@pytest.mark.parametrize("engine", ["greedy", "cpsat", "asp"])
def test_podgroup_claim_follows_the_chosen_zone(engine: str) -> None:
    """KEP-5729 under TopologyPlacement: the group's one claim is allocated in the zone the gang lands in,
    reserved for the PodGroup, and named in its resourceClaimStatuses."""
    out = io.StringIO()
    case = CASES / "podgroup-tas-gang-shares-a-podgroup-claim-in-its-zone" / "objects.yaml"
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["allocate", "-f", str(case), "--engine", engine, "-o", "json", *GATES])
    items = json.loads(out.getvalue())["items"]
    claims = [i for i in items if i["kind"] == "ResourceClaim"]
    assert len(claims) == 1
    status = claims[0]["status"]
    assert [r["pool"] for r in status["allocation"]["devices"]["results"]] == ["fabric-zone-b"]
    assert [r["resource"] for r in status["reservedFor"]] == ["podgroups"]
    group = next(i for i in items if i["kind"] == "PodGroup")
    assert group["status"]["resourceClaimStatuses"][0]["resourceClaimName"] == claims[0]["metadata"]["name"]
