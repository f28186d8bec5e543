"""What a Pod asks of a node, as the API server checks it: each container's requests and limits (names,
amounts, a request against its limit, huge pages), the claims containers name, the pod's own
resourceClaims, pod-level resources and the overhead. The scheduler and the kubelet compute their
answer from these amounts: a negative or fractional amount of what is counted in units, a request above
its limit and a claim that names nothing are `unstorable` (refused by every verb); a request that must
equal its limit, an odd huge page size or a resource name the API server does not know are not (the
scheduler counts such a request as written, as it does for the upstream tests kubefit transcribes).

Upstream: `validateResourceRequirements`, `ValidateResourceQuantityValue`, `validateResourceClaimNames`,
`validatePodResourceClaims`, `validatePodResources` and `validateOverhead` of kubernetes/kubernetes
`pkg/apis/core/validation/validation.go`, with the resource-name helpers of `pkg/apis/core/helper`.
Go walks requests and limits in map order; kubefit reports in the order they are written. Where
upstream's path is a quirk (the overhead as `spec.overhead.limits[cpu]`, a container above a pod
limit as `spec.resources.containers[0][cpu].limits`), kubefit names the field as written.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ...model.errors import FieldPath
from ...model.quantity import Quantity
from . import FieldError, ValidationContext, unstorable
from .field_errors import (
    Raw,
    duplicate,
    forbidden,
    invalid,
    messages_as_invalid,
    not_found,
    not_supported,
    required,
)
from .names import (
    is_extended_resource_name,
    is_native_resource_name,
    is_qualified_name,
    validate_dns1123_label,
    validate_dns1123_subdomain,
)
from .quantities import parse_quantity

HUGEPAGES = "hugepages-"
_STANDARD_CONTAINER = frozenset({"cpu", "memory", "ephemeral-storage"})
# Counted in whole units (helper.IsIntegerResourceName, with every extended resource): object counts.
_INTEGER = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
# helper.IsStandardResourceName (huge pages aside).
_STANDARD = frozenset(
    {
        *_STANDARD_CONTAINER,
        *(f"{kind}.{name}" for kind in ("requests", "limits") for name in _STANDARD_CONTAINER),
        *_INTEGER,
        "storage",
        "requests.storage",
    }
)
POD_LEVEL_RESOURCES = ("cpu", "memory")
NEGATIVE = "must be greater than or equal to 0"


def is_integer_resource(name: str) -> bool:
    return name in _INTEGER or is_extended_resource_name(name)


def _overcommit_allowed(name: str) -> bool:
    return is_native_resource_name(name) and not name.startswith(HUGEPAGES)


def quantity_value_errors(name: str, q: Quantity, path: FieldPath) -> list[FieldError]:
    """ValidateResourceQuantityValue: not negative, and whole for a resource counted in units (both
    amounts the answer adds up: unstorable)."""
    errs: list[FieldError] = []
    if q.sign() < 0:
        errs.append(invalid(path, str(q), NEGATIVE))
    # Go tests MilliValue() % 1000: thousandths rounded up, so 1.9999 passes as 2, as upstream.
    if is_integer_resource(name) and q.milli_value() % 1000 != 0:
        errs.append(invalid(path, Raw(str(q)), "must be an integer"))
    return unstorable(errs)


@functools.cache
def _resource_name(name: str) -> tuple[str, ...]:
    """validateResourceName's details: a qualified name, and a standard one when it has no domain."""
    problems = is_qualified_name(name)
    if problems:
        return tuple(problems)
    if "/" not in name and name not in _STANDARD and not name.startswith((HUGEPAGES, "requests.hugepages-")):
        return ("must be a standard resource type or fully qualified",)
    return ()


# Pods repeat a handful of resource names: each is judged once.
@functools.cache
def _container_resource_name(name: str) -> tuple[str, ...]:
    problems = _resource_name(name)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER and not name.startswith(HUGEPAGES):
            return (*problems, "must be a standard resource for containers")
    elif not is_native_resource_name(name) and not is_extended_resource_name(name):
        return (*problems, "doesn't follow extended resource name standard")
    return problems


def _container_name_errors(name: str, path: FieldPath) -> list[FieldError]:
    return messages_as_invalid(path, name, _container_resource_name(name))


def _pod_name_errors(name: str, path: FieldPath) -> list[FieldError]:
    problems = _resource_name(name)
    if problems:
        return messages_as_invalid(path, name, problems)
    if name not in POD_LEVEL_RESOURCES and not name.startswith(HUGEPAGES):
        return [not_supported(path, name, POD_LEVEL_RESOURCES)]
    return []


def _hugepage_errors(name: str, q: Quantity, path: FieldPath) -> list[FieldError]:
    if not name.startswith(HUGEPAGES):
        return []
    page = parse_quantity(name[len(HUGEPAGES) :])
    divisible = (
        isinstance(page, Quantity)
        and page.sign() > 0
        and page.milli_value() % 1000 == 0
        and q.value() % page.value() == 0
    )
    return [] if divisible else [invalid(path, str(q), f"{q} is not positive integer multiple of {name}")]


