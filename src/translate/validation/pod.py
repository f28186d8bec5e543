"""Pods, and the pod templates of the workloads kubefit expands into pods (Deployments, ReplicaSets,
StatefulSets, Jobs), as the API server validates them: the containers (names, images, ports, restart
policies, resources), the pod's claims, pod-level resources and overhead, and what it tells the
scheduler (`pod_scheduling`).

Upstream: `ValidatePodSpec`, `validateContainers`, `validateInitContainers`, `validateContainerCommon`,
`validateContainerPorts`, `checkHostPortConflicts` and `validatePodHostNetworkDeps` of
kubernetes/kubernetes `pkg/apis/core/validation/validation.go`. The API server validates a pod after
defaulting it, so what defaulting fills in (a port's protocol, the restart policy, a host-network pod's
host ports) is never missing here. Fields kubefit does not read (volumes, probes, environment, security
contexts) are not checked.
"""

from __future__ import annotations

from typing import Any

from ...model.errors import FieldPath
from . import FieldError, ValidationContext
from .field_errors import duplicate, forbidden, invalid, not_supported, required
from .names import max_len_error, validate_dns1123_label
from .pod_resources import (
    overhead_errors,
    pod_claim_names,
    pod_claims_errors,
    pod_level_errors,
    requirements_errors,
)
from .pod_scheduling import scheduling_errors

RESTART_POLICIES = ("Always", "OnFailure", "Never")
PROTOCOLS = ("SCTP", "TCP", "UDP")
PORT_RANGE = "must be between 1 and 65535, inclusive"


def validate_pod(pod: Any, ctx: ValidationContext) -> list[FieldError]:
    spec = pod.spec
    return [] if spec is None else pod_spec_errors(spec, ("spec",), ctx, is_pod=True)


def validate_pod_template(workload: Any, ctx: ValidationContext) -> list[FieldError]:
    """A workload's `spec.template.spec` (a template without one is the workload's own problem)."""
    template = workload.spec.template if workload.spec is not None else None
    if template is None or template.spec is None:
        return []
    return pod_spec_errors(template.spec, ("spec", "template", "spec"), ctx, is_pod=False)


def pod_spec_errors(spec: Any, path: FieldPath, ctx: ValidationContext, is_pod: bool) -> list[FieldError]:
    claims = pod_claim_names(spec)
    errs = pod_claims_errors(spec.resource_claims, (*path, "resourceClaims"))
    errs += _containers(spec.containers, claims, (*path, "containers"))
    errs += _init_containers(spec.init_containers, spec.containers, claims, (*path, "initContainers"))
    errs += pod_level_errors(spec, path, is_pod, ctx)
    if spec.host_network:
        errs += _host_network_ports(spec.containers, (*path, "containers"))
    if spec.restart_policy is not None and spec.restart_policy not in RESTART_POLICIES:
        errs.append(
            required((*path, "restartPolicy"))
            if not spec.restart_policy
            else not_supported((*path, "restartPolicy"), spec.restart_policy, RESTART_POLICIES)
        )
    errs += scheduling_errors(spec, path)
    if spec.overhead:
        errs += overhead_errors(spec.overhead, (*path, "overhead"))
    return errs


def _common(container: Any, claims: frozenset[str], path: FieldPath) -> list[FieldError]:
    """validateContainerCommon, for the fields kubefit reads."""
    errs: list[FieldError] = []
    if not container.name:
        errs.append(required((*path, "name")))
    else:
        errs += validate_dns1123_label(container.name, (*path, "name"))
    if not container.image:
        errs.append(required((*path, "image")))
    errs += _ports(container.ports, (*path, "ports"))
    errs += requirements_errors(container.resources, claims, (*path, "resources"))
    return errs


