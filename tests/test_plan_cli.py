"""`kubefit plan` and `kubefit compare` on the command line: exit codes (0 every pod placed, 1 some pending,
2 bad input), the documents they print (the Plan summary, the Pods bound to their nodes, the ResourceClaims
allocated, FailedScheduling Events; the Comparison), the same bytes for the same input, and capacity
planning's answer checked against a brute force over A100 MIG layouts."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster_manifests import device_class, gpus
from cluster_manifests import pod as gpu_pod
from cluster_manifests import template as one_gpu_template
from gate_support import EVERY_GATE
from test_plan import (
    GANGS,
    GpuState,
    bench,
    built_of,
    gen,
    gpu_states,
    idle,
    mig_docs,
    mig_pod,
    most_placeable,
    plain_node,
    priority_class,
    running_gpu_pod,
)

from kubefit.cli import main

Doc = dict[str, Any]
TIME_LIMIT = "15"

# One A100 with 8 memory slices: kube-scheduler puts the 1g at slice 0, where the 4g had to start; the plan
# puts the 4g at 0, the 2g at 4 and the 1g at 6. The 7g fits under neither.
FRAGMENTED = ("1g.10gb", "4g.40gb", "2g.20gb")


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def doc(self) -> Doc:
        loaded: Doc = json.loads(self.out)
        return loaded


def kubefit(*args: str) -> Run:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args])
    return Run(code, out.getvalue(), err.getvalue())


def write(tmp_path: Path, docs: Sequence[Doc], name: str = "cluster.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(list(docs), sort_keys=False), encoding="utf-8")
    return str(path)


def mig_file(tmp_path: Path, profiles: Sequence[str], nodes: int = 1, gpus_per_node: int = 1) -> str:
    pods = [mig_pod(f"p{i}", p) for i, p in enumerate(profiles)]
    return write(tmp_path, mig_docs(nodes, gpus_per_node, pods))


def plan_json(path: str, *args: str) -> Run:
    return kubefit("plan", "-f", path, "-o", "json", "--time-limit", TIME_LIMIT, *args)


def of_kind(doc: Doc, kind: str) -> dict[str, Doc]:
    return {i["metadata"]["name"]: i for i in doc["items"][1:] if i["kind"] == kind}


def events(doc: Doc) -> dict[str, str]:
    """Pod -> its FailedScheduling message."""
    return {
        e["involvedObject"]["name"]: e["message"]
        for e in of_kind(doc, "Event").values()
        if e["reason"] == "FailedScheduling"
    }


def claim_devices(doc: Doc) -> dict[str, list[str]]:
    """Pod -> the devices of its claims, through the pod's status and the claims' allocations."""
    claims = of_kind(doc, "ResourceClaim")
    out = {}
    for name, pod in of_kind(doc, "Pod").items():
        devices = []
        for entry in pod.get("status", {}).get("resourceClaimStatuses", ()):
            allocation = claims[entry["resourceClaimName"]].get("status", {}).get("allocation") or {}
            devices += [r["device"] for r in allocation.get("devices", {}).get("results", ())]
        out[name] = devices
    return out


# --- exit codes ---------------------------------------------------------------------------------------------


def template_docs(name: str = "spare", gpus_per_node: int = 1) -> list[Doc]:
    """A node template: one A100 node with its partitionable GPUs (the generator's inventory)."""
    node = bench.node_doc(name, bench.A100, "us-east-1a")
    uuids = [f"GPU-{name}-{i}" for i in range(gpus_per_node)]
    return [node, *bench.partitionable_gpus(name, bench.A100, uuids, gpus_per_node)]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        pytest.param((), 0, id="cpsat places every pod: 0"),
        pytest.param(("--engine", "greedy"), 1, id="greedy leaves the 4g pending: 1"),
        pytest.param(("--objective", "spread"), 0, id="the spread objective places every pod too: 0"),
        pytest.param(("--objective", "scheduler", "-o", "table"), 0, id="so does the scheduler objective: 0"),
    ],
)
def test_plan_exits_0_when_every_pod_is_placed_and_1_when_some_stay_pending(
    tmp_path: Path, args: tuple[str, ...], code: int
) -> None:
    done = kubefit(
        "plan", "-f", mig_file(tmp_path, FRAGMENTED), "-o", "json", "--time-limit", TIME_LIMIT, *args
    )
    assert (done.code, done.err) == (code, "")


