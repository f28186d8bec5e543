"""Kubernetes feature gates kubefit honours. Every gate is on unless switched off, except the gates
in DEFAULT_OFF, which every Kubernetes release so far ships off.

DEFAULT_OFF is a stop-gap until the gates default as the emulated release sets them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .errors import InputError

# Gate name -> what it governs (for `--help` and error messages).
KNOWN_GATES: dict[str, str] = {
    "DynamicResourceAllocation": "DRA as a whole",
    "DRAAdminAccess": "adminAccess requests",
    "DRAPrioritizedList": "firstAvailable subrequests",
    "DRAPartitionableDevices": "shared counters and per-device node selection",
    "DRADeviceTaints": "device taints and tolerations",
    "DRADeviceTaintRules": "DeviceTaintRule objects",
    "DRADeviceBindingConditions": "binding conditions",
    "DRAResourceClaimDeviceStatus": "device status in claims",
    "DRAConsumableCapacity": "multi-allocatable devices and capacity requests",
    "DRAListTypeAttributes": "list-typed device attributes",
    "DRADeviceCompatibilityGroups": "compatibility groups of counter consumers",
    "DRADerivedAttributes": "derived attributes in requests",
    "DRAOptionalNodeOperations": "skipNodeOperations",
    "DRAFractionalCapacityRange": "fractional capacity request policies",
    "DRASharedConsumableCapacity": "counters consumed from capacity requests",
    "DRAExtendedResource": "extended resources backed by DRA",
    "DRANodeAllocatableResources": "node-allocatable resources mapped from devices",
    "DRASchedulerFilterTimeout": "the scheduler's per-node filter timeout",
    "GenericWorkload": "PodGroup objects",
    "GangScheduling": "gang scheduling of pod groups",
    "DRAWorkloadResourceClaims": "ResourceClaims of PodGroups, shared by their pods",
    "CPUManagerPolicyOptions": "CPU manager policy options",
    "CPUManagerPolicyBetaOptions": "beta CPU manager options",
    "CPUManagerPolicyAlphaOptions": "alpha CPU manager options",
    "TopologyManagerPolicyOptions": "topology manager policy options",
    "TopologyManagerPolicyBetaOptions": "beta topology manager options",
    "TopologyManagerPolicyAlphaOptions": "alpha topology manager options",
    "MemoryManager": "the memory manager",
    "PodLevelResources": "pod-level resources",
    "PodLevelResourceManagers": "pod-level resource managers",
    "InPlacePodVerticalScalingExclusiveCPUs": "resizing exclusive CPUs in place",
    "SidecarContainers": "restartable init containers",
    "DRAPreemption": "preemption frees the devices of victims' node-local claims (KEP-5690)",
}

# Gates off unless switched on: alpha in every release that has them.
DEFAULT_OFF: frozenset[str] = frozenset({"DRAPreemption"})

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


@dataclass(frozen=True)
class FeatureGates:
    """The gates switched off (everything else is on); by default those of DEFAULT_OFF."""

    disabled: frozenset[str] = DEFAULT_OFF

    def enabled(self, gate: str) -> bool:
        return gate not in self.disabled

    def with_values(self, values: Mapping[str, bool]) -> FeatureGates:
        disabled = set(self.disabled)
        for gate, on in values.items():
            if on:
                disabled.discard(gate)
            else:
                disabled.add(gate)
        return FeatureGates(frozenset(disabled))

    def as_dict(self) -> dict[str, bool]:
        return {gate: gate not in self.disabled for gate in KNOWN_GATES}


# The defaults: every gate on but those of DEFAULT_OFF (the name predates DEFAULT_OFF).
ALL_ON = FeatureGates()


def parse_gates(specs: Iterable[str], source: str = "--feature-gates") -> FeatureGates:
    """`Name=true,Other=false` (possibly repeated) -> FeatureGates; unknown names are errors."""
    values: dict[str, bool] = {}
    for spec in specs:
        for item in spec.split(","):
            item = item.strip()
            if not item:
                continue
            name, sep, text = item.partition("=")
            name = name.strip()
            if not sep:
                raise InputError(f"{source}: {item!r}: expected Name=true|false")
            if name not in KNOWN_GATES:
                raise InputError(f"{source}: unrecognized feature gate: {name}")
            text = text.strip().lower()
            if text not in _TRUE | _FALSE:
                raise InputError(f"{source}: {name}: invalid value {text!r} (expected true or false)")
            values[name] = text in _TRUE
    return ALL_ON.with_values(values)
