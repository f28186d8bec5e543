"""What DynamicResources reads from an allocated claim's status besides where its devices are.

Filter refuses a node for a pod whose claim is allocated already when the claim cannot be used
there: its devices skip node operations (DRAOptionalNodeOperations) and the node's kubelet does not
declare that it honours the skip, or its devices' binding failed or did not finish within the
binding timeout (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus: a failure condition
of a device is True, or not every binding condition is True bindingTimeout after the allocation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

# status.allocation.devices.results with status.devices, as the scheduler reads them.
UNAVAILABLE = "resourceclaim not available on the node"
OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations"
BINDING_TIMEOUT = 600.0  # DynamicResourcesArgs.bindingTimeout's default, in seconds


@dataclass(frozen=True)
class AllocatedStatus:
    # (device id, consumedCapacity as written) of each result whose device is published.
    devices: tuple[tuple[int, Mapping[str, Fraction] | None], ...] = ()
    # isClaimReadyForBinding's error for a device whose binding failure condition is True.
    binding_failed: str = ""
    binding_ready: bool = True  # every binding condition of every result is True (or there are none)
    allocated_at: float | None = None  # allocationTimestamp, seconds since the epoch
    skips_node_operations: bool = False  # some result carries skipNodeOperations

    def binding_problem(self, now: float, timeout: float) -> str:
        """Why the claim's binding is given up on at `now` ("" when it is not): it failed, or it has
        waited longer than `timeout` seconds since the allocation (isClaimTimeout)."""
        if self.binding_failed:
            return self.binding_failed
        if not self.binding_ready and self.allocated_at is not None and self.allocated_at + timeout < now:
            return f"binding conditions not met {timeout:g}s after the allocation (bindingTimeout)"
        return ""
