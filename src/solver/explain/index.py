"""What a node's reasons look up about its devices: the candidates, who holds which, what each device
draws of which counter; each worked out once per node, on first use."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property

from ...model.problem import Device, PoolView, consumption
from ...model.terms import Taint
from ..asp import schema as s
from ..asp.gathered import NodeFacts, SlotInfo

BLOCKING = ("NoSchedule", "NoExecute")


class NodeIndex:
    def __init__(self, nf: NodeFacts) -> None:
        self.nf = nf
        self.p = nf.problem
        self._draws: dict[int, dict[str, dict[str, Fraction]]] = {}
        self._allocated: dict[str, list[int]] = {}
        self._needs: dict[str, dict[tuple[str, str], list[tuple[int, Fraction]]]] = {}

    @cached_property
    def held_refs(self) -> dict[int, set[str]]:
        """Holder -> the devices it holds (candidates only)."""
        out: dict[int, set[str]] = {}
        for fact in self.nf.facts:
            if isinstance(fact, s.Held | s.Shared):
                out.setdefault(fact.holder, set()).add(self.device(fact.device).ref)
        return out

    @cached_property
    def holders_of(self) -> dict[str, list[int]]:
        """Device ref -> its holders, in holder order."""
        out: dict[str, list[int]] = {}
        for h, refs in sorted(self.held_refs.items()):
            for ref in refs:
                out.setdefault(ref, []).append(h)
        return out

    def drawers(self, devices: Sequence[int], counter_set: str, counter: str) -> list[tuple[int, Fraction]]:
        """The devices among `devices` that draw on one counter, with what they draw, in their order."""
        out = []
        for d in devices:
            draws = self._draws.get(d)
            if draws is None:
                draws = self._draws[d] = consumption(self.p.devices[d])
            drawn = draws.get(counter_set, {}).get(counter)
            if drawn:
                out.append((d, drawn))
        return out

    def needs(self, pool: PoolView, counter_set: str, counter: str) -> list[tuple[int, Fraction]]:
        """The candidates of the pool that draw on one counter, with what they draw, by first-fit rank."""
        index = self._needs.get(pool.ref)
        if index is None:
            index = self._needs[pool.ref] = {}
            for d in self.in_pool(pool):
                draws = self._draws.get(d)
                if draws is None:
                    draws = self._draws[d] = consumption(self.p.devices[d])
                for name, counters in draws.items():
                    for c, drawn in counters.items():
                        if drawn:
                            index.setdefault((name, c), []).append((d, drawn))
        return index.get((counter_set, counter), [])

    def allocated_in(self, pool: PoolView) -> list[int]:
        """The pool's counter-drawing devices allocated already, in pool order."""
        found = self._allocated.get(pool.ref)
        if found is None:
            allocated, devices = self.nf.in_use.allocated, self.p.devices
            found = self._allocated[pool.ref] = [d for d in pool.counter_devices if allocated(devices[d].ref)]
        return found

    def in_pool(self, pool: PoolView) -> list[int]:
        """The candidates of one pool, by first-fit rank."""
        return self._in_pool.get((pool.driver, pool.pool), [])

    @cached_property
    def _in_pool(self) -> dict[tuple[str, str], list[int]]:
        out: dict[tuple[str, str], list[int]] = {}
        for d in self.candidates():
            device = self.p.devices[d]
            out.setdefault((device.driver, device.pool), []).append(d)
        return out

    def device(self, local: int) -> Device:
        return self.p.devices[self.nf.devices[local]]

    def slots_of(self, claim: int, request: int) -> list[tuple[int, SlotInfo]]:
        return [(i, x) for i, x in enumerate(self.nf.slots) if (x.claim, x.request) == (claim, request)]

    def request_text(self, position: int) -> str:
        """`request r` (`request r of claim c` when the call has several claims)."""
        info = self.nf.slots[position]
        text = f"request {info.slot.result_name}"
        return text if len(self.nf.claims) == 1 else f"{text} of claim {self.nf.claims[info.claim].ref}"

    def holder_name(self, holder: int) -> str:
        return self.nf.holders[holder] if holder < len(self.nf.holders) else ""

    def holder_text(self, holder: int) -> str:
        name = self.holder_name(holder)
        return f"claim {name}" if name else "an earlier allocation"

    def blocking_taints(self, info: SlotInfo, device: Device) -> list[Taint]:
        if not self.p.on("DeviceTaints"):
            return []
        tolerations = info.slot.tolerations
        return [
            t for t in device.taints if t.effect in BLOCKING and not any(x.tolerates(t) for x in tolerations)
        ]

    def candidates(self) -> list[int]:
        """Problem ids of every candidate of the call, by first-fit rank."""
        return self._candidates

    @cached_property
    def _candidates(self) -> list[int]:
        seen = {d for ds in self.nf.candidates.values() for d in ds}
        return sorted(seen, key=self.nf.rank.__getitem__)
