"""ResourceSlice validation from plain devices as read (`validate_resource_slice_raw`): the very
errors, in the very order, that `validate_resource_slice` finds walking the slice's full model."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from slice_device_strategies import DRIVER, fixture_slices, full_model, gpu, shell_of, slice_of, slices
from validation_helpers import C_IDENT, LABEL, Ctx, Found, pairs

from kubefit.translate.reading.slice_plain import plain_devices
from kubefit.translate.validation import slice_raw
from kubefit.translate.validation.resource_slice import validate_resource_slice
from kubefit.translate.validation.slice_raw import validate_resource_slice_raw

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def raw_errors(manifest: dict[str, Any]) -> Found:
    """The errors from the maps, after checking that the model path finds the same."""
    assert plain_devices(manifest["spec"]["devices"])
    errors = validate_resource_slice_raw(manifest, shell_of(manifest), Ctx())
    assert errors is not None
    assert errors == validate_resource_slice(full_model(manifest), Ctx())
    return pairs(errors)


def dev(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return ("spec", "devices", i, *rest)


def named(n: int, **fields: Any) -> list[dict[str, Any]]:
    return [{"name": f"d-{i}", **fields} for i in range(n)]


def gpus(n: int) -> list[dict[str, Any]]:
    return [gpu(f"gpu-{i}", f"gpu-{i}-counter-set") for i in range(n)]


def counters(n: int) -> dict[str, Any]:
    return {f"c-{i}": {"value": "1"} for i in range(n)}


def consuming(*entries: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": "d", "consumesCounters": list(entries)}]


def with_attr(name: str, value: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": "d", "attributes": {name: value}}]


PARTITION_DETAIL = (
    "device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set"
)
PER_DEVICE_DETAIL = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)
CS = {"counterSet": "cs", "counters": counters(1)}

# (case, manifest, the errors expected)
CASES: list[tuple[str, dict[str, Any], Found]] = [
    ("a slice of GPUs", slice_of(gpus(8)), []),
    ("an empty devices list", slice_of([]), []),
    ("devices with only names", slice_of(named(3)), []),
    (
        "a name that is no label",
        slice_of([{"name": "A"}]),
        [(dev(0, "name"), f'Invalid value: "A": {LABEL}')],
    ),
    (
        "a name with dots",
        slice_of([{"name": "a.b"}]),
        [(dev(0, "name"), 'Invalid value: "a.b": must not contain dots')],
    ),
    (
        "a name too long",
        slice_of([{"name": "x" * 64}]),
        [(dev(0, "name"), f'Invalid value: "{"x" * 64}": must be no more than 63 bytes')],
    ),
    (
        "an empty name",
        slice_of([{"name": ""}]),
        [(dev(0, "name"), f'Invalid value: "": {LABEL}')],
    ),
    (
        "a repeated name, right after that device's own errors",
        slice_of([{"name": "a"}, {"name": "a", "attributes": {"9x": {"int": 1}}}, {"name": "a"}]),
        [
            (dev(1, "attributes"), f'Invalid value: "9x": {C_IDENT}'),
            (dev(1), 'Duplicate value: "a"'),
            (dev(2), 'Duplicate value: "a"'),
        ],
    ),
    ("128 devices", slice_of(named(128)), []),
    (
        "129 devices",
        slice_of(named(129)),
        [(("spec", "devices"), "Too many: 129: must have at most 128 items")],
    ),
    (
        "150 devices with bad names: only the count",
        slice_of(named(150, attributes={"!": {"int": 1}})),
        [(("spec", "devices"), "Too many: 150: must have at most 128 items")],
    ),
    ("64 devices consuming counters", slice_of(gpus(64)), []),
    (
        "65 devices, one consuming counters",
        slice_of([*named(64), gpu("gpu-x")]),
        [(("spec", "devices"), "Too many: 65: must have at most 64 items")],
    ),
    (
        "65 devices with empty counter consumption lists (not advanced)",
        slice_of(named(65, consumesCounters=[])),
        [],
    ),
    (
        "32 attributes and capacities",
        slice_of(
            [
                {
                    "name": "d",
                    "attributes": {f"a{i}": {"int": i} for i in range(31)},
                    "capacity": {"m": {"value": "1"}},
                }
            ]
        ),
        [],
    ),
    (
        "33 attributes and capacities",
        slice_of(
            [
                {
                    "name": "d",
                    "attributes": {f"a{i}": {"int": i} for i in range(32)},
                    "capacity": {"m": {"value": "1"}},
                }
            ]
        ),
        [(dev(0), "Invalid value: 33: the total number of attributes and capacities must not exceed 32")],
    ),
    (
        "49 attributes",
        slice_of([{"name": "d", "attributes": {f"a{i}": {"bool": True} for i in range(49)}}]),
        [
            (dev(0), "Invalid value: 49: the total number of attributes and capacities must not exceed 32"),
            (dev(0), "Invalid value: 49: the total number of attribute values must not exceed 48"),
        ],
    ),
    ("attributes of every kind", slice_of(with_attr("a", {"int": -5}) + named(1)), []),
    (
        "an attribute name that is no C identifier",
        slice_of(with_attr("9x", {"int": 1})),
        [(dev(0, "attributes"), f'Invalid value: "9x": {C_IDENT}')],
    ),
    (
        "an attribute name with two slashes",
        slice_of(with_attr("a/b/c", {"int": 1})),
        [(dev(0, "attributes"), 'Invalid value: "a/b/c": must not contain more than one slash')],
    ),
    (
        "a string attribute too long, under a long name shortened in the path",
        slice_of(with_attr("k" * 120, {"string": "x" * 65})),
        [
            (dev(0, "attributes"), "Too long: may not be more than 32 bytes"),
            (
                dev(0, "attributes", "k" * 47 + "..." + "k" * 46, "string"),
                "Too long: may not be more than 64 bytes",
            ),
        ],
    ),
    (
        "a string attribute of 33 two-byte characters",
        slice_of(with_attr("s", {"string": "é" * 33})),
        [(dev(0, "attributes", "s", "string"), "Too long: may not be more than 64 bytes")],
    ),
    (
        "a version that is no semver",
        slice_of(with_attr("v", {"version": "1.2"})),
        [
            (
                dev(0, "attributes", "v", "version"),
                'Invalid value: "1.2": must be a string compatible with semver.org spec 2.0.0',
            )
        ],
    ),
    ("a version with a pre-release and build", slice_of(with_attr("v", {"version": "1.0.0-rc.1+b.5"})), []),
    ("an int beyond int64", slice_of(with_attr("i", {"int": 2**70})), []),
    (
        "a capacity that is no quantity",
        slice_of([{"name": "d", "capacity": {"memory": {"value": "lots"}}}]),
        [
            (
                dev(0, "capacity", "memory", "value"),
                'Invalid value: "lots": quantities must match the regular expression '
                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
            )
        ],
    ),
    (
        "a capacity name that is no qualified name",
        slice_of([{"name": "d", "capacity": {"/m": {"value": "1"}}}]),
        [(dev(0, "capacity"), 'Invalid value: "": the domain must not be empty')],
    ),
    ("multiple allocations allowed", slice_of(named(2, allowMultipleAllocations=True)), []),
    (
        "an empty counter set name",
        slice_of(consuming({"counterSet": "", "counters": counters(1)})),
        [(dev(0, "consumesCounters", 0, "counterSet"), "Required value")],
    ),
    (
        "a counter set name that is no label",
        slice_of(consuming({"counterSet": "CS", "counters": counters(1)})),
        [(dev(0, "consumesCounters", 0, "counterSet"), f'Invalid value: "CS": {LABEL}')],
    ),
    (
        "no counters",
        slice_of(consuming({"counterSet": "cs", "counters": {}})),
        [(dev(0, "consumesCounters", 0, "counters"), "Required value")],
    ),
    (
        "33 counters",
        slice_of(consuming({"counterSet": "cs", "counters": counters(33)})),
        [(dev(0, "consumesCounters", 0, "counters"), "Too many: 33: must have at most 32 items")],
    ),
    (
        "a counter name that is no label, and a value that is no quantity",
        slice_of(consuming({"counterSet": "cs", "counters": {"C": {"value": "x"}}})),
        [
            (dev(0, "consumesCounters", 0, "counters"), f'Invalid value: "C": {LABEL}'),
            (
                dev(0, "consumesCounters", 0, "counters", "C", "value"),
                'Invalid value: "x": quantities must match the regular expression '
                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
            ),
        ],
    ),
    (
        "one counter set consumed twice",
        slice_of(consuming(CS, CS)),
        [(dev(0, "consumesCounters", 1), 'Duplicate value: "cs"')],
    ),
    (
        "three counter consumptions",
        slice_of(consuming(CS, {**CS, "counterSet": "b"}, {**CS, "counterSet": "c"})),
        [(dev(0, "consumesCounters"), "Too many: 3: must have at most 2 items")],
    ),
    (
        "node selection per device, which plain devices lack",
        slice_of(named(2), nodeName=None, perDeviceNodeSelection=True),
        [(dev(0), f"Required value: {PER_DEVICE_DETAIL}"), (dev(1), f"Required value: {PER_DEVICE_DETAIL}")],
    ),
    (
        "counters shared next to devices",
        slice_of(named(1), sharedCounters=[{"name": "cs", "counters": counters(1)}]),
        [(("spec",), 'Invalid value: "": only one of `sharedCounters` or `devices` is allowed')],
    ),
    (
        "a partition type attribute every consuming device has as a string",
        slice_of(
            [{**gpu(), "attributes": {"model": {"string": "a100"}}}], partitionTypeAttribute=f"{DRIVER}/model"
        ),
        [],
    ),
    (
        "a partition type attribute missing on a consuming device, and not a string on another",
        slice_of(
            [
                {**gpu("g-0"), "attributes": {}},
                {"name": "plain"},
                {**gpu("g-1", "cs-1"), "attributes": {"model": {"int": 1}}},
            ],
            partitionTypeAttribute=f"{DRIVER}/model",
        ),
        [
            (dev(0, "attributes", f"{DRIVER}/model"), f"Required value: {PARTITION_DETAIL}"),
            (
                dev(2, "attributes", f"{DRIVER}/model"),
                'Invalid value: {"int":1}: must be a string value because `partitionTypeAttribute` names this '
                "attribute",
            ),
        ],
    ),
    (
        "a partition type attribute on a slice without counter consumption",
        slice_of(named(1), partitionTypeAttribute=f"{DRIVER}/model"),
        [
            (
                ("spec", "partitionTypeAttribute"),
                f'Invalid value: "{DRIVER}/model": may only be set on a slice which declares devices that '
                "consume counters",
            )
        ],
    ),
    (
        "slice errors around the device errors",
        {**slice_of([{"name": "A"}], driver="Bad_Driver"), "metadata": {"name": "Bad_Name"}},
        [],  # filled below from the model path
    ),
]


@pytest.mark.parametrize(("name", "manifest", "expected"), CASES, ids=[c[0] for c in CASES])
def test_raw_validation(name: str, manifest: dict[str, Any], expected: Found) -> None:
    found = raw_errors(manifest)
    if name == "slice errors around the device errors":
        paths = [p for p, _ in found]
        assert (
            paths.index(dev(0, "name")) > paths.index(("spec", "driver")) > paths.index(("metadata", "name"))
        )
    else:
        assert found == expected


def test_too_many_devices_is_reported_without_looking_at_any_device(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: Any) -> Any:
        raise AssertionError("a device was looked at")

    monkeypatch.setattr(slice_raw, "_device_errors", fail)
    monkeypatch.setattr(slice_raw, "_devices_valid", fail)
    assert raw_errors(slice_of(named(150, attributes={"!": {"int": 1}}))) == [
        (("spec", "devices"), "Too many: 150: must have at most 128 items")
    ]


def test_a_valid_slice_is_decided_without_a_walk_over_its_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: Any) -> Any:
        raise AssertionError("the devices were walked one by one")

    monkeypatch.setattr(slice_raw, "_device_errors", fail)
    assert raw_errors(slice_of(gpus(40))) == []


def test_only_the_devices_with_something_wrong_are_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    walked: list[tuple[str | int, ...]] = []
    walk = slice_raw._device_errors

    def record(device: dict[str, Any], path: tuple[str | int, ...], per_device: bool) -> Any:
        walked.append(path)
        return walk(device, path, per_device)

    monkeypatch.setattr(slice_raw, "_device_errors", record)
    devices = gpus(40)
    devices[7]["name"] = "Bad"
    devices[21]["consumesCounters"][0]["counters"]["memory-slice-0"]["value"] = "lots"
    devices[30]["attributes"]["uuid"] = {"string": "u" * 65}
    devices[33]["name"] = "gpu-1"  # a duplicate: reported, but nothing of its own to walk
    found = raw_errors(slice_of(devices))
    assert walked == [dev(7), dev(21), dev(30)]
    assert [p for p, _ in found] == [
        dev(7, "name"),
        dev(21, "consumesCounters", 0, "counters", "memory-slice-0", "value"),
        dev(30, "attributes", "uuid", "string"),
        dev(33),
    ]


def test_an_invalid_value_is_never_remembered_as_valid() -> None:
    bad = slice_of([{"name": "ok", "attributes": {"v": {"version": "x"}}}])
    first = raw_errors(bad)
    assert first and raw_errors(copy.deepcopy(bad)) == first
    assert raw_errors(slice_of([{"name": "ok", "attributes": {"v": {"version": "1.0.0"}}}])) == []


def test_a_full_memory_starts_afresh_and_still_answers_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slice_raw, "_MAX_REMEMBERED", 4)
    for manifest in (slice_of(gpus(8)), slice_of(named(20)), slice_of(with_attr("9x", {"int": 1}))):
        raw_errors(manifest)


def test_without_a_devices_list_or_with_devices_in_the_model_the_model_path_is_asked() -> None:
    manifest = slice_of(named(2))
    assert validate_resource_slice_raw({**manifest, "spec": {}}, shell_of(manifest), Ctx()) is None
    assert validate_resource_slice_raw(manifest, full_model(manifest), Ctx()) is None


@SETTINGS
@given(slices())
def test_raw_validation_equals_the_model_path(manifest: dict[str, Any]) -> None:
    if not plain_devices(manifest["spec"]["devices"]):
        return
    errors = validate_resource_slice_raw(manifest, shell_of(manifest), Ctx())
    assert errors == validate_resource_slice(full_model(manifest), Ctx())


def test_fixture_slices_with_plain_devices_get_the_model_paths_errors() -> None:
    compared = 0
    for name, manifest in fixture_slices():
        devices = manifest["spec"].get("devices")
        if not isinstance(devices, list) or not plain_devices(devices):
            continue
        compared += 1
        expected = validate_resource_slice(full_model(manifest), Ctx())
        assert validate_resource_slice_raw(manifest, shell_of(manifest), Ctx()) == expected, name
    assert compared >= 100
