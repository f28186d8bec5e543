"""What `kubefit pools` is asked: a ResourcePoolStatusRequest's spec, checked as the API server checks it.

Upstream: `validateResourcePoolStatusRequestSpec` (kubernetes/kubernetes
`pkg/apis/resource/validation`) and the declarative rules of
`k8s.io/api/resource/v1alpha3` (the default partition-type attribute is a fully
qualified attribute name). Unlike the API, the driver may be left out: then every
driver's pools are reported.
"""

from __future__ import annotations

from ...model.errors import InputError, Problem
from ...model.pools import LIMIT_MAX, PoolRequest
from . import FieldError
from .field_errors import invalid
from .names import validate_driver_name, validate_fully_qualified_name, validate_pool_name


def pool_request(
    driver: str | None, pool: str | None, limit: int | None, default_attribute: str | None
) -> PoolRequest:
    """The request the command-line flags make; InputError with the API's messages when it is invalid."""
    request = PoolRequest(driver, pool, limit, default_attribute)
    problems = [
        Problem(e.message, obj=flag, path=e.path) for flag, errors in request_errors(request) for e in errors
    ]
    if problems:
        raise InputError(problems)
    return request


def request_errors(request: PoolRequest) -> list[tuple[str, list[FieldError]]]:
    out: list[tuple[str, list[FieldError]]] = []
    if request.driver is not None:
        out.append(("--driver", validate_driver_name(request.driver, ("spec", "driver"))))
    if request.pool is not None:
        out.append(("--pool", validate_pool_name(request.pool, ("spec", "poolName"))))
    if request.limit is not None:
        path = ("spec", "limit")
        if request.limit < 1:
            out.append(("--limit", [invalid(path, request.limit, "must be at least 1")]))
        elif request.limit > LIMIT_MAX:
            out.append(("--limit", [invalid(path, request.limit, f"must not exceed {LIMIT_MAX}")]))
    if request.default_attribute is not None:
        path = ("spec", "defaultPartitionTypeAttribute")
        out.append(
            (
                "--default-partition-type-attribute",
                validate_fully_qualified_name(request.default_attribute, path),
            )
        )
    return out