def _parsed(values: Mapping[str, Any] | None) -> dict[str, Quantity]:
    """The quantities that parse (one that does not is the quantity check's problem)."""
    out: dict[str, Quantity] = {}
    for name, text in (values or {}).items():
        q = parse_quantity(str(text))
        if isinstance(q, Quantity):
            out[name] = q
    return out


def requirements_errors(
    requirements: Any, claim_names: frozenset[str], path: FieldPath, pod_level: bool = False
) -> list[FieldError]:
    """validateResourceRequirements: a container's resources, or the pod's (`pod_level`)."""
    if requirements is None:
        return []
    limits = tuple((requirements.limits or {}).items())
    requests = tuple((requirements.requests or {}).items())
    errs = [
        FieldError((*path, *e.path), e.message, e.unstorable) for e in _amounts(limits, requests, pod_level)
    ]
    claims = claim_reference_errors(getattr(requirements, "claims", None), claim_names, (*path, "claims"))
    return errs + unstorable(claims)


# The pods of a cluster repeat a few resource specs thousands of times: each is judged once (with paths
# relative to the resources).
@functools.lru_cache(maxsize=4096)
def _amounts(
    written_limits: tuple[tuple[str, Any], ...],
    written_requests: tuple[tuple[str, Any], ...],
    pod_level: bool,
) -> tuple[FieldError, ...]:
    name_errors = _pod_name_errors if pod_level else _container_name_errors
    limits = _parsed(dict(written_limits))
    requests = _parsed(dict(written_requests))
    limit_names = {name for name, _ in written_limits}
    errs: list[FieldError] = []
    for name, _ in written_limits:
        at: FieldPath = ("limits", name)
        errs += name_errors(name, at)
        if name in limits:
            errs += quantity_value_errors(name, limits[name], at)
            errs += _hugepage_errors(name, limits[name], at)
    for name, _ in written_requests:
        at = ("requests", name)
        errs += name_errors(name, at)
        q = requests.get(name)
        if q is None:
            continue
        errs += quantity_value_errors(name, q, at)
        limit = limits.get(name)
        if limit is not None:
            # A request above its limit is unstorable; one below a limit it must equal (an extended
            # resource, huge pages) is only refused: the scheduler counts the request either way.
            above = q.cmp(limit) > 0
            if q.cmp(limit) != 0 and not _overcommit_allowed(name):
                wrong = invalid(("requests",), str(q), f"must be equal to {name} limit of {limit}")
                errs.append(FieldError(wrong.path, wrong.message, above))
            elif above:
                detail = f"must be less than or equal to {name} limit of {limit}"
                errs.append(FieldError(("requests",), invalid((), str(q), detail).message, True))
        elif name not in limit_names and not _overcommit_allowed(name):
            errs.append(required(("limits",), "Limit must be set for non overcommitable resources"))
        errs += _hugepage_errors(name, q, at)
    written = [name for name, _ in (*written_limits, *written_requests)]
    if any(n.startswith(HUGEPAGES) for n in written) and not any(n in ("cpu", "memory") for n in written):
        errs.append(forbidden((), "HugePages require cpu or memory"))
    return tuple(errs)


def claim_reference_errors(claims: Any, claim_names: frozenset[str], path: FieldPath) -> list[FieldError]:
    """validateResourceClaimNames: each claim a container names is one of the pod's, named once."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, claim in enumerate(claims or ()):
        at: FieldPath = (*path, i)
        name = claim.name or ""
        if not name:
            errs.append(required(at))
            continue
        if name in names:
            errs.append(duplicate(at, name))  # all its requests are named already
        else:
            key = name
            if claim.request:
                errs += validate_dns1123_label(claim.request, (*at, "request"))
                key += "/" + claim.request
            if key in names:
                errs.append(duplicate(at, key))
            elif not claim.request:
                # The whole claim, after one of its requests.
                errs += [
                    duplicate(at, name) for other in names if other.partition("/")[0] == name and "/" in other
                ]
            names.add(key)
        if name not in claim_names:
            listed = ": " + ", ".join(sorted(claim_names)) if claim_names else " which is empty"
            found = not_found(at, name)
            errs.append(
                FieldError(
                    at, f"{found.message}: must be one of the names in pod.spec.resourceClaims{listed}"
                )
            )
    return errs


def pod_claim_names(spec: Any) -> frozenset[str]:
    return frozenset(c.name for c in spec.resource_claims or () if c.name)


def pod_claims_errors(claims: Any, path: FieldPath) -> list[FieldError]:
    """validatePodResourceClaims: named once each, by a DNS label, with exactly one source."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, claim in enumerate(claims or ()):
        at: FieldPath = (*path, i)
        if not claim.name:
            errs.append(required((*at, "name")))
        elif claim.name in seen:
            errs.append(duplicate((*at, "name"), claim.name))
        else:
            errs += validate_dns1123_label(claim.name, (*at, "name"))
            seen.add(claim.name)
        by_name, by_template = claim.resource_claim_name, claim.resource_claim_template_name
        if (by_name is None) == (by_template is None):
            # Go prints the struct with %#v (its pointers as addresses); its JSON says more.
            shown = Raw(claim.model_dump_json(by_alias=True, exclude_none=True))
            detail = (
                "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
                if by_name is None
                else "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
            )
            errs.append(invalid(at, shown, detail))
        if by_name is not None:
            errs += validate_dns1123_subdomain(by_name, (*at, "resourceClaimName"))
        if by_template is not None:
            errs += validate_dns1123_subdomain(by_template, (*at, "resourceClaimTemplateName"))
    return unstorable(errs)


