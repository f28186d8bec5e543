"""What `kubefit pools` is asked: a ResourcePoolStatusRequest's spec, checked as the API server checks it.

Upstream: `validateResourcePoolStatusRequestSpec` (kubernetes/kubernetes
`pkg/apis/resource/validation`) and the declarative rules of
`k8s.io/api/resource/v1alpha3` (the default partition-type attribute is a fully
qualified attribute name). Unlike the API, the driver may be left out: then every
driver's pools are reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model.errors import InputError, Problem
from ...translate.validation import FieldError
from ...translate.validation.field_errors import invalid
from ...translate.validation.names import (
    validate_driver_name,
    validate_fully_qualified_name,
    validate_pool_name,
)

LIMIT_DEFAULT = 100  # resourcev1alpha3.ResourcePoolStatusRequestLimitDefault
LIMIT_MAX = 1000


@dataclass(frozen=True)
class PoolRequest:
    driver: str | None = None
    pool: str | None = None
    limit: int | None = None
    default_attribute: str | None = None

    @classmethod
    def of(
        cls, driver: str | None, pool: str | None, limit: int | None, default_attribute: str | None
    ) -> PoolRequest:
        """The request the command-line flags make; InputError with the API's messages when it is invalid."""
        request = cls(driver, pool, limit, default_attribute)
        problems = [
            Problem(e.message, obj=flag, path=e.path) for flag, errors in request.errors() for e in errors
        ]
        if problems:
            raise InputError(problems)
        return request

    @property
    def effective_limit(self) -> int:
        return self.limit if self.limit is not None else LIMIT_DEFAULT

    def errors(self) -> list[tuple[str, list[FieldError]]]:
        out: list[tuple[str, list[FieldError]]] = []
        if self.driver is not None:
            out.append(("--driver", validate_driver_name(self.driver, ("spec", "driver"))))
        if self.pool is not None:
            out.append(("--pool", validate_pool_name(self.pool, ("spec", "poolName"))))
        if self.limit is not None:
            path = ("spec", "limit")
            if self.limit < 1:
                out.append(("--limit", [invalid(path, self.limit, "must be at least 1")]))
            elif self.limit > LIMIT_MAX:
                out.append(("--limit", [invalid(path, self.limit, f"must not exceed {LIMIT_MAX}")]))
        if self.default_attribute is not None:
            path = ("spec", "defaultPartitionTypeAttribute")
            out.append(
                (
                    "--default-partition-type-attribute",
                    validate_fully_qualified_name(self.default_attribute, path),
                )
            )
        return out

    def matches(self, driver: str, pool: str) -> bool:
        return (self.driver is None or driver == self.driver) and (self.pool is None or pool == self.pool)
