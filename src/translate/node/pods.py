"""Pods as the kubelet's managers see them: QoS class, containers in allocation order (init
containers and sidecars first), their CPU / memory / huge page requests, and the NUMA nodes of the
devices their claims were allocated."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model.errors import InputError
from ...model.features import FeatureGates
from ...model.go_strings import go_quote
from ...model.node.devices import ClaimUse, Result, claim_group, with_devices
from ...model.node.problem import APP, INIT, SIDECAR, ContainerFacts, PodFacts
from ...model.quantity import Quantity, QuantityError
from ..kube import KubeObject, LazySlice, ObjectSet, quantity_values

QOS_RESOURCES = ("cpu", "memory")
NUMA_ATTRIBUTE = "resource.kubernetes.io/numaNode"

NumaOf = dict[tuple[str, str, str], frozenset[int]]  # (driver, pool, device) -> its NUMA nodes


def _quantity(value: Any) -> Quantity | None:
    try:
        return Quantity.parse(str(value))
    except ValueError:
        return None


def _requests_limits(resources: Any) -> tuple[dict[str, Quantity], dict[str, Quantity]]:
    """Requests and limits, with a missing request defaulted to the limit (API defaulting)."""
    if resources is None:
        return {}, {}
    limits = {k: q for k, v in (resources.limits or {}).items() if (q := _quantity(v)) is not None}
    requests = {k: q for k, v in (resources.requests or {}).items() if (q := _quantity(v)) is not None}
    for name, q in limits.items():
        requests.setdefault(name, q)
    return requests, limits


def qos_class(pod: Any, pod_level: bool) -> str:
    """v1qos.ComputePodQOS: sums of the requests and limits of cpu and memory."""
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    guaranteed = True
    spec = pod.spec
    if pod_level and spec.resources is not None and (spec.resources.requests or spec.resources.limits):
        sources = [(spec.resources, bool(spec.resources.limits))]
    else:
        containers = [*(spec.containers or ()), *(spec.init_containers or ())]
        sources = [(c.resources, True) for c in containers]
    for resources, check_limits in sources:
        req, lim = _requests_limits(resources)
        _add(requests, req)
        found = _add(limits, lim)
        # A pod-level stanza without limits leaves the decision to the counts below.
        if check_limits and not found >= set(QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and any(name not in limits or limits[name].cmp(q) != 0 for name, q in requests.items()):
        guaranteed = False
    return "Guaranteed" if guaranteed and len(requests) == len(limits) else "Burstable"


def _add(into: dict[str, Quantity], more: dict[str, Quantity]) -> set[str]:
    found = set()
    for name, q in more.items():
        if name in QOS_RESOURCES and q.sign() > 0:
            found.add(name)
            into[name] = into[name] + q if name in into else q
    return found


def _memory(requests: dict[str, Quantity]) -> tuple[tuple[str, int], ...]:
    return tuple(
        sorted(
            (name, q.value())
            for name, q in requests.items()
            if name == "memory" or name.startswith("hugepages-")
        )
    )


def _own_guaranteed(requests: dict[str, Quantity], limits: dict[str, Quantity]) -> bool:
    return all(
        name in limits and limits[name].sign() > 0 and requests.get(name) == limits[name]
        for name in QOS_RESOURCES
    )


def check_resources(obj: KubeObject) -> None:
    """Requests, limits and overhead the API server refuses (a negative amount), or too large to add up
    (the QoS class and the managers sum them; with an exponent of a billion Go would build a
    billion-digit number for the first sum, and kubefit refuses to)."""
    problems = []
    for path, value in quantity_values(obj.written_info.model, obj.raw):
        if not (path[-2:-1] in (("requests",), ("limits",)) or path[:2] == ("spec", "overhead")):
            continue
        q = _quantity(value)
        if q is None:
            continue
        if q.sign() < 0:
            problems.append(
                obj.problem(path, f"Invalid value: {go_quote(str(q))}: must be greater than or equal to 0")
            )
            continue
        try:
            q.as_fraction()
        except QuantityError as e:
            problems.append(obj.problem(path, f"Invalid value: {go_quote(str(q))}: {e}"))
    if problems:
        raise InputError(problems)


def kubelet_pod(
    obj: KubeObject, gates: FeatureGates, pod_level_gate: bool, report: bool
) -> tuple[PodFacts, tuple[tuple[ClaimUse, ...], ...]]:
    """The pod as the kubelet's managers see it, its containers without their devices yet; and the
    claims each container uses (whose devices `with_devices` adds once the allocations are known)."""
    check_resources(obj)
    pod: Any = obj.model
    spec = pod.spec
    meta = pod.metadata
    sidecars_on = gates.enabled("SidecarContainers")
    containers = []
    uses = []
    listed = [(c, INIT) for c in spec.init_containers or ()] + [(c, APP) for c in spec.containers or ()]
    for c, kind in listed:
        if kind == INIT and sidecars_on and c.restart_policy == "Always":
            kind = SIDECAR
        requests, limits = _requests_limits(c.resources)
        cpu = requests.get("cpu")
        cpu_limit = limits.get("cpu")
        refs = (c.resources.claims if c.resources is not None else None) or ()
        uses.append(
            tuple(ClaimUse(claim_group(obj.namespace, r.name), r.name, r.request or "") for r in refs)
        )
        containers.append(
            ContainerFacts(
                name=c.name,
                kind=kind,
                cpu_request=cpu.milli_value() if cpu is not None else None,
                cpu_limit=cpu_limit.milli_value() if cpu_limit is not None else None,
                memory=_memory(requests),
                own_guaranteed=_own_guaranteed(requests, limits),
            )
        )
    pod_cpu = None
    pod_memory: tuple[tuple[str, int], ...] = ()
    level = (
        pod_level_gate
        and spec.resources is not None
        and bool(spec.resources.requests or spec.resources.limits)
    )
    if level:
        requests, _ = _requests_limits(spec.resources)
        cpu = requests.get("cpu")
        pod_cpu = cpu.milli_value() if cpu is not None else None
        pod_memory = _memory(requests)
        if pod_cpu is None and not pod_memory:
            level = False
    uid = (meta.uid if meta is not None else None) or f"{obj.namespace}/{obj.name}"
    facts = PodFacts(
        uid=uid,
        namespace=obj.namespace,
        name=obj.name,
        qos=qos_class(pod, pod_level_gate),
        containers=tuple(containers),
        pod_cpu_request=pod_cpu if level else None,
        pod_memory=pod_memory if level else (),
        report=report,
    )
    return facts, tuple(uses)


def pod_facts(
    obj: KubeObject, objects: ObjectSet, gates: FeatureGates, pod_level_gate: bool, report: bool
) -> PodFacts:
    """The pod with the devices its claims were allocated in the input."""
    facts, uses = kubelet_pod(obj, gates, pod_level_gate, report)
    pod: Any = obj.model
    claimed = claim_names(pod, claim_statuses(pod))
    if not claimed:
        return with_devices(facts, uses, lambda _: ())
    numa_of = device_numa(objects)
    results: dict[str, list[Result]] = {}
    for pod_claim, name in claimed:
        claim = objects.get("ResourceClaim", name, obj.namespace)
        results.setdefault(pod_claim, []).extend(allocated_results(claim, numa_of))
    return with_devices(facts, uses, lambda pod_claim: results.get(pod_claim, ()))


def claim_statuses(pod: Any) -> dict[str, str | None]:
    """The pod's status.resourceClaimStatuses: pod claim -> the claim generated for it."""
    statuses = (pod.status.resource_claim_statuses if pod.status is not None else None) or ()
    return {s.name: s.resource_claim_name for s in statuses}


