"""Objects -> Problem: the one place that knows both Kubernetes objects and the facts engines read."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ...model import problem as facts
from ...model.errors import InputError, Problem
from ...model.explain_source import ClassMatch
from ...model.features import ALL_ON, FeatureGates
from ...model.pod_shape import PodShape
from ...model.problem import FEATURES, Claim, Gang, InUse, Node, NodeView, Unit
from ...model.quantity import QuantityError
from ..kube import ObjectSet
from ..sched.cluster import cluster_facts
from ..sched.config import configuration
from ..validation.run import cel_features
from .allocated import allocated_status
from .amounts import located
from .claims import build_claim
from .devices import DeviceTable, build_devices
from .explain_inputs import class_matcher, holders
from .field_facts import node_selector_terms
from .in_use import claim_holds, in_use
from .pod_resources import PODS, bound_usage, node_allocatable
from .pods import ClaimResolver, ClaimSource, PodUnit, pod_units
from .pools import gather
from .selectable import SelectorCache, derived_values, selectability


@dataclass
class Built:
    """The Problem plus what rendering its Solution needs (the engines never see this part)."""

    problem: facts.Problem
    objects: ObjectSet
    gates: FeatureGates
    table: DeviceTable
    claims: list[ClaimSource]  # by claim id
    pods: list[PodUnit] = field(default_factory=list)  # by unit id, in pod mode

    # What explain reads besides the Problem (model.explain_source.ExplainSource).
    def holders(self) -> dict[str, list[str]]:
        return holders(self.objects)

    def class_match(self) -> ClassMatch:
        return class_matcher(self.problem, self.objects, self.table, self.gates, self.claims)


@dataclass
class _Pending:
    """What becomes one Unit: claims allocated together, and where they may go."""

    name: str
    claims: list[ClaimSource]
    nodes: list[str]
    excluded: dict[str, str] = field(default_factory=dict)
    error: str = ""
    pod: str = ""
    gang: Gang | None = None
    requests: dict[str, int] = field(default_factory=dict)
    claim_containers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # claim ref -> users
    shape: PodShape | None = None


def features_of(gates: FeatureGates) -> frozenset[str]:
    return frozenset(f for f, needed in FEATURES.items() if all(gates.enabled(g) for g in needed))


def _nodes(objects: ObjectSet, only: str | None, pod_level: bool, dra: bool) -> dict[str, Node]:
    usage = bound_usage(objects, pod_level, dra)
    nodes = {}
    for obj in objects.of_kind("Node"):
        status = getattr(obj.model, "status", None)
        declared = frozenset((status.declared_features if status is not None else None) or ())
        labels = dict(obj.model.metadata.labels or {})  # type: ignore[attr-defined]
        nodes[obj.name] = Node(obj.name, labels, declared, node_allocatable(obj), usage.get(obj.name, {}))
    if only is not None and only not in nodes:
        nodes[only] = Node(only, {"kubernetes.io/hostname": only})
    return dict(sorted(nodes.items()))


def _find_claims(objects: ObjectSet, names: Sequence[str]) -> list[ClaimSource]:
    out = []
    problems: list[Problem] = []
    for name in names:
        namespace, sep, bare = name.rpartition("/")
        found = [
            o
            for o in objects.of_kind("ResourceClaim")
            if o.name == bare and (not sep or o.namespace == namespace)
        ]
        if len(found) != 1:
            why = (
                "not found"
                if not found
                else f"ambiguous ({', '.join(o.ref for o in found)}): name its namespace"
            )
            problems.append(Problem(f"--claims: resourceclaim {name} {why}"))
            continue
        obj = found[0]
        out.append(ClaimSource(obj.namespace, obj.name, obj.model.spec, obj))  # type: ignore[attr-defined]
    if problems:
        raise InputError(problems)
    return out


def _allocated(source: ClaimSource) -> bool:
    status = getattr(source.obj.model, "status", None) if source.obj is not None else None
    return status is not None and status.allocation is not None


def _in_use(objects: ObjectSet, consumable_capacity: bool) -> InUse:
    claims = objects.of_kind("ResourceClaim")
    try:
        return in_use([o.model for o in claims], consumable_capacity)
    except QuantityError as e:
        raise located(claims, e) from e


def build(
    objects: ObjectSet,
    gates: FeatureGates = ALL_ON,
    node: str | None = None,
    claim_names: Sequence[str] | None = None,
    seed: int | None = None,
    scheduler_name: str | None = None,
    now: float | None = None,
) -> Built:
    """The Problem for `allocate`: the named claims as one unit, else each pending pod, else the
    unallocated claims together; with kube-scheduler's view of the cluster (`seed`: reproduce
    upstream's random choice among equally scored nodes; `scheduler_name`: schedule every pod with
    that profile; `now`: the time binding timeouts are judged at, seconds since the epoch, default the
    clock's)."""
    features = features_of(gates)
    nodes = _nodes(objects, node, gates.enabled("PodLevelResources"), "NodeAllocatableResources" in features)
    node_names = [node] if node is not None else list(nodes)
    table = build_devices(
        objects,
        "DeviceTaintRules" in features,
        "DeviceTaints" in features,
        "NodeAllocatableResources" in features,
        node,
    )
    views: dict[str, NodeView] = {name: gather(nodes[name], table, features) for name in node_names}

    resolver = ClaimResolver(
        objects, gates.enabled("DRAWorkloadResourceClaims") and gates.enabled("GenericWorkload")
    )
    pods: list[PodUnit] = []
    pending_units: list[_Pending] = []
    if claim_names:
        named = _find_claims(objects, claim_names)
        pending_units.append(_Pending(", ".join(s.ref for s in named), named, node_names))
    else:
        gangs = gates.enabled("GangScheduling") and gates.enabled("GenericWorkload")
        pods = pod_units(objects, resolver, node_names, gangs, gates.enabled("PodLevelResources"))
        for unit in pods:
            pending_units.append(
                _Pending(
                    unit.pod.ref.split("/", 1)[1],
                    unit.claims,
                    unit.nodes,
                    unit.excluded,
                    unit.error,
                    f"{unit.pod.namespace}/{unit.pod.name}",
                    unit.gang,
                    unit.requests,
                    unit.claim_containers,
                    unit.shape,
                )
            )
        if not pods:
            loose = [
                ClaimSource(o.namespace, o.name, o.model.spec, o)  # type: ignore[attr-defined]
                for o in objects.of_kind("ResourceClaim")
            ]
            loose = [s for s in loose if not _allocated(s)]
            if loose:
                pending_units.append(_Pending(", ".join(s.ref for s in loose), loose, node_names))

    class_objs = {o.name: o for o in objects.of_kind("DeviceClass")}
    class_selectors = {
        name: [s.cel.expression for s in (o.model.spec.selectors or ()) if s.cel]  # type: ignore[attr-defined]
        for name, o in class_objs.items()
    }
    device_ids: dict[str, int] = {}
    for device in table.devices:
        device_ids.setdefault(device.ref, device.id)
    claim_ids: dict[str, int] = {}
    sources: list[ClaimSource] = []
    claims: list[Claim] = []
    units: list[Unit] = []
    for spec in pending_units:
        ids = []
        for source in spec.claims:
            if source.ref not in claim_ids:
                claim_ids[source.ref] = len(claims)
                sources.append(source)
                # Messages name a claim as the scheduler does: without a namespace when it has none.
                shown = source.obj.written_namespace if source.obj is not None else source.namespace
                try:
                    claim = build_claim(len(claims), shown, source.name, source.spec, class_objs)
                except QuantityError as e:
                    raise located([source.obj] if source.obj is not None else [], e) from e
                if _allocated(source):
                    allocation = source.obj.model.status.allocation  # type: ignore[union-attr]
                    claim = Claim(
                        claim.id,
                        claim.namespace,
                        claim.name,
                        claim.requests,
                        claim.constraints,
                        True,
                        node_selector_terms(allocation.node_selector),
                        status=allocated_status(source.obj.model, device_ids),  # type: ignore[union-attr]
                    )
                if source.pod_group:
                    claim = replace(claim, pod_group=True)
                claims.append(claim)
            ids.append(claim_ids[source.ref])
        units.append(
            Unit(
                len(units),
                spec.name,
                tuple(ids),
                tuple(spec.nodes),
                spec.excluded,
                spec.error,
                spec.pod,
                spec.gang,
                spec.requests,
                {claim_ids[ref]: users for ref, users in spec.claim_containers.items() if ref in claim_ids},
                spec.shape,
            )
        )

    candidates = {
        i for view in views.values() for pool in view.pools if pool.state == "complete" for i in pool.devices
    }
    pending = [c for c in claims if not c.allocated]
    cache = SelectorCache(cel_features(gates))
    selectable = selectability(
        pending,
        {c.id: sources[c.id].spec for c in pending},
        class_selectors,
        table.devices,
        table.inputs,
        candidates,
        cache,
    )
    derived = derived_values(pending, selectable, table.devices, table.inputs, cel_features(gates))
    cluster = cluster_facts(
        objects,
        gates,
        {i: unit.pod for i, unit in enumerate(pods)},
        {i: {r: v for r, v in unit.requests.items() if r != PODS} for i, unit in enumerate(pods)},
        node,
        seed,
        configuration(objects, gates),
        scheduler_name,
        {name: n.allocatable for name, n in nodes.items()},
    )
    problem = facts.Problem(
        nodes=nodes,
        devices=tuple(table.devices),
        views=views,
        claims=tuple(claims),
        units=tuple(units),
        in_use=_in_use(objects, "ConsumableCapacity" in features),
        selectable=selectable,
        derived=derived,
        features=features,
        cluster=cluster,
        holds=claim_holds(objects, table, "ConsumableCapacity" in features),
        now=time.time() if now is None else now,
    )
    return Built(problem, objects, gates, table, sources, pods)