def test_plan_exits_1_when_a_pod_fits_under_no_plan(tmp_path: Path) -> None:
    done = plan_json(mig_file(tmp_path, (*FRAGMENTED, "7g.80gb")))
    assert done.code == 1
    assert done.doc["items"][0]["status"]["pending"] == 1


BAD_TEMPLATES: dict[str, list[Doc]] = {
    "a template without a Node": template_docs()[1:],
    "a template with two Nodes": [*template_docs("a"), *template_docs("b")],
    "a template with a Pod beside its Node": [*template_docs(), mig_pod("stray", "1g.10gb")],
}


@pytest.mark.parametrize("docs", BAD_TEMPLATES.values(), ids=BAD_TEMPLATES.keys())
def test_a_node_template_that_is_not_one_node_and_its_slices_is_bad_input(
    tmp_path: Path, docs: list[Doc]
) -> None:
    template = write(tmp_path, docs, "template.yaml")
    done = plan_json(mig_file(tmp_path, FRAGMENTED), "--node-template", template)
    assert (done.code, done.out) == (2, "")
    assert done.err.startswith(f"{template}: ") and done.err.count("\n") == 1


BAD_ARGS = {
    "compare with one engine twice": ("compare", "--engines", "greedy,greedy"),
    "compare with an unknown engine": ("compare", "--engines", "greedy,asp"),
    "plan of a file that does not exist": ("plan", "-f", "/nonexistent/cluster.yaml"),
}


@pytest.mark.parametrize("args", BAD_ARGS.values(), ids=BAD_ARGS.keys())
def test_bad_arguments_exit_2_with_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    path = mig_file(tmp_path, FRAGMENTED)
    done = kubefit(*args, *(() if "-f" in args else ("-f", path)))
    assert (done.code, done.out) == (2, "")
    assert done.err.count("\n") == 1, done.err


UNCHECKED = {
    "a negative number of workers": ("--workers", "-3"),
    "a negative cap on new nodes": ("--node-template", "TEMPLATE", "--max-new-nodes", "-1"),
    "a cap on new nodes without a node template": ("--max-new-nodes", "2"),
}


@pytest.mark.parametrize(
    "args",
    [pytest.param(args, id=name) for name, args in UNCHECKED.items()],
)
def test_option_values_plan_cannot_use_are_bad_input(tmp_path: Path, args: tuple[str, ...]) -> None:
    template = write(tmp_path, template_docs(), "template.yaml")
    done = plan_json(
        mig_file(tmp_path, (*FRAGMENTED, "7g.80gb")), *(template if a == "TEMPLATE" else a for a in args)
    )
    assert (done.code, done.out) == (2, "")
    assert done.err.count("\n") == 1, done.err


def test_capacity_planning_with_kube_schedulers_placement_is_refused_in_one_line(tmp_path: Path) -> None:
    """greedy is kube-scheduler's placement, one pod at a time: it cannot say how many copies are needed,
    so `--engine greedy --node-template` is refused rather than planned with another engine."""
    template = write(tmp_path, template_docs(), "template.yaml")
    done = plan_json(mig_file(tmp_path, FRAGMENTED), "--engine", "greedy", "--node-template", template)
    assert (done.code, done.out) == (2, "")
    assert done.err == "--engine greedy: --node-template plans capacity, which needs --engine cpsat\n"
    assert (
        plan_json(mig_file(tmp_path, FRAGMENTED), "--engine", "cpsat", "--node-template", template).code == 0
    )


# --- the plan's documents -----------------------------------------------------------------------------------

PLAN_STATUS = {
    "engine",
    "status",
    "seconds",
    "bound",
    "placed",
    "pending",
    "byPriority",
    "nodesTouched",
    "devicesTouched",
    "partiallyUsedDevices",
}