def claim_names(pod: Any, generated: Mapping[str, str | None]) -> tuple[tuple[str, str], ...]:
    """(pod claim, ResourceClaim name) for the pod's claims that name one, in spec order: its own
    `resourceClaimName`, else the one generated for it (`generated`, as status.resourceClaimStatuses)."""
    out = []
    for ref in pod.spec.resource_claims or ():
        name = ref.resource_claim_name or generated.get(ref.name)
        if name:
            out.append((ref.name, name))
    return tuple(out)


def allocated_results(claim: KubeObject | None, numa_of: NumaOf) -> tuple[Result, ...]:
    """The claim's allocation results as (request, the NUMA nodes of the device)."""
    model: Any = claim.model if claim is not None else None
    allocation = model.status.allocation if model is not None and model.status is not None else None
    results = (allocation.devices.results if allocation is not None and allocation.devices else None) or ()
    return tuple((r.request, numa_of.get((r.driver, r.pool, r.device), frozenset())) for r in results)


def device_numa(objects: ObjectSet) -> NumaOf:
    """The NUMA nodes of every device the ResourceSlices publish (none without the attribute)."""
    out: NumaOf = {}
    for obj in objects.of_kind("ResourceSlice"):
        if isinstance(obj, LazySlice) and not obj.built:
            _raw_numa(obj, out)
            continue
        spec: Any = getattr(obj.model, "spec", None)
        if spec is None:
            continue
        for device in spec.devices or ():
            attribute = (device.attributes or {}).get(NUMA_ATTRIBUTE)
            value = getattr(attribute, "int", None) if attribute is not None else None
            if value is None and attribute is not None:
                ints = getattr(attribute, "ints", None)
                nodes = frozenset(int(v) for v in ints or ())
            else:
                nodes = frozenset() if value is None else frozenset({int(value)})
            out[(spec.driver, spec.pool.name, device.name)] = nodes
    return out


def _raw_numa(obj: LazySlice, out: NumaOf) -> None:
    """The same, from plain devices (whose attributes are scalars)."""
    spec = obj.shell.spec  # type: ignore[attr-defined]
    for device in obj.raw_devices:
        attribute = (device.get("attributes") or {}).get(NUMA_ATTRIBUTE)
        value = attribute.get("int") if attribute is not None else None
        out[(spec.driver, spec.pool.name, device["name"])] = (
            frozenset() if value is None else frozenset({int(value)})
        )
