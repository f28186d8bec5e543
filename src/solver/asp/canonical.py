"""Facts numbered by what the rules can tell apart, for explanations: nodes whose devices differ only in
names and order then give the same facts, and the rules answer them once.

Renumbering devices loses the first-fit order, so it is for explanations only, and not where the rules
read device order (a distinctAttribute without list support takes a list or empty value only first).
"""

from __future__ import annotations

from ...model.node_selector import terms_of
from .gathered import Gathering


def order_matters(b: Gathering) -> bool:
    """Without list support, a distinctAttribute takes a list or empty value only first, and a device
    whose slice selector has several terms needs a node-local device before it: the rules then read the
    device order (see constraints.lp, node_selector.lp)."""
    if any(terms_of(b.p.devices[d]) > 1 for ds in b.nf.candidates.values() for d in ds):
        return True
    if b.p.on("ListTypeAttributes"):
        return False
    distinct = {
        (info.claim, i)
        for info in b.nf.slots
        for i, c in enumerate(b.nf.claims[info.claim].constraints)
        if c.kind == "distinct"
    }
    return any(
        v is not None and (v.is_list or v.kind is None) and (b.nf.slots[pos].claim, i) in distinct
        for (pos, _, i), v in b.values.items()
    )


def order(b: Gathering, devices: list[int]) -> list[int]:
    """Devices ordered by what the rules can tell about them (first-fit rank only breaks ties), so
    that nodes whose devices differ only in names and order get the same facts. One round of
    refinement: a device's constraint values count by how many devices, and which, share them."""
    nf = b.nf
    p = b.p
    in_use = nf.in_use
    held_by: dict[str, int] = {}
    for d in devices:
        for name in (b.holders or {}).get(p.devices[d].ref, ()):
            held_by[name] = held_by.get(name, 0) + 1
    positions = sorted(nf.candidates)
    sets = {pos: set(nf.candidates[pos]) for pos in positions}
    listed = {pos: set(ds) for pos, ds in b.listed.items()}
    first: dict[int, str] = {}
    for d in devices:
        device = p.devices[d]
        pool = b.pool_of[d]
        left = nf.allocator.available(pool) if device.consumes and p.on("PartitionableDevices") else {}
        draws = [
            (sorted(u.counters.items()), sorted(u.groups), sorted(left.get(u.counter_set, {}).items()))
            for u in device.consumes
        ]
        first[d] = repr(
            (
                [pos for pos in positions if d in sets[pos]],
                [pos for pos in sorted(listed) if d in listed[pos]],
                nf.allocator.multi(device),
                device.ref in in_use.shared_capacity,
                d in nf.view.unreachable,
                device.ref in in_use.exclusive,
                device.ref in in_use.shared,
                sorted(held_by[h] for h in (b.holders or {}).get(device.ref, ())),
                sorted((t.key, t.value, t.effect) for t in device.taints),
                sorted(draws),
                sorted((pos, sorted(c.items())) for (pos, x), c in b.share_use.items() if x == d),
                sorted(
                    (pos, i, v.kind if v else None, v.is_list if v else None, len(v.values) if v else 0)
                    for (pos, x, i), v in b.values.items()
                    if x == d
                ),
            )
        )
    sharing: dict[tuple[int, int, str | None, object], list[str]] = {}
    for (pos, d, i), v in b.values.items():
        for element in v.values if v is not None else ():
            sharing.setdefault((pos, i, v.kind if v else None, element), []).append(first[d])
    second = {
        d: first[d]
        + repr(
            sorted(
                sorted(sharing[(pos, i, v.kind, e)])
                for (pos, x, i), v in b.values.items()
                if x == d and v is not None
                for e in v.values
            )
        )
        for d in devices
    }
    return sorted(devices, key=lambda d: (second[d], b.rank[d]))
