"""From the pool's values to devices (pool.py): each GPU of a family gets one of the patterns the model
chose (node after node, the largest first, so that the pods land on as few nodes as they can), each
pattern's devices are dealt per kind to the slot keys the transport says, and the pods of a class take
them in queue order."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ....model.solution import ClaimAllocation, DeviceResult
from ...units import Taken
from .classes import PodClass
from .dra_node import Block
from .model import PlanModel
from .patterns import Domain, Kind, SlotKey, Value
from .pool import SHARED

Claims = tuple[tuple[ClaimAllocation, ...], tuple[Taken, ...]]


@dataclass
class Pooled:
    """A pod placed in the shared zone."""

    cls: PodClass
    member: int
    node: str
    claims: Claims


class Dealer:
    """The devices the plan's values give each (zone, slot key), in node order."""

    def __init__(self, pm: PlanModel, values: list[int]) -> None:
        assert pm.pool is not None
        self.pm = pm
        self.pool = pm.pool
        self.values = values
        rank = {n.name: i for i, n in enumerate(pm.run.snapshot.nodes)}
        supply: dict[tuple[str, Domain, Kind], list[tuple[str, int]]] = {}
        for family in self.pool.families.values():
            chosen = sorted(
                (j for j, u in enumerate(family.use) for _ in range(values[u.index])),
                key=lambda j: -sum(family.patterns[j].counts),
            )
            for group, j in zip(family.groups, chosen, strict=False):
                for position, k in family.patterns[j].witness:
                    supply.setdefault((family.zone, family.domain, family.kinds[k]), []).append(
                        (group.node, group.devices[position])
                    )
        for devices in supply.values():
            devices.sort(key=lambda t: rank[t[0]])
        # (zone, slot key) -> (node, device, its domain), in node order
        self.devices: dict[tuple[str, SlotKey], list[tuple[str, int, Domain]]] = {}
        for (zone, domain, kind, key), var in sorted(
            self.pool.transport.items(), key=lambda t: (t[0][0], repr(t[0][1]), sorted(t[0][2]), t[0][3])
        ):
            n = values[var.index]
            if not n:
                continue
            left = supply[(zone, domain, kind)]
            self.devices.setdefault((zone, key), []).extend((node, d, domain) for node, d in left[:n])
            del left[:n]
        for found in self.devices.values():
            found.sort(key=lambda t: rank[t[0]])

    def shared(self, queue: dict[int, int]) -> Iterator[Pooled]:
        """The shared zone's pods (one device each), class after class; `queue` counts each class's pods
        handed out so far."""
        for key in sorted(self.pool.taken):
            cls = self.pm.classes[key[0]]
            take = self.values[self.pool.taken[key].index]
            for node, d, _ in self.devices.get((SHARED, key), [])[:take]:
                member = queue.get(cls.index, 0)
                queue[cls.index] = member + 1
                yield Pooled(cls, member, node, self._one(cls, member, node, [(key, [d])]))

    def linked(self, node: str, block: Block, members: list[int]) -> dict[int, Claims]:
        """Per pod (position among `members`) of the block's class on a node of its own zone: its claims'
        allocations and what they take."""
        cls = block.cls
        k = cls.index
        facts = block.facts
        # Which value each pod takes under each matchAttribute, and which subrequest of each
        # firstAvailable request: in the order of the model's splits.
        under: dict[int, tuple[str, list[Value | None]]] = {}  # covered slot -> (attribute, per pod)
        for cf in facts.constraints:
            order: list[Value | None] = []
            for (n, c, constraint, value), var in self.pool.domains.items():
                if (n, c, constraint) == (node, k, (cf.claim, cf.index)):
                    order.extend([value] * self.values[var.index])
            for p in cf.slots:
                under[p] = (cf.attribute, order)
        plan: list[list[tuple[SlotKey, list[int]]]] = [[] for _ in members]
        for slots in facts.requests():
            order_of: list[int] = []
            for s in slots:
                split = self.pool.splits.get((node, k, s.position))
                order_of.extend(
                    [s.position] * (self.values[split.index] if split is not None else len(members))
                )
            for j, position in enumerate(order_of[: len(members)]):
                s = facts.slots[position]
                cover = under.get(position)
                want = (cover[0], cover[1][j]) if cover is not None else None
                plan[j].append(((k, position), self._take(node, (k, position), s.count, want)))
        return {j: self._one(cls, member, node, plan[j]) for j, member in enumerate(members)}

    def _take(self, node: str, key: SlotKey, count: int, want: tuple[str, Value | None] | None) -> list[int]:
        """The next `count` devices dealt to the slot key on the node (of the attribute value `want`)."""
        devices = self.devices.get((node, key), [])
        picked = [
            i
            for i, (_, _, domain) in enumerate(devices)
            if want is None or dict(domain).get(want[0]) == want[1]
        ][:count]
        taken = [devices[i][1] for i in picked]
        for i in reversed(picked):
            del devices[i]
        return taken

    def _one(self, cls: PodClass, member: int, node: str, picks: list[tuple[SlotKey, list[int]]]) -> Claims:
        """One pod's allocations from its picks: per slot key, the devices it takes."""
        devices = self.pm.problem.devices
        claims = cls.claims[member]
        results: dict[int, list[DeviceResult]] = {}
        chosen: dict[int, dict[int, int]] = {}
        taken: list[Taken] = []
        for key, picked in picks:
            info = self.pool.slots[key]
            claim = claims[info.claim].id
            if info.first_available:
                chosen.setdefault(info.claim, {})[info.request] = info.sub
            for d in picked:
                results.setdefault(info.claim, []).append(
                    DeviceResult((claim, info.request, info.sub), info.result_name, d)
                )
                taken.append(Taken(devices[d], False, False, None))
        allocations = tuple(
            ClaimAllocation(claims[ci].id, node, tuple(results.get(ci, ())), chosen.get(ci, {}))
            for ci in range(len(claims))
        )
        return allocations, tuple(taken)