def test_the_plan_document_is_a_list_of_the_summary_the_pods_their_claims_and_events(tmp_path: Path) -> None:
    done = plan_json(mig_file(tmp_path, (*FRAGMENTED, "7g.80gb"), nodes=2))
    assert done.code == 0
    doc = done.doc
    assert (doc["apiVersion"], doc["kind"]) == ("v1", "List")
    summary = doc["items"][0]
    assert (summary["apiVersion"], summary["kind"]) == ("kubefit.io/v1alpha1", "Plan")
    status = summary["status"]
    assert set(status) == PLAN_STATUS
    assert {k: status[k] for k in ("engine", "status", "bound", "placed", "pending")} == {
        "engine": "cpsat",
        "status": "optimal",
        "bound": 4,
        "placed": 4,
        "pending": 0,
    }
    assert status["byPriority"] == [{"priority": 0, "placed": 4, "pending": 0}]
    # The 7g takes one GPU whole, the three others fill the other: two nodes, four devices, nothing half used.
    assert (status["nodesTouched"], status["devicesTouched"], status["partiallyUsedDevices"]) == (2, 4, 0)
    pods = of_kind(doc, "Pod")
    assert set(pods) == {"p0", "p1", "p2", "p3"}
    for pod in pods.values():
        assert pod["spec"]["nodeName"] in ("gpu-node-001", "gpu-node-002")
        annotations = pod["metadata"]["annotations"]
        assert (annotations["kubefit.io/plan-status"], annotations["kubefit.io/plan-bound"]) == (
            "optimal",
            "4",
        )
    devices = claim_devices(doc)
    assert all(len(d) == 1 for d in devices.values()), devices
    assert devices["p3"] == ["gpu-0-mig-7g-80gb-0-0"]
    for claim in of_kind(doc, "ResourceClaim").values():
        allocation = claim["status"]["allocation"]
        (term,) = allocation["nodeSelector"]["nodeSelectorTerms"]
        owner = claim["metadata"]["ownerReferences"][0]["name"]
        assert term["matchFields"][0]["values"] == [pods[owner]["spec"]["nodeName"]]
        assert claim["status"]["reservedFor"][0]["name"] == owner
    assert events(doc) == {}


def test_pending_pods_get_a_failed_scheduling_event_with_the_schedulers_reasons(tmp_path: Path) -> None:
    done = plan_json(mig_file(tmp_path, (*FRAGMENTED, "7g.80gb", "7g.80gb")))
    assert done.code == 1
    doc = done.doc
    assert doc["items"][0]["status"]["pending"] == 2
    # kube-scheduler's FitError on the planned state, then explain's minimal reasons for that pod.
    told = events(doc)
    assert set(told) == {"p3", "p4"}
    for name, message in told.items():
        assert message.startswith("0/1 nodes are available: 1 cannot allocate all claims. "), message
        assert f"0/1 nodes can run pod batch/{name}: " in message
    pods = of_kind(doc, "Pod")
    assert "nodeName" not in pods["p3"]["spec"] and "nodeName" not in pods["p4"]["spec"]
    claims = of_kind(doc, "ResourceClaim")
    pending = [c for c in claims.values() if c["metadata"]["ownerReferences"][0]["name"] in ("p3", "p4")]
    assert len(pending) == 2 and all("allocation" not in c.get("status", {}) for c in pending)


@pytest.mark.parametrize("engine", ["cpsat", "greedy"])
def test_every_pod_left_pending_on_a_generated_cluster_gets_the_schedulers_fit_error(
    tmp_path: Path, engine: str
) -> None:
    docs = [*gen.mig_cluster(3, 1, 4, 0.3), *gen.mig_pods(3, 1, 1.4, gen.DEFAULT_MIX, 4)]
    doc = plan_json(write(tmp_path, docs), "--engine", engine).doc
    pending = {name for name, pod in of_kind(doc, "Pod").items() if "nodeName" not in pod["spec"]}
    messages = events(doc)
    assert pending and set(messages) == pending
    assert all(m.startswith("0/3 nodes are available: ") for m in messages.values()), messages
    assert doc["items"][0]["status"]["pending"] == len(pending)


def test_a_gang_left_pending_is_told_why_not_that_it_would_fit(tmp_path: Path) -> None:
    case = GANGS["three whole GPUs asked of two: none of the gang is placed, the 1g beside it is"]
    done = plan_json(write(tmp_path, case.docs), *EVERY_GATE)
    assert done.code == 1
    messages = events(done.doc)
    assert set(messages) == set(case.gang)
    for message in messages.values():
        assert message.startswith("0/1 nodes are available") or 'pod group "batch/train"' in message, message


