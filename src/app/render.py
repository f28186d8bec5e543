"""Solutions as ordinary Kubernetes objects: ResourceClaims with status.allocation, Pods with
spec.nodeName, and FailedScheduling Events for what could not be placed.

Results, configs and the node selector are assembled the way the allocator
assembles them (class configs first, each class once; then the claim configs that
concern an allocated request; a config covering every request loses its list).
Share IDs are derived from the claim and result, so the same input gives the same output.
"""

from __future__ import annotations

import copy
import hashlib
import uuid
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any

from ..model.node_selector import for_allocation
from ..model.quantity.amounts import quantity_text
from ..model.solution import ClaimAllocation, DeviceResult, Solution, Status, UnitOutcome
from ..model.terms import NodeSelectorTerm, Toleration
from ..solver.node_fit import claim_amounts
from ..solver.result_annotations import PREEMPTED_BY, SchedulerAnnotations, annotate, group_status
from ..translate.dra.build import Built
from ..translate.dra.extended import EXTENDED_CLAIM_ANNOTATION
from ..translate.dra.pods import POD_CLAIM_ANNOTATION, ClaimSource
from .render_groups import group_objects
from .written import dump, uid_of


def selector_dict(terms: Sequence[NodeSelectorTerm]) -> dict[str, Any]:
    def reqs(items: Sequence[Any]) -> list[dict[str, Any]]:
        return [
            {"key": r.key, "operator": r.operator, **({"values": list(r.values)} if r.values else {})}
            for r in items
        ]

    out = []
    for term in terms:
        entry: dict[str, Any] = {}
        if term.match_expressions:
            entry["matchExpressions"] = reqs(term.match_expressions)
        if term.match_fields:
            entry["matchFields"] = reqs(term.match_fields)
        out.append(entry)
    return {"nodeSelectorTerms": out}


def toleration_dict(t: Toleration) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if t.key:
        out["key"] = t.key
    out["operator"] = t.operator
    if t.value:
        out["value"] = t.value
    if t.effect:
        out["effect"] = t.effect
    if t.toleration_seconds is not None:
        out["tolerationSeconds"] = t.toleration_seconds
    return out


