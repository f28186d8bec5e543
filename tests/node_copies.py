"""Copies of a Problem's node-1 onto more nodes, as a fleet's nodes are copies of one another: pools,
devices and string attribute values renamed (as UUIDs differ between nodes), the same selector outcomes,
derived values and use; optionally about one copy in three differs in one way (`CHANGES`). For the tests
of nodes explained alike (`explain.classes`)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from problem_strategies import uses

from kubefit.model.problem import AttrValue, Device, InUse, Node, NodeView, Problem
from kubefit.model.terms import Taint

CHANGES = (
    "an outcome",
    "a counter",
    "a taint",
    "a device name",
    "a pool state",
    "a device in use",
    "a holder",
    "an unreachable device",
    "a shared value",
)


def _renaming(base: Problem, rng: random.Random, copy: int) -> dict[str, str]:
    """One-to-one new names for every string value the devices carry (as UUIDs differ between nodes),
    in an order of their own (a list may then sort differently)."""
    seen = sorted(
        {
            x
            for d in base.devices
            for v in d.attributes.values()
            if v is not None and v.kind == "string"
            for x in v.values
            if isinstance(x, str)
        }
        | {
            x
            for v in base.derived.values()
            if isinstance(v, AttrValue) and v.kind == "string"
            for x in v.values
            if isinstance(x, str)
        }
    )
    targets = [f"u{copy}-{i}" for i in range(len(seen))]
    rng.shuffle(targets)
    return dict(zip(seen, targets, strict=True))


def _renamed(value: AttrValue, names: dict[str, str]) -> AttrValue:
    if value.kind != "string":
        return value
    return replace(value, values=tuple(names.get(x, x) if isinstance(x, str) else x for x in value.values))


def copies(
    base: Problem, count: int, rng: random.Random, changes: bool = True
) -> tuple[Problem, dict[str, list[str]]]:
    """`base` with node-1's pools copied onto nodes copy-0..: pools, devices and string values renamed,
    the same selector outcomes, derived values and use; with `changes`, about one copy in three differs
    in one of CHANGES. Returns the problem and who holds the devices in use."""
    view = base.views["node-1"]
    devices = list(base.devices)
    views = dict(base.views)
    nodes = dict(base.nodes)
    selectable = dict(base.selectable)
    derived = dict(base.derived)
    exclusive, shared = set(base.in_use.exclusive), set(base.in_use.shared)
    capacity = dict(base.in_use.shared_capacity)
    used = sorted(exclusive | shared | set(capacity))
    holders = {ref: [f"default/holder-{i % 2}"] for i, ref in enumerate(used)}
    slots = sorted({key for key, _ in base.selectable})
    names = [f"copy-{k}" for k in range(count)]
    for k, node in enumerate(names):
        values = _renaming(base, rng, k)
        change = rng.choice(CHANGES) if changes and rng.random() < 0.35 else None
        moved: dict[int, int] = {}
        pools = []
        for pool in view.pools:
            renamed = f"{pool.pool}-copy-{k}"
            for d in (*pool.devices, *pool.counter_devices):
                if d in moved:
                    continue
                old = base.devices[d]
                moved[d] = len(devices)
                new = replace(
                    old,
                    id=len(devices),
                    pool=renamed,
                    slice=f"{renamed}-slice",
                    attributes={a: _renamed(v, values) for a, v in old.attributes.items()},
                )
                devices.append(new)
                for key in slots:
                    outcome = base.selectable.get((key, d))
                    if isinstance(outcome, str):
                        outcome = outcome.replace(old.ref, new.ref)
                    if outcome is not None:
                        selectable[(key, new.id)] = outcome
                for (key, x, attribute), v in base.derived.items():
                    if x == d:
                        derived[(key, new.id, attribute)] = (
                            _renamed(v, values) if isinstance(v, AttrValue) else v
                        )
                if old.ref in exclusive:
                    exclusive.add(new.ref)
                if old.ref in shared:
                    shared.add(new.ref)
                if old.ref in capacity:
                    capacity[new.ref] = capacity[old.ref]
                if old.ref in holders:
                    holders[new.ref] = list(holders[old.ref])
            pools.append(
                replace(
                    pool,
                    pool=renamed,
                    devices=tuple(moved[d] for d in pool.devices),
                    counter_devices=tuple(moved[d] for d in pool.counter_devices),
                )
            )
        copy = NodeView(node, tuple(pools), frozenset(moved[d] for d in view.unreachable if d in moved))
        ids = [moved[d] for pool in view.pools for d in pool.devices]
        if change is not None and ids:
            copy = _change(change, rng, copy, ids, devices, selectable, slots, exclusive, holders)
        views[node] = copy
        nodes[node] = Node(node, {"kubernetes.io/hostname": node})
    units = tuple(replace(u, nodes=(*u.nodes, *names)) if "node-1" in u.nodes else u for u in base.units)
    p = replace(
        base,
        nodes=nodes,
        devices=tuple(devices),
        views=views,
        units=units,
        in_use=InUse(frozenset(exclusive), capacity, frozenset(shared)),
        selectable=selectable,
        derived=derived,
    )
    return p, holders


def _change(
    change: str,
    rng: random.Random,
    view: NodeView,
    ids: list[int],
    devices: list[Device],
    selectable: dict[Any, Any],
    slots: list[Any],
    exclusive: set[str],
    holders: dict[str, list[str]],
) -> NodeView:
    """One difference from the original node (devices and maps are changed in place)."""
    d = rng.choice(ids)
    if change == "an outcome" and slots:
        key = (rng.choice(slots), d)
        selectable[key] = selectable.get(key) is not True
    elif change == "a counter":
        devices[d] = replace(
            devices[d], consumes=(uses(rng.choice(["cs-0", "cs-1"]), mem=rng.randint(1, 9)),)
        )
    elif change == "a taint":
        devices[d] = replace(devices[d], taints=(*devices[d].taints, Taint("other", "", "NoSchedule")))
    elif change == "a device name":
        devices[d] = replace(devices[d], name=f"{devices[d].name}-renamed")
    elif change == "a pool state":
        pools = list(view.pools)
        i = rng.randrange(len(pools))
        pools[i] = replace(pools[i], state="incomplete" if pools[i].state == "complete" else "complete")
        return replace(view, pools=tuple(pools))
    elif change == "a device in use":
        exclusive.add(devices[d].ref)
    elif change == "a holder":
        holders[devices[d].ref] = ["default/someone-else"]
        exclusive.add(devices[d].ref)
    elif change == "an unreachable device":
        return replace(view, unreachable=view.unreachable | {d})
    elif change == "a shared value":
        other = devices[rng.choice(ids)]
        devices[d] = replace(devices[d], attributes=dict(other.attributes))
    return view


def twin(p: Problem) -> Problem:
    """`p` with one more pod at the end whose claims are the first pod's under other names and ids (a
    second pod of one template), with the same selector outcomes and derived values."""
    first = p.units[0]
    ids: dict[int, int] = {}
    claims = list(p.claims)
    for c in first.claims:
        ids[c] = len(claims)
        claims.append(replace(p.claims[c], id=len(claims), name=f"{p.claims[c].name}-twin", allocated=False))
    selectable = dict(p.selectable)
    for (key, d), outcome in p.selectable.items():
        if key[0] in ids:
            selectable[((ids[key[0]], *key[1:]), d)] = outcome
    derived = dict(p.derived)
    for (key, d, attribute), value in p.derived.items():
        if key[0] in ids:
            derived[((ids[key[0]], *key[1:]), d, attribute)] = value
    unit = replace(first, id=len(p.units), name="pod-twin", claims=tuple(ids[c] for c in first.claims))
    return replace(p, claims=tuple(claims), units=(*p.units, unit), selectable=selectable, derived=derived)