def test_the_table_says_the_summary_first_then_the_pending_pods_grouped_by_why(tmp_path: Path) -> None:
    done = kubefit("plan", "-f", mig_file(tmp_path, (*FRAGMENTED, "7g.80gb")), "-o", "table")
    assert done.code == 1
    head, pending, hint = done.out.split("\n\n")
    assert re.fullmatch(r"engine cpsat: optimal, bound 3, \d+\.\ds", head.splitlines()[0])
    assert head.splitlines()[1:] == [
        "placed 3 of 4 (kube-scheduler places 2), pending 1; nodes touched 1, devices touched 3, "
        "partially used GPUs/counter sets 0",
    ]
    assert [line.split(None, 2) for line in pending.splitlines()] == [
        ["PENDING", "PRIORITY", "WHY"],
        [
            "1",
            "0",
            "0/1 nodes are available: 1 cannot allocate all claims. 0/1 nodes can run the pod: 1 has too "
            "little left of counter memory-slice-0.",
        ],
    ]
    assert hint == "(every pod with -o wide)\n"


def test_the_wide_table_lists_each_pod_with_its_node_and_devices_or_why_it_waits(tmp_path: Path) -> None:
    done = kubefit("plan", "-f", mig_file(tmp_path, (*FRAGMENTED, "7g.80gb")), "-o", "wide")
    assert done.code == 1
    rows = done.out.split("\n\n")[-1]
    lines = [line.split(None, 2) for line in rows.splitlines()]
    assert lines[0] == ["POD", "NODE", "DEVICES / WHY PENDING"]
    assert lines[1:] == [
        ["batch/p0", "gpu-node-001", "gpu-0-mig-1g-10gb-19-6"],
        ["batch/p1", "gpu-node-001", "gpu-0-mig-4g-40gb-5-0"],
        ["batch/p2", "gpu-node-001", "gpu-0-mig-2g-20gb-14-4"],
        [
            "batch/p3",
            "-",
            "0/1 nodes are available: 1 cannot allocate all claims. 0/1 nodes can run pod batch/p3: 1 has "
            "too little left of counter memory-slice-0.",
        ],
    ]


