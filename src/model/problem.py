"""The Problem: plain, immutable facts every engine consumes.

`kubefit.translate` builds it from Kubernetes objects; engines never see YAML or
CEL. Everything that needs no search is already decided here: which devices a
node can reach and in which first-fit order, which pools are complete, which
device a request's selectors accept (or the CEL error the scheduler would hit),
what is already in use. Identifiers are stable indices into the tuples.

Vocabulary (as in the structured allocator):
- a *unit* is what the scheduler allocates in one go: the claims of one pod;
- a *request slot* is a request, or one subrequest of a `firstAvailable` request;
- a device is *selectable* for a slot when the class and request selectors accept it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from .terms import NodeSelectorTerm, Taint, Toleration

if TYPE_CHECKING:
    from .claim_holds import ClaimHold
    from .claim_status import AllocatedStatus
    from .cluster.facts import Cluster
    from .pod_shape import PodShape

# --- attribute values --------------------------------------------------------------------------------

AttrKind = Literal["int", "bool", "string", "version"]


@dataclass(frozen=True)
class AttrValue:
    """A device attribute: a scalar or (DRAListTypeAttributes) a list of one kind.

    `values` holds ints, bools or strings (versions as their text). An attribute
    without any value has kind None; it never satisfies a constraint.
    """

    kind: AttrKind | None
    values: tuple[int | bool | str, ...]
    is_list: bool = False


# --- devices -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CapacityPolicy:
    default: Fraction | None = None
    valid_values: tuple[Fraction, ...] | None = None
    min: Fraction | None = None
    max: Fraction | None = None
    step: Fraction | None = None

    @property
    def has_range(self) -> bool:
        return self.min is not None


@dataclass(frozen=True)
class Capacity:
    value: Fraction
    policy: CapacityPolicy | None = None


@dataclass(frozen=True)
class CounterUse:
    """What a device draws from one counter set of its pool."""

    counter_set: str
    counters: Mapping[str, Fraction]
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Placement:
    """Which nodes a device is usable from: one node, every node, or a node selector."""

    node_name: str = ""
    all_nodes: bool = False
    selector: tuple[NodeSelectorTerm, ...] | None = None


@dataclass(frozen=True)
class NodeAllocatable:
    """How allocating the device charges one node-allocatable resource (DRANodeAllocatableResources):
    `consumedCapacity[capacity_key] * capacity_multiplier`, or `device_multiplier` per device, plus
    overhead once per pod and once per container that uses the claim. Amounts are in the resource's
    units (cpu in cores)."""

    resource: str
    capacity_key: str = ""
    capacity_multiplier: Fraction = Fraction(1)
    device_multiplier: Fraction = Fraction(0)
    per_pod: Fraction = Fraction(0)
    per_container: Fraction = Fraction(0)


@dataclass(frozen=True)
class Device:
    id: int
    driver: str
    pool: str
    name: str
    slice: str
    generation: int
    attributes: Mapping[str, AttrValue]  # keyed as published: "model" or "domain/model"
    capacity: Mapping[str, Capacity]  # keyed as published
    consumes: tuple[CounterUse, ...] = ()
    taints: tuple[Taint, ...] = ()
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    binds_to_node: bool = False
    allow_multiple_allocations: bool = False
    placement: Placement = field(default_factory=Placement)
    per_device_node_selection: bool = False
    skip_node_operations: tuple[str, ...] = ()
    node_allocatable: tuple[NodeAllocatable, ...] = ()

    @cached_property
    def ref(self) -> str:
        """`driver/pool/device`, as the allocator's messages name a device (asked of every device by
        each search and explanation: made once)."""
        return f"{self.driver}/{self.pool}/{self.name}"

    def lookup_attribute(self, qualified: str) -> AttrValue | None:
        """By fully-qualified name; a bare name counts under the device's own driver domain."""
        if qualified in self.attributes:
            return self.attributes[qualified]
        domain, sep, ident = qualified.partition("/")
        if sep and domain == self.driver:
            return self.attributes.get(ident)
        return None


