"""The rules' violation groups in Kubernetes terms: which objects, which numbers, what a user reads.

One method per family's group of the rules (`need`, `held`, `taint`, `constraint`, `counter`,
`groups`, `capacity`, `limit`, `unreachable`: `Family.rule`, also the prefix of the reason's id),
each reading the node's facts (local identifiers read back as the Problem's) and returning one Reason.
Devices are named by their device name where the pool is clear from the context, else as the
allocator names them (`driver/pool/device`); long lists end with "and N more".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import lru_cache

from ...model.explain_source import ClassMatch
from ...model.families import Family
from ...model.problem import PoolView
from ...model.quantity.amounts import quantity_text
from ...model.terms import Taint
from ..asp import schema as s
from ..asp.gathered import NodeFacts, SlotInfo
from ..capacity import device_capacity
from .index import NodeIndex
from .keys import outcomes
from .memo import Counter, Funnel, Memo
from .model import Kind, Reason

SHOWN = 4  # names listed before "and N more"


def names(items: Sequence[str], shown: int = SHOWN) -> str:
    if len(items) <= shown:
        return ", ".join(items)
    return f"{', '.join(items[:shown])} and {len(items) - shown} more"


def plural(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else word + 's'}"


@lru_cache(maxsize=4096)  # a fleet's reasons print the same few amounts thousands of times
def amount(value: Fraction) -> str:
    """An amount as Kubernetes prints quantities, in the shorter of decimal and binary suffixes (80Gi,
    100G), decimal when they tie."""
    decimal = quantity_text(value, None)
    binary = quantity_text(value, "1Ki")
    return binary if len(binary) < len(decimal) else decimal


def taint_text(t: Taint) -> str:
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


class Renderer(NodeIndex):
    """The reasons of one node. What several reasons read (the candidates, who holds which, what each
    device draws) is worked out once per node, on first use; what nodes of one signature share, once
    for all of them (`memo`)."""

    def __init__(
        self, nf: NodeFacts, class_match: ClassMatch | None = None, memo: Memo | None = None
    ) -> None:
        super().__init__(nf)
        self.class_match = class_match
        self.memo = memo if memo is not None else Memo()

    # --- need: the candidate funnel --------------------------------------------------------------

    def funnel(self, position: int, info: SlotInfo) -> tuple[str, dict[str, int], str]:
        """(text, numbers, summary phrase): how far the node's devices get for one slot."""
        view = self.nf.view
        slot = info.slot
        parts = self.memo.funnels.get(position)
        if parts is None:
            parts = self.memo.funnels[position] = self._funnel(position, info)
        numbers: dict[str, int] = {"onNode": parts.on_node}
        class_n: int | None = None
        if self.class_match is not None:
            complete = [d for pool in view.pools if pool.state == "complete" for d in pool.devices]
            class_n = self.class_match(info.key, slot.device_class, complete)
            if class_n is not None:
                numbers["matchClass"] = class_n
        selected = parts.selected
        numbers["matchSelectors"] = selected
        if class_n is not None and class_n != selected:
            text = f"{class_n} match the class, {selected} the request's selectors"
        else:
            text = f"{selected} match the class and the request's selectors"
        if parts.unfit:
            numbers["cannotServe"] = parts.unfit
        numbers["inUse"] = parts.in_use
        numbers["tainted"] = parts.tainted
        notes = parts.notes
        if notes:
            text += ", of which " + ", ".join(notes[:-1]) + (" and " if len(notes) > 1 else "") + notes[-1]
        waiting = [pool for pool in view.pools if pool.state != "complete"]
        if waiting:
            states = {"incomplete": "being updated", "invalid": "invalid"}
            pools = [f"{x.ref} ({states.get(x.state, x.state)})" for x in waiting]
            text += f"; not searched: pool {names(pools)}"
        if class_n == 0 or (class_n is None and not selected):
            summary = f"have no devices of class {slot.device_class}"
        elif not selected:
            summary = f"have no devices matching request {slot.result_name}"
        else:
            summary = f"have too few devices for request {slot.result_name}"
        return text, numbers, summary

    def _funnel(self, position: int, info: SlotInfo) -> Funnel:
        """The funnel's steps that nodes of one signature share (the class's is the node's own)."""
        view = self.nf.view
        slot = info.slot
        complete = [d for pool in view.pools if pool.state == "complete" for d in pool.devices]
        column = outcomes(self.p, info.key)
        selected = [d for d in complete if column.get(d, False) is True]
        if not self.p.on("DeviceBindingAndStatus"):
            selected = [d for d in selected if not self.p.devices[d].binding_conditions]
        candidates = self.nf.candidates.get(position, [])
        notes: list[str] = []
        unfit = len(set(selected) - set(candidates))
        if unfit:
            notes.append(f"{unfit} cannot serve it (capacity, partitioning or node reachability)")
        by_holder: dict[str, int] = {}
        by_taint: dict[str, int] = {}
        unreachable = 0
        holders_of = self.holders_of
        for d in candidates:
            device = self.p.devices[d]
            held = [self.holder_text(h) for h in holders_of.get(device.ref, ())]
            taints = self.blocking_taints(info, device)
            if held and not slot.admin_access:
                for h in held:
                    by_holder[h] = by_holder.get(h, 0) + 1
            elif taints:
                by_taint[taint_text(taints[0])] = by_taint.get(taint_text(taints[0]), 0) + 1
            elif d in view.unreachable:
                unreachable += 1
        for holder, n in sorted(by_holder.items(), key=lambda kv: (-kv[1], kv[0])):
            notes.append(f"{n} {'is' if n == 1 else 'are'} allocated to {holder}")
        for taint, n in sorted(by_taint.items(), key=lambda kv: (-kv[1], kv[0])):
            notes.append(f"{n} {'has' if n == 1 else 'have'} untolerated taint {taint}")
        if unreachable:
            notes.append(f"{unreachable} cannot be reached from this node")
        on_node = sum(len(pool.devices) for pool in view.pools)
        return Funnel(on_node, len(selected), unfit, sum(by_holder.values()), sum(by_taint.values()), notes)

    def need(self, claim: int, request: int) -> Reason:
        c = self.nf.claims[claim]
        req = c.requests[request]
        slots = self.slots_of(claim, request)
        who = f"claim {c.ref}, request {req.name}"
        objects: dict[str, object] = {"claim": c.ref, "request": req.name}
        if not req.first_available:
            position, info = slots[0]
            text, numbers, summary = self.funnel(position, info)
            slot = info.slot
            if slot.mode == "All":
                listed = len(self.nf.allocator.slots[info.key].all_devices)
                wants = f"needs all devices its selectors match ({listed} here)"
                numbers["listed"] = listed
            else:
                wants = f"needs {plural(slot.count, 'device')} of class {slot.device_class}"
                numbers["count"] = slot.count
            objects["deviceClass"] = slot.device_class
            message = f"{who}: {wants}; {text}"
            return Reason(
                f"{Family.COUNT.rule}/{c.ref}/{req.name}",
                Kind.DEVICE_REQUEST,
                message,
                summary,
                objects,
                numbers,
            )
        parts = []
        for position, info in slots:
            text, _, _ = self.funnel(position, info)
            wants = "all devices" if info.slot.mode == "All" else plural(info.slot.count, "device")
            parts.append(f"{info.slot.result_name} needs {wants} of class {info.slot.device_class} ({text})")
        objects["alternatives"] = [info.slot.result_name for _, info in slots]
        return Reason(
            f"{Family.COUNT.rule}/{c.ref}/{req.name}",
            Kind.DEVICE_REQUEST,
            f"{who}: none of its {len(slots)} alternatives fits: " + "; ".join(parts),
            f"cannot allocate any alternative of request {req.name}",
            objects,
            {"alternatives": len(slots)},
        )

    # --- held, taint, unreachable --------------------------------------------------------------------

    def held(self, holder: int) -> Reason:
        refs = self.held_refs.get(holder, set())
        devices = [self.p.devices[d] for d in self.candidates() if self.p.devices[d].ref in refs]
        name = self.holder_name(holder)
        return Reason(
            f"{Family.EXCLUSIVE.rule}/{name or holder}",
            Kind.DEVICES_IN_USE,
            f"{self.holder_text(holder)} holds {plural(len(devices), 'device')} the requests could use: "
            f"{names([d.name for d in devices])}",
            "have devices allocated to other claims",
            {"holder": name, "devices": [d.ref for d in devices]},
            {"devices": len(devices)},
        )

    def taint(self, t: int) -> Reason:
        taint = self.nf.taints[t]
        devices = [self.p.devices[d] for d in self.candidates() if taint in self.p.devices[d].taints]
        slots = self.nf.slots
        requests = sorted(
            {x.slot.result_name for x in slots if not any(y.tolerates(taint) for y in x.slot.tolerations)}
        )
        text = taint_text(taint)
        verb = "has" if len(devices) == 1 else "have"
        return Reason(
            f"{Family.TAINTS.rule}/{text}",
            Kind.DEVICE_TAINT,
            f"{plural(len(devices), 'device')} ({names([d.name for d in devices])}) {verb} taint {text}, "
            f"which request {names(requests)} does not tolerate",
            f"have untolerated device taint {text}",
            {
                "taint": {"key": taint.key, "value": taint.value, "effect": taint.effect},
                "devices": [d.ref for d in devices],
                "requests": requests,
            },
            {"devices": len(devices)},
        )

    def unreachable(self, local: int) -> Reason:
        device = self.device(local)
        return Reason(
            f"{Family.NODE.rule}/{device.ref}",
            Kind.UNREACHABLE,
            f"device {device.ref} selects its own nodes, and not this one",
            "cannot reach the devices from the node",
            {"device": device.ref},
        )

    # --- constraints -----------------------------------------------------------------------------

    def constraint(self, q: int) -> Reason:
        ci, index = self.nf.constraints[q]
        claim = self.nf.claims[ci]
        constraint = claim.constraints[index]
        what = "matchAttribute" if constraint.kind == "match" else "distinctAttribute"
        scope = list(constraint.requests) or [r.name for r in claim.requests]
        shared = self.memo.constraints.get(q)
        if shared is None:
            shared = self.memo.constraints[q] = self._constraint(q)
        seen, missing = shared
        values: dict[str, set[str]] = {}
        for who, kind, name in seen:
            values.setdefault(who, set()).add(self.nf.texts.get((kind, name), name))
        covered = [x for x in self.nf.slots if x.claim == ci and constraint.applies_to(x.slot)]
        verb = "are under" if constraint.kind == "match" else "have"
        parts = []
        for who in [x.slot.result_name for x in covered]:
            part = (
                f"{who} candidates {verb} {{{names(sorted(values.get(who, set())), 6)}}}"
                if who in values
                else ""
            )
            if missing.get(who):
                lack = f"{plural(missing[who], 'candidate')} of {who} lack a usable value"
                part = f"{part} ({lack})" if part else lack
            parts.append(part or f"{who} has no candidates")
        distinct = len(set().union(*values.values())) if values else 0
        if constraint.kind == "distinct":
            needed = sum(x.slot.count for x in covered if x.slot.mode != "All")
            found = plural(distinct, "distinct value")
            body = f"needs a different value per device; {'; '.join(parts)} ({found})"
            numbers = {"distinctValues": distinct, "devicesNeeded": needed}
        else:
            body = "; ".join(parts)
            numbers = {"values": distinct}
        return Reason(
            f"{Family.ATTRIBUTES.rule}/{claim.ref}/{index}",
            Kind.MATCH_ATTRIBUTE if constraint.kind == "match" else Kind.DISTINCT_ATTRIBUTE,
            f"claim {claim.ref}, constraint {what} {constraint.attribute} over [{', '.join(scope)}]: {body}",
            f"cannot satisfy constraint {what} {constraint.attribute}",
            {
                "claim": claim.ref,
                "constraint": index,
                "attribute": constraint.attribute,
                "requests": scope,
                "values": {k: sorted(v) for k, v in sorted(values.items())},
            },
            numbers,
        )

    def _constraint(self, q: int) -> tuple[list[tuple[str, str, str]], dict[str, int]]:
        """The constraint's values in the facts' names (request, kind, name), and by request how many
        candidates lack a usable one."""
        found: list[tuple[str, str, str]] = []
        missing: dict[str, int] = {}
        for fact in self.nf.facts:
            if isinstance(fact, s.Value) and fact.constraint == q:
                found.append((self.nf.slots[fact.slot].slot.result_name, fact.kind, fact.text))
            elif isinstance(fact, s.NoValue | s.Odd) and fact.constraint == q:
                who = self.nf.slots[fact.slot].slot.result_name
                missing[who] = missing.get(who, 0) + 1
        return found, missing

    # --- counters, groups, capacity, limit --------------------------------------------------------

    def counter(self, cs: int, counter: str) -> Reason:
        pool, name = self.nf.counter_sets[cs]
        parts = self.memo.counters.get((cs, counter))
        if parts is None:
            parts = self.memo.counters[(cs, counter)] = self._counter(pool, name, counter)
        return Reason(
            f"{Family.COUNTERS.rule}/{pool.ref}/{name}/{counter}",
            Kind.COUNTER,
            f"counter set {name} of pool {pool.ref}: {parts.text}",
            f"have too little left of counter {counter}",
            {
                "pool": pool.ref,
                "counterSet": name,
                "counter": counter,
                "allocated": parts.consumers,
                "candidates": parts.candidates,
            },
            parts.numbers,
        )

    def _counter(self, pool: PoolView, name: str, counter: str) -> Counter:
        published = pool.counter_sets.get(name, {}).get(counter, Fraction(0))
        left = self.nf.allocator.available(pool).get(name, {}).get(counter, Fraction(0))
        devices = self.p.devices
        consumers = [devices[d].name for d, _ in self.drawers(self.allocated_in(pool), name, counter)]
        needed = [(devices[d].name, drawn) for d, drawn in self.needs(pool, name, counter)]
        text = f"{counter} is {amount(published)}"
        if consumers:
            text += f", consumed by {names(consumers)} (allocated), {amount(left)} left"
        text += f", and needed by {names([n for n, _ in needed])}"
        if len(needed) == 1:
            text += f" ({amount(needed[0][1])})"
        elif needed:
            text += f" ({amount(min(a for _, a in needed))} or more each)"
        numbers = {"published": amount(published), "left": amount(left)}
        return Counter(text, consumers, [n for n, _ in needed], numbers)

    def groups(self, cs: int) -> Reason:
        pool, name = self.nf.counter_sets[cs]
        has, plain, common = self.nf.allocator.group_state(pool, name)
        declared: dict[str, set[str]] = {}
        for d in self.in_pool(pool):
            device = self.p.devices[d]
            for use in device.consumes:
                if use.counter_set == name:
                    declared[device.name] = set(use.groups)
        if not has:
            seed = "nothing allocated constrains it"
        elif plain:
            seed = "allocated devices declare no group"
        else:
            seed = f"allocated devices restrict it to {{{', '.join(sorted(common))}}}"
        kinds = sorted({", ".join(sorted(g)) or "none" for g in declared.values()})
        return Reason(
            f"{Family.COMPATIBILITY_GROUPS.rule}/{pool.ref}/{name}",
            Kind.COMPATIBILITY,
            f"counter set {name} of pool {pool.ref}: devices sharing it need a compatibility group in "
            f"common; {seed}; candidates declare {names(['{' + k + '}' for k in kinds])}",
            f"have incompatible compatibility groups on counter set {name}",
            {
                "pool": pool.ref,
                "counterSet": name,
                "allocatedGroups": sorted(common) if has and not plain else [],
                "candidates": {k: sorted(v) for k, v in sorted(declared.items())},
            },
            {"candidates": len(declared)},
        )

    def capacity(self, local: int, x: int) -> Reason:
        _, name = self.nf.capacities[x]
        device = self.device(local)
        resolved = device_capacity(device).get(name)
        value = resolved.capacity.value if resolved is not None else Fraction(0)
        shown = resolved.published if resolved is not None else name  # as the device publishes it
        existing = self.nf.in_use.shared_capacity.get(device.ref, {}).get(name, Fraction(0))
        shares = [
            (self.request_text(pos), consumed.get(name, Fraction(0)))
            for (pos, loc), consumed in sorted(self.nf.shares.items())
            if loc == local
        ]
        per = "; ".join(f"{r} takes {amount(a)} per share" for r, a in shares)
        return Reason(
            f"{Family.CAPACITY.rule}/{device.ref}/{name}",
            Kind.CAPACITY,
            f"device {device.ref}: capacity {shown} is {amount(value)}, existing shares use "
            f"{amount(existing)}; {per}",
            f"have too little capacity {shown} left",
            {"device": device.ref, "capacity": shown, "requests": [r for r, _ in shares]},
            {"capacity": amount(value), "consumed": amount(existing)},
        )

    def limit(self, claim: int) -> Reason:
        c = self.nf.claims[claim]
        return Reason(
            f"{Family.RESULT_LIMIT.rule}/{c.ref}",
            Kind.CLAIM_LIMIT,
            f"claim {c.ref}: its requests ask for more than {self.p.max_results} devices, the most one "
            "claim can hold",
            "need more devices than one claim can hold",
            {"claim": c.ref},
            {"limit": self.p.max_results},
        )

    # --- dispatch --------------------------------------------------------------------------------

    def group(self, name: str, args: tuple[int | str, ...]) -> Reason:
        """The reason for one violation group (its name and arguments)."""
        family = Family.of_rule(name)
        if family is None or family.rule != name or family not in _RENDER:
            raise ValueError(f"no rendering for violation group {name}")
        return _RENDER[family](self, args)


# Each family's violation group, rendered from its arguments (the rules' `group(...)` atoms).
_RENDER: dict[Family, Callable[[Renderer, tuple[int | str, ...]], Reason]] = {
    Family.COUNT: lambda r, a: r.need(int(a[0]), int(a[1])),
    Family.EXCLUSIVE: lambda r, a: r.held(int(a[0])),
    Family.TAINTS: lambda r, a: r.taint(int(a[0])),
    Family.ATTRIBUTES: lambda r, a: r.constraint(int(a[0])),
    Family.COUNTERS: lambda r, a: r.counter(int(a[0]), str(a[1])),
    Family.COMPATIBILITY_GROUPS: lambda r, a: r.groups(int(a[0])),
    Family.CAPACITY: lambda r, a: r.capacity(int(a[0]), int(a[1])),
    Family.RESULT_LIMIT: lambda r, a: r.limit(int(a[0])),
    Family.NODE: lambda r, a: r.unreachable(int(a[0])),
}
