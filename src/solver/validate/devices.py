"""One device and who else uses it: the pools the node sees, selectors, taints, exclusive use and
admin access."""

from __future__ import annotations

from collections.abc import Sequence

from ...model.families import Family
from ...model.problem import NodeView, Selectable, SlotKey
from .base import Checker, Pick


class DeviceChecks(Checker):
    def selectable(self, key: SlotKey, d: int, view: NodeView) -> Selectable:
        """True / False / the scheduler's error, decided in the allocator's order."""
        if self.p.devices[d].binding_conditions and not self.p.on("DeviceBindingAndStatus"):
            return False
        outcome = self.p.selectable.get((key, d), False)
        return False if outcome is True and d in view.unreachable else outcome

    def check_device(self, pick: Pick, view: NodeView) -> None:
        device, d = pick.device, pick.device.id
        pools = [pool for pool in view.pools if d in pool.devices]
        if not pools:
            self.bad(pick, Family.NODE, f"is not in any pool node {view.node} sees")
        elif pools[0].state != "complete":
            self.bad(
                pick, Family.NODE, f"is in pool {pools[0].ref}, which is {pools[0].state} on node {view.node}"
            )
        if d in view.unreachable:
            self.bad(pick, Family.NODE, f"is not usable from node {view.node}")
        if device.binding_conditions and not self.p.on("DeviceBindingAndStatus"):
            self.bad(pick, Family.SELECTORS, "has binding conditions, but DeviceBindingAndStatus is off")
        outcome = self.p.selectable.get((pick.result.slot, d), False)
        if isinstance(outcome, str):
            self.bad(pick, Family.SELECTORS, f"cannot be selected: {outcome}")
        elif not outcome:
            self.bad(pick, Family.SELECTORS, "is not selected by the class and request")
        if device.consumes and not self.p.on("PartitionableDevices"):
            self.bad(pick, Family.COUNTERS, "consumes counters, but PartitionableDevices is off")
        if self.p.on("DeviceTaints"):
            for taint in device.taints:
                if taint.effect in ("NoSchedule", "NoExecute") and not any(
                    t.tolerates(taint) for t in pick.slot.tolerations
                ):
                    what = f"{taint.key}={taint.value}:{taint.effect}"
                    self.bad(pick, Family.TAINTS, f"has taint {what}, which the request does not tolerate")

    def check_in_use(self, picks: Sequence[Pick]) -> None:
        """Exclusive use, with the allocator's admin-access exceptions."""
        for i, pick in enumerate(picks):
            ref = pick.device.ref
            if not pick.admin and ref in self.held.exclusive:
                self.bad(pick, Family.EXCLUSIVE, "is already allocated")
                continue
            if not pick.admin and not pick.multi and ref in self.held.shared:
                self.bad(pick, Family.EXCLUSIVE, "has a live share, so it cannot be given exclusively")
                continue
            if pick.multi:
                continue
            for other in picks[:i]:
                if other.device.ref != ref or other.multi:
                    continue
                if other.order == pick.order:
                    kind = Family.ADMIN_ACCESS if pick.admin or other.admin else Family.EXCLUSIVE
                    self.bad(pick, kind, f"is allocated twice in claim {pick.claim.ref}")
                    break
                # Any earlier pick of this batch, admin or not, keeps a normal request off the device.
                if not pick.admin:
                    self.bad(pick, Family.EXCLUSIVE, f"is already allocated to claim {other.claim.ref}")
                    break
