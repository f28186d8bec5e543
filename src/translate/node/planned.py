"""The facts of the planner's kubelet check (`kubefit.model.node.planned`), read from the input once.

The plan's pods reach their kubelet as the plan writes them out: bound to the node it chose, with the
claim statuses it records (a claim generated from a template by the name it generates) and their claims
allocated as it allocates them. The pods the input binds to a node are read as they are written, except
those the plan writes out again (pending pods the input had bound already)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from ...model.errors import InputError
from ...model.features import FeatureGates
from ...model.node.planned import ClaimState, KubeletFacts, KubeletNode, KubeletPod
from ..dra.build import Built
from ..dra.pods import ClaimSource, PodUnit
from ..kube import KubeObject, ObjectSet
from ..sched.pods import object_uid
from .build import kubelet_of, live
from .pods import NumaOf, allocated_results, claim_names, claim_statuses, device_numa, kubelet_pod

Key = tuple[str, str]  # (namespace, name)


def kubelet_facts(built: Built) -> KubeletFacts | None:
    """None when no node of the plan has its kubelet described."""
    objects, problem, gates = built.objects, built.problem, built.gates
    names = dict.fromkeys(o.name for o in objects.of_kind("NodeTopology") if o.name in problem.nodes)
    if not names:
        return None
    nodes = {name: _node(objects, gates, name) for name in names}
    # The pods the plan writes out (each unit's), replacing the input's of the same name.
    planned = {u.id: built.pods[u.id] for u in problem.units} if built.pods else {}
    written = {(p.pod.namespace, p.pod.name) for p in planned.values()}
    numa_of = device_numa(objects)
    claims = _Claims(objects, built, numa_of)
    bound = []
    for obj in objects.of_kind("Pod"):
        if not live(obj) or (obj.namespace, obj.name) in written:
            continue
        node = _node_name(obj)
        kubelet = nodes.get(node)
        if kubelet is not None and kubelet.policy is not None:
            level = kubelet.policy.pod_level_resources
            bound.append(_pod(obj, gates, {level}, claim_statuses(obj.model), claims, node))
    levels = {k.policy.pod_level_resources for k in nodes.values() if k.policy is not None}
    units = {
        unit: _pod(p.pod, gates, levels, _statuses(p), claims, _node_name(p.pod), object_uid(p.pod))
        for unit, p in planned.items()
        if live(p.pod)
    }
    numa = {i: n for i, d in enumerate(problem.devices) if (n := numa_of.get((d.driver, d.pool, d.name)))}
    return KubeletFacts(nodes, tuple(bound), units, numa)


def _node(objects: ObjectSet, gates: FeatureGates, name: str) -> KubeletNode:
    try:
        return KubeletNode(*kubelet_of(objects, gates, name))
    except InputError as e:
        return KubeletNode(error=e)


def _node_name(obj: KubeObject) -> str:
    return obj.model.spec.node_name or ""  # type: ignore[attr-defined]


def _pod(
    obj: KubeObject,
    gates: FeatureGates,
    levels: Iterable[bool],
    statuses: Mapping[str, str | None],
    claims: _Claims,
    node: str,
    uid: str = "",
) -> KubeletPod:
    """`uid`: the one the plan writes the pod with (the API server's on create, when it has none)."""
    try:
        found = {level: kubelet_pod(obj, gates, level, True) for level in sorted(levels)}
    except InputError as e:
        return KubeletPod({}, error=e)
    if uid:
        found = {level: (replace(facts, uid=uid), uses) for level, (facts, uses) in found.items()}
    uses = next(iter(found.values()))[1] if found else ()
    named = tuple(
        (pod_claim, claims.find(obj.namespace, name)) for pod_claim, name in claim_names(obj.model, statuses)
    )
    return KubeletPod({level: facts for level, (facts, _) in found.items()}, uses, named, node)


def _statuses(pod: PodUnit) -> dict[str, str | None]:
    """status.resourceClaimStatuses as the plan writes the pod: the claims it generates for the pod, else
    as written."""
    generated = {c.pod_claim: c.name for c in pod.claims if c.generated and c.pod_claim and not c.extended}
    return dict(generated) or claim_statuses(pod.pod.model)


class _Claims:
    """ResourceClaims as the plan writes them out (the claims of its pods, replacing any the input holds
    by the same name), found as `kubefit admit` finds a pod's claim: the first of that name in the pod's
    namespace, the input's before the plan's."""

    def __init__(self, objects: ObjectSet, built: Built, numa_of: NumaOf) -> None:
        planned: dict[Key, ClaimState] = {}
        for unit in built.problem.units:
            for claim in unit.claims:
                source = built.claims[claim]
                key = _key(source)
                if key not in planned:
                    written = allocated_results(source.obj, numa_of) if source.obj is not None else ()
                    planned[key] = ClaimState(claim, written)
        self.by_name: dict[str, list[tuple[str, KubeObject | ClaimState]]] = {}
        for o in objects.of_kind("ResourceClaim"):
            if (o.namespace, o.name) not in planned:
                self.by_name.setdefault(o.name, []).append((o.namespace, o))
        for (namespace, name), state in planned.items():
            self.by_name.setdefault(name, []).append((namespace, state))
        self.numa_of = numa_of
        self.found: dict[Key, ClaimState | None] = {}

    def find(self, namespace: str, name: str) -> ClaimState | None:
        key = (namespace, name)
        if key not in self.found:
            self.found[key] = self._find(namespace, name)
        return self.found[key]

    def _find(self, namespace: str, name: str) -> ClaimState | None:
        for ns, claim in self.by_name.get(name, ()):
            if not namespace or ns == namespace:
                if isinstance(claim, ClaimState):
                    return claim
                return ClaimState(None, allocated_results(claim, self.numa_of))
        return None


def _key(source: ClaimSource) -> Key:
    return (
        (source.obj.namespace, source.obj.name) if source.obj is not None else (source.namespace, source.name)
    )
