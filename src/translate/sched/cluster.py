"""Objects -> cluster facts: nodes in the scheduler's order, the pods already on them, the pods to
schedule (keyed by the Unit that holds their claims), namespaces, PodDisruptionBudgets and images."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ...model.cluster import facts
from ...model.cluster.profile import Configuration
from ...model.features import FeatureGates
from ..dra.field_facts import taint_of
from ..dra.pod_resources import bound_requests, node_allocatable
from ..dra.workloads import expand
from ..kube import KubeObject, ObjectSet
from .groups import group_facts
from .pods import label_selector, pod_facts
from .priority import Priorities


def node_facts(obj: KubeObject, allocatable: Mapping[str, int] | None = None) -> facts.Node:
    """`allocatable`: the node's allocatable resources when already read (else read here)."""
    model: Any = obj.model
    spec, status = model.spec, getattr(model, "status", None)
    images: dict[str, int] = {}
    for image in (status.images if status is not None else None) or ():
        for name in image.names or ():
            images[name] = int(image.size_bytes or 0)
    return facts.Node(
        name=obj.name,
        labels=dict(model.metadata.labels or {}),
        taints=tuple(taint_of(t) for t in (spec.taints if spec is not None else None) or ()),
        unschedulable=bool(spec is not None and spec.unschedulable),
        allocatable=dict(allocatable if allocatable is not None else node_allocatable(obj) or {}),
        images=images,
        declared_features=frozenset((status.declared_features if status is not None else None) or ()),
    )


def _terminal(model: Any) -> bool:
    status = getattr(model, "status", None)
    return status is not None and status.phase in ("Succeeded", "Failed")


def _claims_of(model: Any, namespace: str) -> tuple[str, ...]:
    """The claims a pod uses, as namespace/name (generated ones from its status)."""
    out = []
    generated = {
        s.name: s.resource_claim_name
        for s in (
            getattr(model.status, "resource_claim_statuses", None) if model.status is not None else None
        )
        or ()
        if s.resource_claim_name
    }
    for entry in model.spec.resource_claims or ():
        name = entry.resource_claim_name or generated.get(entry.name)
        if name:
            out.append(f"{namespace}/{name}")
    return tuple(out)


# The controllers whose selectors default spreading uses, at the apiVersion upstream matches.
_CONTROLLER_VERSIONS = {"ReplicationController": "v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1"}


class DefaultSelectors:
    """helper.DefaultSelector: what the Services selecting a pod and its controller (ReplicaSet,
    StatefulSet, ReplicationController) select, merged; None when that is nothing."""

    def __init__(self, objects: ObjectSet) -> None:
        self.services = [o for o in objects.of_kind("Service")]
        self.controllers = {
            (o.kind, o.namespace, o.name): o
            for o in objects
            if o.kind in ("ReplicaSet", "StatefulSet", "ReplicationController", "Deployment")
        }

    def of(self, pod: KubeObject) -> facts.LabelSelector | None:
        model: Any = pod.model
        labels = model.metadata.labels or {}
        merged: dict[str, str] = {}
        for svc in self.services:
            selector = svc.model.spec.selector if svc.model.spec is not None else None  # type: ignore[attr-defined]
            # A Service without a selector selects nothing, not everything.
            if svc.namespace != pod.namespace or selector is None:
                continue
            if all(labels.get(k) == v for k, v in selector.items()):
                merged.update(selector)
        reqs = [facts.Requirement(k, "In", frozenset([v])) for k, v in sorted(merged.items())]
        owner = next((o for o in model.metadata.owner_references or () if o.controller), None)
        if owner is not None and _CONTROLLER_VERSIONS.get(owner.kind) == owner.api_version:
            found = self.controllers.get((owner.kind, pod.namespace, owner.name))
            if found is None and owner.kind == "ReplicaSet":
                # A Deployment's ReplicaSet, not in the input: it selects what the Deployment selects.
                found = self.controllers.get(("Deployment", pod.namespace, owner.name.rsplit("-", 1)[0]))
            if found is not None:
                spec: Any = found.model.spec  # type: ignore[attr-defined]
                if found.kind == "ReplicationController":
                    merged.update(spec.selector or {})
                    reqs = [facts.Requirement(k, "In", frozenset([v])) for k, v in sorted(merged.items())]
                else:
                    extra = label_selector(spec.selector)
                    if extra is not None:
                        reqs += [r for r in extra.requirements if r not in reqs]
        return facts.LabelSelector(tuple(reqs)) if reqs else None


