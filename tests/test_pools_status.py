"""`kubefit pools` from objects to ResourcePoolStatusRequests: the device counts with why devices are
unavailable, incomplete and invalid pools, partition types and upstream's errors about them, shareable
capacity, and the List's shape."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

import pytest
import yaml
from benchmark_modules import benchmark_module
from kubernetes.client.models import V1alpha3ResourcePoolStatusRequest
from test_pools_allocatable import brute_force

from kubefit.app.pools import PoolRequest, report, statuses
from kubefit.model.features import ALL_ON, split_gates
from kubefit.solver.pools.status import PoolStatus
from kubefit.translate.dra.build import build
from kubefit.translate.dra.pool_facts import pools
from kubefit.translate.loader import load_text

DRIVER = "gpu.example.com"
PROFILE = f"{DRIVER}/profile"

Doc = dict[str, Any]

# --- manifests ---------------------------------------------------------------------------------------------


def dev(name: str, **fields: Any) -> Doc:
    return {"name": name, **fields}


def part(name: str, profile: str | None, memory: int, counter_set: str = "gpu-0", **fields: Any) -> Doc:
    """A partition drawing `memory` from a counter set, labelled with its profile."""
    attributes = {"profile": {"string": profile}} if profile is not None else {}
    consumes = [{"counterSet": counter_set, "counters": {"memory": {"value": f"{memory}Gi"}}}]
    return dev(name, attributes=attributes, consumesCounters=consumes, **fields)


def slice_(name: str, *, pool: str = "pool-a", count: int = 1, generation: int = 1, **spec: Any) -> Doc:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": spec.pop("driver", DRIVER),
            "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
            "nodeName": spec.pop("node", "node-1"),
            **spec,
        },
    }


def counters(*names: str, memory: int = 80) -> list[Doc]:
    return [{"name": n, "counters": {"memory": {"value": f"{memory}Gi"}}} for n in names]


def allocated(name: str, *devices: str, pool: str = "pool-a", driver: str = DRIVER, **result: Any) -> Doc:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "req", "exactly": {"deviceClassName": "gpu"}}]}},
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "req", "driver": driver, "pool": pool, "device": d, **result}
                        for d in devices
                    ]
                }
            }
        },
    }


def rule(name: str, effect: str, **selector: str) -> Doc:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": name},
        "spec": {"deviceSelector": selector, "taint": {"key": "example.com/maintenance", "effect": effect}},
    }


def answer(docs: list[Doc], request: PoolRequest | None = None, gates: str = "") -> list[PoolStatus]:
    objects = load_text(yaml.safe_dump_all(docs))
    found, _ = statuses(objects, ALL_ON.with_values(split_gates([gates])), request or PoolRequest())
    return found


def only(docs: list[Doc], request: PoolRequest | None = None, gates: str = "") -> PoolStatus:
    (status,) = answer(docs, request, gates)
    return status


# --- device counts -------------------------------------------------------------------------------------------

TAINTED = dev("d1", taints=[{"key": "example.com/broken", "value": "true", "effect": "NoExecute"}])


def test_counts_say_which_free_devices_are_unavailable_and_why() -> None:
    docs = [
        slice_("s", devices=[dev("d0"), TAINTED, dev("d2"), dev("d3"), {**TAINTED, "name": "d4"}, dev("d5")]),
        allocated("c0", "d0"),
        allocated("c4", "d4"),  # tainted, but allocated: it counts once, as allocated
        allocated("watch", "d5", adminAccess=True),  # admin access observes, it does not consume
        rule("drain-d2", "NoSchedule", device="d2"),
        rule("note-d3", "None", device="d3"),  # effect None keeps nobody off
    ]
    status = only(docs)
    assert (status.total, status.allocated, status.available, status.unavailable) == (6, 2, 2, 2)
    assert status.why_unavailable == (
        ("d1", "untolerated taint example.com/broken=true:NoExecute"),
        ("d2", "untolerated taint example.com/maintenance:NoSchedule"),
    )
    assert (status.node_name, status.slices, status.generation, status.validation_error) == (
        "node-1",
        1,
        1,
        None,
    )


def test_taints_do_not_count_while_the_device_taints_gate_is_off() -> None:
    status = only([slice_("s", devices=[TAINTED])], gates="DRADeviceTaints=false")
    assert (status.available, status.unavailable) == (1, 0)


def test_an_incomplete_pool_reports_only_upstreams_reason() -> None:
    status = only([slice_("s-0", count=2, devices=[dev("d0")])])
    assert (
        status.validation_error
        == "PoolIncomplete: pool gpu.example.com/pool-a is incomplete: observed 1/2 slices at generation 1"
    )
    assert (status.slices, status.total, status.allocated, status.available, status.unavailable) == (
        None,
    ) * 5
    assert status.partitions is None and status.shareable is None


def test_a_newer_generation_replaces_the_old_one_even_while_it_is_incomplete() -> None:
    docs = [
        slice_("old-0", count=2, devices=[dev("d0")]),
        slice_("old-1", count=2, devices=[dev("d1")]),
        slice_("new-0", count=2, generation=2, devices=[dev("d0")]),
    ]
    status = only(docs)
    assert status.generation == 2
    assert (
        status.validation_error
        == "PoolIncomplete: pool gpu.example.com/pool-a is incomplete: observed 1/2 slices at generation 2"
    )


def test_an_invalid_pool_has_every_free_device_unavailable_and_says_why() -> None:
    docs = [
        slice_("s-0", count=2, devices=[dev("d0"), dev("d1")]),
        slice_("s-1", count=2, devices=[dev("d1")]),
        allocated("c", "d0"),
    ]
    status = only(docs)
    reason = "resource pool gpu.example.com/pool-a is currently invalid: duplicate device name d1"
    assert status.validation_error == reason
    assert (status.total, status.allocated, status.available, status.unavailable) == (3, 1, 0, 2)
    assert status.why_unavailable == (("d1", reason), ("d1", reason))


def test_a_device_drawing_on_an_unknown_counter_set_makes_the_pool_invalid() -> None:
    docs = [
        slice_("c", count=2, sharedCounters=counters("gpu-0")),
        slice_("d", count=2, devices=[part("p0", "half", 40, counter_set="gpu-9")]),
    ]
    status = only(docs)
    assert (
        status.validation_error
        == "resource pool gpu.example.com/pool-a is currently invalid: counter set gpu-9 not found"
    )
    assert status.partitions is None


def test_the_request_filters_pools_by_driver_and_name_and_the_limit_cuts_the_sorted_list() -> None:
    docs = [
        slice_("a", pool="pool-b", devices=[dev("d0")]),
        slice_("b", pool="pool-a", devices=[dev("d0")]),
        slice_("c", pool="pool-a", driver="nic.example.com", devices=[dev("d0")]),
    ]
    refs = [s.ref for s in answer(docs)]
    assert refs == ["gpu.example.com/pool-a", "gpu.example.com/pool-b", "nic.example.com/pool-a"]
    assert [s.ref for s in answer(docs, PoolRequest(driver=DRIVER))] == refs[:2]
    assert [s.ref for s in answer(docs, PoolRequest(pool="pool-a"))] == [refs[0], refs[2]]
    assert answer(docs, PoolRequest(pool="nowhere")) == []
    objects = load_text(yaml.safe_dump_all(docs))
    found, matched = statuses(objects, ALL_ON, PoolRequest(limit=2))
    assert ([s.ref for s in found], matched) == (refs[:2], 3)


# --- partition summary ------------------------------------------------------------------------------------------


def gpu_pool(*devices: Doc, attribute: str | None = PROFILE, **spec: Any) -> list[Doc]:
    declared = {"partitionTypeAttribute": attribute} if attribute else {}
    return [
        slice_("c", count=2, sharedCounters=counters("gpu-0")),
        slice_("d", count=2, devices=list(devices), **declared, **spec),
    ]


HALVES = [part("full", "full", 80), part("half-0", "half", 40), part("half-1", "half", 40)]


def summary(status: PoolStatus) -> list[tuple[str, str, int, int]]:
    assert status.partitions is not None, status.validation_error
    return [(p.attribute, p.type, p.total, p.allocatable) for p in status.partitions]


def test_partitions_of_a_fresh_pool_each_fit_alone() -> None:
    status = only(gpu_pool(*HALVES))
    assert summary(status) == [(PROFILE, "full", 1, 1), (PROFILE, "half", 2, 2)]
    assert status.validation_error is None


def test_an_allocated_half_leaves_one_half_and_no_full() -> None:
    status = only([*gpu_pool(*HALVES), allocated("c", "half-0")])
    assert summary(status) == [(PROFILE, "full", 1, 0), (PROFILE, "half", 2, 1)]
    (half,) = [p for p in status.partitions or () if p.type == "half"]
    assert half.devices == ("half-1",)


def test_the_request_default_groups_partitions_only_when_no_slice_declares_an_attribute() -> None:
    shape = {"shape": {"string": "square"}}
    devices = [{**d, "attributes": {**d["attributes"], **shape}} for d in HALVES]
    by_default = only(gpu_pool(*devices, attribute=None), PoolRequest(default_attribute=f"{DRIVER}/shape"))
    assert summary(by_default) == [(f"{DRIVER}/shape", "square", 3, 2)]
    declared = only(gpu_pool(*devices), PoolRequest(default_attribute=f"{DRIVER}/shape"))
    assert [t for _, t, _, _ in summary(declared)] == ["full", "half"]
    assert only(gpu_pool(*devices, attribute=None)).partitions is None


def test_a_bare_attribute_name_counts_in_the_drivers_domain() -> None:
    status = only(gpu_pool(*HALVES, attribute=None), PoolRequest(default_attribute=PROFILE))
    assert [t for _, t, _, _ in summary(status)] == ["full", "half"]


@pytest.mark.parametrize(
    ("case", "docs", "error"),
    [
        (
            "a partition without the attribute",
            gpu_pool(part("full", None, 80), *HALVES[1:], attribute=None),
            'PartitionTypeMissing: device "full" in pool gpu.example.com/pool-a does not carry partition type '
            'attribute "gpu.example.com/profile"',
        ),
        (
            "a partition whose attribute is not a string",
            gpu_pool({**HALVES[1], "attributes": {"profile": {"int": 2}}}, attribute=None),
            'PartitionTypeMissing: device "half-0" in pool gpu.example.com/pool-a does not carry partition type '
            'attribute "gpu.example.com/profile"',
        ),
        (
            "an attribute named for a pool without counters",
            [slice_("d", devices=[dev("d0", attributes={"profile": {"string": "x"}})])],
            "PartitionTypeMissing: pool gpu.example.com/pool-a declares partitionTypeAttribute but publishes no "
            "sharedCounters",
        ),
        (
            "more partition types than the status may list",
            gpu_pool(*(part(f"p{i}", f"type-{i:02d}", 1) for i in range(33)), attribute=None),
            "PartitionSummaryOverCap: pool gpu.example.com/pool-a has 33 partition types, exceeding the maximum of 32",
        ),
    ],
)
def test_upstreams_partition_errors_replace_the_summary_but_keep_the_counts(
    case: str, docs: list[Doc], error: str
) -> None:
    status = only(docs, PoolRequest(default_attribute=PROFILE))
    assert (status.validation_error, status.partitions) == (error, None), case
    assert status.total == len(docs[-1]["spec"]["devices"])


def test_without_partitionable_devices_there_is_no_partition_summary_and_no_partition_to_allocate() -> None:
    status = only(gpu_pool(*HALVES), gates="DRAPartitionableDevices=false")
    assert status.partitions is None
    assert status.unavailable == 3
    assert status.why_unavailable[0] == ("full", "consumes counters, but DRAPartitionableDevices is off")


def test_a_pool_the_scheduler_sees_incomplete_has_nothing_available() -> None:
    # With compatibility groups off the scheduler ignores a slice whose devices declare groups.
    grouped = {"counterSet": "gpu-0", "counters": {"memory": {"value": "40Gi"}}, "compatibilityGroups": ["a"]}
    docs = [*gpu_pool(*HALVES), slice_("e", count=3, devices=[dev("g", consumesCounters=[grouped])])]
    for d in docs:
        d["spec"]["pool"]["resourceSliceCount"] = 3
    status = only(docs, gates="DRADeviceCompatibilityGroups=false")
    assert (status.available, status.unavailable, status.validation_error) == (0, 4, None)
    assert status.why_unavailable[0][1] == (
        "resource pool gpu.example.com/pool-a is incomplete for the scheduler: feature gates hide slices of it"
    )
    assert {p.type: p.allocatable for p in status.partitions or ()} == {"full": 0, "half": 0}


# --- shareable summary --------------------------------------------------------------------------------------------


def shared(name: str, memory: str = "40Gi", **fields: Any) -> Doc:
    return dev(name, allowMultipleAllocations=True, capacity={"memory": {"value": memory}}, **fields)


def share(claim: str, device: str, memory: str) -> Doc:
    return allocated(
        claim,
        device,
        shareID=f"00000000-0000-0000-0000-00000000000{claim[-1]}",
        consumedCapacity={"memory": memory},
    )


def test_shareable_capacity_is_summed_per_name_with_what_shares_consume() -> None:
    docs = [
        slice_("s", devices=[shared("s0"), shared("s1"), shared("s2", "20Gi"), dev("plain")]),
        share("c1", "s0", "10Gi"),
        share("c2", "s2", "20Gi"),  # s2 is fully taken: neither fully nor partially available
    ]
    status = only(docs)
    assert status.shareable is not None
    assert (status.shareable.fully_available, status.shareable.partially_available) == (1, 1)
    (memory,) = status.shareable.capacity
    assert (memory.name, memory.total, memory.consumed, memory.available) == (
        "memory",
        "100Gi",
        "30Gi",
        "70Gi",
    )
    assert (status.allocated, status.available) == (2, 2)


def test_a_pool_without_shareable_devices_has_no_shareable_summary() -> None:
    assert only([slice_("s", devices=[dev("d0")])]).shareable is None


# --- A100 MIG pools as the benchmarks publish them ------------------------------------------------------------------


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return benchmark_module("cluster")


def two_gpu_node(gen: ModuleType) -> list[Doc]:
    """One A100 node cut down to two GPUs, every partition labelled with its profile (the whole GPU as
    "full") and the device slices declaring that attribute."""
    kept = ("gpu-0-counter-set", "gpu-1-counter-set")
    docs = copy.deepcopy(gen.partitionable_gpus("node-1", gen.A100, ["GPU-0", "GPU-1"] + ["GPU-x"] * 6))
    for doc in docs:
        spec = doc["spec"]
        if "sharedCounters" in spec:
            spec["sharedCounters"] = [c for c in spec["sharedCounters"] if c["name"] in kept]
        else:
            spec["partitionTypeAttribute"] = f"{gen.GPU_DRIVER}/profile"
            spec["devices"] = [d for d in spec["devices"] if d["consumesCounters"][0]["counterSet"] in kept]
            for d in spec["devices"]:
                d["attributes"].setdefault("profile", {"string": "full"})
    docs = [d for d in docs if d["spec"].get("devices", True)]
    for d in docs:
        d["spec"]["pool"]["resourceSliceCount"] = len(docs)
    return docs


def test_a100_profiles_match_the_brute_force_on_a_fragmented_node(gen: ModuleType) -> None:
    # gpu-0 has 1g.10gb partitions at memory slices 2 and 5; gpu-1 a 3g.40gb at slice 0.
    running = [("0", 0, "1g.10gb", 2), ("1", 0, "1g.10gb", 5), ("2", 1, "3g.40gb", 0)]
    docs = two_gpu_node(gen) + [
        allocated(f"job-{i}", gen.mig_device_name(g, profile, start), pool="node-1", driver=gen.GPU_DRIVER)
        for i, g, profile, start in running
    ]
    status = only(docs)
    expected = {"1g.10gb": 8, "2g.20gb": 2, "3g.40gb": 1, "4g.40gb": 0, "7g.80gb": 0, "full": 0}
    assert {t: a for _, t, _, a in summary(status)} == expected
    # The same numbers from a brute force over the Problem the pipeline built.
    built = build(load_text(yaml.safe_dump_all(docs)), ALL_ON)
    (facts,) = pools(built, PoolRequest())
    problem = built.problem
    for profile, count in expected.items():
        devices = [d for d in facts.devices if problem.devices[d].attributes["profile"].values == (profile,)]
        assert brute_force(problem, facts.view, devices) == count, profile


# --- the List ------------------------------------------------------------------------------------------------------


def test_the_list_holds_one_resource_pool_status_request_per_pool_in_the_apis_shape() -> None:
    docs = [
        *gpu_pool(*HALVES, TAINTED),
        allocated("c", "half-0"),
        slice_("other", pool="pool-b", devices=[dev("x")]),
    ]
    request = PoolRequest(driver=DRIVER, limit=1, default_attribute=PROFILE)
    doc, text = report(load_text(yaml.safe_dump_all(docs)), ALL_ON, request)
    assert (doc["apiVersion"], doc["kind"], doc["metadata"]) == ("v1", "List", {"remainingItemCount": 1})
    (item,) = doc["items"]
    assert item["spec"] == {"driver": DRIVER, "poolName": "pool-a", "defaultPartitionTypeAttribute": PROFILE}
    assert item["metadata"]["name"] == "pool-a.gpu.example.com"
    assert item["status"]["conditions"] == [
        {
            "type": "Complete",
            "status": "True",
            "reason": "CalculationComplete",
            "message": "Calculated status for 1 pools",
        }
    ]
    assert item["status"]["pools"] == [
        {
            "driver": DRIVER,
            "poolName": "pool-a",
            "nodeName": "node-1",
            "generation": 1,
            "resourceSliceCount": 2,
            "totalDevices": 4,
            "allocatedDevices": 1,
            "availableDevices": 2,
            "unavailableDevices": 1,
            "partitionSummary": [
                {"attribute": PROFILE, "type": "full", "total": 1, "allocatable": 0},
                {"attribute": PROFILE, "type": "half", "total": 2, "allocatable": 1},
            ],
        }
    ]
    annotations = item["metadata"]["annotations"]
    assert json.loads(annotations["kubefit.io/unavailable-devices"]) == {
        "d1": "untolerated taint example.com/broken=true:NoExecute"
    }
    assert json.loads(annotations["kubefit.io/allocatable-devices"]) == {
        f"{PROFILE}=full": [],
        f"{PROFILE}=half": ["half-1"],
    }
    # The API's own types accept it (the condition's time is left out so that output is reproducible).
    typed = copy.deepcopy(item)
    typed["status"]["conditions"][0]["lastTransitionTime"] = datetime(2026, 1, 1, tzinfo=UTC)
    assert (
        V1alpha3ResourcePoolStatusRequest.model_validate(typed)
        .status.pools[0]
        .partition_summary[1]
        .allocatable
        == 1
    )
    assert "1 more pools match (--limit 1)" in text


def test_an_incomplete_pool_counts_as_incomplete_in_the_condition() -> None:
    doc, _ = report(
        load_text(yaml.safe_dump_all([slice_("s", count=2, devices=[dev("d")])])), ALL_ON, PoolRequest()
    )
    (item,) = doc["items"]
    assert item["status"]["conditions"][0]["message"] == "Calculated status for 1 pools (1 incomplete)"
    assert item["status"]["pools"][0].keys() == {
        "driver",
        "poolName",
        "nodeName",
        "generation",
        "validationError",
    }
