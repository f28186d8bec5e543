"""What kube-controller-manager's device taint eviction controller reads, as plain facts.

`kubefit.translate.dra.taint_eviction` builds them from Kubernetes objects. Devices are the
Problem's device facts (the newest generation of each pool, with only the taints their
ResourceSlices publish); DeviceTaintRules stay separate, because the controller matches them
against allocation results, not against published devices.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .problem import Device
from .terms import Taint, Toleration

NO_EXECUTE, NO_SCHEDULE, NONE = "NoExecute", "NoSchedule", "None"


@dataclass(frozen=True)
class RuleSelector:
    """spec.deviceSelector: each field that is set must equal the device's."""

    driver: str | None = None
    pool: str | None = None
    device: str | None = None

    def matches(self, driver: str, pool: str, device: str) -> bool:
        return (
            (self.driver is None or self.driver == driver)
            and (self.pool is None or self.pool == pool)
            and (self.device is None or self.device == device)
        )


@dataclass(frozen=True)
class TaintRule:
    name: str
    uid: str
    generation: int
    # None when spec.deviceSelector is not set: the controller then selects no device at all.
    selector: RuleSelector | None
    taint: Taint  # time_added: RFC 3339, the rule's creation when the input leaves it out, else ""

    def selects(self, driver: str, pool: str, device: str) -> bool:
        return self.selector is not None and self.selector.matches(driver, pool, device)


@dataclass(frozen=True)
class AllocatedDevice:
    """One result of an allocated claim, with the tolerations the allocator copied into it."""

    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool = False
    tolerations: tuple[Toleration, ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass(frozen=True)
class AllocatedClaim:
    namespace: str
    name: str
    results: tuple[AllocatedDevice, ...]
    reserved_for: tuple[tuple[str, str], ...] = ()  # (pod name, uid or "") of status.reservedFor

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"

    def reserved_for_pod(self, name: str, uid: str) -> bool:
        """The pod is a consumer (by uid, as the controller checks; by name where the input omits a uid)."""
        return any(n == name and (not u or not uid or u == uid) for n, u in self.reserved_for)


@dataclass(frozen=True)
class PodUse:
    """A pod and the allocated claims its spec references (generated ones found through its status)."""

    namespace: str
    name: str
    uid: str
    node: str  # spec.nodeName; "" for a pod not scheduled yet, which is never evicted
    claims: tuple[str, ...]  # claim names in the pod's namespace
    deleting: bool = False  # metadata.deletionTimestamp is set

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class EvictionFacts:
    # Devices of the newest generation of each pool, whatever node they are for, in slice order.
    published: tuple[Device, ...]
    rules: tuple[TaintRule, ...]  # by name
    claims: dict[str, AllocatedClaim]  # allocated claims by namespace/name
    pods: tuple[PodUse, ...]  # by namespace/name
    taints_enabled: bool = True  # DRADeviceTaints: without it the controller does not run
    rules_enabled: bool = True  # DRADeviceTaintRules: without it the controller ignores every rule
    _by_name: dict[tuple[str, str, str], Device] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[tuple[str, str, str], Device] = {}
        for d in self.published:
            index.setdefault((d.driver, d.pool, d.name), d)
        object.__setattr__(self, "_by_name", index)

    def device(self, driver: str, pool: str, name: str) -> Device | None:
        """A published device; where a pool repeats a name, the first one (the controller takes any)."""
        return self._by_name.get((driver, pool, name))