def _containers(containers: Any, claims: frozenset[str], path: FieldPath) -> list[FieldError]:
    if not containers:
        return [required(path)]
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, container in enumerate(containers):
        at: FieldPath = (*path, i)
        errs += _common(container, claims, at)
        if container.name in names:
            errs.append(duplicate((*at, "name"), container.name or ""))
        names.add(container.name)
        if container.restart_policy is not None:
            errs.append(forbidden((*at, "restartPolicy"), "may not be set for non-init containers"))
    return errs + _host_port_conflicts(containers, path)


def _init_containers(
    containers: Any, regular: Any, claims: frozenset[str], path: FieldPath
) -> list[FieldError]:
    errs: list[FieldError] = []
    names = {c.name for c in regular or ()}
    for i, container in enumerate(containers or ()):
        at: FieldPath = (*path, i)
        errs += _common(container, claims, at)
        policy = container.restart_policy
        if policy is not None and policy != "Always":
            errs.append(not_supported((*at, "restartPolicy"), policy, ("Always",)))
        if container.name in names:
            errs.append(duplicate((*at, "name"), container.name or ""))
        elif container.name:
            names.add(container.name)
        # Init containers run one at a time: only a container's own ports can collide.
        errs += _host_port_conflicts([container], path, first=i)
    return errs


def _port_name_problems(name: str) -> list[str]:
    """IsValidPortName: an IANA service name."""
    problems = []
    if len(name) > 15:
        problems.append(max_len_error(15))
    if not all(c.isascii() and (c.islower() or c.isdigit() or c == "-") for c in name):
        problems.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not any("a" <= c <= "z" for c in name):
        problems.append("must contain at least one letter (a-z)")
    if "--" in name:
        problems.append("must not contain consecutive hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append("must not begin or end with a hyphen")
    return problems


def _valid_port(port: int) -> bool:
    return 1 <= port <= 65535


def _ports(ports: Any, path: FieldPath) -> list[FieldError]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports or ()):
        at: FieldPath = (*path, i)
        if port.name:
            problems = _port_name_problems(port.name)
            if problems:
                errs += [invalid((*at, "name"), port.name, p) for p in problems]
            elif port.name in names:
                errs.append(duplicate((*at, "name"), port.name))
            else:
                names.add(port.name)
        if port.container_port == 0:
            errs.append(required((*at, "containerPort")))
        elif not _valid_port(port.container_port):
            errs.append(invalid((*at, "containerPort"), port.container_port, PORT_RANGE))
        if port.host_port and not _valid_port(port.host_port):
            errs.append(invalid((*at, "hostPort"), port.host_port, PORT_RANGE))
        if port.protocol is not None and port.protocol not in PROTOCOLS:
            # An unset protocol defaults to TCP; one set empty does not.
            errs.append(
                required((*at, "protocol"))
                if not port.protocol
                else not_supported((*at, "protocol"), port.protocol, PROTOCOLS)
            )
    return errs


def _host_port_conflicts(containers: Any, path: FieldPath, first: int = 0) -> list[FieldError]:
    """AccumulateUniqueHostPorts: one host port per protocol and host IP."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for ci, container in enumerate(containers, start=first):
        for pi, port in enumerate(container.ports or ()):
            if not port.host_port:
                continue
            key = f"{port.protocol or 'TCP'}/{port.host_ip or ''}/{port.host_port}"
            if key in seen:
                errs.append(duplicate((*path, ci, "ports", pi, "hostPort"), key))
            seen.add(key)
    return errs


def _host_network_ports(containers: Any, path: FieldPath) -> list[FieldError]:
    """A host-network pod listens on the node's ports: each host port is its container port (an unset
    one is defaulted to it)."""
    errs: list[FieldError] = []
    for ci, container in enumerate(containers or ()):
        for pi, port in enumerate(container.ports or ()):
            if port.host_port and port.host_port != port.container_port:
                at: FieldPath = (*path, ci, "ports", pi, "hostPort")
                errs.append(
                    invalid(at, port.host_port, "must match `containerPort` when `hostNetwork` is true")
                )
    return errs
