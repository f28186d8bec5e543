"""ResourceSlice validation of the slice's own fields: sizes, metadata, driver, pool and node selection,
and malformed quantities anywhere in a slice.

Cases follow the upstream table in kubernetes/kubernetes
`pkg/apis/resource/validation/validation_resourceslice_test.go`, rewritten as
camelCase manifests; expected messages are what the API server prints after
the field path.
"""

from __future__ import annotations

from typing import Any

import pytest
from slice_manifests import (
    cap_policy,
    consumes,
    counter_sets,
    dev_path,
    errors,
    nar,
    nar_path,
    policy_path,
    set_dev,
    set_spec,
    shared_counter_slice,
    slice_,
    taints,
)
from validation_helpers import BAD, LABEL, LABEL_VALUE, SUBDOMAIN, Case, Found, cases, with_

NODE_SELECTION = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
PER_DEVICE = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` "
    "is set to true in the ResourceSlice spec"
)


def per_device_slice(**device_fields: Any) -> dict[str, Any]:
    """A slice that leaves node selection to its device, which gets these fields."""

    def change(m: dict[str, Any]) -> None:
        set_spec(nodeName=None, perDeviceNodeSelection=True)(m)
        set_dev(0, **device_fields)(m)

    return with_(slice_(), change)


CASES: list[Case] = [
    # Sizes
    ("a slice with 128 devices is valid", slice_(128), []),
    (
        "a slice with 129 devices is too large",
        slice_(129),
        [(("spec", "devices"), "Too many: 129: must have at most 128 items")],
    ),
    ("64 tainted devices are allowed", with_(slice_(64), taints(1)), []),
    (
        "65 tainted devices are too many",
        with_(slice_(65), taints(1)),
        [(("spec", "devices"), "Too many: 65: must have at most 64 items")],
    ),
    (
        "one list attribute lowers the device limit to 64",
        with_(slice_(65), set_dev(0, attributes={"ints": {"ints": [1, 2, 3]}})),
        [(("spec", "devices"), "Too many: 65: must have at most 64 items")],
    ),
    (
        "one device consuming counters lowers the device limit to 64",
        with_(slice_(65), set_dev(0, consumesCounters=consumes(1))),
        [(("spec", "devices"), "Too many: 65: must have at most 64 items")],
    ),
    # Metadata
    (
        "a slice needs a name",
        with_(slice_(), lambda m: m["metadata"].pop("name")),
        [(("metadata", "name"), "Required value: name or generateName is required")],
    ),
    (
        "a generateName is enough",
        with_(slice_(), lambda m: m.update(metadata={"generateName": "prefix-"})),
        [],
    ),
    (
        "the name is a DNS subdomain",
        with_(slice_(), lambda m: m["metadata"].update(name=BAD)),
        [(("metadata", "name"), f'Invalid value: "{BAD}": {SUBDOMAIN}')],
    ),
    (
        "slices are cluster-scoped",
        with_(slice_(), lambda m: m["metadata"].update(namespace="default")),
        [(("metadata", "namespace"), "Forbidden: not allowed on this type")],
    ),
    (
        "label values are checked",
        with_(slice_(), lambda m: m["metadata"].update(labels={"hello-world": "spaces not allowed"})),
        [(("metadata", "labels"), f'Invalid value: "spaces not allowed": {LABEL_VALUE}')],
    ),
    # Pool and node
    (
        "a bad node name is reported for the pool and the node",
        slice_(node=BAD),
        [
            (("spec", "pool", "name"), f'Invalid value: "{BAD}": {SUBDOMAIN}'),
            (("spec", "nodeName"), f'Invalid value: "{BAD}": {SUBDOMAIN}'),
        ],
    ),
    (
        "a pool name may have 253 bytes",
        with_(slice_(), lambda m: m["spec"]["pool"].update(name="x" * 253)),
        [],
    ),
    (
        "pool name length, slice count and generation are bounded",
        with_(
            slice_(),
            lambda m: m["spec"]["pool"].update(name="x/" * 126 + "xy", resourceSliceCount=0, generation=-1),
        ),
        [
            (("spec", "pool", "name"), "Too long: may not be more than 253 bytes"),
            (("spec", "pool", "resourceSliceCount"), "Invalid value: 0: must be greater than zero"),
            (("spec", "pool", "generation"), "Invalid value: -1: must be greater than or equal to zero"),
        ],
    ),
    (
        "every part of a multi-part pool name is a subdomain",
        with_(slice_(), lambda m: m["spec"]["pool"].update(name=f"{BAD}/ok/{BAD}")),
        [
            (("spec", "pool", "name"), f'Invalid value: "{BAD}": {SUBDOMAIN}'),
            (("spec", "pool", "name"), f'Invalid value: "{BAD}": {SUBDOMAIN}'),
        ],
    ),
    (
        "a pool needs a name",
        with_(slice_(), lambda m: m["spec"]["pool"].update(name="")),
        [(("spec", "pool", "name"), "Required value")],
    ),
    (
        "a node selector without terms",
        with_(slice_(), set_spec(nodeName=None, nodeSelector={"nodeSelectorTerms": []})),
        [
            (
                ("spec", "nodeSelector", "nodeSelectorTerms"),
                "Required value: must have at least one node selector term",
            ),
            (
                ("spec", "nodeSelector", "nodeSelectorTerms"),
                "Invalid value: []core.NodeSelectorTerm(nil): must have exactly one node selector term",
            ),
        ],
    ),
    (
        "a node selector with one term is valid",
        with_(
            slice_(),
            set_spec(
                nodeName=None,
                nodeSelector={
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["worker"]}]}
                    ]
                },
            ),
        ),
        [],
    ),
    (
        "node selector values are label values",
        with_(
            slice_(),
            set_spec(
                nodeName=None,
                nodeSelector={
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["-1"]}]}
                    ]
                },
            ),
        ),
        [
            (
                ("spec", "nodeSelector", "nodeSelectorTerms", 0, "matchExpressions", 0, "values", 0),
                f'Invalid value: "-1": {LABEL_VALUE}',
            )
        ],
    ),
    (
        "nodeName and nodeSelector together",
        with_(
            slice_(),
            set_spec(
                nodeSelector={
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["worker"]}]}
                    ]
                }
            ),
        ),
        [
            (
                ("spec",),
                f'Invalid value: "{{`nodeName`, `nodeSelector`}}": {NODE_SELECTION}, but multiple fields '
                f"are set",
            )
        ],
    ),
    (
        "nodeName and allNodes together",
        with_(slice_(), set_spec(allNodes=True)),
        [
            (
                ("spec",),
                f'Invalid value: "{{`nodeName`, `allNodes`}}": {NODE_SELECTION}, but multiple fields are set',
            )
        ],
    ),
    ("allNodes alone is valid", with_(slice_(), set_spec(nodeName=None, allNodes=True)), []),
    (
        "no node selection at all",
        with_(slice_(), set_spec(nodeName=None)),
        [(("spec",), f"Required value: {NODE_SELECTION}")],
    ),
    (
        "allNodes false is not a way to unset it",
        with_(slice_(), set_spec(allNodes=False)),
        [(("spec", "allNodes"), "Invalid value: false: must be either unset or set to true")],
    ),
    (
        "perDeviceNodeSelection false is not a way to unset it",
        with_(slice_(), set_spec(perDeviceNodeSelection=False)),
        [(("spec", "perDeviceNodeSelection"), "Invalid value: false: must be either unset or set to true")],
    ),
    (
        "an empty nodeName",
        with_(slice_(), set_spec(nodeName="", allNodes=True)),
        [(("spec", "nodeName"), 'Invalid value: "": must be either unset or set to a non-empty string')],
    ),
    # Driver
    ("upper case letters pass the driver check", slice_(driver="Test.Example.com"), []),
    (
        "a bad driver name",
        slice_(driver=BAD),
        [(("spec", "driver"), f'Invalid value: "{BAD}": {SUBDOMAIN}')],
    ),
    (
        "a driver name longer than 63 bytes",
        slice_(driver="a" * 64),
        [(("spec", "driver"), "Too long: may not be more than 63 bytes")],
    ),
    (
        "devices and sharedCounters in one slice",
        with_(slice_(), set_spec(sharedCounters=counter_sets(1))),
        [(("spec",), 'Invalid value: "": only one of `sharedCounters` or `devices` is allowed')],
    ),
    # Devices
    (
        "a device name is a DNS label",
        with_(slice_(3), set_dev(1, name=BAD)),
        [(dev_path(1, "name"), f'Invalid value: "{BAD}": {LABEL}')],
    ),
    (
        "device names are unique in a slice",
        with_(slice_(2), set_dev(1, name="device-0")),
        [(dev_path(1), 'Duplicate value: "device-0"')],
    ),
    (
        "per-device node fields need perDeviceNodeSelection",
        with_(slice_(), set_dev(0, nodeName="worker")),
        [
            (
                dev_path(0),
                "Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if "
                "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
            )
        ],
    ),
    (
        "perDeviceNodeSelection with a device that names its node",
        per_device_slice(nodeName="w"),
        [],
    ),
    (
        "perDeviceNodeSelection together with nodeName, and a device without node",
        with_(slice_(), set_spec(perDeviceNodeSelection=True)),
        [
            (
                ("spec",),
                f'Invalid value: "{{`nodeName`, `perDeviceNodeSelection`}}": {NODE_SELECTION}, but '
                f"multiple fields are set",
            ),
            (dev_path(0), f"Required value: {PER_DEVICE}"),
        ],
    ),
    (
        "per-device empty nodeName and false allNodes",
        per_device_slice(nodeName="", allNodes=False),
        [
            (dev_path(0, "nodeName"), 'Invalid value: "": must not be empty'),
            (dev_path(0, "allNodes"), "Invalid value: false: must be either unset or set to true"),
            (dev_path(0), f"Required value: {PER_DEVICE}"),
        ],
    ),
    (
        "per-device nodeName and allNodes together",
        per_device_slice(nodeName="w", allNodes=True),
        [(dev_path(0), f'Invalid value: "{{`nodeName`, `allNodes`}}": {PER_DEVICE}')],
    ),
]


@cases(CASES)
def test_resource_slice(name: str, manifest: dict[str, Any], expected: Found) -> None:
    assert errors(manifest) == expected


# Quantity syntax goes last: it relies on kubefit.model.quantity when that is installed.

QUANTITY_CASES = [
    (
        "capacity value",
        with_(slice_(), set_dev(0, capacity={"memory": {"value": "1Gx"}})),
        dev_path(0, "capacity", "memory", "value"),
    ),
    (
        "counter value",
        shared_counter_slice([{"name": "s", "counters": {"c": {"value": "lots"}}}]),
        ("spec", "sharedCounters", 0, "counters", "c", "value"),
    ),
    (
        "policy default",
        with_(slice_(), cap_policy(0, {"default": "ten"})),
        policy_path(0, "default"),
    ),
    (
        "overhead",
        with_(slice_(), nar({"memory": {"overhead": {"perPod": "1..5"}}})),
        nar_path("memory", "overhead", "perPod"),
    ),
]


@pytest.mark.parametrize(("name", "manifest", "path"), QUANTITY_CASES, ids=[c[0] for c in QUANTITY_CASES])
def test_malformed_quantities(name: str, manifest: dict[str, Any], path: tuple[str | int, ...]) -> None:
    found = errors(manifest)
    assert [p for p, _ in found] == [path]
    assert found[0][1].startswith("Invalid value: ")
