"""`kubefit taints`: the DeviceTaintRule status and pod evictions of kube-controller-manager's device taint
eviction controller (pkg/controller/devicetainteviction), condition texts word for word."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubefit.cli import main

DRIVER = "gpu.example.com"
T0 = "2025-06-01T10:00:00Z"
END = (
    "if the effect was NoExecute. This information will not be updated again. "
    "Recreate the DeviceTaintRule to trigger an update."
)


# --- builders -------------------------------------------------------------------------------------------


def slice_(
    pool: str = "node-1",
    names: tuple[str, ...] = ("gpu-0", "gpu-1"),
    *,
    driver: str = DRIVER,
    generation: int = 1,
    name: str = "",
    taints: dict[str, list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name or f"{pool}-{driver}"},
        "spec": {
            "driver": driver,
            "nodeName": pool,
            "pool": {"name": pool, "generation": generation, "resourceSliceCount": 1},
            "devices": [
                {"name": n, **({"taints": (taints or {})[n]} if n in (taints or {}) else {})} for n in names
            ],
        },
    }


def rule(
    name: str,
    effect: str = "None",
    selector: dict[str, str] | None = None,
    *,
    key: str = "example.com/broken",
    time: str | None = T0,
    **meta: Any,
) -> dict[str, Any]:
    taint: dict[str, Any] = {"key": key, "effect": effect}
    if time is not None:
        taint["timeAdded"] = time
    spec: dict[str, Any] = {"taint": taint}
    if selector is not None:
        spec["deviceSelector"] = selector
    return {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "DeviceTaintRule",
        "metadata": {"name": name, **meta},
        "spec": spec,
    }


def toleration(key: str = "example.com/broken", seconds: int | None = None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": "Exists", "effect": "NoExecute", **fields}
    if seconds is not None:
        out["tolerationSeconds"] = seconds
    return out


def claim(
    name: str,
    devices: tuple[str, ...] = ("gpu-0",),
    users: tuple[str, ...] = (),
    *,
    namespace: str = "default",
    pool: str = "node-1",
    tolerations: tuple[dict[str, Any], ...] = (),
    copied: bool = True,
    admin: bool = False,
    allocated: bool = True,
) -> dict[str, Any]:
    """An allocated claim reserved for `users` (pods in its namespace); its request's tolerations are
    copied into the results as the allocator does, unless `copied` is False."""
    exactly: dict[str, Any] = {"deviceClassName": DRIVER}
    if tolerations:
        exactly["tolerations"] = list(tolerations)
    if admin:
        exactly["adminAccess"] = True
    doc: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}},
    }
    if not allocated:
        return doc
    results = []
    for device in devices:
        result: dict[str, Any] = {"request": "gpu", "driver": DRIVER, "pool": pool, "device": device}
        if admin:
            result["adminAccess"] = True
        if tolerations and copied:
            result["tolerations"] = list(tolerations)
        results.append(result)
    doc["status"] = {
        "allocation": {"devices": {"results": results}},
        "reservedFor": [{"resource": "pods", "name": u, "uid": f"uid-{namespace}-{u}"} for u in users],
    }
    return doc


def pod(
    name: str, claim_name: str, *, namespace: str = "default", node: str | None = "node-1", **meta: Any
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "main",
                "image": "registry.example.com/app:1",
                "resources": {"claims": [{"name": "gpu"}]},
            }
        ],
        "resourceClaims": [{"name": "gpu", "resourceClaimName": claim_name}],
    }
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}", **meta},
        "spec": spec,
    }


def used(
    name: str, device: str = "gpu-0", *, namespace: str = "default", **claim_fields: Any
) -> list[dict[str, Any]]:
    """A pod and its allocated claim `<name>-gpu` on `device`."""
    return [
        claim(f"{name}-gpu", (device,), (name,), namespace=namespace, **claim_fields),
        pod(name, f"{name}-gpu", namespace=namespace),
    ]


def taints(tmp_path: Path, docs: list[dict[str, Any]], *args: str) -> tuple[int, dict[str, Any], str]:
    """`kubefit taints -o json` on the documents: exit code, the List, stderr."""
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["taints", "-f", str(path), "-o", "json", *args])
    return code, (json.loads(out.getvalue()) if out.getvalue().strip() else {}), err.getvalue()


def conditions(result: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """Rule name -> (status, reason, message) of its EvictionInProgress condition."""
    out = {}
    for item in result["items"]:
        if item["kind"] != "DeviceTaintRule":
            continue
        (c,) = [c for c in item["status"]["conditions"] if c["type"] == "EvictionInProgress"]
        out[item["metadata"]["name"]] = (c["status"], c["reason"], c["message"])
    return out


def evicted(result: dict[str, Any], dry_run: bool = False) -> dict[str, tuple[str, str]]:
    """namespace/pod -> (eviction time, evicting taints) from the Events (the dry run's, or the real ones)."""
    out = {}
    for item in result["items"]:
        if item["kind"] != "Event":
            continue
        notes = item["metadata"]["annotations"]
        if ("kubefit.io/dry-run" in notes) != dry_run:
            continue
        involved = item["involvedObject"]
        key = f"{involved['namespace']}/{involved['name']}"
        out[key] = (notes["kubefit.io/eviction-time"], notes["kubefit.io/evicted-by"])
    return out


def none_message(published: str, allocated: str, pods: str) -> str:
    return f"{published} selected. {allocated} selected. {pods} {END}"


# --- the effect None dry run: selectors and counts ------------------------------------------------------

TWO_POOLS = [slice_("node-1"), slice_("node-2"), slice_("node-2", ("nic-0",), driver="nic.example.com")]

SELECTORS = {
    "a driver selector selects the devices of every pool of that driver": (
        {"driver": DRIVER},
        none_message("4 published devices", "2 allocated devices", "2 pods would be evicted in 1 namespace"),
    ),
    "a pool selector selects that pool of any driver": (
        {"pool": "node-2"},
        none_message("3 published devices", "1 allocated device", "1 pod would be evicted in 1 namespace"),
    ),
    "driver and pool together select one pool of one driver": (
        {"driver": DRIVER, "pool": "node-2"},
        none_message("2 published devices", "1 allocated device", "1 pod would be evicted in 1 namespace"),
    ),
    "a device selector selects the device of that name in every pool": (
        {"device": "gpu-1"},
        none_message("2 published devices", "1 allocated device", "1 pod would be evicted in 1 namespace"),
    ),
    "driver, pool and device select exactly one device": (
        {"driver": DRIVER, "pool": "node-1", "device": "gpu-1"},
        none_message(
            "1 published device", "0 allocated devices", "0 pods would be evicted in 0 different namespaces"
        ),
    ),
    "an empty deviceSelector selects every device": (
        {},
        none_message("5 published devices", "2 allocated devices", "2 pods would be evicted in 1 namespace"),
    ),
    "a selector matching nothing selects nothing": (
        {"driver": "fpga.example.com"},
        none_message(
            "0 published devices", "0 allocated devices", "0 pods would be evicted in 0 different namespaces"
        ),
    ),
}


@pytest.mark.parametrize(("selector", "message"), SELECTORS.values(), ids=SELECTORS.keys())
def test_the_dry_run_counts_what_the_rule_selects(
    tmp_path: Path, selector: dict[str, str], message: str
) -> None:
    docs = [
        *TWO_POOLS,
        *used("a"),
        claim("b-gpu", ("gpu-1",), ("b",), pool="node-2"),
        pod("b", "b-gpu", node="node-2"),
    ]
    code, result, err = taints(tmp_path, [*docs, rule("check", "None", selector)])
    assert conditions(result) == {"check": ("False", "NoEffect", message)}, err
    assert code == 0  # a dry run evicts nothing


def test_a_rule_without_a_device_selector_selects_no_device(tmp_path: Path) -> None:
    _, result, _ = taints(tmp_path, [*TWO_POOLS, *used("a"), rule("everything?", "None", None)])
    message = none_message(
        "0 published devices", "0 allocated devices", "0 pods would be evicted in 0 different namespaces"
    )
    assert conditions(result) == {"everything?": ("False", "NoEffect", message)}


def test_published_devices_are_counted_in_the_newest_generation_of_a_pool_only(tmp_path: Path) -> None:
    old = slice_("node-1", ("gpu-0", "gpu-1", "gpu-2"), generation=1, name="old")
    new = slice_("node-1", ("gpu-0",), generation=2, name="new")
    _, result, _ = taints(tmp_path, [old, new, rule("check", "None", {"pool": "node-1"})])
    message = none_message(
        "1 published device", "0 allocated devices", "0 pods would be evicted in 0 different namespaces"
    )
    assert conditions(result)["check"][2] == message


def test_allocated_devices_count_every_result_even_of_devices_no_longer_published(tmp_path: Path) -> None:
    # Upstream "none-many-pods-many-namespaces": no slices at all, claims on three devices in two namespaces.
    docs = [
        claim("c", ("instance",), ("my-pod",)),
        pod("my-pod", "c"),
        claim("c", ("instance-no-schedule", "instance-no-execute"), ("my-pod",), namespace="default-other"),
        pod("my-pod", "c", namespace="default-other"),
        rule("evict", "None", {"driver": DRIVER}),
    ]
    _, result, _ = taints(tmp_path, docs)
    message = none_message(
        "0 published devices", "3 allocated devices", "2 pods would be evicted in 2 different namespaces"
    )
    assert conditions(result) == {"evict": ("False", "NoEffect", message)}
    assert set(evicted(result, dry_run=True)) == {"default/my-pod", "default-other/my-pod"}


def test_the_dry_run_of_upstreams_none_pod_rule_case(tmp_path: Path) -> None:
    # Upstream "none-pod-rule": three published devices (one NoSchedule-, one None- and NoExecute-tainted),
    # one claim on the untainted one.
    tainted = {
        "instance-no-schedule": [{"key": "example.com/taint", "effect": "NoSchedule"}],
        "instance-no-execute": [
            {"key": "example.com/taint", "effect": "None", "timeAdded": T0},
            {"key": "example.com/taint", "effect": "NoExecute", "timeAdded": T0},
        ],
    }
    published = slice_("worker", ("instance", "instance-no-schedule", "instance-no-execute"), taints=tainted)
    docs = [
        published,
        claim("c", ("instance",), ("my-pod",), pool="worker"),
        pod("my-pod", "c", node="worker"),
    ]
    _, result, _ = taints(tmp_path, [*docs, rule("evict", "None", {"driver": DRIVER})])
    message = none_message(
        "3 published devices", "1 allocated device", "1 pod would be evicted in 1 namespace"
    )
    assert conditions(result) == {"evict": ("False", "NoEffect", message)}


# --- which pods: tolerations, sharing, namespaces, admin access -------------------------------------------

BROKEN = rule("gpu-0-broken", "NoExecute", {"driver": DRIVER, "pool": "node-1", "device": "gpu-0"})
LATER = "2025-06-01T10:05:00Z"

PODS = {
    "a pod whose claim does not tolerate the taint is evicted when the taint was added": (
        used("a"),
        "1 pod needs to be evicted in 1 namespace.",
        {"default/a": (T0, "DeviceTaintRule gpu-0-broken")},
    ),
    "a result that tolerates the taint forever keeps its pod": (
        used("a", tolerations=(toleration(),)),
        "",
        {},
    ),
    "tolerationSeconds delays the eviction, counted from the taint's timeAdded": (
        used("a", tolerations=(toleration(seconds=300),)),
        "1 pod needs to be evicted in 1 namespace.",
        {"default/a": (LATER, "DeviceTaintRule gpu-0-broken")},
    ),
    "of several matching tolerations the shortest tolerationSeconds counts": (
        used("a", tolerations=(toleration(seconds=900), toleration(seconds=300))),
        "1 pod needs to be evicted in 1 namespace.",
        {"default/a": (LATER, "DeviceTaintRule gpu-0-broken")},
    ),
    "a negative tolerationSeconds counts as zero": (
        used("a", tolerations=(toleration(seconds=-60),)),
        "1 pod needs to be evicted in 1 namespace.",
        {"default/a": (T0, "DeviceTaintRule gpu-0-broken")},
    ),
    "a toleration of another key does not help": (
        used("a", tolerations=(toleration("example.com/other"),)),
        "1 pod needs to be evicted in 1 namespace.",
        {"default/a": (T0, "DeviceTaintRule gpu-0-broken")},
    ),
    "a toleration without effect NoExecute is not considered, as upstream compares the effect": (
        used("a", tolerations=({"operator": "Exists"},)),
        "1 pod needs to be evicted in 1 namespace.",
        {"default/a": (T0, "DeviceTaintRule gpu-0-broken")},
    ),
    "a toleration on the request that the allocation result lacks does not protect the pod": (
        used("a", tolerations=(toleration(),), copied=False),
        "1 pod needs to be evicted in 1 namespace.",
        {"default/a": (T0, "DeviceTaintRule gpu-0-broken")},
    ),
    "a claim shared by two pods of one namespace evicts both": (
        [claim("shared", ("gpu-0",), ("a", "b")), pod("a", "shared"), pod("b", "shared")],
        "2 pods need to be evicted in 1 namespace.",
        {
            "default/a": (T0, "DeviceTaintRule gpu-0-broken"),
            "default/b": (T0, "DeviceTaintRule gpu-0-broken"),
        },
    ),
    "pods of several namespaces are counted per namespace": (
        [
            *used("a", namespace="team-a"),
            *used("b", namespace="team-b"),
            *used("c", "gpu-1", namespace="team-c"),
        ],
        "2 pods need to be evicted in 2 different namespaces.",
        {"team-a/a": (T0, "DeviceTaintRule gpu-0-broken"), "team-b/b": (T0, "DeviceTaintRule gpu-0-broken")},
    ),
    "an admin-access claim on the device is evicted like any other": (
        [*used("job"), *used("monitor", namespace="monitoring", admin=True)],
        "2 pods need to be evicted in 2 different namespaces.",
        {
            "default/job": (T0, "DeviceTaintRule gpu-0-broken"),
            "monitoring/monitor": (T0, "DeviceTaintRule gpu-0-broken"),
        },
    ),
    "a pod not scheduled yet, a pod being deleted, and a pod the claim is not reserved for stay": (
        [
            claim("pending-gpu", ("gpu-0",), ("pending",)),
            pod("pending", "pending-gpu", node=None),
            claim("going-gpu", ("gpu-0",), ("going",)),
            pod("going", "going-gpu", deletionTimestamp=T0, finalizers=["example.com/keep"]),
            claim("other-gpu", ("gpu-0",), ("someone-else",)),
            pod("stranger", "other-gpu"),
            claim("unallocated-gpu", allocated=False),
            pod("waiting", "unallocated-gpu"),
        ],
        "",
        {},
    ),
    "a pod with a reservation of the same name but another uid is not the one the claim is for": (
        [
            claim("a-gpu", ("gpu-0",), ("a",)),
            {**pod("a", "a-gpu"), "metadata": {"name": "a", "namespace": "default", "uid": "new"}},
        ],
        "",
        {},
    ),
}


@pytest.mark.parametrize(("docs", "message", "pods"), PODS.values(), ids=PODS.keys())
def test_a_noexecute_rule_evicts_the_pods_of_untolerating_claims(
    tmp_path: Path, docs: list[dict[str, Any]], message: str, pods: dict[str, tuple[str, str]]
) -> None:
    code, result, err = taints(tmp_path, [slice_(), *docs, BROKEN])
    expected = ("True", "PodsPendingEviction", message) if pods else ("False", "NotStarted", "")
    assert conditions(result) == {"gpu-0-broken": expected}, err
    assert evicted(result) == pods
    assert code == (1 if pods else 0)


@pytest.mark.parametrize(
    ("effect", "expected"),
    [
        ("NoExecute", ("True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace.")),
        ("NoSchedule", ("False", "OtherEffect", "Eviction only happens for the NoExecute effect.")),
        (
            "None",
            (
                "False",
                "NoEffect",
                none_message(
                    "1 published device", "1 allocated device", "1 pod would be evicted in 1 namespace"
                ),
            ),
        ),
    ],
    ids=["NoExecute evicts", "NoSchedule evicts nobody", "None only says what NoExecute would do"],
)
def test_the_effect_decides_the_condition(
    tmp_path: Path, effect: str, expected: tuple[str, str, str]
) -> None:
    code, result, _ = taints(tmp_path, [slice_(), *used("a"), rule("r", effect, {"device": "gpu-0"})])
    assert conditions(result) == {"r": expected}
    assert set(evicted(result)) == ({"default/a"} if effect == "NoExecute" else set())
    assert set(evicted(result, dry_run=True)) == ({"default/a"} if effect == "None" else set())
    assert code == (1 if effect == "NoExecute" else 0)


def test_the_dry_run_ignores_other_rules_and_counts_pods_its_taint_would_evict(tmp_path: Path) -> None:
    # The pod tolerates the checked taint forever: another rule evicting it does not make the dry run count it.
    docs = [
        slice_(),
        *used("a", tolerations=(toleration("example.com/check"),)),
        rule("check", "None", {"device": "gpu-0"}, key="example.com/check"),
        rule("evict", "NoExecute", {"device": "gpu-0"}),
    ]
    _, result, _ = taints(tmp_path, docs)
    assert conditions(result)["check"] == (
        "False",
        "NoEffect",
        none_message(
            "1 published device", "1 allocated device", "0 pods would be evicted in 0 different namespaces"
        ),
    )
    assert evicted(result) == {"default/a": (T0, "DeviceTaintRule evict")}


def test_a_pod_evicted_by_several_taints_goes_at_the_earliest_and_lists_them_all(tmp_path: Path) -> None:
    tainted = {
        "gpu-1": [{"key": "example.com/xid", "effect": "NoExecute", "timeAdded": "2025-06-01T09:00:00Z"}]
    }
    docs = [
        slice_(taints=tainted),
        claim("both", ("gpu-0", "gpu-1"), ("a",)),
        pod("a", "both"),
        rule("b-rule", "NoExecute", {"device": "gpu-0"}),
        rule("a-rule", "NoExecute", {"device": "gpu-0"}, time="2025-06-01T11:00:00Z"),
    ]
    _, result, _ = taints(tmp_path, docs)
    sources = "DeviceTaintRule a-rule, DeviceTaintRule b-rule, ResourceSlice node-1-gpu.example.com gpu.example.com/node-1/gpu-1 taint #0"
    assert evicted(result) == {"default/a": ("2025-06-01T09:00:00Z", sources)}
    assert conditions(result)["a-rule"][1:] == (
        "PodsPendingEviction",
        "1 pod needs to be evicted in 1 namespace.",
    )


# --- taints published in ResourceSlices -----------------------------------------------------------------

SLICE_TAINTS = {
    "a NoExecute taint on the device evicts, listed with the slice and the taint's index": (
        [
            {"key": "example.com/ok", "effect": "NoSchedule"},
            {"key": "example.com/xid", "effect": "NoExecute", "timeAdded": T0},
        ],
        (),
        {"default/a": (T0, "ResourceSlice node-1-gpu.example.com gpu.example.com/node-1/gpu-0 taint #1")},
    ),
    "a NoSchedule or None taint on the device evicts nobody": (
        [{"key": "example.com/hot", "effect": "NoSchedule"}, {"key": "example.com/check", "effect": "None"}],
        (),
        {},
    ),
    "tolerationSeconds count from the slice taint's timeAdded": (
        [{"key": "example.com/xid", "effect": "NoExecute", "timeAdded": T0}],
        (toleration("example.com/xid", 300),),
        {"default/a": (LATER, "ResourceSlice node-1-gpu.example.com gpu.example.com/node-1/gpu-0 taint #0")},
    ),
}


@pytest.mark.parametrize(
    ("device_taints", "tolerations", "pods"), SLICE_TAINTS.values(), ids=SLICE_TAINTS.keys()
)
def test_device_taints_published_in_resource_slices_evict_the_same_way(
    tmp_path: Path,
    device_taints: list[dict[str, Any]],
    tolerations: tuple[dict[str, Any], ...],
    pods: dict[str, Any],
) -> None:
    code, result, _ = taints(
        tmp_path, [slice_(taints={"gpu-0": device_taints}), *used("a", tolerations=tolerations)]
    )
    assert evicted(result) == pods
    assert [i["kind"] for i in result["items"]] == ["Event"] * len(pods)
    assert code == (1 if pods else 0)


def test_taints_of_an_outdated_generation_of_the_pool_do_not_evict(tmp_path: Path) -> None:
    old = slice_(
        generation=1,
        name="old",
        taints={"gpu-0": [{"key": "example.com/xid", "effect": "NoExecute", "timeAdded": T0}]},
    )
    new = slice_(generation=2, name="new")
    code, result, _ = taints(tmp_path, [old, new, *used("a")])
    assert evicted(result) == {} and code == 0


# --- what the output says ---------------------------------------------------------------------------------


def test_the_condition_carries_the_generation_and_the_time_the_rule_was_added(tmp_path: Path) -> None:
    docs = [
        slice_(),
        *used("a"),
        rule("r", "NoExecute", {"device": "gpu-0"}, time=None, generation=3, creationTimestamp=T0),
    ]
    _, result, _ = taints(tmp_path, docs)
    (item,) = [i for i in result["items"] if i["kind"] == "DeviceTaintRule"]
    assert item["apiVersion"] == "resource.k8s.io/v1alpha3"
    assert item["status"]["conditions"] == [
        {
            "type": "EvictionInProgress",
            "status": "True",
            "observedGeneration": 3,
            "lastTransitionTime": T0,  # no timeAdded: the API server set it at creation
            "reason": "PodsPendingEviction",
            "message": "1 pod needs to be evicted in 1 namespace.",
        }
    ]
    assert evicted(result) == {"default/a": (T0, "DeviceTaintRule r")}


def test_without_timeadded_or_creation_time_the_eviction_is_relative_to_the_taint(tmp_path: Path) -> None:
    docs = [
        slice_(),
        *used("a"),
        *used("b", "gpu-1", tolerations=(toleration(seconds=300),)),
        rule("r", "NoExecute", {}, time=None),
    ]
    _, result, _ = taints(tmp_path, docs)
    assert evicted(result) == {
        "default/a": ("when the taint is added", "DeviceTaintRule r"),
        "default/b": ("300s after the taint is added", "DeviceTaintRule r"),
    }
    assert not [i for i in result["items"] if "firstTimestamp" in i]
    (item,) = [i for i in result["items"] if i["kind"] == "DeviceTaintRule"]
    assert "lastTransitionTime" not in item["status"]["conditions"][0]


def test_each_evicted_pod_gets_the_controllers_event(tmp_path: Path) -> None:
    _, result, _ = taints(tmp_path, [slice_(), *used("a", tolerations=(toleration(seconds=300),)), BROKEN])
    (event,) = [i for i in result["items"] if i["kind"] == "Event"]
    assert event["involvedObject"] == {
        "apiVersion": "v1",
        "kind": "Pod",
        "namespace": "default",
        "name": "a",
        "uid": "uid-default-a",
    }
    assert (event["reason"], event["message"], event["type"]) == (
        "DeviceTaintManagerEviction",
        "Marking for deletion",
        "Normal",
    )
    assert event["source"] == {"component": "device-taint-eviction-controller"}
    assert event["firstTimestamp"] == event["lastTimestamp"] == LATER


def test_other_conditions_are_kept_and_a_stale_eviction_condition_replaced(tmp_path: Path) -> None:
    stale = {
        "type": "EvictionInProgress",
        "status": "True",
        "reason": "PodsPendingEviction",
        "message": "old",
        "lastTransitionTime": T0,
    }
    other = {
        "type": "example.com/Reviewed",
        "status": "True",
        "reason": "Done",
        "message": "",
        "lastTransitionTime": T0,
    }
    docs = [
        slice_(),
        {**rule("r", "NoSchedule", {"device": "gpu-0"}), "status": {"conditions": [stale, other]}},
    ]
    _, result, _ = taints(tmp_path, docs)
    (item,) = result["items"]
    assert [c["type"] for c in item["status"]["conditions"]] == ["example.com/Reviewed", "EvictionInProgress"]
    assert conditions(result) == {
        "r": ("False", "OtherEffect", "Eviction only happens for the NoExecute effect.")
    }


def test_claims_generated_from_templates_are_found_through_the_pods_status(tmp_path: Path) -> None:
    generated = claim("a-gpu-x7k2q", ("gpu-0",), ("a",))
    running = pod("a", "unused")
    running["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    running["status"] = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "a-gpu-x7k2q"}]}
    _, result, _ = taints(tmp_path, [slice_(), generated, running, BROKEN])
    assert evicted(result) == {"default/a": (T0, "DeviceTaintRule gpu-0-broken")}


def test_the_request_toleration_kubefit_allocate_copies_into_the_result_protects_the_pod(
    tmp_path: Path,
) -> None:
    from cluster_manifests import allocate, device_class, node

    waiting = claim("a-gpu", tolerations=(toleration(),), allocated=False)
    code, placed, _ = allocate(
        tmp_path, [node(), device_class(), slice_(), waiting, pod("a", "a-gpu", node=None)]
    )
    assert code == 0
    allocated = [i for i in placed["items"] if i["kind"] in ("ResourceClaim", "Pod")]
    (result,) = allocated[0]["status"]["allocation"]["devices"]["results"]
    assert result["tolerations"] == [toleration()]
    _, answer, _ = taints(tmp_path, [slice_(), *allocated, BROKEN])
    assert evicted(answer) == {} and conditions(answer)["gpu-0-broken"][1] == "NotStarted"


# --- options, gates and bad input -------------------------------------------------------------------------


def test_rule_shows_one_rule_and_the_pods_it_evicts(tmp_path: Path) -> None:
    tainted = {"gpu-1": [{"key": "example.com/xid", "effect": "NoExecute", "timeAdded": T0}]}
    docs = [slice_(taints=tainted), *used("a"), *used("b", "gpu-1"), BROKEN, rule("check", "None", {})]
    code, result, _ = taints(tmp_path, docs, "--rule", "gpu-0-broken")
    assert list(conditions(result)) == ["gpu-0-broken"]
    assert set(evicted(result)) == {"default/a"} and evicted(result, dry_run=True) == {}
    assert code == 1


def test_an_unknown_rule_is_bad_input(tmp_path: Path) -> None:
    code, result, err = taints(tmp_path, [slice_(), BROKEN], "--rule", "nope")
    assert (code, result) == (2, {})
    assert err == '--rule nope: devicetaintrules.resource.k8s.io "nope" not found; known: gpu-0-broken\n'
    _, _, err = taints(tmp_path, [slice_(), BROKEN], "--rule", "gpu-0-brokn")
    assert err.endswith("; did you mean gpu-0-broken?\n")


def test_without_device_taint_rules_the_controller_ignores_rules_but_not_slice_taints(tmp_path: Path) -> None:
    tainted = {"gpu-1": [{"key": "example.com/xid", "effect": "NoExecute", "timeAdded": T0}]}
    docs = [slice_(taints=tainted), *used("a"), *used("b", "gpu-1"), BROKEN]
    code, result, _ = taints(tmp_path, docs, "--feature-gates", "DRADeviceTaintRules=false")
    (item,) = [i for i in result["items"] if i["kind"] == "DeviceTaintRule"]
    assert "status" not in item
    assert set(evicted(result)) == {"default/b"} and code == 1


def test_without_device_taints_the_controller_does_not_run(tmp_path: Path) -> None:
    tainted = {"gpu-0": [{"key": "example.com/xid", "effect": "NoExecute", "timeAdded": T0}]}
    code, result, _ = taints(
        tmp_path,
        [slice_(taints=tainted), *used("a"), BROKEN],
        "--feature-gates",
        "DRADeviceTaints=false,DRADeviceTaintRules=false",  # rules depend on taints
    )
    assert [i["kind"] for i in result["items"]] == ["DeviceTaintRule"] and "status" not in result["items"][0]
    assert code == 0


def test_an_unknown_effect_is_the_api_servers_error_and_otherwise_answered_as_the_controller_does(
    tmp_path: Path,
) -> None:
    docs = [slice_(), *used("a"), rule("r", "Evict", {"device": "gpu-0"})]
    code, result, err = taints(tmp_path, docs)
    assert 'DeviceTaintRule/r: spec.taint.effect: warning: Unsupported value: "Evict"' in err
    assert conditions(result) == {
        "r": ("False", "OtherEffect", "Eviction only happens for the NoExecute effect.")
    }
    assert code == 0
    code, result, err = taints(tmp_path, docs, "--strict")
    assert code == 2 and result == {} and "Traceback" not in err