# --- pools and what each node sees ---------------------------------------------------------------------


PoolState = Literal["complete", "incomplete", "invalid"]


def consumption(device: Device) -> dict[str, dict[str, Fraction]]:
    """What one charge of the device draws: counter set -> counter -> amount."""
    out: dict[str, dict[str, Fraction]] = {}
    for use in device.consumes:
        counters = out.setdefault(use.counter_set, {})
        for counter, value in use.counters.items():
            counters[counter] = counters.get(counter, Fraction(0)) + value
    return out


@dataclass(frozen=True)
class PoolView:
    """A pool as one node's allocator sees it (GatherPools): the generation it settled on, whether
    it is usable, its devices in search order, and what decides its counters."""

    driver: str
    pool: str
    state: PoolState
    generation: int = 0
    reason: str = ""  # why the pool is invalid
    devices: tuple[int, ...] = ()  # devices of slices targeting the node, in search order
    counter_sets: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    # Devices of the generation (targeting this node or not) whose allocation draws on the counters.
    counter_devices: tuple[int, ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.driver}/{self.pool}"


@dataclass(frozen=True)
class NodeView:
    """What one node can use, in first-fit order (pools by driver then name, binding-condition pools last).

    Pools that were dropped (an obsolete generation, or nothing relevant) do not appear.
    """

    node: str
    pools: tuple[PoolView, ...]
    # Devices of per-device-node-selection slices that this node cannot use.
    unreachable: frozenset[int] = frozenset()
    error: str = ""  # node selection failed (a broken node selector): every allocation here fails


@dataclass(frozen=True)
class Node:
    name: str
    labels: Mapping[str, str]
    declared_features: frozenset[str] = frozenset()
    # Node-allocatable resources (cpu in millicores, others in units); None when not published, and
    # then not checked. `requested` is what pods already bound to the node take, `pods` included.
    allocatable: Mapping[str, int] | None = None
    requested: Mapping[str, int] = field(default_factory=dict)


# --- what is already allocated ---------------------------------------------------------------------------


@dataclass(frozen=True)
class InUse:
    """Derived from claims that already have status.allocation (admin-access results ignored).

    Devices are named by `driver/pool/device` (Device.ref), as the allocator identifies them:
    the same device name in another generation of its pool is the same device. A scheduling run's
    searches read its growing state through one (`DraContext.in_use`), never while it changes.
    """

    exclusive: AbstractSet[str] = frozenset()
    # device -> capacity already consumed by its shares, keyed by fully-qualified capacity name
    shared_capacity: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    shared: AbstractSet[str] = frozenset()  # devices with at least one live share

    def allocated(self, device: str) -> bool:
        """Counts toward counters (each device once, however many shares it has)."""
        return device in self.exclusive or device in self.shared or device in self.shared_capacity


# --- claims ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DerivedAttribute:
    name: str
    expression: str


@dataclass(frozen=True)
class Slot:
    """A request, or one subrequest of a firstAvailable request."""

    name: str  # the request's or the subrequest's own name
    parent: str = ""  # the firstAvailable request's name, for subrequests
    device_class: str = ""  # "" when missing
    class_exists: bool = True
    mode: str = "ExactCount"
    count: int = 1
    admin_access: bool | None = None  # None: the field is not set at all
    tolerations: tuple[Toleration, ...] = ()
    capacity_requests: Mapping[str, Fraction] | None = None  # names as the claim wrote them
    selectors_without_cel: int = -1  # index of the first selector without CEL, -1 if none
    derived: tuple[DerivedAttribute, ...] = ()

    @property
    def result_name(self) -> str:
        """`req` or `req/sub`, as results and configs name the slot."""
        return f"{self.parent}/{self.name}" if self.parent else self.name

    def key(self) -> tuple[object, ...]:
        """The slot as a hashable value, for memos keyed on a claim's shape (capacity requests as pairs
        in name order)."""
        requests = self.capacity_requests
        return (
            self.name,
            self.parent,
            self.device_class,
            self.class_exists,
            self.mode,
            self.count,
            self.admin_access,
            self.tolerations,
            tuple(sorted(requests.items())) if requests is not None else None,
            self.selectors_without_cel,
            self.derived,
        )


