"""Feature gates as a Kubernetes release sets them: the data read from upstream, the tables of two
releases, upstream's rules for setting gates (AllAlpha/AllBeta, locks, dependencies, gates a release
does not have), and what happens to a field whose gate is off."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cluster_manifests import DRIVER, device_class, gpus, node, write
from cluster_manifests import claim as gpu_claim

from kubefit.cli import main
from kubefit.model.errors import InputError, format_path
from kubefit.model.features import (
    ALL_ON,
    KNOWN_GATES,
    FeatureGates,
    check_version,
    parse_gates,
    release_gates,
)
from kubefit.model.gate_specs import PREVIEW, RELEASES, SPECS, UPSTREAM_COMMIT, Spec
from kubefit.translate.disabled_fields import gated_fields
from kubefit.translate.loader import load_text

# Transcribed from kubernetes/kubernetes pkg/features/kube_features.go @ ead35706ec68
# (defaultVersionedKubernetesFeatureGates), entries as upstream writes them.
UPSTREAM_EXCERPT = """
	CPUManagerPolicyOptions: {
		{Version: version.MustParse("1.22"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.23"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.33"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}, // remove in 1.36
	},

	DRAAdminAccess: {
		{Version: version.MustParse("1.32"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.34"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}, // GA in 1.36; remove in 1.39
	},

	DRADeviceTaintRules: {
		{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.36"), Default: false, PreRelease: featuregate.Beta},                    // Depends on an off-by-default beta API.
		{Version: version.MustParse("1.37"), Default: true, PreRelease: featuregate.GA, LockToDefault: false}, // LockToDefault: true in 1.38; remove in 1.41
	},

	DRAFractionalCapacityRange: {
		{Version: version.MustParse("1.37"), Default: false, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.37"), Default: true, PreRelease: featuregate.Beta, MinCompatibilityVersion: version.MustParse("1.37")},
	},

	DRAPrioritizedList: {
		{Version: version.MustParse("1.33"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.34"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.GA},
		{Version: version.MustParse("1.37"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		// Remove completely in 1.40.
	},

	DynamicResourceAllocation: {
		{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.32"), Default: false, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.34"), Default: true, PreRelease: featuregate.GA},
		{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		// TODO (https://github.com/kubernetes/kubernetes/issues/134459): remove completely in 1.38
	},

	PodLevelResourceManagers: {
		{Version: version.MustParse("1.36"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.37"), Default: false, PreRelease: featuregate.Beta},
	},

	TopologyManagerPolicyBetaOptions: {
		{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.28"), Default: true, PreRelease: featuregate.Beta},
	},
"""

_ENTRY = re.compile(r"^\t(\w+): \{$")
_SPEC = re.compile(
    r'\{Version: version\.MustParse\("([\d.]+)"\), Default: (true|false), PreRelease: featuregate\.(\w+)'
    r'(?:, LockToDefault: (true|false))?(?:, MinCompatibilityVersion: version\.MustParse\("([\d.]+)"\))?\}'
)


def _excerpt() -> dict[str, tuple[Spec, ...]]:
    specs: dict[str, list[Spec]] = {}
    gate = ""
    for line in UPSTREAM_EXCERPT.splitlines():
        if m := _ENTRY.match(line):
            gate = m.group(1)
            specs[gate] = []
        elif m := _SPEC.search(line):
            version, default, stage, locked, compat = m.groups()
            specs[gate].append(
                Spec(version, default == "true", stage.upper(), locked == "true", compat or "")
            )
    return {g: tuple(s) for g, s in specs.items()}


def test_the_data_is_upstreams_specs_read_at_the_commit_it_names() -> None:
    excerpt = _excerpt()
    assert len(excerpt) == 8 and all(excerpt.values())
    for gate, specs in excerpt.items():
        assert SPECS[gate] == specs, gate
    assert UPSTREAM_COMMIT.startswith("ead35706ec68")


def test_every_gate_kubefit_honours_has_upstream_data() -> None:
    assert set(KNOWN_GATES) <= set(SPECS)
    assert RELEASES[-1] == "1.37"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _upstream_table(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    code, out, _ = run(capsys, *args, "-o", "json")
    assert code == 0
    return [r["upstream"] for r in json.loads(out)["gates"] if r["upstream"]]


# What upstream's --feature-gates help lists (KnownFeatures: alpha and beta gates only) for these gates,
# worked out from the specs upstream has for each release.
UPSTREAM_1_35 = [
    "AllAlpha=true|false (ALPHA - default=false)",
    "AllBeta=true|false (BETA - default=false)",
    "CPUManagerPolicyAlphaOptions=true|false (ALPHA - default=false)",
    "CPUManagerPolicyBetaOptions=true|false (BETA - default=true)",
    "DRAAdminAccess=true|false (BETA - default=true)",
    "DRAConsumableCapacity=true|false (ALPHA - default=false)",
    "DRADeviceBindingConditions=true|false (ALPHA - default=false)",
    "DRADeviceTaintRules=true|false (ALPHA - default=false)",
    "DRADeviceTaints=true|false (ALPHA - default=false)",
    "DRAExtendedResource=true|false (ALPHA - default=false)",
    "DRAPartitionableDevices=true|false (ALPHA - default=false)",
    "DRAPrioritizedList=true|false (BETA - default=true)",
    "DRAResourceClaimDeviceStatus=true|false (BETA - default=true)",
    "DRASchedulerFilterTimeout=true|false (BETA - default=true)",
    "GangScheduling=true|false (ALPHA - default=false)",
    "GenericWorkload=true|false (ALPHA - default=false)",
    "InPlacePodVerticalScalingExclusiveCPUs=true|false (ALPHA - default=false)",
    "NodeDeclaredFeatures=true|false (ALPHA - default=false)",
    "PodLevelResources=true|false (BETA - default=true)",
    "StorageCapacityScoring=true|false (ALPHA - default=false)",
    "TopologyManagerPolicyAlphaOptions=true|false (ALPHA - default=false)",
    "TopologyManagerPolicyBetaOptions=true|false (BETA - default=true)",
]
UPSTREAM_1_37 = [
    "AllAlpha=true|false (ALPHA - default=false)",
    "AllBeta=true|false (BETA - default=false)",
    "CPUManagerPolicyAlphaOptions=true|false (ALPHA - default=false)",
    "CPUManagerPolicyBetaOptions=true|false (BETA - default=true)",
    "CompositePodGroup=true|false (ALPHA - default=false)",
    "DRAConsumableCapacity=true|false (BETA - default=true)",
    "DRADerivedAttributes=true|false (ALPHA - default=false)",
    "DRADeviceBindingConditions=true|false (BETA - default=true)",
    "DRADeviceCompatibilityGroups=true|false (ALPHA - default=false)",
    "DRAFractionalCapacityRange=true|false (BETA - default=false), or DRAFractionalCapacityRange=true|false "
    "(BETA - default=true) if --min-compatibility-version>=1.37",
    "DRAListTypeAttributes=true|false (ALPHA - default=false)",
    "DRANodeAllocatableResources=true|false (ALPHA - default=false)",
    "DRAOptionalNodeOperations=true|false (ALPHA - default=false)",
    "DRAPartitionableDevices=true|false (BETA - default=true)",
    "DRASchedulerFilterTimeout=true|false (BETA - default=true)",
    "DRAWorkloadResourceClaims=true|false (BETA - default=false)",
    "GenericWorkload=true|false (BETA - default=false)",
    "InPlacePodVerticalScalingExclusiveCPUs=true|false (ALPHA - default=false)",
    "PodGroupPreemptionPolicy=true|false (ALPHA - default=false)",
    "PodLevelResourceManagers=true|false (BETA - default=false)",
    "PodLevelResources=true|false (BETA - default=true)",
    "StorageCapacityScoring=true|false (BETA - default=true)",
    "TopologyAwareWorkloadScheduling=true|false (ALPHA - default=false)",
    "TopologyManagerPolicyAlphaOptions=true|false (ALPHA - default=false)",
    "TopologyManagerPolicyBetaOptions=true|false (BETA - default=true)",
]


def test_the_1_35_table_is_upstreams(capsys: pytest.CaptureFixture[str]) -> None:
    assert _upstream_table(capsys, "--emulated-version", "1.35", "feature-gates") == UPSTREAM_1_35
    assert _upstream_table(capsys, "feature-gates", "--emulated-version", "1.35") == UPSTREAM_1_35


def test_the_1_37_table_is_upstreams_and_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert _upstream_table(capsys, "--emulated-version", "1.37", "feature-gates") == UPSTREAM_1_37
    assert _upstream_table(capsys, "feature-gates") == UPSTREAM_1_37


def _rows(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, dict[str, Any]]:
    code, out, _ = run(capsys, *args, "feature-gates", "-o", "json")
    assert code == 0
    return {r["gate"]: r for r in json.loads(out)["gates"]}


def test_the_table_shows_ga_locked_removed_and_missing_gates(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(capsys, "--emulated-version", "1.37")
    assert rows["DRAAdminAccess"]["stage"] == "GA (locked)" and rows["DRAAdminAccess"]["value"] is True
    assert rows["DRADeviceTaints"]["stage"] == "GA"
    assert rows["SidecarContainers"]["stage"] == "removed" and rows["SidecarContainers"]["value"] is True
    assert rows["GangScheduling"]["kubefit"] == "removed in 1.37: follows GenericWorkload"
    assert rows["DRAPreemption"]["stage"] == "preview" and rows["DRAPreemption"]["value"] is False
    old = _rows(capsys, "--emulated-version", "1.34")
    assert old["DRAListTypeAttributes"]["stage"] == "-" and old["DRAListTypeAttributes"]["default"] is None
    assert old["MemoryManager"]["stage"] == "GA (locked)"
    assert _rows(capsys, "--emulated-version", "1.36")["MemoryManager"]["stage"] == "removed"


def test_the_table_lists_the_meta_gates_run_scenarios_looks_for(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "feature-gates")
    assert code == 0
    assert out.startswith("Kubernetes 1.37 ")
    assert "AllAlpha" in out and "AllBeta" in out


def test_the_version_names_the_release_it_defaults_to(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "Kubernetes 1.37 feature-gate defaults" in out and "1.34 to 1.37" in out


def test_all_alpha_and_all_beta_set_the_gates_of_their_stage_not_named() -> None:
    gates = release_gates({"AllAlpha": True}, "1.37")
    assert gates.enabled("DRAListTypeAttributes") and gates.enabled("DRADeviceCompatibilityGroups")
    assert not gates.enabled("GenericWorkload")  # beta, off by default: AllAlpha leaves it
    gates = release_gates(
        {"AllBeta": True, "GenericWorkload": False, "DRAWorkloadResourceClaims": False}, "1.37"
    )
    assert gates.enabled("PodLevelResourceManagers") and not gates.enabled("GenericWorkload")
    assert not gates.enabled("DRAListTypeAttributes")
    gates = release_gates({"AllAlpha": True, "AllBeta": True, "DRAListTypeAttributes": False}, "1.37")
    assert not gates.enabled("DRAListTypeAttributes")  # named: it wins, whatever the order
    assert gates.explicit == frozenset({"DRAListTypeAttributes"})
    # GA gates, gates no release has yet and gates of releases to come are not theirs.
    gates = release_gates({"AllAlpha": False, "AllBeta": False}, "1.37")
    assert gates.enabled("DRADeviceTaints") and gates.enabled("StorageCapacityScoring") is False
    everything = release_gates({"AllAlpha": True, "AllBeta": True}, "1.37")
    assert everything.disabled == frozenset(PREVIEW) == ALL_ON.disabled


def test_all_alpha_works_on_the_stages_of_the_emulated_release() -> None:
    assert release_gates({"AllAlpha": True}, "1.35").enabled("DRAPartitionableDevices")  # alpha in 1.35
    assert release_gates({"AllAlpha": False}, "1.36").enabled("DRAPartitionableDevices")  # beta, on
    assert not release_gates({"AllBeta": False}, "1.36").enabled("DRAPartitionableDevices")
    assert not release_gates({"AllAlpha": True}, "1.35").enabled("DRAListTypeAttributes")  # not in 1.35


def test_a_removed_gate_follows_the_gate_it_was_merged_into() -> None:
    assert release_gates({"GenericWorkload": True}, "1.37").enabled("GangScheduling")
    assert not release_gates({}, "1.37").enabled("GangScheduling")
    assert release_gates({}, "1.37").enabled("SidecarContainers")


def _refused(values: dict[str, bool], version: str = "1.37") -> list[str]:
    with pytest.raises(InputError) as e:
        release_gates(values, version)
    return [str(p) for p in e.value.problems]


def _warned(values: dict[str, bool], version: str = "1.37") -> tuple[FeatureGates, list[str]]:
    notes: list[str] = []
    return release_gates(values, version, warnings=notes), notes


def test_a_locked_gate_set_against_its_lock_warns_and_is_honoured() -> None:
    gates, notes = _warned({"DRAAdminAccess": False})
    assert notes == [
        "--feature-gates: cannot set feature gate DRAAdminAccess to false, feature is locked to true "
        "(kube-scheduler 1.37 would refuse to start); answering as if it were false"
    ]
    assert not gates.enabled("DRAAdminAccess")
    gates, notes = _warned({"DRAAdminAccess": True})  # its own value: upstream's GA log line only
    assert gates.enabled("DRAAdminAccess") and "locked" not in " ".join(notes)
    assert _warned({"DRAAdminAccess": False}, "1.35")[1] == []  # beta then


def test_a_gate_the_release_does_not_have_cannot_be_set() -> None:
    assert _refused({"DRAListTypeAttributes": True}, "1.35") == [
        "--feature-gates: cannot set feature gate DRAListTypeAttributes to true, feature is PreAlpha at "
        "emulated version 1.35, min compatibility version 1.34"
    ]
    assert _refused({"GangScheduling": True}) == [
        "--feature-gates: unrecognized feature gate: GangScheduling"
    ]
    assert _refused({"DRANope": False}) == ["--feature-gates: unrecognized feature gate: DRANope"]


def test_a_gate_on_without_the_gates_it_depends_on_warns_and_is_honoured() -> None:
    gates, notes = _warned({"DRADeviceTaints": False})
    assert notes[-1] == (
        "--feature-gates: DRADeviceTaintRules is enabled, but depends on features that are disabled: "
        "[DRADeviceTaints] (kube-scheduler 1.37 would refuse to start); answering with DRADeviceTaintRules "
        "on and DRADeviceTaints off"
    )
    assert gates.enabled("DRADeviceTaintRules") and not gates.enabled("DRADeviceTaints")
    gates, notes = _warned({"DRADeviceTaints": False, "DRADeviceTaintRules": False})
    assert not gates.enabled("DRADeviceTaints") and not any("depends on" in n for n in notes)
    gates, notes = _warned({"AllBeta": True, "DRAConsumableCapacity": False})
    assert notes == [
        "--feature-gates: DRAFractionalCapacityRange is enabled, but depends on features that are disabled: "
        "[DRAConsumableCapacity] (kube-scheduler 1.37 would refuse to start); answering with "
        "DRAFractionalCapacityRange on and DRAConsumableCapacity off"
    ]
    assert gates.enabled("DRAFractionalCapacityRange") and not gates.enabled("DRAConsumableCapacity")


def test_a_preview_gate_is_off_and_may_be_switched_on() -> None:
    notes: list[str] = []
    gates = release_gates({"DRAPreemption": True}, "1.37", warnings=notes)
    assert gates.enabled("DRAPreemption")
    assert not release_gates({"AllAlpha": True}, "1.37").enabled("DRAPreemption")
    assert notes and "KEP-5690" in notes[0]


def test_parse_gates_reads_the_flag_as_upstream_does() -> None:
    assert not parse_gates(["DRAListTypeAttributes=F"]).enabled("DRAListTypeAttributes")
    assert parse_gates(["AllAlpha=1", "DRAListTypeAttributes=0"]).enabled("DRADerivedAttributes")
    with pytest.raises(InputError, match="missing bool value for DRAAdminAccess"):
        parse_gates(["DRAAdminAccess"])
    with pytest.raises(InputError, match=r"invalid value of DRAAdminAccess=yes, err: strconv.ParseBool"):
        parse_gates(["DRAAdminAccess=yes"])


@pytest.mark.parametrize("text", ["1.33", "1.38", "2.0"])
def test_releases_kubefit_does_not_carry_are_refused(text: str) -> None:
    with pytest.raises(
        InputError, match=rf"emulation version {re.escape(text)} is not between \[1.34, 1.37\]"
    ):
        check_version(text)


def test_a_bad_emulated_version_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--emulated-version", "1.38", "feature-gates")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "emulation version 1.38 is not between [1.34, 1.37]" in err
    code, _, err = run(capsys, "feature-gates", "--emulated-version", "one")
    assert code == 2 and "expected a Kubernetes release as major.minor" in err


def test_setting_a_ga_gate_says_what_upstream_logs(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "feature-gates", "--feature-gates", "DRAPrioritizedList=true")
    assert code == 0
    assert err == (
        "kubefit: warning: --feature-gates: Setting GA feature gate DRAPrioritizedList=true. It will be "
        "removed in a future release.\n"
    )


def test_what_the_component_would_refuse_is_one_warning_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    settings = "AllAlpha=true,AllBeta=true,DRAAdminAccess=false,DRAConsumableCapacity=false"
    code, out, err = run(capsys, "feature-gates", "--feature-gates", settings, "-o", "json")
    assert code == 0
    assert err.splitlines() == [
        "kubefit: warning: --feature-gates: cannot set feature gate DRAAdminAccess to false, feature is "
        "locked to true (kube-scheduler 1.37 would refuse to start); answering as if it were false",
        "kubefit: warning: --feature-gates: DRAFractionalCapacityRange is enabled, but depends on features "
        "that are disabled: [DRAConsumableCapacity] (kube-scheduler 1.37 would refuse to start); answering "
        "with DRAFractionalCapacityRange on and DRAConsumableCapacity off",
    ]
    values = {r["gate"]: r["value"] for r in json.loads(out)["gates"]}
    assert values["DRAAdminAccess"] is False and values["DRAFractionalCapacityRange"] is True


def test_a_locked_gate_switched_off_is_the_answer_the_allocator_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claim = gpu_claim("admin")
    claim["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    path = write(tmp_path, [node(), device_class(), gpus(count=1), claim])
    args = ("allocate", "-f", str(path), "--claims", "admin", "-o", "json")
    code, out, err = run(capsys, *args, "--feature-gates", "DRAAdminAccess=false")
    assert "feature is locked to true (kube-scheduler 1.37 would refuse to start)" in err
    events = [i["message"] for i in json.loads(out)["items"] if i["kind"] == "Event"]
    assert code == 1 and any("admin access is requested, but the feature is disabled" in m for m in events)
    assert run(capsys, *args)[0] == 0


def _capacity_docs() -> list[dict[str, Any]]:
    """One GPU with memory capacity, and a claim asking capacity of it in a request and a subrequest."""
    claim = gpu_claim("shares")
    request = {"deviceClassName": DRIVER, "capacity": {"requests": {"memory": "10Gi"}}}
    claim["spec"]["devices"]["requests"] = [
        {"name": "a", "exactly": request},
        {"name": "b", "firstAvailable": [{"name": "small", **request}]},
    ]
    return [node(), device_class(), gpus(count=1, capacity={"memory": {"value": "40Gi"}}), claim]


def _allocate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, dict[str, Any], str]:
    path = write(tmp_path, _capacity_docs())
    code, out, err = run(capsys, *args, "allocate", "-f", str(path), "--claims", "shares", "-o", "json")
    return code, json.loads(out) if out.strip() else {}, err


def test_a_field_whose_gate_the_release_has_off_warns_once_and_is_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # DRAConsumableCapacity is alpha (off) in 1.35: the API server drops the capacity requests.
    code, doc, err = _allocate(tmp_path, capsys, "--emulated-version", "1.35")
    warnings = [line for line in err.splitlines() if "DRAConsumableCapacity" in line]
    assert len(warnings) == 1, err
    assert (
        "ResourceClaim/default/shares: spec.devices.requests[0].exactly.capacity: warning: the "
        in warnings[0]
    )
    assert "off in Kubernetes 1.35: the API server drops this field when it creates the object" in warnings[0]
    assert "(and 1 more such field)" in warnings[0]
    # Without its capacity requests each request takes a whole device: only one exists.
    claim = next(i for i in doc["items"] if i["kind"] == "ResourceClaim")
    assert code == 1 and "allocation" not in (claim.get("status") or {})
    assert "consumedCapacity" not in json.dumps(doc)


def test_the_same_field_with_its_gate_on_is_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _allocate(
        tmp_path, capsys, "--emulated-version", "1.35", "--feature-gates", "DRAConsumableCapacity=true"
    )
    assert "DRAConsumableCapacity feature gate" not in err
    assert code == 1  # gpu-0 does not allow multiple allocations: still one request per device


def test_a_gate_switched_off_by_name_keeps_the_field_as_a_stored_object_has_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc, err = _allocate(tmp_path, capsys, "--feature-gates", "DRAConsumableCapacity=false")
    warnings = [line for line in err.splitlines() if "feature gate is off" in line]
    assert (
        len(warnings) == 1
        and "(--feature-gates)" in warnings[0]
        and "stored while the gate was on" in warnings[0]
    )
    events = [i["message"] for i in doc["items"] if i["kind"] == "Event"]
    assert code == 1 and any(
        "has capacity requests, but the DRAConsumableCapacity feature is disabled" in m for m in events
    ), events


def test_validate_reports_the_field_the_release_would_drop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, [node(), device_class(), gpus(count=1, attributes={"links": {"ints": [1, 2]}})])
    code, out, _ = run(capsys, "validate", "-f", str(path), "-o", "json")
    messages = [p["message"] for p in json.loads(out)["problems"]]
    # 1.37 has DRAListTypeAttributes off: the list is dropped, and what is left is no attribute value.
    assert any("DRAListTypeAttributes feature gate is off in Kubernetes 1.37" in m for m in messages)
    assert any("exactly one value must be specified" in m for m in messages)
    assert code == 2
    code, out, _ = run(
        capsys, "validate", "-f", str(path), "-o", "json", "--feature-gates", "DRAListTypeAttributes=true"
    )
    assert code == 0 and json.loads(out)["valid"]


EVERY_VERSION = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: r
        firstAvailable:
        - name: a
          deviceClassName: gpu
          tolerations: [{operator: Exists}]
          capacity: {requests: {memory: 1Gi}}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: r
      deviceClassName: gpu
      adminAccess: true
      tolerations: [{operator: Exists}]
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d
  nodeName: n
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: x
    basic:
      taints: [{key: k, effect: NoSchedule}]
      attributes:
        l: {ints: [1]}
"""


def test_gated_fields_are_found_where_each_version_writes_them() -> None:
    off = FeatureGates(
        frozenset(
            {
                "DRAPrioritizedList",
                "DRADeviceTaints",
                "DRAAdminAccess",
                "DRAConsumableCapacity",
                "DRAListTypeAttributes",
            }
        )
    )
    found = {
        o.kind: [(gates, format_path(path)) for gates, path in gated_fields(o, off)]
        for o in load_text(EVERY_VERSION)
    }
    assert found == {
        "ResourceClaimTemplate": [
            (("DRAPrioritizedList",), "spec.spec.devices.requests[0].firstAvailable"),
            (("DRADeviceTaints",), "spec.spec.devices.requests[0].firstAvailable[0].tolerations"),
            (("DRAConsumableCapacity",), "spec.spec.devices.requests[0].firstAvailable[0].capacity"),
        ],
        "ResourceClaim": [  # v1beta1: no `exactly`
            (("DRADeviceTaints",), "spec.devices.requests[0].tolerations"),
            (("DRAAdminAccess",), "spec.devices.requests[0].adminAccess"),
        ],
        "ResourceSlice": [  # v1beta1: device fields under `basic`
            (("DRADeviceTaints",), "spec.devices[0].basic.taints"),
            (("DRAListTypeAttributes",), "spec.devices[0].basic.attributes.l.ints"),
        ],
    }
    assert all(gated_fields(o, ALL_ON) == [] for o in load_text(EVERY_VERSION))


VERBS = [
    ["validate", "-f", "-"],
    ["devices", "-f", "-"],
    ["allocate", "-f", "-"],
    ["explain", "-f", "-"],
    ["admit", "-f", "-", "--node", "n"],
    ["plan", "-f", "-"],
    ["compare", "-f", "-"],
    ["taints", "-f", "-"],
    ["pools", "-f", "-"],
    ["topology", "--from-sysfs"],
    ["feature-gates"],
]


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: v[0])
def test_every_verb_takes_the_release_and_refuses_one_kubefit_does_not_carry(
    verb: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in ([*verb, "--emulated-version", "1.99"], ["--emulated-version", "1.99", *verb]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, "")
        assert err == (
            "--emulated-version: emulation version 1.99 is not between [1.34, 1.37] (the releases whose "
            "feature-gate defaults kubefit carries)\n"
        )
    code, out, err = run(capsys, *verb, "--feature-gates", "DRANope=false")
    assert (code, out, err) == (2, "", "--feature-gates: unrecognized feature gate: DRANope\n")