def without_seconds(doc: Any) -> Any:
    """The document without its timings, the one part that differs from run to run."""
    if isinstance(doc, dict):
        return {k: without_seconds(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [without_seconds(v) for v in doc]
    return doc


@pytest.mark.parametrize("verb", ["plan", "compare"])
def test_the_same_input_twice_gives_the_same_documents(tmp_path: Path, verb: str) -> None:
    cluster = write(tmp_path, [*bench_docs(seed=7)])
    runs = [kubefit(verb, "-f", cluster, "-o", "json", "--time-limit", TIME_LIMIT) for _ in range(2)]
    assert runs[0].code == runs[1].code
    assert without_seconds(runs[0].doc) == without_seconds(runs[1].doc)
    assert re.sub(r'"seconds": [0-9.]+', "", runs[0].out) == re.sub(r'"seconds": [0-9.]+', "", runs[1].out)


def bench_docs(seed: int) -> list[Doc]:
    """A busy generated cluster of 2 nodes x 2 GPUs with a gang and two priorities, at 120% load."""
    cluster = gen.mig_cluster(2, 2, seed, 0.3)
    pods = gen.mig_pods(2, 2, 1.2, gen.DEFAULT_MIX, seed, 1, 2, {"low": 0, "high": 100})
    return [*cluster, *pods]


def test_running_pods_keep_their_devices_and_no_planned_claim_takes_them(tmp_path: Path) -> None:
    docs = [
        device_class(),
        one_gpu_template(),
        plain_node("n1"),
        gpus("n1", 3),
        *running_gpu_pod("old", "n1", "gpu-1"),
        *(gpu_pod(f"new-{i}") for i in range(3)),
    ]
    done = plan_json(write(tmp_path, docs))
    assert done.code == 1
    doc = done.doc
    assert "old" not in of_kind(doc, "Pod") and "old-gpu" not in of_kind(doc, "ResourceClaim")
    devices = claim_devices(doc)
    assert sorted(d for held in devices.values() for d in held) == ["gpu-0", "gpu-2"]
    assert len(events(doc)) == 1


# --- compare ------------------------------------------------------------------------------------------------

ENGINE_KEYS = {
    "placed",
    "pending",
    "status",
    "seconds",
    "nodesTouched",
    "devicesTouched",
    "partiallyUsedDevices",
    "preempted",  # running pods evicted (issue 23: compare says what kube-scheduler's placement costs)
}


def test_compare_json_has_the_shape_the_issue_states(tmp_path: Path) -> None:
    done = kubefit(
        "compare",
        "-f",
        mig_file(tmp_path, (*FRAGMENTED, "7g.80gb")),
        "-o",
        "json",
        "--time-limit",
        TIME_LIMIT,
    )
    assert (done.code, done.err) == (0, "")
    doc = done.doc
    assert set(doc) == {"apiVersion", "kind", "engines", "onlyPlacedBy"}
    assert (doc["apiVersion"], doc["kind"]) == ("kubefit.io/v1alpha1", "Comparison")
    assert set(doc["engines"]) == {"greedy", "cpsat"}
    for engine, entry in doc["engines"].items():
        # The issue lists these keys; cpsat adds its proven bound.
        assert ENGINE_KEYS <= set(entry) <= ENGINE_KEYS | {"bound"}, engine
        assert isinstance(entry["seconds"], (int, float)) and entry["seconds"] >= 0
    greedy, cpsat = doc["engines"]["greedy"], doc["engines"]["cpsat"]
    assert {k: greedy[k] for k in ("placed", "pending", "status")} == {
        "placed": 2,
        "pending": 2,
        "status": "heuristic",
    }
    assert {k: cpsat[k] for k in ("placed", "pending", "status", "bound")} == {
        "placed": 3,
        "pending": 1,
        "status": "optimal",
        "bound": 3,
    }
    assert set(doc["onlyPlacedBy"]) == {"cpsat", "greedy"}
    assert doc["onlyPlacedBy"]["greedy"] == []
    (only,) = doc["onlyPlacedBy"]["cpsat"]
    assert set(only) == {"pod", "node", "reasons"}
    assert (only["pod"], only["node"], set(only["reasons"])) == ("batch/p1", "gpu-node-001", {"greedy"})
    reason = only["reasons"]["greedy"]
    # Why greedy left it pending, naming the earlier placement that blocked it (the 1g at slice 0).
    assert reason.startswith("0/1 nodes are available: 1 cannot allocate all claims.")
    assert "batch/p0 (gpu-0-mig-1g-10gb-19-0)" in reason


def test_compare_names_the_pods_each_engine_alone_places_and_what_blocked_the_other(tmp_path: Path) -> None:
    # kube-scheduler gives the one GPU to the 7g queued first; the plan places the two 1g pods instead.
    done = kubefit("compare", "-f", mig_file(tmp_path, ("7g.80gb", "1g.10gb", "1g.10gb")), "-o", "json")
    doc = done.doc
    assert {e: doc["engines"][e]["placed"] for e in ("greedy", "cpsat")} == {"greedy": 1, "cpsat": 2}
    ((greedy_only), *more) = doc["onlyPlacedBy"]["greedy"]
    assert more == [] and (greedy_only["pod"], greedy_only["node"]) == ("batch/p0", "gpu-node-001")
    assert greedy_only["reasons"]["cpsat"].startswith(
        "0/1 nodes are available: 1 cannot allocate all claims."
    )
    assert "cpsat's plan puts batch/p1 (gpu-0-mig-1g-10gb-19-" in greedy_only["reasons"]["cpsat"]
    assert [row["pod"] for row in doc["onlyPlacedBy"]["cpsat"]] == ["batch/p1", "batch/p2"]
    for row in doc["onlyPlacedBy"]["cpsat"]:
        assert "greedy had placed earlier batch/p0 (gpu-0-mig-7g-80gb-0-0)" in row["reasons"]["greedy"]


def test_compare_table_puts_the_engines_side_by_side_and_lists_the_pods_only_one_places(
    tmp_path: Path,
) -> None:
    done = kubefit("compare", "-f", mig_file(tmp_path, (*FRAGMENTED, "7g.80gb")), "-o", "table")
    assert done.code == 0
    lines = done.out.splitlines()
    assert lines[0].split() == ["greedy", "cpsat"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:10]}
    assert rows["placed"] == ["2", "3"] and rows["pending"] == ["2", "1"]
    assert rows["preempted"] == ["0", "0"]
    assert rows["status"] == ["heuristic", "optimal"] and rows["bound"] == ["-", "3"]
    assert set(rows) == {*ENGINE_KEYS, "bound"}
    assert "only cpsat places:" in lines and "only greedy places:" not in lines
    start = lines.index("only cpsat places:")
    assert lines[start + 1].split() == ["POD", "NODE", "PREEMPTS", "WHY", "NOT", "THE", "OTHER"]
    assert lines[start + 2].split()[:2] == ["batch/p1", "gpu-node-001"]


def test_compare_html_is_one_self_contained_page(tmp_path: Path) -> None:
    done = kubefit("compare", "-f", mig_file(tmp_path, (*FRAGMENTED, "7g.80gb")), "-o", "html")
    assert done.code == 0
    page = done.out
    assert page.startswith("<!DOCTYPE html>")
    assert page.rstrip().endswith("</html>")
    assert "gpu-node-001" in page and "batch/p1" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)


