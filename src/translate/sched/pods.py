"""Pods as kube-scheduler's plugins read them (cluster facts.Pod).

What the API server adds at admission is added here too, so that a manifest about to be
applied reads like the stored pod: the priority from its PriorityClass, matchLabelKeys and
mismatchLabelKeys merged into the affinity terms' selectors, matchLabelKeys merged into the
topology spread constraints' selectors. Merging is idempotent, so stored pods read the same.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from typing import Any

from ...model.cluster import facts
from ...model.terms import NodeSelectorTerm, PreferredNodeTerm
from ..dra.claims import toleration
from ..dra.field_facts import node_selector_term, node_selector_terms
from ..dra.pod_resources import pod_requests
from ..kube import KubeObject
from .priority import Priority

DEFAULT_MILLI_CPU = 100  # the non-zero cpu request scoring assumes for a container without one
DEFAULT_MEMORY = 200 * 1024 * 1024


def object_uid(obj: KubeObject) -> str:
    """The object's uid, or the one the API server would have given it on create (derived from its
    kind and name, so the same input gives the same output)."""
    meta: Any = getattr(obj.model, "metadata", None)
    if meta is not None and meta.uid:
        return str(meta.uid)
    digest = hashlib.sha256(f"{obj.kind}/{obj.namespace}/{obj.name}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def label_selector(selector: Any) -> facts.LabelSelector | None:
    """A V1LabelSelector as facts (None stays None: it selects nothing)."""
    if selector is None:
        return None
    reqs = [
        facts.Requirement(k, "In", frozenset([v])) for k, v in sorted((selector.match_labels or {}).items())
    ]
    for expr in selector.match_expressions or ():
        reqs.append(facts.Requirement(expr.key, expr.operator, frozenset(expr.values or ())))
    return facts.LabelSelector(tuple(reqs))


def _merged(
    selector: facts.LabelSelector | None,
    labels: Mapping[str, str],
    match_keys: Any,
    mismatch_keys: Any = (),
) -> facts.LabelSelector | None:
    """matchLabelKeys (key In the pod's value) and mismatchLabelKeys (key NotIn it), for keys the pod has;
    a term without a labelSelector selects nothing, keys or not (the API server leaves it alone)."""
    if selector is None:
        return None
    extra = [facts.Requirement(k, "In", frozenset([labels[k]])) for k in match_keys or () if k in labels]
    extra += [
        facts.Requirement(k, "NotIn", frozenset([labels[k]])) for k in mismatch_keys or () if k in labels
    ]
    if not extra:
        return selector
    base = selector.requirements
    return facts.LabelSelector(base + tuple(r for r in extra if r not in base))


def _affinity_term(term: Any, namespace: str, labels: Mapping[str, str]) -> facts.AffinityTerm:
    selector = _merged(
        label_selector(term.label_selector),
        labels,
        getattr(term, "match_label_keys", None),
        getattr(term, "mismatch_label_keys", None),
    )
    namespaces = frozenset(term.namespaces or ())
    ns_selector = label_selector(term.namespace_selector)
    if not namespaces and ns_selector is None:
        namespaces = frozenset([namespace])
    return facts.AffinityTerm(selector, term.topology_key or "", namespaces, ns_selector)


def _terms(
    affinity: Any, attr: str, namespace: str, labels: Mapping[str, str]
) -> tuple[facts.AffinityTerm, ...]:
    items = getattr(affinity, attr, None) if affinity is not None else None
    return tuple(_affinity_term(t, namespace, labels) for t in items or ())


def _weighted(
    affinity: Any, attr: str, namespace: str, labels: Mapping[str, str]
) -> tuple[facts.WeightedAffinityTerm, ...]:
    items = getattr(affinity, attr, None) if affinity is not None else None
    return tuple(
        facts.WeightedAffinityTerm(_affinity_term(t.pod_affinity_term, namespace, labels), t.weight)
        for t in items or ()
    )


def _spread(constraint: Any, labels: Mapping[str, str]) -> facts.SpreadConstraint:
    return facts.SpreadConstraint(
        max_skew=constraint.max_skew,
        topology_key=constraint.topology_key,
        when_unsatisfiable=constraint.when_unsatisfiable,
        selector=_merged(label_selector(constraint.label_selector), labels, constraint.match_label_keys),
        min_domains=constraint.min_domains if constraint.min_domains is not None else 1,
        node_affinity_policy=constraint.node_affinity_policy or "Honor",
        node_taints_policy=constraint.node_taints_policy or "Ignore",
    )


def _host_ports(spec: Any) -> tuple[facts.HostPort, ...]:
    containers = [
        *(spec.containers or ()),
        *(c for c in spec.init_containers or () if c.restart_policy == "Always"),
    ]
    out = []
    for container in containers:
        for port in container.ports or ():
            if port.host_port:
                out.append(facts.HostPort(port.host_port, port.protocol or "TCP", port.host_ip or "0.0.0.0"))
    return tuple(out)


def normalized_image(name: str) -> str:
    """imagelocality.normalizedImageName: an image without a tag or digest is `:latest`."""
    return name + ":latest" if name.rfind(":") <= name.rfind("/") else name


_NON_ZERO = {facts.CPU: DEFAULT_MILLI_CPU, facts.MEMORY: DEFAULT_MEMORY}


def score_requests(pod: Any, requests: Mapping[str, int], pod_level: bool) -> dict[str, int]:
    """What scoring counts: cpu and memory as NonZeroRequested counts them (a container without a request
    counts as 100m / 200Mi), the other resources as requested."""
    non_zero = pod_requests(pod, pod_level, _NON_ZERO)
    out = {n: v for n, v in requests.items() if n not in _NON_ZERO}
    for name in _NON_ZERO:
        if non_zero.get(name):
            out[name] = non_zero[name]
    return out


def pod_facts(
    obj: KubeObject,
    priority: Priority,
    requests: Mapping[str, int],
    pod_level: bool,
    default_spread: facts.LabelSelector | None = None,
    claims: tuple[str, ...] = (),
) -> facts.Pod:
    model: Any = obj.model
    spec, meta = model.spec, model.metadata
    status = getattr(model, "status", None)
    labels = dict(meta.labels or {})
    namespace = obj.namespace or "default"
    affinity = spec.affinity
    node_aff = affinity.node_affinity if affinity is not None else None
    pod_aff = affinity.pod_affinity if affinity is not None else None
    anti = affinity.pod_anti_affinity if affinity is not None else None
    required: tuple[NodeSelectorTerm, ...] | None = None
    preferred: tuple[PreferredNodeTerm, ...] = ()
    if node_aff is not None:
        required = node_selector_terms(node_aff.required_during_scheduling_ignored_during_execution)
        preferred = tuple(
            PreferredNodeTerm(p.weight, node_selector_term(p.preference))
            for p in node_aff.preferred_during_scheduling_ignored_during_execution or ()
        )
    # One entry per container (duplicates kept: ImageLocality counts containers), then image volumes.
    images = tuple(
        normalized_image(c.image or "") for c in [*(spec.init_containers or ()), *(spec.containers or ())]
    )
    images += tuple(
        normalized_image(v.image.reference)
        for v in spec.volumes or ()
        if getattr(v, "image", None) is not None and v.image.reference
    )
    started = status.start_time if status is not None else None
    return facts.Pod(
        namespace=namespace,
        name=obj.name,
        uid=object_uid(obj),
        labels=labels,
        priority=priority.value,
        preemption_policy=priority.preemption_policy,
        scheduler_name=spec.scheduler_name or "default-scheduler",
        node_name=spec.node_name or "",
        nominated_node=(status.nominated_node_name or "") if status is not None else "",
        requests=dict(requests),
        score_requests=score_requests(model, requests, pod_level),
        ports=_host_ports(spec),
        tolerations=tuple(toleration(t) for t in spec.tolerations or ()),
        node_selector=dict(spec.node_selector or {}),
        required_node_affinity=required,
        preferred_node_affinity=preferred,
        required_affinity=_terms(
            pod_aff, "required_during_scheduling_ignored_during_execution", namespace, labels
        ),
        required_anti_affinity=_terms(
            anti, "required_during_scheduling_ignored_during_execution", namespace, labels
        ),
        preferred_affinity=_weighted(
            pod_aff, "preferred_during_scheduling_ignored_during_execution", namespace, labels
        ),
        preferred_anti_affinity=_weighted(
            anti, "preferred_during_scheduling_ignored_during_execution", namespace, labels
        ),
        spread_constraints=tuple(_spread(c, labels) for c in spec.topology_spread_constraints or ()),
        default_spread_selector=default_spread,
        images=images,
        start_time=started.isoformat() if started is not None else "",
        terminating=meta.deletion_timestamp is not None,
        disruption_target=_disruption_target(status),
        claims=claims,
        scheduling_gates=tuple(g.name for g in spec.scheduling_gates or ()),
        pod_group=_pod_group(spec),
    )


def _pod_group(spec: Any) -> str:
    group = getattr(spec, "scheduling_group", None)
    return (group.pod_group_name or "") if group is not None else ""


def _disruption_target(status: Any) -> str:
    """The reason of a True DisruptionTarget condition (a pod already being evicted, and why)."""
    for condition in (status.conditions if status is not None else None) or ():
        if condition.type == "DisruptionTarget" and condition.status == "True":
            return str(condition.reason or "")
    return ""