def overhead_errors(overhead: Mapping[str, Any] | None, path: FieldPath) -> list[FieldError]:
    """validateOverhead: the overhead checked as a container's limits."""
    errs: list[FieldError] = []
    parsed = _parsed(overhead)
    for name in overhead or {}:
        at: FieldPath = (*path, name)
        errs += _container_name_errors(name, at)
        if name in parsed:
            errs += quantity_value_errors(name, parsed[name], at)
            errs += _hugepage_errors(name, parsed[name], at)
    return errs


def pod_level_errors(
    spec: Any, spec_path: FieldPath, is_pod: bool, ctx: ValidationContext
) -> list[FieldError]:
    """validatePodResources (PodLevelResources; with the gate off the API server drops the field)."""
    resources = spec.resources
    if resources is None or not ctx.feature_enabled("PodLevelResources"):
        return []
    path: FieldPath = (*spec_path, "resources")
    errs: list[FieldError] = []
    if resources.claims is not None:
        errs.append(forbidden((*path, "claims"), "claims cannot be set for Resources at pod-level"))
    errs += requirements_errors(resources, pod_claim_names(spec), path, pod_level=True)
    return errs + _consistency_errors(spec, is_pod, spec_path)


def _consistency_errors(spec: Any, is_pod: bool, spec_path: FieldPath) -> list[FieldError]:
    """Pod-level requests cover what the containers request together; no container's limit exceeds the
    pod's. Only resources the pod-level spec names are compared (a stricter reading of upstream's loop,
    which also compares against an absent pod-level request, is left out rather than guessed)."""
    pod_requests = _parsed(spec.resources.requests)
    pod_limits = _parsed(spec.resources.limits)
    aggregate = _aggregate_requests(spec, is_pod)
    errs: list[FieldError] = []
    for name, total in aggregate.items():
        # A Pod's pod-level request defaults from its limit to the containers' total: never short.
        written = pod_requests.get(name)
        if written is None and (is_pod or name not in pod_limits):
            continue
        request = written if written is not None else Quantity.from_int(0)
        if total.cmp(request) > 0:
            detail = f"must be greater than or equal to aggregate container requests of {total}"
            errs.append(invalid((*spec_path, "resources", "requests", name), str(request), detail))
    for i, container in enumerate(spec.containers or ()):
        limits = _parsed(container.resources.limits if container.resources else None)
        for name, limit in limits.items():
            pod_limit = pod_limits.get(name)
            if pod_limit is not None and limit.cmp(pod_limit) > 0:
                at: FieldPath = (*spec_path, "containers", i, "resources", "limits", name)
                errs.append(
                    invalid(at, str(limit), f"must be less than or equal to pod limits of {pod_limit}")
                )
    return errs


def _aggregate_requests(spec: Any, is_pod: bool) -> dict[str, Quantity]:
    """AggregateContainerRequests: regular containers and sidecars run together; an init container
    runs beside the sidecars started before it; the larger of the two for each resource."""

    def requests(container: Any) -> dict[str, Quantity]:
        resources = container.resources
        own = _parsed(resources.requests if resources else None)
        if is_pod:  # a Pod's container requests default to its limits
            for name, limit in _parsed(resources.limits if resources else None).items():
                own.setdefault(name, limit)
        return own

    total: dict[str, Quantity] = {}
    for container in spec.containers or ():
        _add(total, requests(container))
    sidecars: dict[str, Quantity] = {}
    peak: dict[str, Quantity] = {}
    for container in spec.init_containers or ():
        own = requests(container)
        if container.restart_policy == "Always":
            _add(total, own)
            _add(sidecars, own)
            running = dict(sidecars)
        else:
            running = dict(own)
            _add(running, sidecars)
        for name, q in running.items():
            if name not in peak or q.cmp(peak[name]) > 0:
                peak[name] = q
    for name, q in peak.items():
        if name not in total or q.cmp(total[name]) > 0:
            total[name] = q
    return total


def _add(into: dict[str, Quantity], more: Mapping[str, Quantity]) -> None:
    for name, q in more.items():
        into[name] = into[name] + q if name in into else q
