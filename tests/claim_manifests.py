"""ResourceClaim manifests for the validation tests, and the paths their errors are reported at."""

from __future__ import annotations

from typing import Any

from kubernetes.client.models import ResourceV1ResourceClaim
from validation_helpers import Ctx, Found, pairs, with_

from kubefit.translate.validation.resource_claim import validate_resource_claim

REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
UID = "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"


def request(name: str = "req-0", **exactly: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": "class", **exactly}}


def claim(*requests: dict[str, Any], **devices: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "claim", "namespace": "default"},
        "spec": {"devices": {"requests": list(requests) or [request()], **devices}},
    }


def result(i: int = 0, **fields: Any) -> dict[str, Any]:
    return {
        "request": "req-0",
        "driver": "dra.example.com",
        "pool": "pool",
        "device": f"device-{i}",
        **fields,
    }


def allocated(*results: dict[str, Any], **status: Any) -> dict[str, Any]:
    return with_(
        claim(), lambda m: m.update(status={"allocation": {"devices": {"results": list(results)}}, **status})
    )


def errors(manifest: dict[str, Any], ctx: Ctx | None = None) -> Found:
    return pairs(validate_resource_claim(ResourceV1ResourceClaim.model_validate(manifest), ctx or Ctx()))


def req_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return ("spec", "devices", "requests", i, *rest)


def ex_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return req_path(i, "exactly", *rest)


def res_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return ("status", "allocation", "devices", "results", i, *rest)


def subs(*names: str, **fields: Any) -> list[dict[str, Any]]:
    return [{"name": n, "deviceClassName": "class", **fields} for n in names]


def derived(name: str, expression: str = "device.attributes['dra.example.com'].numa") -> dict[str, Any]:
    return {"name": name, "expression": expression}
