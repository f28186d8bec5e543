"""ResourceSlice manifests for the validation tests, and the changes the cases make to them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubernetes.client.models import V1ResourceSlice
from validation_helpers import Ctx, Found, pairs, with_

from kubefit.translate.validation.resource_slice import validate_resource_slice


def device(i: int = 0, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": f"device-{i}",
        "attributes": {
            "int": {"int": 42},
            "string": {"string": "hello world"},
            "version": {"version": "1.2.3"},
            "bool": {"bool": True},
        },
        "capacity": {"memory": {"value": "1Gi"}},
    }
    base.update(fields)
    return base


def slice_(n: int = 1, *, driver: str = "test.example.com", node: str = "foo") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "foo"},
        "spec": {
            "driver": driver,
            "pool": {"name": node, "generation": 0, "resourceSliceCount": 1},
            "nodeName": node,
            "devices": [device(i) for i in range(n)],
        },
    }


def errors(manifest: dict[str, Any], ctx: Ctx | None = None) -> Found:
    return pairs(validate_resource_slice(V1ResourceSlice.model_validate(manifest), ctx or Ctx()))


def dev_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return ("spec", "devices", i, *rest)


def set_spec(**fields: Any) -> Callable[[dict[str, Any]], None]:
    def change(m: dict[str, Any]) -> None:
        for k, v in fields.items():
            if v is None:
                m["spec"].pop(k, None)
            else:
                m["spec"][k] = v

    return change


def set_dev(i: int, **fields: Any) -> Callable[[dict[str, Any]], None]:
    def change(m: dict[str, Any]) -> None:
        for k, v in fields.items():
            if v is None:
                m["spec"]["devices"][i].pop(k, None)
            else:
                m["spec"]["devices"][i][k] = v

    return change


def taints(n: int) -> Callable[[dict[str, Any]], None]:
    def change(m: dict[str, Any]) -> None:
        for d in m["spec"]["devices"]:
            d["taints"] = [{"key": "example.com/taint", "effect": "NoExecute"}] * n

    return change


def consumes(n: int, counters: int = 1) -> list[dict[str, Any]]:
    return [
        {
            "counterSet": f"counterset-{i}",
            "counters": {f"memory-{j}": {"value": "1Gi"} for j in range(counters)},
        }
        for i in range(n)
    ]


def counter_sets(n: int, counters: int = 1) -> list[dict[str, Any]]:
    return [
        {"name": f"counterset-{i}", "counters": {f"memory-{j}": {"value": "1Gi"} for j in range(counters)}}
        for i in range(n)
    ]


def shared_counter_slice(sets: list[dict[str, Any]]) -> dict[str, Any]:
    return with_(slice_(), set_spec(devices=None, sharedCounters=sets))


def attrs(i: int, attributes: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    return set_dev(i, attributes=attributes)


def cap_policy(
    i: int, policy: dict[str, Any] | None, value: str = "100", multi: bool = True
) -> Callable[[dict[str, Any]], None]:
    capacity: dict[str, Any] = {"value": value}
    if policy is not None:
        capacity["requestPolicy"] = policy
    fields: dict[str, Any] = {"capacity": {"a": capacity}, "attributes": None}
    if multi:
        fields["allowMultipleAllocations"] = True
    return set_dev(i, **fields)


def policy_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return dev_path(i, "capacity", "a", "requestPolicy", *rest)


def nar(resources: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """A device publishing cpu/memory capacities and the given nodeAllocatableResources."""
    return set_dev(
        0,
        capacity={"dra.example.com/cpu": {"value": "100"}, "dra.example.com/memory": {"value": "100Gi"}},
        nodeAllocatableResources=resources,
    )


def nar_path(*rest: str | int) -> tuple[str | int, ...]:
    return dev_path(0, "nodeAllocatableResources", *rest)


def partition(name: str, *changes: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    def change(m: dict[str, Any]) -> None:
        m["spec"]["partitionTypeAttribute"] = name
        for c in changes:
            c(m)

    return with_(slice_(), change)
