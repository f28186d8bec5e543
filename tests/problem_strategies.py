"""Builders of Problems and a generator of valid random ones, shared by the engine and validator tests.

`generated_problem(rng)` draws small problems over every allocator feature: pools (complete,
incomplete, invalid), partitionable devices with counters and compatibility groups, multi-allocatable
devices with capacity policies, scalar and list attributes, taints, binding conditions, unreachable
devices, CEL errors, prioritized lists, All mode, admin access, capacity requests, match/distinct
constraints (scoped or not, derived attributes), in-use state, several units sharing claims, and a
second node. `problems()` is the same as a hypothesis strategy.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from kubefit.model.problem import (
    FEATURES,
    AttrValue,
    Capacity,
    CapacityPolicy,
    Claim,
    Constraint,
    CounterUse,
    DerivedAttribute,
    Device,
    InUse,
    Node,
    NodeView,
    PoolView,
    Problem,
    Request,
    Selectable,
    Slot,
    SlotKey,
    Unit,
)
from kubefit.model.terms import Taint, Toleration

# DRAPreemption's feature only changes preemption, which generated problems never meet.
ALL_FEATURES = frozenset(FEATURES) - {"Preemption"}

# --- builders ----------------------------------------------------------------------------------------------


def device(
    i: int,
    *,
    name: str | None = None,
    pool: str = "pool-1",
    driver: str = "driver-a",
    attrs: Mapping[str, AttrValue] | None = None,
    capacity: Mapping[str, Capacity] | None = None,
    consumes: Sequence[CounterUse] = (),
    taints: Sequence[Taint] = (),
    multi: bool = False,
    binding: Sequence[str] = (),
    node: str = "node-1",
) -> Device:
    return Device(
        id=i,
        driver=driver,
        pool=pool,
        name=name or f"device-{i}",
        slice=f"{pool}-slice",
        generation=1,
        attributes=dict(attrs or {}),
        capacity=dict(capacity or {}),
        consumes=tuple(consumes),
        taints=tuple(taints),
        binding_conditions=tuple(binding),
        allow_multiple_allocations=multi,
    )


def pool_of(devices: Sequence[Device], **kw: Any) -> PoolView:
    ids = tuple(d.id for d in devices)
    kw.setdefault("counter_devices", ids)
    return PoolView(devices[0].driver, devices[0].pool, kw.pop("state", "complete"), 1, devices=ids, **kw)


def node_view(devices: Sequence[Device], node: str = "node-1", **kw: Any) -> NodeView:
    """One node seeing every pool of `devices` (pool keyword arguments apply to each)."""
    unreachable = frozenset(kw.pop("unreachable", ()))
    pools: dict[tuple[str, str], list[Device]] = {}
    for d in devices:
        pools.setdefault((d.driver, d.pool), []).append(d)
    return NodeView(node, tuple(pool_of(ds, **kw) for _, ds in sorted(pools.items())), unreachable)


def slot(name: str = "req-0", **kw: Any) -> Slot:
    kw.setdefault("device_class", "class-a")
    return Slot(name=name, **kw)


def exact(name: str = "req-0", **kw: Any) -> Request:
    return Request(name, (slot(name, **kw),))


def first_available(name: str, *subs: Slot) -> Request:
    return Request(name, tuple(replace(s, parent=name) for s in subs), first_available=True)


def claim(i: int, *requests: Request, constraints: Sequence[Constraint] = (), **kw: Any) -> Claim:
    return Claim(
        i, "default", kw.pop("name", f"claim-{i}"), tuple(requests or (exact(),)), tuple(constraints), **kw
    )


def problem(
    devices: Sequence[Device],
    claims: Sequence[Claim],
    *,
    views: Iterable[NodeView] | None = None,
    units: Sequence[Unit] | None = None,
    in_use: InUse | None = None,
    selectable: Mapping[tuple[SlotKey, int], Selectable] | None = None,
    features: Iterable[str] = ALL_FEATURES,
    **kw: Any,
) -> Problem:
    """Every slot selects every device unless `selectable` overrides some pairs."""
    chosen: dict[tuple[SlotKey, int], Selectable] = {
        ((c.id, ri, si), d.id): True
        for c in claims
        for ri, r in enumerate(c.requests)
        for si in range(len(r.slots))
        for d in devices
    }
    chosen.update(selectable or {})
    view_list = list(views) if views is not None else [node_view(devices)]
    return Problem(
        nodes={v.node: Node(v.node, {"kubernetes.io/hostname": v.node}) for v in view_list},
        devices=tuple(devices),
        views={v.node: v for v in view_list},
        claims=tuple(claims),
        units=tuple(units)
        if units is not None
        else (Unit(0, "pod-0", tuple(c.id for c in claims), ("node-1",)),),
        in_use=in_use or InUse(),
        selectable=chosen,
        features=frozenset(features),
        **kw,
    )


def string(v: str) -> AttrValue:
    return AttrValue("string", (v,))


def strings(*vs: str) -> AttrValue:
    return AttrValue("string", vs, is_list=True)


def integer(v: int) -> AttrValue:
    return AttrValue("int", (v,))


def cap(value: int, **policy: Any) -> Capacity:
    return Capacity(Fraction(value), CapacityPolicy(**policy) if policy else None)


def uses(counter_set: str, groups: Sequence[str] = (), **counters: int) -> CounterUse:
    return CounterUse(counter_set, {k: Fraction(v) for k, v in counters.items()}, tuple(groups))


# --- random problems -------------------------------------------------------------------------------------

MODEL = "driver-a/model"
NUMA = "driver-a/numa"


def generated_problem(rng: random.Random) -> Problem:
    """A small random Problem that the translate layer could have built."""
    features = {f for f in sorted(ALL_FEATURES) if rng.random() > 0.15}
    devices: list[Device] = []
    pools: list[PoolView] = []
    for pi in range(rng.randint(1, 3)):
        start = len(devices)
        sets = ["cs-0", "cs-1"] if rng.random() < 0.3 else ["cs-0"]
        for i in range(start, start + rng.randint(1, 5)):
            devices.append(_random_device(rng, i, f"pool-{pi}", sets))
        ids = tuple(range(start, len(devices)))
        counters = {name: {"mem": Fraction(rng.randint(2, 8))} for name in sets}
        state = rng.choices(["complete", "incomplete", "invalid"], [0.85, 0.08, 0.07])[0]
        pools.append(
            PoolView(
                "driver-a", f"pool-{pi}", state, 1, devices=ids, counter_sets=counters, counter_devices=ids
            )
        )

    claims: list[Claim] = []
    unit_list: list[Unit] = []
    nodes = ("node-1", "node-2") if rng.random() < 0.3 else ("node-1",)
    for u in range(rng.randint(1, 3)):
        ids_in_unit = []
        for _ in range(rng.randint(1, 2)):
            claims.append(_random_claim(rng, len(claims), features))
            ids_in_unit.append(len(claims) - 1)
        if u and rng.random() < 0.2:
            ids_in_unit.append(rng.randrange(min(ids_in_unit)))  # share a claim of an earlier unit
        unit_list.append(Unit(u, f"pod-{u}", tuple(ids_in_unit), nodes))

    refs = [d.ref for d in devices]
    shared = {d.ref for d in devices if d.allow_multiple_allocations and rng.random() < 0.2}
    held = InUse(
        frozenset(r for r in refs if r not in shared and rng.random() < 0.1),
        {r: {"driver-a/mem": Fraction(1)} for r in shared},
        frozenset(shared),
    )
    selectable: dict[tuple[SlotKey, int], Selectable] = {}
    derived: dict[tuple[SlotKey, int, str], AttrValue | str] = {}
    for c in claims:
        for ri, r in enumerate(c.requests):
            for si, s in enumerate(r.slots):
                for d in devices:
                    roll = rng.random()
                    key = ((c.id, ri, si), d.id)
                    selectable[key] = (
                        f"claim {c.ref}: selector #0 on device {d.ref}: CEL runtime error"
                        if roll < 0.01
                        else roll < 0.8
                    )
                    for attribute in s.derived:
                        value = rng.choice([string("x"), string("y"), strings("x", "y"), None])
                        if rng.random() < 0.02:
                            derived[((c.id, ri, si), d.id, attribute.name)] = "no such key: missing"
                        elif value is not None:
                            derived[((c.id, ri, si), d.id, attribute.name)] = value
    views = [NodeView("node-1", tuple(pools), frozenset(d.id for d in devices if rng.random() < 0.05))]
    if len(nodes) > 1:
        views.append(NodeView("node-2", tuple(p for p in pools if rng.random() < 0.6)))
    return Problem(
        nodes={n: Node(n, {"kubernetes.io/hostname": n}) for n in nodes},
        devices=tuple(devices),
        views={v.node: v for v in views},
        claims=tuple(claims),
        units=tuple(unit_list),
        in_use=held,
        selectable=selectable,
        derived=derived,
        features=frozenset(features),
    )


def _random_device(rng: random.Random, i: int, pool: str, sets: Sequence[str]) -> Device:
    model = rng.choice([string("a"), string("b"), strings(*rng.sample("abc", 2)), integer(1), None])
    attrs: dict[str, AttrValue] = {"model": model} if model else {}
    if rng.random() < 0.5:
        attrs["numa"] = AttrValue("int", tuple(sorted(rng.sample(range(3), rng.randint(1, 2)))), is_list=True)
    consumes = []
    if rng.random() < 0.4:
        groups = rng.choice([(), ("g1",), ("g2",), ("g1", "g2")])
        consumes = [uses(rng.choice(sets), groups, mem=rng.randint(1, 4))]
    multi = rng.random() < 0.3
    policy = rng.choice([{}, {"default": Fraction(1), "min": Fraction(1), "step": Fraction(2)}])
    capacity = {"mem": cap(rng.randint(2, 8), **policy)} if rng.random() < (0.8 if multi else 0.3) else {}
    taints = [Taint("t", "", rng.choice(["NoSchedule", "None", "NoExecute"]))] if rng.random() < 0.2 else []
    binding = ["ready"] if rng.random() < 0.05 else []
    return device(
        i,
        pool=pool,
        attrs=attrs,
        consumes=consumes,
        multi=multi,
        capacity=capacity,
        taints=taints,
        binding=binding,
    )


def _random_slot(rng: random.Random, name: str, features: set[str], derived: bool) -> Slot:
    kw: dict[str, Any] = {"mode": "All"} if rng.random() < 0.12 else {"count": rng.randint(1, 3)}
    if "AdminAccess" in features and rng.random() < 0.12:
        kw["admin_access"] = True
    if "ConsumableCapacity" in features and rng.random() < 0.3:
        kw["capacity_requests"] = {"mem": Fraction(rng.randint(1, 3))}
    if rng.random() < 0.3:
        kw["tolerations"] = (Toleration("t", "Exists"),)
    if derived:
        kw["derived"] = (DerivedAttribute(MODEL, "device.attributes['x']"),)
    return slot(name, **kw)


def _random_claim(rng: random.Random, i: int, features: set[str]) -> Claim:
    kind = rng.choice(["match", "distinct", None, None])
    attribute = rng.choice([MODEL, MODEL, NUMA])
    derived = (
        kind is not None and attribute == MODEL and "DerivedAttributes" in features and rng.random() < 0.15
    )
    requests = []
    for r in range(rng.randint(1, 3)):
        if "PrioritizedList" in features and rng.random() < 0.3:
            subs = [_random_slot(rng, f"sub-{k}", features, derived) for k in range(rng.randint(2, 3))]
            requests.append(first_available(f"req-{r}", *subs))
        else:
            requests.append(Request(f"req-{r}", (_random_slot(rng, f"req-{r}", features, derived),)))
    constraints = []
    if kind is not None:
        scope = (
            tuple(rng.sample([r.name for r in requests], rng.randint(1, len(requests))))
            if rng.random() < 0.3
            else ()
        )
        constraints.append(Constraint(kind, attribute, scope))
    return claim(i, *requests, constraints=constraints)


def problems() -> st.SearchStrategy[Problem]:
    """generated_problem as a hypothesis strategy (hypothesis controls the random choices)."""
    return st.builds(generated_problem, st.randoms(use_true_random=False))
