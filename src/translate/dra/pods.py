"""Pending pods as allocation units: their claims (templates expanded as the resourceclaim
controller would), the order the scheduler takes them in, and the nodes they may use at all.

Generated claims are named `<pod>-<pod claim name>-<5 characters>`, like the
controller's generateName; the suffix is derived from the pod and claim names so
that the same input always gives the same names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...model.pod_shape import PodShape
from ...model.problem import Gang
from ..kube import KubeObject, ObjectSet
from ..sched.priority import Priorities
from .extended import Mapping as ExtendedMapping
from .extended import class_mapping, pod_extended
from .pod_resources import PODS, claim_references, pod_requests, pod_shape
from .workloads import expand

POD_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
# The characters the API server uses for generateName suffixes.
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


@dataclass
class ClaimSource:
    """A claim a pod uses: an existing ResourceClaim object, or one generated from a template."""

    namespace: str
    name: str
    spec: Any  # ResourceClaimSpec model
    obj: KubeObject | None = None
    template: str = ""  # the ResourceClaimTemplate it was generated from
    pod: KubeObject | None = None  # the owner of a generated claim
    pod_claim: str = ""  # the name of the claim in the pod (or pod group) spec
    pod_group: str = ""  # set when a PodGroup owns the generated claim
    # For the special claim of extended resources: which container resource each request serves.
    extended: list[ExtendedMapping] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def generated(self) -> bool:
        return self.obj is None


@dataclass
class PodUnit:
    pod: KubeObject
    claims: list[ClaimSource]
    nodes: list[str]
    excluded: dict[str, str] = field(default_factory=dict)
    error: str = ""
    gang: Gang | None = None
    requests: dict[str, int] = field(default_factory=dict)  # node resources, scheduler units
    claim_containers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # claim ref -> users
    shape: PodShape | None = None


def generated_name(pod: str, claim: str, namespace: str) -> str:
    prefix = f"{pod}-{claim}"
    if len(prefix) > 57:
        prefix = prefix[:57]
    digest = hashlib.sha256(f"{namespace}/{pod}/{claim}".encode()).digest()
    suffix = "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:5])
    return f"{prefix}-{suffix}"


def pending(pod: KubeObject, claim_allocated: dict[str, bool]) -> bool:
    """A pod the scheduler still has to place (or whose claims are not allocated yet)."""
    status = getattr(pod.model, "status", None)
    phase = status.phase if status is not None else None
    if phase in ("Succeeded", "Failed"):
        return False
    if not pod.model.spec.node_name:  # type: ignore[attr-defined]
        return True
    return any(not allocated for allocated in claim_allocated.values())


def _order_key(pod: KubeObject, priority: int) -> tuple[int, int, str]:
    """PrioritySort: priority first, then creation. A pod without a creationTimestamp is created by this
    apply, after every stored pod, and pods of one apply are created in input order (the sort is stable)."""
    created = pod.model.metadata.creation_timestamp  # type: ignore[attr-defined]
    return (-priority, created is None, created.isoformat() if created is not None else "")


class ClaimResolver:
    """Finds or generates the claims of pods, sharing generated PodGroup claims between members."""

    def __init__(self, objects: ObjectSet, group_claims: bool = True) -> None:
        self.objects = objects
        # DRAWorkloadResourceClaims (with GenericWorkload): pods may share their PodGroup's claims.
        self.group_claims = group_claims
        self.claims = {(o.namespace, o.name): o for o in objects.of_kind("ResourceClaim")}
        self.templates = {(o.namespace, o.name): o for o in objects.of_kind("ResourceClaimTemplate")}
        self.groups = {(o.namespace, o.name): o for o in objects.of_kind("PodGroup")}
        self.generated: dict[tuple[str, str], ClaimSource] = {}
        self.class_mapping = class_mapping(objects)
        self._owned: dict[tuple[str, str, str, str], str] | None = None
        # Claims a pod's status.resourceClaimStatuses named: the scheduler checks the pod owns them.
        self.status_named: set[tuple[str, str]] = set()

    def existing(self, namespace: str, name: str) -> ClaimSource | None:
        obj = self.claims.get((namespace, name))
        if obj is None:
            return None
        return ClaimSource(namespace, name, obj.model.spec, obj)  # type: ignore[attr-defined]

    def owned(self, pod: KubeObject, pod_claim: str) -> ClaimSource | None:
        """A claim the controller already generated for this pod (as `kubectl get` shows it)."""
        status = getattr(pod.model, "status", None)
        for entry in (status.resource_claim_statuses if status is not None else None) or ():
            if entry.name == pod_claim and entry.resource_claim_name:
                self.status_named.add((pod.namespace, entry.resource_claim_name))
                return self.existing(pod.namespace, entry.resource_claim_name)
        owners, uid = self._by_owner(), _uid(pod)
        # A claim generated for an earlier pod of the same name (another uid) is not this pod's.
        name = owners.get((pod.namespace, pod.name, uid or "", pod_claim))
        if name is None and uid:
            name = owners.get((pod.namespace, pod.name, "*", pod_claim))
        return self.existing(pod.namespace, name) if name is not None else None

    def _by_owner(self) -> dict[tuple[str, str, str, str], str]:
        """(namespace, owning pod, its uid, pod claim name) -> the generated claim's name, indexed once;
        also under uid "" (for a pod written without one), and "*" for an owner written without one."""
        if self._owned is None:
            self._owned = {}
            for (namespace, name), obj in self.claims.items():
                meta = obj.model.metadata  # type: ignore[attr-defined]
                pod_claim = (meta.annotations or {}).get(POD_CLAIM_ANNOTATION)
                if pod_claim is None:
                    continue
                for owner in meta.owner_references or ():
                    if owner.kind == "Pod":
                        self._owned.setdefault((namespace, owner.name, owner.uid or "*", pod_claim), name)
                        self._owned.setdefault((namespace, owner.name, "", pod_claim), name)
        return self._owned

    def from_template(
        self, pod: KubeObject, pod_claim: str, template: str, group: str = ""
    ) -> ClaimSource | str:
        owner = group or pod.name
        key = (pod.namespace, f"{owner}/{pod_claim}")
        if key in self.generated:
            return self.generated[key]
        tmpl = self.templates.get((pod.namespace, template))
        if tmpl is None:
            return f'resourceclaimtemplate "{template}" not found'
        name = generated_name(owner, pod_claim, pod.namespace)
        spec = tmpl.model.spec.spec  # type: ignore[attr-defined]
        source = ClaimSource(pod.namespace, name, spec, None, template, pod, pod_claim, group)
        self.generated[key] = source
        return source

    def resolve(self, pod: KubeObject, entry: Any, group: str = "") -> ClaimSource | str:
        if entry.resource_claim_name:
            found = self.existing(pod.namespace, entry.resource_claim_name)
            return found or f'resourceclaim "{entry.resource_claim_name}" not found'
        if entry.resource_claim_template_name:
            owned = (
                self.group_owned(pod.namespace, group, entry.name) if group else self.owned(pod, entry.name)
            )
            if owned is not None:
                return owned
            return self.from_template(pod, entry.name, entry.resource_claim_template_name, group)
        return f"pod claim {entry.name} names neither a ResourceClaim nor a template"

    def group_owned(self, namespace: str, group: str, claim: str) -> ClaimSource | None:
        """A claim the controller already generated for the PodGroup (its status names it)."""
        obj = self.groups.get((namespace, group))
        status = getattr(obj.model, "status", None) if obj is not None else None
        for entry in (getattr(status, "resource_claim_statuses", None) if status is not None else None) or ():
            if entry.name == claim and entry.resource_claim_name:
                return self.existing(namespace, entry.resource_claim_name)
        return None

    def _group_entry(self, pod: KubeObject, entry: Any) -> str:
        """The PodGroup whose claim this pod claim is: same name, same claim or template."""
        spec = pod.model.spec  # type: ignore[attr-defined]
        group_name = spec.scheduling_group.pod_group_name if spec.scheduling_group is not None else None
        group = self.groups.get((pod.namespace, group_name or "")) if self.group_claims else None
        if group is None:
            return ""
        for candidate in group.model.spec.resource_claims or ():  # type: ignore[attr-defined]
            if (
                candidate.name == entry.name
                and candidate.resource_claim_name == entry.resource_claim_name
                and candidate.resource_claim_template_name == entry.resource_claim_template_name
            ):
                return group.name
        return ""

    def extended_claim(self, pod: KubeObject) -> tuple[ClaimSource | None, list[str]]:
        """The special claim for extended resources backed by DRA, and the resources nothing backs."""
        spec, mappings, unbacked = pod_extended(pod, self.class_mapping)
        if spec is None:
            return None, unbacked
        name = generated_name(pod.name, "extended-resources", pod.namespace)
        source = ClaimSource(pod.namespace, name, spec, None, "", pod, "", "", mappings)
        return source, unbacked

    def pod_claims(self, pod: KubeObject) -> tuple[list[ClaimSource], str]:
        spec = pod.model.spec  # type: ignore[attr-defined]
        out: list[ClaimSource] = []
        for entry in spec.resource_claims or ():
            group = self._group_entry(pod, entry)
            resolved = self.resolve(pod, entry, group)
            if not isinstance(resolved, str):
                named = (resolved.namespace, resolved.name) in self.status_named
                resolved = _usable(
                    pod, resolved, bool(entry.resource_claim_template_name) and not group and named
                )
            if isinstance(resolved, str):
                return out, resolved
            out.append(resolved)
        return out, ""


def pod_units(
    objects: ObjectSet,
    resolver: ClaimResolver,
    node_names: Sequence[str],
    gangs: bool = True,
    pod_level: bool = True,
) -> list[PodUnit]:
    """Pending pods in scheduling order (PrioritySort: priority, then creation), with their claims; every
    node is a candidate (kube-scheduler's filters decide which fit)."""
    priorities = Priorities(objects)
    every = expand(objects)
    resolved = {id(p): priorities.of(p.model) for p in every}
    pods = sorted(every, key=lambda p: _order_key(p, resolved[id(p)].value))
    gang_of = _gangs(objects, pods) if gangs else {}
    units = []
    for pod in pods:
        claims, error = resolver.pod_claims(pod)
        allocated = {c.ref: bool(c.obj is not None and _is_allocated(c.obj)) for c in claims}
        if not pending(pod, allocated):
            continue
        extended, _ = resolver.extended_claim(pod)
        if extended is not None:
            claims.append(extended)
        if not error and resolved[id(pod)].error:
            error = f'pods "{pod.name}" is forbidden: {resolved[id(pod)].error}'
        # A gang short of its pods waits in GangScheduling's PreEnqueue, with upstream's message.
        gang = gang_of.get((pod.namespace, _group_name(pod)))
        backed = {m.resource for m in extended.extended} if extended is not None else set()
        own = pod_requests(pod.model, pod_level)
        requests = {r: v for r, v in own.items() if r not in backed}
        requests[PODS] = 1
        users = claim_references(pod.model)
        # The pod's claims come in the order of spec.resourceClaims, whose names the containers reference.
        entries = pod.model.spec.resource_claims or ()  # type: ignore[attr-defined]
        containers = {
            c.ref: tuple(users.get(entry.name, ()))
            for c, entry in zip(claims, entries, strict=False)
            if not c.extended
        }
        if extended is not None:
            containers[extended.ref] = tuple(dict.fromkeys(m.container for m in extended.extended))
        units.append(
            PodUnit(
                pod,
                claims,
                list(node_names),
                {},
                error,
                gang[0] if gang else None,
                requests,
                containers,
                pod_shape(pod.model, pod_level),
            )
        )
    return units


def _uid(obj: KubeObject) -> str:
    return getattr(obj.model.metadata, "uid", None) or ""  # type: ignore[attr-defined]


def _controlled_by(claim: KubeObject, pod: KubeObject) -> bool:
    """metav1.IsControlledBy: the pod is the claim's controller (by uid; by name when a uid is missing)."""
    uid = _uid(pod)
    for owner in claim.model.metadata.owner_references or ():  # type: ignore[attr-defined]
        if owner.controller and owner.kind == "Pod":
            if owner.uid and uid:
                if owner.uid == uid:
                    return True
            elif owner.name == pod.name:
                return True
    return False


def _usable(pod: KubeObject, source: ClaimSource, from_status: bool) -> ClaimSource | str:
    """foreachPodResourceClaim: the scheduler leaves a pod waiting while a claim it uses is being deleted,
    or when the claim its status names for a template is not the pod's own (resourceclaim.IsForPod)."""
    if source.obj is None:
        return source
    if source.obj.model.metadata.deletion_timestamp is not None:  # type: ignore[attr-defined]
        return f'resourceclaim "{source.name}" is being deleted'
    if from_status and not _controlled_by(source.obj, pod):
        owner = f"{pod.namespace}/{pod.name}"
        return f"ResourceClaim {source.ref} was not created for pod {owner} (pod is not owner)"
    return source


def _group_name(pod: KubeObject) -> str:
    group = pod.model.spec.scheduling_group  # type: ignore[attr-defined]
    return (group.pod_group_name or "") if group is not None else ""


def _gangs(objects: ObjectSet, pods: list[KubeObject]) -> dict[tuple[str, str], tuple[Gang, int]]:
    """Gang PodGroups (GangScheduling): their minimum, members already bound, and members in all."""
    out: dict[tuple[str, str], tuple[Gang, int]] = {}
    groups = objects.of_kind("PodGroup")
    if not groups:
        return out
    # Each pod's group found once (a pass over the pods per group is quadratic at 1,000 nodes).
    by_group: dict[tuple[str, str], list[KubeObject]] = {}
    for pod in pods:
        name = _group_name(pod)
        if name:
            by_group.setdefault((pod.namespace, name), []).append(pod)
    for group in groups:
        policy = group.model.spec.scheduling_policy  # type: ignore[attr-defined]
        gang = getattr(policy, "gang", None) if policy is not None else None
        if gang is None:
            continue
        members = by_group.get((group.namespace, group.name), [])
        bound = sum(1 for p in members if not pending(p, {}))
        key = (group.namespace, group.name)
        out[key] = (Gang(f"{group.namespace}/{group.name}", gang.min_count, bound), len(members))
    return out


def _is_allocated(obj: KubeObject) -> bool:
    status = getattr(obj.model, "status", None)
    return status is not None and status.allocation is not None
