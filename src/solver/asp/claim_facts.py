"""The facts of the claims' side: slots with their candidates, devices (in use, reachability, taints),
constraints with the values they compare, and the first-fit priorities."""

from __future__ import annotations

from ...model.node_selector import is_node_local, terms_of
from ...model.problem import AttrValue
from ..attributes import as_set
from . import schema as s
from .gathered import Gathering, SlotInfo


class ClaimFacts(Gathering):
    def slot_facts(self, position: int, info: SlotInfo) -> None:
        slot = info.slot
        self.add(s.SlotFact, slot=position, claim=info.claim, request=info.request, sub=info.sub)
        if info.first_available and info.sub == 0:
            self.add(s.Alternatives, claim=info.claim, request=info.request)
        if slot.mode == "All":
            self.add(s.AllMode, slot=position)
            for d in self.listed[position]:
                self.add(s.Listed, slot=position, device=self.local[d])
        else:
            # Beyond the claim limit every count fails alike (and clingo's integers are 32-bit).
            self.add(s.Count, slot=position, n=min(slot.count, self.p.max_results + 1))
        if slot.admin_access:
            self.add(s.Admin, slot=position)
        for d in self.nf.candidates[position]:
            self.add(s.Cand, slot=position, device=self.local[d])
        if self.p.on("DeviceTaints"):
            for i, t in enumerate(slot.tolerations):
                self.add(
                    s.TolerationFact,
                    slot=position,
                    index=i,
                    key=t.key,
                    operator=t.operator,
                    value=t.value,
                    effect=t.effect,
                )

    def holder(self, name: str) -> int:
        if name not in self.holder_ids:
            self.holder_ids[name] = len(self.nf.holders)
            self.nf.holders.append(name)
        return self.holder_ids[name]

    def held_by(self, ref: str) -> list[int]:
        names = (self.holders or {}).get(ref) or ("",)
        return [self.holder(n) for n in names]

    def device_facts(self, d: int) -> None:
        p = self.p
        nf = self.nf
        device = p.devices[d]
        local = self.local[d]
        ref = device.ref
        multi = nf.allocator.multi(device)
        if multi:
            self.add(s.Multi, device=local)
        if ref in nf.in_use.exclusive:
            for h in self.held_by(ref):
                self.add(s.Held, device=local, holder=h)
        if ref in nf.in_use.shared and not multi:
            for h in self.held_by(ref):
                self.add(s.Shared, device=local, holder=h)
        if multi and ref in nf.in_use.shared_capacity:
            self.add(s.ExistingShare, device=local)
        if d in nf.view.unreachable:
            self.add(s.Unreachable, device=local)
        if is_node_local(device):
            self.add(s.NodeLocal, device=local)
        elif terms_of(device) > 1:
            self.add(s.ManyTerms, device=local)
        if p.on("DeviceTaints"):
            for taint in device.taints:
                t = self.taint_ids.get(taint)
                if t is None:
                    t = self.taint_ids[taint] = len(self.nf.taints)
                    self.nf.taints.append(taint)
                    self.add(s.TaintDef, taint=t, key=taint.key, value=taint.value, effect=taint.effect)
                self.add(s.TaintOn, device=local, taint=t)

    def constraint_facts(self) -> None:
        nf = self.nf
        lists = self.p.on("ListTypeAttributes")
        q = 0
        for ci, claim in enumerate(nf.claims):
            for index, constraint in enumerate(claim.constraints):
                nf.constraints.append((ci, index))
                self.add(s.ConstraintFact, constraint=q, claim=ci, kind=constraint.kind)
                for position, info in enumerate(nf.slots):
                    if info.claim != ci or not constraint.applies_to(info.slot):
                        continue
                    self.add(s.Covers, constraint=q, slot=position)
                    for d in sorted(nf.candidates[position], key=self.local.__getitem__):
                        self.value_facts(q, position, self.local[d], self.values[(position, d, index)], lists)
                q += 1

    def value_facts(self, q: int, position: int, local: int, value: AttrValue | None, lists: bool) -> None:
        if value is None or (lists and as_set(value) is None):
            self.add(s.NoValue, constraint=q, slot=position, device=local)
            return
        if not lists and (value.is_list or value.kind is None):
            self.add(s.Odd, constraint=q, slot=position, device=local)
            return
        assert value.kind is not None
        for v in sorted(set(value.values), key=str):
            text = ("true" if v else "false") if isinstance(v, bool) else str(v)
            if self.canonical:
                # Only equality matters: values are named in the order devices have them.
                name = self.texts.setdefault((value.kind, text), f"v{len(self.texts)}")
                self.nf.texts[(value.kind, name)] = text
                text = name
            self.add(s.Value, constraint=q, slot=position, device=local, kind=value.kind, text=text)

    def levels(self) -> None:
        """Priorities in search order: a request's alternative index, then its picks by rank."""
        nf = self.nf
        order: list[tuple[int, int, list[int]]] = []  # (claim, request, slot positions)
        for position, info in enumerate(nf.slots):
            if order and order[-1][:2] == (info.claim, info.request):
                order[-1][2].append(position)
            else:
                order.append((info.claim, info.request, [position]))
        sizes = [
            (1 if nf.slots[positions[0]].first_available else 0)
            + max(len(nf.candidates[pos]) for pos in positions)
            for _, _, positions in order
        ]
        level = sum(sizes)
        for (claim, request, positions), size in zip(order, sizes, strict=True):
            top = level
            if nf.slots[positions[0]].first_available:
                self.add(s.ChoiceLevel, claim=claim, request=request, level=top)
                top -= 1
            for pos in positions:
                if nf.slots[pos].slot.mode == "All":
                    continue
                for i, d in enumerate(nf.candidates[pos]):
                    self.add(s.PickLevel, slot=pos, device=self.local[d], level=top - i)
            level -= size