# --- capacity planning --------------------------------------------------------------------------------------


def fewest_copies(existing: list[GpuState], profiles: Sequence[str], template_gpus: int) -> int:
    """The fewest copies of a template of idle GPUs with which every pod fits, by brute force."""
    for k in range(len(profiles) + 1):
        if most_placeable(profiles, existing + idle(k * template_gpus)) == len(profiles):
            return k
    raise AssertionError("every pod fits on a GPU of its own")


@dataclass(frozen=True)
class Capacity:
    gpus: int  # the one node's GPUs
    busy: float  # share of them running MIG partitions or whole-GPU pods (the generator's, seeded)
    pending: tuple[str, ...]
    template_gpus: int


CAPACITY = {
    "five pods that need four GPUs, one has one, a template of one": Capacity(
        1, 0.0, ("7g.80gb", "7g.80gb", "4g.40gb", "3g.40gb", "1g.10gb"), 1
    ),
    "the same with a template of two GPUs": Capacity(
        1, 0.0, ("7g.80gb", "7g.80gb", "4g.40gb", "3g.40gb", "1g.10gb"), 2
    ),
    "everything fits already: no new node": Capacity(2, 0.0, ("4g.40gb", "3g.40gb", "2g.20gb"), 1),
    "partitions that fit only where placed well: 4g and 3g pairs, 2g and 1g": Capacity(
        1, 0.0, ("4g.40gb", "3g.40gb", "4g.40gb", "3g.40gb", "2g.20gb", "2g.20gb", "1g.10gb", "1g.10gb"), 1
    ),
    "a busy node of two GPUs": Capacity(2, 0.8, ("3g.40gb", "3g.40gb", "2g.20gb", "1g.10gb", "7g.80gb"), 1),
}


def capacity_case(tmp_path: Path, case: Capacity, seed: int = 3) -> tuple[str, str, list[GpuState]]:
    """The cluster file, the template file, and the GPUs' states before the plan."""
    pods = [mig_pod(f"p{i}", p) for i, p in enumerate(case.pending)]
    docs = mig_docs(1, case.gpus, pods, busy=case.busy, seed=seed)
    existing = gpu_states(built_of(docs))
    return (
        write(tmp_path, docs),
        write(tmp_path, template_docs("spare", case.template_gpus), "t.yaml"),
        existing,
    )


@pytest.mark.parametrize("case", CAPACITY.values(), ids=CAPACITY.keys())
def test_capacity_planning_adds_the_fewest_copies_a_brute_force_finds_and_proves_it(
    tmp_path: Path, case: Capacity
) -> None:
    cluster, template, existing = capacity_case(tmp_path, case)
    if case.busy:
        assert any(used for _, used in existing), "the node runs partitions"
    expected = fewest_copies(existing, case.pending, case.template_gpus)
    done = plan_json(cluster, "--node-template", template)
    assert (done.code, done.err) == (0, "")
    status = done.doc["items"][0]["status"]
    capacity = status["capacity"]
    names = [f"spare-new-{i}" for i in range(1, expected + 1)]
    assert (capacity["newNodes"], capacity["nodes"], capacity["proof"]) == (expected, names, "optimal")
    assert capacity["template"] == "spare"
    assert (status["placed"], status["pending"]) == (len(case.pending), 0)
    used = {pod["spec"]["nodeName"] for pod in of_kind(done.doc, "Pod").values()}
    assert used - {"gpu-node-001"} == set(names)