@dataclass(frozen=True)
class Request:
    name: str
    slots: tuple[Slot, ...]  # one for an exact request, one per subrequest otherwise
    first_available: bool = False


@dataclass(frozen=True)
class Constraint:
    kind: Literal["match", "distinct", "invalid"]
    attribute: str = ""
    requests: tuple[str, ...] = ()  # empty: every request of the claim

    def applies_to(self, slot: Slot) -> bool:
        if not self.requests:
            return True
        if slot.parent:
            return slot.parent in self.requests or slot.result_name in self.requests
        return slot.name in self.requests


@dataclass(frozen=True)
class Claim:
    id: int
    namespace: str
    name: str
    requests: tuple[Request, ...]
    constraints: tuple[Constraint, ...] = ()
    # Already allocated in the input: not allocated again, but a pod using it must go where it is.
    allocated: bool = False
    allocated_selector: tuple[NodeSelectorTerm, ...] | None = None
    pod_group: bool = False  # a PodGroup's claim: reserved for the group, not for its pods
    status: AllocatedStatus | None = None  # an allocated claim's devices and binding state

    @property
    def ref(self) -> str:
        """`namespace/name`, as klog.KObj prints a claim."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def key(self) -> str:
        """`namespace/name` with the namespace an unnamespaced claim was stored in."""
        return f"{self.namespace or 'default'}/{self.name}"


SlotKey = tuple[int, int, int]  # (claim id, request index, subrequest index; 0 for exact requests)

# The outcome of the class and request selectors for one slot and device: True, False, or the
# error message the scheduler would return when it evaluates them.
Selectable = bool | str


class SelectableTable(Mapping[tuple[SlotKey, int], Selectable]):
    """(slot, device) -> Selectable, stored once per distinct selector set: the claims a template
    generates, or any requests with the same class and selectors, share one column of outcomes.
    A request selector's error names its claim, so that part is worded on lookup."""

    def __init__(self) -> None:
        self.columns: list[dict[int, Selectable | tuple[str]]] = []
        self.slots: dict[SlotKey, tuple[int, str]] = {}  # slot -> (column, claim ref)

    def column(self, outcomes: dict[int, Selectable | tuple[str]]) -> int:
        self.columns.append(outcomes)
        return len(self.columns) - 1

    def bind(self, key: SlotKey, column: int, claim_ref: str) -> None:
        self.slots[key] = (column, claim_ref)

    def column_of(self, key: SlotKey) -> dict[int, Selectable | tuple[str]]:
        """The slot's outcomes as stored: a request selector's error is a 1-tuple (see `_word`)."""
        bound = self.slots.get(key)
        return self.columns[bound[0]] if bound is not None else {}

    @staticmethod
    def _word(value: Selectable | tuple[str], claim_ref: str) -> Selectable:
        # A 1-tuple is a request selector's error without its "claim <ref>" prefix.
        return f"claim {claim_ref}: {value[0]}" if isinstance(value, tuple) else value

    def __getitem__(self, item: tuple[SlotKey, int]) -> Selectable:
        key, d = item
        column, ref = self.slots[key]
        return self._word(self.columns[column][d], ref)

    def __iter__(self) -> Iterator[tuple[SlotKey, int]]:
        for key, (column, _) in self.slots.items():
            for d in self.columns[column]:
                yield key, d

    def __len__(self) -> int:
        return sum(len(self.columns[column]) for column, _ in self.slots.values())

    def of_slot(self, key: SlotKey) -> Iterator[tuple[int, Selectable]]:
        """The devices listed for one slot, with their outcomes."""
        entry = self.slots.get(key)
        if entry is None:
            return
        column, ref = entry
        for d, value in self.columns[column].items():
            yield d, self._word(value, ref)