def _namespaces(objects: ObjectSet, pods: Sequence[facts.Pod]) -> dict[str, Mapping[str, str]]:
    out: dict[str, Mapping[str, str]] = {}
    for obj in objects.of_kind("Namespace"):
        labels = dict(obj.model.metadata.labels or {})  # type: ignore[attr-defined]
        labels[facts.NAMESPACE_NAME] = obj.name  # the API server always sets it to the name
        out[obj.name] = labels
    # A pod's namespace exists in the cluster even where the input leaves its object out: it has the label
    # every namespace has.
    for pod in pods:
        out.setdefault(pod.namespace, {facts.NAMESPACE_NAME: pod.namespace})
    return out


def _scaled(value: Any, total: int) -> int:
    """An IntOrString count or percentage of `total`, percentages rounded up."""
    text = str(value)
    if text.endswith("%"):
        return math.ceil(total * int(text[:-1]) / 100)
    return int(text)


def _budgets(objects: ObjectSet, bound: Sequence[facts.Pod]) -> tuple[facts.DisruptionBudget, ...]:
    """status.disruptionsAllowed when the input has it; else what the disruption controller would compute
    from the spec, counting the matching pods on nodes as both expected and healthy."""
    out = []
    for obj in objects.of_kind("PodDisruptionBudget"):
        model: Any = obj.model
        selector = label_selector(model.spec.selector) if model.spec is not None else None
        # A PDB with a nil or empty selector matches nothing.
        if selector is not None and selector.empty:
            selector = None
        status = model.status
        if status is not None and status.disruptions_allowed is not None:
            allowed = int(status.disruptions_allowed)
            disrupted = frozenset((status.disrupted_pods or {}).keys())
        else:
            matching = [
                p
                for p in bound
                if p.namespace == obj.namespace and not p.terminating and facts.selects(selector, p.labels)
            ]
            expected = len(matching)
            desired = 0
            if model.spec is not None and model.spec.max_unavailable is not None:
                desired = expected - _scaled(model.spec.max_unavailable, expected)
            elif model.spec is not None and model.spec.min_available is not None:
                desired = _scaled(model.spec.min_available, expected)
            allowed = max(0, expected - desired)
            disrupted = frozenset()
        out.append(facts.DisruptionBudget(obj.namespace, obj.name, selector, allowed, disrupted))
    return tuple(out)


def _images(nodes: Sequence[facts.Node]) -> dict[str, facts.ImageState]:
    sizes: dict[str, int] = {}
    counts: dict[str, int] = {}
    for node in nodes:
        for name, size in node.images.items():
            sizes[name] = size
            counts[name] = counts.get(name, 0) + 1
    return {name: facts.ImageState(sizes[name], counts[name]) for name in sizes}


def cluster_facts(
    objects: ObjectSet,
    gates: FeatureGates,
    pending: Mapping[int, KubeObject],
    requests: Mapping[int, Mapping[str, int]],
    only_node: str | None = None,
    seed: int | None = None,
    configuration: Configuration | None = None,
    scheduler_name: str | None = None,
    allocatable: Mapping[str, Mapping[str, int] | None] | None = None,
) -> facts.Cluster:
    """`pending`: unit id -> the pod it schedules; `requests`: unit id -> what NodeResourcesFit counts."""
    pod_level = gates.enabled("PodLevelResources")
    charged = gates.enabled("DRANodeAllocatableResources")
    priorities = Priorities(objects)
    defaults = DefaultSelectors(objects)
    read = allocatable or {}
    nodes = [node_facts(o, read.get(o.name)) for o in sorted(objects.of_kind("Node"), key=lambda o: o.name)]
    if only_node is not None and all(n.name != only_node for n in nodes):
        nodes.append(facts.Node(only_node, {facts.HOSTNAME: only_node}))
    known = {n.name for n in nodes}
    pending_keys = {(p.namespace, p.name) for p in pending.values()}
    bound = []
    for obj in expand(objects):
        model: Any = obj.model
        if (
            not model.spec.node_name
            or model.spec.node_name not in known
            or _terminal(model)
            or (obj.namespace, obj.name) in pending_keys
        ):
            continue
        requests_of = bound_requests(model, pod_level, charged)
        claims = _claims_of(model, obj.namespace)
        bound.append(pod_facts(obj, priorities.of(model), requests_of, pod_level, None, claims))
    pods = {
        unit: pod_facts(obj, priorities.of(obj.model), requests[unit], pod_level, defaults.of(obj))
        for unit, obj in pending.items()
    }
    ordered = facts.tree_order(nodes)
    return facts.Cluster(
        nodes=tuple(ordered),
        bound=tuple(bound),
        pending=pods,
        namespaces=_namespaces(objects, [*bound, *pods.values()]),
        budgets=_budgets(objects, bound),
        images=_images(ordered),
        candidates=(only_node,) if only_node is not None else None,
        seed=seed,
        configuration=configuration,
        scheduler_name=scheduler_name,
        groups=group_facts(objects, gates),
    )
