"""What devices charge to node resources (DRANodeAllocatableResources), summed with the pod's containers
as component-helpers does, and the pod-level budget checks of validatePodLevelResourcesCoverDRA."""

from __future__ import annotations

import contextlib
import io
import json
from fractions import Fraction
from pathlib import Path

import yaml

from kubefit.cli import main
from kubefit.model.pod_shape import Charges, ClaimCharge, ContainerShape, PodShape, requests
from kubefit.solver.pod_level_cover import uncovered

F = Fraction


def shape(*containers: ContainerShape, **kw: object) -> PodShape:
    return PodShape(tuple(containers), **kw)  # type: ignore[arg-type]


def app(name: str = "app", kind: str = "container", cpu: int = 0, limit: int | None = None) -> ContainerShape:
    return ContainerShape(
        name,
        kind,  # type: ignore[arg-type]
        (("cpu", cpu),) if cpu else (),
        (("cpu", limit),) if limit is not None else (),
    )


def test_per_container_overhead_is_charged_with_each_container_that_references_the_claim() -> None:
    pod = shape(app("a", cpu=1000), app("b", cpu=1000))
    overhead = ClaimCharge("c", ("a", "b", "gone"), {"cpu": F(300)}, {"cpu": F(100)})
    charges = Charges.of(pod, [overhead])
    assert charges.per_container == {"a": {"cpu": F(100)}, "b": {"cpu": F(100)}}
    # A reference to a container the spec does not have is charged for the pod's whole life.
    assert charges.fixed == {"cpu": F(400)}
    assert requests(pod, charges) == {"cpu": F(2600)}


def test_an_init_containers_overhead_counts_only_while_it_runs() -> None:
    pod = shape(app("setup", "init", cpu=1000), app("app", cpu=2000))
    charges = Charges.of(pod, [ClaimCharge("c", ("setup",), {}, {"cpu": F(500)})])
    assert requests(pod, charges) == {"cpu": F(2000)}  # the init peak of 1500 is below the containers' 2000
    sidecar = shape(app("proxy", "sidecar", cpu=1000), app("app", cpu=2000))
    charges = Charges.of(sidecar, [ClaimCharge("c", ("proxy",), {}, {"cpu": F(500)})])
    assert requests(sidecar, charges) == {"cpu": F(3500)}  # a sidecar runs beside the containers


def test_pod_level_requests_stand_for_the_whole_pod() -> None:
    pod = shape(app(cpu=2000), pod_requests=(("cpu", 7000),), overhead=(("cpu", 100),))
    charges = Charges.of(pod, [ClaimCharge("c", ("app",), {"cpu": F(4000)})])
    assert requests(pod, charges) == {"cpu": F(7100)}
    assert uncovered(pod, [ClaimCharge("c", ("app",), {"cpu": F(4000)})]) == ("", "")
    assert uncovered(pod, [ClaimCharge("c", ("app",), {"cpu": F(5001)})]) == (
        "pod level request for cpu is insufficient to cover the aggregated container and node-allocatable DRA "
        "requests",
        "cpu",
    )


def test_pod_level_limits_cover_each_container_with_the_claims_it_references() -> None:
    pod = shape(
        app("app", cpu=500, limit=2000), app("other", cpu=500, limit=2000), pod_limits=(("cpu", 4000),)
    )
    mapped = [ClaimCharge("c", ("app",), {"cpu": F(2000)})]
    assert uncovered(pod, mapped) == ("", "")
    mapped = [ClaimCharge("c", ("app",), {"cpu": F(2001)})]
    assert uncovered(pod, mapped) == (
        "pod level limit for cpu is insufficient to cover the limit and DRA overhead for container app",
        "cpu",
    )
    # Without a pod-level limit for the resource, nothing to cover.
    assert uncovered(shape(app("app", limit=2000), pod_limits=(("memory", 1),)), mapped) == ("", "")