@dataclass(frozen=True)
class Unit:
    """Claims allocated together (one pod's claims), in the order the scheduler processes them."""

    id: int
    name: str  # `namespace/pod`, or the claims' names when given with --claims
    claims: tuple[int, ...]
    nodes: tuple[str, ...]  # nodes to try, in order
    # Nodes the pod cannot go to before DRA is even considered, and why (node affinity, taints, ...).
    excluded: Mapping[str, str] = field(default_factory=dict)
    error: str = ""  # the unit cannot be scheduled at all (a missing claim or template)
    pod: str = ""  # `namespace/name` of the pod, if the unit is a pod
    gang: Gang | None = None  # the gang-scheduled PodGroup the pod belongs to
    # What the pod takes of the node's allocatable resources besides its claims (`pods` included);
    # empty for a pod already bound, whose requests the node's `requested` counts.
    requests: Mapping[str, int] = field(default_factory=dict)
    # Claim id -> the containers that use it (node-allocatable overhead is charged per container).
    claim_containers: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    shape: PodShape | None = None  # the pod's containers, for what devices charge to node resources


@dataclass(frozen=True)
class Gang:
    """A PodGroup with a gang policy: its pods bind only if at least `min_count` of them can."""

    name: str  # `namespace/name`
    min_count: int
    bound: int  # members already running on nodes


@dataclass(frozen=True)
class Problem:
    nodes: Mapping[str, Node]
    devices: tuple[Device, ...]
    views: Mapping[str, NodeView]
    claims: tuple[Claim, ...]
    units: tuple[Unit, ...]
    in_use: InUse
    # (slot key, device id) -> selectable; pairs never listed were never reachable by the slot.
    selectable: Mapping[tuple[SlotKey, int], Selectable]
    # (slot key, device id, attribute name) -> derived value, or the CEL error evaluating it.
    derived: Mapping[tuple[SlotKey, int, str], AttrValue | str] = field(default_factory=dict)
    features: frozenset[str] = frozenset()  # the allocator features that are on (see FEATURES)
    max_results: int = 32  # resourceapi.AllocationResultsMaxSize
    # kube-scheduler's view of the cluster (nodes, pods on them, the pods to place); None: units alone.
    cluster: Cluster | None = None
    # Allocated claims of the input (namespace/name) -> what they hold and who reserves them: what
    # evicting pods frees.
    holds: Mapping[str, ClaimHold] = field(default_factory=dict)
    # Seconds since the epoch at which binding timeouts are judged: when, not what (left out of equality).
    now: float = field(default=0.0, compare=False)

    def on(self, feature: str) -> bool:
        return feature in self.features

    def slot(self, key: SlotKey) -> Slot:
        claim, request, sub = key
        return self.claims[claim].requests[request].slots[sub]


# Allocator features (structured/internal/types.go) and the gates that switch them on.
FEATURES: dict[str, tuple[str, ...]] = {
    "AdminAccess": ("DRAAdminAccess",),
    "PrioritizedList": ("DRAPrioritizedList",),
    "PartitionableDevices": ("DRAPartitionableDevices",),
    "DeviceTaints": ("DRADeviceTaints",),
    "DeviceTaintRules": ("DRADeviceTaintRules",),
    "DeviceBindingAndStatus": ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"),
    "ConsumableCapacity": ("DRAConsumableCapacity",),
    "ListTypeAttributes": ("DRAListTypeAttributes",),
    "CompatibilityGroups": ("DRADeviceCompatibilityGroups",),
    "DerivedAttributes": ("DRADerivedAttributes",),
    "OptionalNodeOperations": ("DRAOptionalNodeOperations",),
    "FractionalCapacityRange": ("DRAFractionalCapacityRange",),
    # Not allocator features but scheduler ones the engines honour.
    "NodeAllocatableResources": ("DRANodeAllocatableResources",),
    "Preemption": ("DRAPreemption",),
}