def test_capacity_planning_adds_copies_for_pods_that_kube_scheduler_would_place_by_preemption(
    tmp_path: Path,
) -> None:
    # The node's GPU runs two 1g and a 2g of priority 0: three 1g placements are left for four pods of
    # priority 100, which kube-scheduler would place by evicting a running pod.
    pods = [mig_pod(f"high-{i}", "1g.10gb", priority="high") for i in range(4)]
    docs = [*mig_docs(1, 1, pods, busy=0.5, seed=2), priority_class("high", 100)]
    existing = gpu_states(built_of(docs))
    assert existing == [(0b110011, 56)]
    template = write(tmp_path, template_docs(), "t.yaml")
    done = plan_json(write(tmp_path, docs), "--node-template", template)
    assert done.code == 0
    capacity = done.doc["items"][0]["status"]["capacity"]
    assert (capacity["newNodes"], capacity["proof"]) == (
        fewest_copies(existing, ["1g.10gb"] * 4, 1),
        "optimal",
    )


@pytest.mark.parametrize("cap", [0, 1, 2, 3])
def test_a_cap_on_new_nodes_places_the_most_pods_that_many_copies_allow_with_the_fewest(
    tmp_path: Path, cap: int
) -> None:
    case = CAPACITY["partitions that fit only where placed well: 4g and 3g pairs, 2g and 1g"]
    cluster, template, existing = capacity_case(tmp_path, case)
    most = [most_placeable(case.pending, existing + idle(k)) for k in range(cap + 1)]
    done = plan_json(cluster, "--node-template", template, "--max-new-nodes", str(cap))
    status = done.doc["items"][0]["status"]
    assert status["placed"] == most[cap]
    assert status["capacity"]["maxNewNodes"] == cap
    assert status["capacity"]["newNodes"] == most.index(most[cap])  # the fewest copies that place as many
    assert done.code == (0 if most[cap] == len(case.pending) else 1)


@dataclass(frozen=True)
class MinPriority:
    high: tuple[str, ...]  # pods of priority 100, which must fit
    low: tuple[str, ...]  # pods of priority 0, placed where room is left


MIN_PRIORITY = {
    "two whole GPUs of high priority need one more GPU, the low pods wait": MinPriority(
        ("7g.80gb", "7g.80gb"), ("4g.40gb", "3g.40gb", "1g.10gb", "7g.80gb")
    ),
    "four whole GPUs of high priority need three more, however many the low 1g pods want": MinPriority(
        ("7g.80gb",) * 4, ("1g.10gb",) * 3
    ),
}


@pytest.mark.parametrize(
    "case",
    [pytest.param(case, id=name) for name, case in MIN_PRIORITY.items()],
)
def test_a_minimum_priority_adds_copies_only_for_the_pods_of_that_priority_and_above(
    tmp_path: Path, case: MinPriority
) -> None:
    pods = [mig_pod(f"high-{i}", p, priority="high") for i, p in enumerate(case.high)]
    pods += [mig_pod(f"low-{i}", p, priority="low") for i, p in enumerate(case.low)]
    classes = [priority_class("high", 100), priority_class("low", 0)]
    cluster = write(tmp_path, [*mig_docs(1, 1, pods), *classes])
    template = write(tmp_path, template_docs(), "t.yaml")
    done = plan_json(cluster, "--node-template", template, "--min-priority", "100")
    assert done.code == 0  # every pod of priority 100 is placed
    status = done.doc["items"][0]["status"]
    assert status["byPriority"][0] == {"priority": 100, "placed": len(case.high), "pending": 0}
    assert (status["capacity"]["newNodes"], status["capacity"]["proof"]) == (
        fewest_copies(idle(1), case.high, 1),
        "optimal",
    )


def test_progress_flag_writes_the_progress_lines_to_stderr_and_leaves_the_answer_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from functools import partial

    from kubefit.app import plan_request as command
    from kubefit.solver.cluster.plan import progress

    # A tick every millisecond, so that a plan of a few milliseconds shows lines (the CLI ticks each second).
    monkeypatch.setattr(command, "Progress", partial(progress.Progress, every=0.001))
    path = mig_file(tmp_path, (*FRAGMENTED, "7g.80gb"))
    shown = kubefit("plan", "-f", path, "-o", "json", "--progress")
    quiet = kubefit("plan", "-f", path, "-o", "json", "--no-progress")
    assert shown.code == quiet.code == 1
    lines = shown.err.splitlines()
    assert lines and all(line.startswith("plan: ") for line in lines), shown.err
    assert quiet.err == ""
    strip = re.compile(r'"seconds": [0-9.]+')
    assert strip.sub("", shown.out) == strip.sub("", quiet.out)