def share_id(claim: ClaimSource, index: int) -> str:
    digest = hashlib.sha256(f"{claim.ref}#{index}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


class Renderer:
    def __init__(self, built: Built, solution: Solution, messages: Mapping[int, str] | None = None) -> None:
        self.built = built
        self.problem = built.problem
        self.solution = solution
        self.messages = messages or {}  # unit id -> explain's summary, after the engine's message
        self.on = self.problem.features.__contains__
        self.annotations = SchedulerAnnotations()

    @cached_property
    def classes(self) -> dict[str, Any]:
        return {o.name: o for o in self.built.objects.of_kind("DeviceClass")}

    @cached_property
    def placed(self) -> dict[int, tuple[ClaimAllocation, UnitOutcome]]:
        """Claim id -> its allocation and the unit that made it (the first unit that allocated the claim)."""
        out: dict[int, tuple[ClaimAllocation, UnitOutcome]] = {}
        for outcome in self.solution.units:
            for allocation in outcome.allocations:
                out.setdefault(allocation.claim, (allocation, outcome))
        return out

    @cached_property
    def claim_users(self) -> dict[int, list[Any]]:
        """Claim id -> the pods placed with it, in the units' order."""
        out: dict[int, list[Any]] = {}
        for unit, pod_unit in zip(self.problem.units, self.built.pods, strict=False):
            if self.solution.units[unit.id].status == Status.ALLOCATED:
                for claim_id in dict.fromkeys(unit.claims):
                    out.setdefault(claim_id, []).append(pod_unit.pod)
        return out

    def allocation_of(self, claim_id: int) -> ClaimAllocation | None:
        found = self.placed.get(claim_id)
        return found[0] if found is not None else None

    # --- results -------------------------------------------------------------------------------------

    def result(self, claim: ClaimSource, index: int, r: DeviceResult) -> dict[str, Any]:
        device = self.problem.devices[r.device]
        slot = self.problem.slot(r.slot)
        out: dict[str, Any] = {
            "request": r.request,
            "driver": device.driver,
            "pool": device.pool,
            "device": device.name,
        }
        if r.admin_access:
            out["adminAccess"] = True
        if slot.tolerations:
            out["tolerations"] = [toleration_dict(t) for t in slot.tolerations]
        if r.shared:
            out["shareID"] = share_id(claim, index)
            if r.consumed_capacity:
                texts = self.built.table.inputs[r.device].capacity
                out["consumedCapacity"] = {
                    name: quantity_text(value, texts.get(name))
                    for name, value in sorted(r.consumed_capacity.items())
                }
        if self.on("DeviceBindingAndStatus"):
            if device.binding_conditions:
                out["bindingConditions"] = list(device.binding_conditions)
            if device.binding_failure_conditions:
                out["bindingFailureConditions"] = list(device.binding_failure_conditions)
        if device.skip_node_operations and self.on("OptionalNodeOperations"):
            out["skipNodeOperations"] = list(device.skip_node_operations)
        return out

    def configs(self, claim: ClaimSource, allocation: ClaimAllocation) -> list[dict[str, Any]]:
        spec = claim.spec
        requests = spec.devices.requests or []
        claim_fact = self.problem.claims[allocation.claim]
        classes = self.classes
        out: list[dict[str, Any]] = []
        placed: dict[str, tuple[int, int]] = {}
        chosen_names: list[str] = []
        for ri, request in enumerate(claim_fact.requests):
            slot = request.slots[allocation.chosen.get(ri, 0)]
            chosen_names.append(slot.result_name)
            class_obj = classes.get(slot.device_class)
            if class_obj is None:
                continue
            span = placed.get(slot.device_class)
            if span is not None:
                for i in range(*span):
                    out[i]["requests"].append(slot.result_name)
                continue
            start = len(out)
            for config in class_obj.model.spec.config or ():
                out.append({"source": "FromClass", "requests": [slot.result_name], **_config_body(config)})
            placed[slot.device_class] = (start, len(out))
        for config in spec.devices.config or ():
            names = list(config.requests or ())
            body = {"source": "FromClaim", **({"requests": names} if names else {}), **_config_body(config)}
            if not names:
                out.append(body)
                continue
            for ri, request in enumerate(requests):
                if request.name in names or (request.first_available and chosen_names[ri] in names):
                    out.append(body)
                    break
        top = [r.name for r in requests]
        for entry in out:
            listed: list[str] = entry.get("requests") or []
            if listed and all(top[i] in listed or chosen_names[i] in listed for i in range(len(top))):
                del entry["requests"]
        return out

    # --- objects -------------------------------------------------------------------------------------

    def claim_object(self, claim_id: int) -> dict[str, Any]:
        source = self.built.claims[claim_id]
        doc = dump(source.obj.model) if source.obj is not None else self.generated(source)
        found = self.placed.get(claim_id)
        allocation = None
        if found is not None:
            allocation, outcome = found
            status = doc.setdefault("status", {})
            devices = [self.problem.devices[r.device] for r in allocation.results]
            entry: dict[str, Any] = {
                "devices": {"results": [self.result(source, i, r) for i, r in enumerate(allocation.results)]}
            }
            config = self.configs(source, allocation)
            if config:
                entry["devices"]["config"] = config
            terms = for_allocation(devices, allocation.node)
            if terms is not None:
                entry["nodeSelector"] = selector_dict(terms)
            status["allocation"] = entry
            annotate(doc, outcome)
        users = self.users(claim_id)
        if users and (allocation is not None or self.problem.claims[claim_id].allocated):
            reserved = doc.setdefault("status", {}).setdefault("reservedFor", [])
            for ref in self.consumers(source, users):
                if not any(
                    r.get("name") == ref["name"] and r.get("resource") == ref["resource"] for r in reserved
                ):
                    reserved.append(ref)
        return doc

    def consumers(self, source: ClaimSource, users: list[Any]) -> list[dict[str, Any]]:
        """reservedFor entries: a PodGroup's claim is reserved for the group, any other for its pods."""
        if source.pod_group:
            group = self.built.objects.get("PodGroup", source.pod_group, source.namespace)
            uid = uid_of(group) if group is not None else ""
            ref = {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": source.pod_group}
            return [{**ref, **({"uid": uid} if uid else {})}]
        out = []
        for pod in users:
            ref = {"resource": "pods", "name": pod.name, "uid": uid_of(pod)}
            out.append({k: v for k, v in ref.items() if v})
        return out

    def generated(self, source: ClaimSource) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "name": source.name,
            "namespace": source.namespace,
            "annotations": {POD_CLAIM_ANNOTATION: source.pod_claim},
        }
        if source.pod is not None and not source.pod_group:
            pod_meta = source.pod.model.metadata  # type: ignore[attr-defined]
            meta["ownerReferences"] = [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": pod_meta.name,
                    "uid": uid_of(source.pod),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ]
        elif source.pod_group:
            group = self.built.objects.get("PodGroup", source.pod_group, source.namespace)
            meta["ownerReferences"] = [
                {
                    "apiVersion": group.written_api_version
                    if group is not None
                    else "scheduling.k8s.io/v1beta1",
                    "kind": "PodGroup",
                    "name": source.pod_group,
                    "uid": uid_of(group) if group is not None else "",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ]
        if source.extended:
            # The scheduler's special claim carries this marker instead of a pod claim name.
            meta["annotations"] = {EXTENDED_CLAIM_ANNOTATION: "true"}
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": meta,
            "spec": dump(source.spec),
        }

    def users(self, claim_id: int) -> list[Any]:
        return self.claim_users.get(claim_id, [])

    def pod_object(self, unit_id: int) -> dict[str, Any]:
        pod_unit = self.built.pods[unit_id]
        outcome = self.solution.units[unit_id]
        doc = copy.deepcopy(dump(pod_unit.pod.model))
        doc.setdefault("metadata", {})["uid"] = uid_of(pod_unit.pod)
        if outcome.status == Status.ALLOCATED and outcome.node:
            doc.setdefault("spec", {})["nodeName"] = outcome.node
        claim_statuses = [
            {"name": c.pod_claim, "resourceClaimName": c.name}
            for c in pod_unit.claims
            if c.generated and c.pod_claim and not c.extended
        ]
        status: dict[str, Any] = {}
        if claim_statuses:
            status["resourceClaimStatuses"] = claim_statuses
        mapped = self.node_allocatable_statuses(unit_id)
        if mapped:
            status["nodeAllocatableResourceClaimStatuses"] = mapped
        extended = next((c for c in pod_unit.claims if c.extended), None)
        if extended is not None and outcome.status == Status.ALLOCATED:
            status["extendedResourceClaimStatus"] = {
                "resourceClaimName": extended.name,
                "requestMappings": [
                    {"containerName": m.container, "resourceName": m.resource, "requestName": m.request}
                    for m in extended.extended
                ],
            }
        record = outcome.record
        if record is not None and record.nominated and outcome.status != Status.ALLOCATED:
            status["nominatedNodeName"] = record.nominated
        if record is not None and record.gated and record.gated_by in ("", "SchedulingGates"):
            # Held out of the queue: no scheduling attempt, no FailedScheduling event.
            gated = {
                "type": "PodScheduled",
                "status": "False",
                "reason": "SchedulingGated",
                "message": outcome.message,
            }
            status["conditions"] = [*(doc.get("status") or {}).get("conditions", []), gated]
        if status:
            doc.setdefault("status", {}).update(status)
        annotate(doc, outcome)
        self.annotations.write(doc, outcome)
        return doc

    def node_allocatable_statuses(self, unit_id: int) -> list[dict[str, Any]]:
        """What each allocated claim of the pod charges to node resources (DRANodeAllocatableResources)."""
        unit = self.problem.units[unit_id]
        out = []
        for claim_id in unit.claims:
            allocation = self.allocation_of(claim_id)
            if allocation is None:
                continue
            containers = unit.claim_containers.get(claim_id, ())
            amounts = claim_amounts(self.problem, allocation, len(containers))
            if not amounts:
                continue
            entry: dict[str, Any] = {"resourceClaimName": self.problem.claims[claim_id].name}
            if containers:
                entry["containers"] = list(containers)
            mapping = [
                {"name": name, "quantity": quantity_text(a["mapping"], None)}
                for name, a in sorted(amounts.items())
                if a.get("mapping")
            ]
            overhead = [
                {
                    "name": name,
                    **({"perPod": quantity_text(a["perPod"], None)} if a.get("perPod") else {}),
                    **(
                        {"perContainer": quantity_text(a["perContainer"], None)}
                        if a.get("perContainer")
                        else {}
                    ),
                }
                for name, a in sorted(amounts.items())
                if a.get("perPod") or a.get("perContainer")
            ]
            if mapping:
                entry["mapping"] = mapping
            if overhead:
                entry["overhead"] = overhead
            out.append(entry)
        return out

    def group_objects(self) -> list[dict[str, Any]]:
        return group_objects(self.built, self.problem, self.solution)

    def event(self, outcome: UnitOutcome) -> dict[str, Any]:
        unit = self.problem.units[outcome.unit]
        if unit.pod:
            namespace, name = unit.pod.split("/", 1)
            involved = {"apiVersion": "v1", "kind": "Pod", "namespace": namespace, "name": name}
        else:
            first = self.problem.claims[unit.claims[0]] if unit.claims else None
            namespace = first.namespace if first is not None else ""
            involved = {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "namespace": namespace,
                "name": first.name if first is not None else "",
            }
        summary = None if group_status(outcome) else self.messages.get(outcome.unit)
        message = with_summary(outcome.message, summary)
        if outcome.status == Status.ERROR and outcome.error_plugin:
            message = f'running PreFilter/Filter plugin "{outcome.error_plugin}": {message}'
        digest = hashlib.sha256(f"{unit.name}/{outcome.unit}".encode()).hexdigest()[:16]
        doc = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{involved['name']}.{digest}", "namespace": namespace or "default"},
            "involvedObject": {k: v for k, v in involved.items() if v},
            "reason": "FailedScheduling",
            "type": "Warning",
            "message": message,
            "source": {"component": "kubefit"},
        }
        annotate(doc, outcome)
        return doc

    def items(self) -> Iterator[dict[str, Any]]:
        """The List's items in order, each made when asked for (a writer never holds them all)."""
        seen: set[int] = set()
        for unit in self.problem.units:
            for c in unit.claims:
                if c not in seen:
                    seen.add(c)
                    yield self.claim_object(c)
        if self.built.pods:
            yield from self.group_objects()
            for u in self.problem.units:
                yield self.pod_object(u.id)
        yield from self.evicted()
        for o in self.solution.units:
            if o.status != Status.ALLOCATED and not (o.record is not None and o.record.gated):
                yield self.event(o)

    def evicted(self) -> list[dict[str, Any]]:
        """Pods preempted to make room, as the scheduler leaves them (the DisruptionTarget condition; deleted
        next), each with its `Preempted` Event."""
        from ..solver.cluster.preemption.events import victim_events

        pods = {(o.namespace, o.name): o for o in self.built.objects.of_kind("Pod")}
        pods.update({(u.pod.namespace, u.pod.name): u.pod for u in self.built.pods})
        out: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        for eviction in self.solution.evictions:
            group_uid = eviction.group_uid if eviction.group else None
            node = "cluster" if eviction.group else eviction.node
            for entry in victim_events(eviction.preemptor, node, [eviction.victim], group_uid):
                victim = entry.victim
                obj = pods.get((victim.namespace, victim.name))
                if obj is not None:
                    doc = copy.deepcopy(dump(obj.model))
                    doc.setdefault("metadata", {})["uid"] = uid_of(obj)
                    by = eviction.group or eviction.preemptor.key
                    doc["metadata"].setdefault("annotations", {})[PREEMPTED_BY] = by
                    doc.setdefault("spec", {})["nodeName"] = eviction.node
                    condition = {
                        "type": entry.condition.type,
                        "status": entry.condition.status,
                        "reason": entry.condition.reason,
                        "message": entry.condition.message,
                    }
                    doc.setdefault("status", {}).setdefault("conditions", []).append(condition)
                    out.append(doc)
                event = entry.event
                digest = hashlib.sha256(f"{victim.key}/preempted".encode()).hexdigest()[:16]
                events.append(
                    {
                        "apiVersion": "v1",
                        "kind": "Event",
                        "metadata": {"name": f"{victim.name}.{digest}", "namespace": victim.namespace},
                        "involvedObject": {
                            "apiVersion": "v1",
                            "kind": "Pod",
                            "namespace": victim.namespace,
                            "name": victim.name,
                            "uid": victim.uid,
                        },
                        "related": {
                            "apiVersion": "v1",
                            "kind": "Pod",
                            "namespace": event.related.namespace,
                            "name": event.related.name,
                            "uid": event.related.uid,
                        },
                        "reason": event.reason,
                        "action": event.action,
                        "type": event.type,
                        "message": event.note,
                        "source": {"component": eviction.scheduler},
                    }
                )
        return out + events


def with_summary(message: str, summary: str | None) -> str:
    """The scheduler's own message first (what a Kubernetes user recognises), then explain's summary."""
    if not summary:
        return message
    # Node filters (affinity, taints, NodeResourcesFit) already read the same in both: say them once.
    _, _, reasons = summary.partition(": ")
    phrases = [p.strip().split(" ", 1)[-1] for p in reasons.rstrip(".").split(", ") if p.strip()]
    if summary == message or (reasons and reasons in message):
        return message
    if phrases and all(p in message for p in phrases):
        return message
    return f"{message} {summary}" if message else summary


def _config_body(config: Any) -> dict[str, Any]:
    body = dump(config)
    body.pop("requests", None)
    return body


def render_list(
    built: Built, solution: Solution, messages: Mapping[int, str] | None = None, lazy: bool = False
) -> dict[str, Any]:
    """A v1 List of the claims (with status.allocation), pods and FailedScheduling events (`messages`:
    explain's summaries by unit id, appended to the engine's messages); `lazy`: items as an iterator."""
    items = Renderer(built, solution, messages).items()
    return {"apiVersion": "v1", "kind": "List", "items": items if lazy else list(items)}
