"""Kubernetes feature gates kubefit honours, as a Kubernetes release sets them.

A run emulates one release (`--emulated-version`, kube-scheduler's flag; the newest release kubefit
carries by default): every gate defaults as that release has it (gate_specs, read from upstream), and
`--feature-gates` changes them the way upstream's featuregate package does: AllAlpha / AllBeta set every
alpha / beta gate not named explicitly, and a gate the release does not have cannot be set at all. Two
settings the component refuses to start with — a locked gate set against its lock, a gate on while a gate
it depends on is off — are warnings here, with upstream's text: kubefit is a what-if tool, and answers
with the gates as given.

FeatureGates answers `enabled(gate)`; a FeatureGates made by hand (ALL_ON, or from a set of disabled
gates) has every gate on unless it lists it, as the upstream test suites run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .errors import InputError, Problem
from .gate_specs import DEPENDENCIES, PREVIEW, RELEASES, REMOVED, SPECS, Spec

# Gate name -> what kubefit does with it.
KNOWN_GATES: dict[str, str] = {
    "DynamicResourceAllocation": "DRA as a whole: off, pods with claims are not scheduled by DRA",
    "DRAAdminAccess": "adminAccess requests (off: the allocator refuses them)",
    "DRAPrioritizedList": "firstAvailable subrequests (off: the allocator refuses them)",
    "DRAPartitionableDevices": "shared counters and per-device node selection (off: such devices skipped)",
    "DRADeviceTaints": "device taints and claim tolerations (off: both ignored)",
    "DRADeviceTaintRules": "DeviceTaintRule objects (off: ignored)",
    "DRADeviceBindingConditions": "binding conditions (off, or its status gate off: such devices skipped)",
    "DRAResourceClaimDeviceStatus": "device status in claims; binding conditions need it",
    "DRAConsumableCapacity": "multi-allocatable devices and capacity requests (off: requests refused)",
    "DRAListTypeAttributes": "list-typed device attributes (off: CEL and constraints cannot use them)",
    "DRADeviceCompatibilityGroups": "compatibility groups of counter consumers (off: grouped pools skipped)",
    "DRADerivedAttributes": "derived attributes in requests",
    "DRAOptionalNodeOperations": "skipNodeOperations on devices",
    "DRAFractionalCapacityRange": "fractional capacity request policies",
    "DRAExtendedResource": "extended resources backed by DRA",
    "DRANodeAllocatableResources": "node-allocatable resources mapped from devices",
    "DRASchedulerFilterTimeout": "the DynamicResources plugin's default filterTimeout",
    "DRAPreemption": "preemption frees the victims' DRA devices (KEP-5690)",
    "GenericWorkload": "PodGroup objects and their scheduling cycle; from 1.37 gang scheduling too",
    "GangScheduling": "gang scheduling of pod groups (with GenericWorkload; merged into it in 1.37)",
    "WorkloadAwarePreemption": "a PodGroup preempts as one unit (merged into GenericWorkload in 1.37)",
    "PodGroupPreemptionPolicy": "a PodGroup's own preemptionPolicy (off: its pods' policies decide)",
    "DRAWorkloadResourceClaims": "ResourceClaims of PodGroups, shared by their pods",
    "TopologyAwareWorkloadScheduling": "PodGroup placements per topology domain, scored (TopologyPlacement)",
    "CompositePodGroup": "CompositePodGroup trees scheduled in one PodGroup cycle (minGroupCount)",
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
    "StorageCapacityScoring": "VolumeBinding's default scoring shape",
}

# Upstream's meta-gates (featuregate.allAlphaGate / allBetaGate).
ALL_ALPHA, ALL_BETA = "AllAlpha", "AllBeta"
META_GATES = {ALL_ALPHA: "ALPHA", ALL_BETA: "BETA"}

NEWEST_RELEASE = RELEASES[-1]
OLDEST_RELEASE = RELEASES[0]
PRE_ALPHA = ""  # the stage of a gate a release does not have


@dataclass(frozen=True)
class FeatureGates:
    """The gates that are off. `emulated` names the release whose defaults they are ("" when made by
    hand: every gate not listed is on); `explicit` the gates the user set by name."""

    disabled: frozenset[str] = field(default_factory=frozenset)
    emulated: str = ""
    explicit: frozenset[str] = field(default_factory=frozenset)

    def enabled(self, gate: str) -> bool:
        return gate not in self.disabled

    def with_values(self, values: Mapping[str, bool]) -> FeatureGates:
        disabled = set(self.disabled)
        for gate, on in values.items():
            if on:
                disabled.discard(gate)
            else:
                disabled.add(gate)
        return FeatureGates(frozenset(disabled), self.emulated, self.explicit | frozenset(values))

    def as_dict(self) -> dict[str, bool]:
        return {gate: gate not in self.disabled for gate in KNOWN_GATES}

    @property
    def release(self) -> str:
        """The release whose behaviour these gates give (the newest for hand-made gates)."""
        return self.emulated or NEWEST_RELEASE


# Every gate on, as upstream's own test suites and the scenario cases assume (AllAlpha and AllBeta on at
# the newest release); gates no release has yet stay off.
ALL_ON = FeatureGates(frozenset(PREVIEW))


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def previous(version: str) -> str:
    """One minor release before (the default --min-compatibility-version)."""
    major, minor = version.split(".")
    return f"{major}.{int(minor) - 1}"


def removal(gate: str, version: str) -> str | None:
    """The release that removed `gate`, if `version` no longer has it."""
    removed = REMOVED.get(gate)
    return removed.release if removed and _minor(version) >= _minor(removed.release) else None


def spec_at(gate: str, version: str, min_compatibility: str | None = None) -> Spec | None:
    """featureSpecAtEmulationAndMinCompatVersion: the newest spec at or before `version` whose min
    compatibility version the component meets; None when the release does not have the gate yet."""
    floor = _minor(min_compatibility or previous(version))
    for spec in reversed(SPECS[gate]):
        if _minor(spec.version) > _minor(version):
            continue
        if spec.min_compatibility and floor < _minor(spec.min_compatibility):
            continue
        return spec
    return None


def stage_at(gate: str, version: str) -> str:
    spec = spec_at(gate, version)
    return spec.stage if spec is not None else PRE_ALPHA


def check_version(version: str, source: str = "--emulated-version") -> str:
    """`version` as major.minor if kubefit carries that release, else bad input (upstream's words)."""
    parts = version.strip().lstrip("v").split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        raise InputError(f"{source}: {version!r}: expected a Kubernetes release as major.minor, e.g. 1.35")
    text = f"{int(parts[0])}.{int(parts[1])}"
    if text not in RELEASES:
        raise InputError(
            f"{source}: emulation version {text} is not between [{OLDEST_RELEASE}, {NEWEST_RELEASE}] "
            "(the releases whose feature-gate defaults kubefit carries)"
        )
    return text


def split_gates(specs: Iterable[str], source: str = "--feature-gates") -> dict[str, bool]:
    """`Name=true,Other=false` (possibly repeated) -> values, parsed as featureGate.Set does."""
    values: dict[str, bool] = {}
    for spec in specs:
        for item in spec.split(","):
            if not item:
                continue
            name, sep, text = item.partition("=")
            name = name.strip()
            if not sep:
                raise InputError(f"{source}: missing bool value for {name}")
            text = text.strip()
            value = _parse_bool(text)
            if value is None:
                raise InputError(
                    f'{source}: invalid value of {name}={text}, err: strconv.ParseBool: parsing "{text}": '
                    "invalid syntax"
                )
            values[name] = value
    return values


def _parse_bool(text: str) -> bool | None:
    """strconv.ParseBool."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def release_gates(
    values: Mapping[str, bool] | None = None,
    version: str = NEWEST_RELEASE,
    source: str = "--feature-gates",
    warnings: list[str] | None = None,
) -> FeatureGates:
    """The gates of `version` with `values` set as featureGate.SetFromMap sets them. A gate the release
    does not have is bad input; a locked gate set against its lock and a gate on without the gates it
    depends on, which the component refuses to start with, are honoured with a warning; the warnings and
    what upstream logs go to `warnings` (each "SOURCE: text")."""
    values = dict(values or {})
    explicit = {k: v for k, v in values.items() if k not in META_GATES}
    problems: list[str] = []
    notes: list[str] = []
    for name, value in explicit.items():
        problem = _unknown(name, value, version)
        if problem and problem.startswith("unrecognized"):
            raise InputError(f"{source}: {problem}")  # upstream stops at the first unknown name
        if problem:
            problems.append(problem)
        else:
            notes.extend(_setting_notes(name, value, version))
    if problems:
        raise InputError([Problem(f"{source}: {p}") for p in problems])
    on = _resolve(explicit, {m: values[m] for m in META_GATES if m in values}, version)
    notes += _dependency_notes(on, version)
    if warnings is not None:
        warnings.extend(f"{source}: {note}" for note in notes)
    disabled = frozenset(g for g, v in on.items() if not v)
    return FeatureGates(disabled, version, frozenset(explicit))


def _refused(upstream: str, version: str, answer: str) -> str:
    """A setting kube-scheduler refuses to start with, as kubefit warns about it."""
    return f"{upstream} (kube-scheduler {version} would refuse to start); answering {answer}"


def _unknown(name: str, value: bool, version: str) -> str | None:
    """Upstream's refusal of a gate the release does not have (yet, or any more)."""
    if name not in SPECS or removal(name, version):
        return f"unrecognized feature gate: {name}"
    if spec_at(name, version) is None and name not in PREVIEW:
        return (
            f"cannot set feature gate {name} to {str(value).lower()}, feature is PreAlpha at emulated "
            f"version {version}, min compatibility version {previous(version)}"
        )
    return None


def _setting_notes(name: str, value: bool, version: str) -> list[str]:
    spec = spec_at(name, version)
    on = str(value).lower()
    if spec is None:
        return [f"{name} is not in Kubernetes {version} ({PREVIEW[name]}); kubefit previews it"]
    if spec.locked and spec.default != value:
        locked = f"cannot set feature gate {name} to {on}, feature is locked to {str(spec.default).lower()}"
        return [_refused(locked, version, f"as if it were {on}")]
    if spec.stage == "DEPRECATED":
        return [f"Setting deprecated feature gate {name}={on}. It will be removed in a future release."]
    if spec.stage == "GA":
        return [f"Setting GA feature gate {name}={on}. It will be removed in a future release."]
    return []


def _resolve(explicit: Mapping[str, bool], meta: Mapping[str, bool], version: str) -> dict[str, bool]:
    """Every gate's value: named explicitly, else set by AllAlpha / AllBeta for its stage (a locked gate
    included, as setUnsetAlphaGates does), else the release's default; a removed gate follows the gate it
    was merged into, or is on."""
    values: dict[str, bool] = {}
    for gate in SPECS:
        if removal(gate, version):
            continue
        spec = spec_at(gate, version)
        if gate in explicit:
            values[gate] = explicit[gate]
        elif spec is None:
            values[gate] = False
        else:
            by_meta = [v for m, v in meta.items() if META_GATES[m] == spec.stage]
            values[gate] = by_meta[0] if by_meta else spec.default
    for gate in SPECS:
        gone = REMOVED.get(gate)
        if gone and removal(gate, version):
            values[gate] = values[gone.merged_into] if gone.merged_into else True
    return values


def _dependency_notes(on: Mapping[str, bool], version: str) -> list[str]:
    out = []
    for gate in sorted(DEPENDENCIES):
        if gate not in on or not on[gate]:
            continue
        off = [dep for dep in DEPENDENCIES[gate] if not on.get(dep, False)]
        if off:
            upstream = f"{gate} is enabled, but depends on features that are disabled: [{' '.join(off)}]"
            out.append(_refused(upstream, version, f"with {gate} on and {', '.join(off)} off"))
    return out


def parse_gates(
    specs: Iterable[str], source: str = "--feature-gates", version: str | None = None
) -> FeatureGates:
    """`Name=true,Other=false` (possibly repeated) -> the gates of `version` (the newest release kubefit
    carries) with those set; gates the release does not have are errors, and what it would warn about is
    not said (see release_gates)."""
    return release_gates(split_gates(specs, source), version or NEWEST_RELEASE, source)