def test_pod_level_hugepages_limits_cover_the_containers_sum() -> None:
    huge = "hugepages-2Mi"
    pod = PodShape(
        (ContainerShape("app", "container", (), ((huge, 2 << 20),)),), pod_limits=((huge, 4 << 20),)
    )
    assert uncovered(pod, [ClaimCharge("c", ("app",), {huge: F(2 << 20)})]) == ("", "")
    assert uncovered(pod, [ClaimCharge("c", ("app",), {huge: F(3 << 20)})]) == (
        "pod level limit for hugepages-2Mi is insufficient to cover the aggregated container and node-allocatable "
        "DRA limits",
        huge,
    )


def test_charges_for_limits_keep_only_the_resources_some_container_limits() -> None:
    pod = shape(app(limit=1000))
    charges = Charges({"cpu": F(1), "memory": F(2), "hugepages-1Gi": F(3)}, {"app": {"memory": F(4)}})
    declared = charges.only_declared(pod)
    assert declared.fixed == {"cpu": F(1), "hugepages-1Gi": F(3)}
    assert declared.per_container == {"app": {}}


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    return code, out.getvalue()


def test_the_1_36_mapping_shape_reads_its_allocation_multiplier(tmp_path: Path) -> None:
    """Kubernetes 1.36 wrote `nodeAllocatableResourceMappings` with an allocationMultiplier: per device
    without a capacity key."""
    docs = [
        d
        for d in yaml.safe_load_all(
            (
                Path(__file__).parent
                / "scenarios"
                / "sched"
                / "dra-nodealloc-pod-level-request-covers-mapped-cpus"
                / "objects.yaml"
            ).read_text()
        )
        if d
    ]
    for d in docs:
        if d["kind"] == "ResourceSlice":
            device = d["spec"]["devices"][0]
            del device["nodeAllocatableResources"]
            device["nodeAllocatableResourceMappings"] = {"cpu": {"allocationMultiplier": "9"}}
        if d["kind"] == "Pod":
            del d["spec"]["resources"]
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    code, out = run(
        "allocate", "-f", str(path), "-o", "json", "--feature-gates", "DRANodeAllocatableResources=true"
    )
    assert code == 1
    (event,) = [i["message"] for i in json.loads(out)["items"] if i["kind"] == "Event"]
    assert event.startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_a_pod_whose_claim_was_allocated_before_takes_what_its_device_maps(tmp_path: Path) -> None:
    """The claim is allocated already (4 CPUs mapped): the pod placed with it takes 3 + 4 of the node's 8, so a
    pod asking for 2 more does not fit."""
    case = (
        Path(__file__).parent
        / "scenarios"
        / "sched"
        / "dra-nodealloc-allocated-claim-counts-against-the-node"
    )
    docs = [d for d in yaml.safe_load_all((case / "objects.yaml").read_text()) if d]
    for d in docs:
        if d["kind"] == "ResourceSlice":
            d["spec"]["devices"][0]["nodeAllocatableResources"]["cpu"]["mapping"]["deviceMultiplier"] = "4"
    later = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "pod-1", "namespace": "default", "uid": "pod-1-uid"},
        "spec": {"containers": [{"name": "app", "image": "app:1", "resources": {"requests": {"cpu": "2"}}}]},
    }
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all([*docs, later]))
    code, out = run(
        "allocate", "-f", str(path), "-o", "json", "--feature-gates", "DRANodeAllocatableResources=true"
    )
    pods = {i["metadata"]["name"]: i for i in json.loads(out)["items"] if i["kind"] == "Pod"}
    assert pods["pod-0"]["spec"]["nodeName"] == "node-1"
    assert code == 1 and "nodeName" not in pods["pod-1"]["spec"]


def test_explain_names_the_pod_level_budget_the_devices_overrun() -> None:
    case = (
        Path(__file__).parent
        / "scenarios"
        / "sched"
        / "dra-nodealloc-pod-level-request-does-not-cover-mapped-cpus"
    )
    code, out = run(
        "explain",
        "-f",
        str(case / "objects.yaml"),
        "-o",
        "json",
        "--feature-gates",
        "DRANodeAllocatableResources=true",
    )
    (unit,) = json.loads(out)["items"]
    assert code == 1 and unit["fits"] is False
    (node,) = unit["nodes"]
    assert node["fits"] is False
    assert [r["message"] for r in node["reasons"]] == [
        "pod level request for cpu is insufficient to cover the aggregated container and node-allocatable DRA requests"
    ]
