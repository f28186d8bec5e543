"""ResourceSlice validation: each rule with a case that passes and one that fails.

Cases follow the upstream table in kubernetes/kubernetes
`pkg/apis/resource/validation/validation_resourceslice_test.go`, rewritten as
camelCase manifests; expected messages are what the API server prints after
the field path.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from kubernetes.client.models import V1ResourceSlice

from kubefit.translate.validation import FieldError
from kubefit.translate.validation.resource_slice import validate_resource_slice

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
C_IDENT = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')"
)
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
BAD = "!@#$%^"
NODE_SELECTION = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
PER_DEVICE = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` "
    "is set to true in the ResourceSlice spec"
)


class Ctx:
    """CEL never matters for slices; feature gates are on unless listed as off."""

    def __init__(self, *off: str) -> None:
        self.off = set(off)

    def cel_compile_error(self, expression: str) -> str | None:
        return "syntax error" if "!!bad" in expression else None

    def feature_enabled(self, gate: str) -> bool:
        return gate not in self.off


def device(i: int = 0, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": f"device-{i}",
        "attributes": {
            "int": {"int": 42},
            "string": {"string": "hello world"},
            "version": {"version": "1.2.3"},
            "bool": {"bool": True},
        },
        "capacity": {"memory": {"value": "1Gi"}},
    }
    base.update(fields)
    return base


def slice_(n: int = 1, *, driver: str = "test.example.com", node: str = "foo") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "foo"},
        "spec": {
            "driver": driver,
            "pool": {"name": node, "generation": 0, "resourceSliceCount": 1},
            "nodeName": node,
            "devices": [device(i) for i in range(n)],
        },
    }


def with_(base: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    change(out)
    return out


def errors(manifest: dict[str, Any], ctx: Ctx | None = None) -> list[tuple[tuple[str | int, ...], str]]:
    result: list[FieldError] = validate_resource_slice(V1ResourceSlice.model_validate(manifest), ctx or Ctx())
    return [(e.path, e.message) for e in result]


def dev_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return ("spec", "devices", i, *rest)


def set_spec(**fields: Any) -> Callable[[dict[str, Any]], None]:
    def change(m: dict[str, Any]) -> None:
        for k, v in fields.items():
            if v is None:
                m["spec"].pop(k, None)
            else:
                m["spec"][k] = v

    return change


def set_dev(i: int, **fields: Any) -> Callable[[dict[str, Any]], None]:
    def change(m: dict[str, Any]) -> None:
        for k, v in fields.items():
            if v is None:
                m["spec"]["devices"][i].pop(k, None)
            else:
                m["spec"]["devices"][i][k] = v

    return change


def taints(n: int) -> Callable[[dict[str, Any]], None]:
    def change(m: dict[str, Any]) -> None:
        for d in m["spec"]["devices"]:
            d["taints"] = [{"key": "example.com/taint", "effect": "NoExecute"}] * n

    return change


def consumes(n: int, counters: int = 1) -> list[dict[str, Any]]:
    return [
        {
            "counterSet": f"counterset-{i}",
            "counters": {f"memory-{j}": {"value": "1Gi"} for j in range(counters)},
        }
        for i in range(n)
    ]


def counter_sets(n: int, counters: int = 1) -> list[dict[str, Any]]:
    return [
        {"name": f"counterset-{i}", "counters": {f"memory-{j}": {"value": "1Gi"} for j in range(counters)}}
        for i in range(n)
    ]


def shared_counter_slice(sets: list[dict[str, Any]]) -> dict[str, Any]:
    return with_(slice_(), set_spec(devices=None, sharedCounters=sets))


Case = tuple[str, dict[str, Any], list[tuple[tuple[str | int, ...], str]]]

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
        with_(
            slice_(),
            lambda m: (set_spec(nodeName=None, perDeviceNodeSelection=True)(m), set_dev(0, nodeName="w")(m)),
        ),
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
        with_(
            slice_(),
            lambda m: (
                set_spec(nodeName=None, perDeviceNodeSelection=True)(m),
                set_dev(0, nodeName="", allNodes=False)(m),
            ),
        ),
        [
            (dev_path(0, "nodeName"), 'Invalid value: "": must not be empty'),
            (dev_path(0, "allNodes"), "Invalid value: false: must be either unset or set to true"),
            (dev_path(0), f"Required value: {PER_DEVICE}"),
        ],
    ),
    (
        "per-device nodeName and allNodes together",
        with_(
            slice_(),
            lambda m: (
                set_spec(nodeName=None, perDeviceNodeSelection=True)(m),
                set_dev(0, nodeName="w", allNodes=True)(m),
            ),
        ),
        [(dev_path(0), f'Invalid value: "{{`nodeName`, `allNodes`}}": {PER_DEVICE}')],
    ),
]


@pytest.mark.parametrize(("name", "manifest", "expected"), CASES, ids=[c[0] for c in CASES])
def test_resource_slice(
    name: str, manifest: dict[str, Any], expected: list[tuple[tuple[str | int, ...], str]]
) -> None:
    assert errors(manifest) == expected


def attrs(i: int, attributes: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    return set_dev(i, attributes=attributes)


def cap_policy(
    i: int, policy: dict[str, Any] | None, value: str = "100", multi: bool = True
) -> Callable[[dict[str, Any]], None]:
    capacity: dict[str, Any] = {"value": value}
    if policy is not None:
        capacity["requestPolicy"] = policy
    fields: dict[str, Any] = {"capacity": {"a": capacity}, "attributes": None}
    if multi:
        fields["allowMultipleAllocations"] = True
    return set_dev(i, **fields)


def policy_path(i: int, *rest: str | int) -> tuple[str | int, ...]:
    return dev_path(i, "capacity", "a", "requestPolicy", *rest)


VALID_VALUES = {"default": "10", "validValues": ["5", "10", "100"]}

DEVICE_CASES: list[Case] = [
    # Attributes
    (
        "attribute names and values",
        with_(
            slice_(5),
            lambda m: (
                attrs(1, {BAD: {}})(m),
                attrs(2, {"foo": {"string": "x", "version": "1.2.3"}})(m),
                attrs(3, {"foo": {"version": "x" * 65}})(m),
                attrs(4, {"foo": {"string": "x" * 65}})(m),
            ),
        ),
        [
            (dev_path(1, "attributes"), f'Invalid value: "{BAD}": {C_IDENT}'),
            (dev_path(1, "attributes", BAD), 'Invalid value: "": exactly one value must be specified'),
            (
                dev_path(2, "attributes", "foo"),
                'Invalid value: {"string":"x","version":"1.2.3"}: exactly one value must be specified',
            ),
            (
                dev_path(3, "attributes", "foo", "version"),
                f'Invalid value: "{"x" * 65}": must be a string compatible with semver.org spec 2.0.0',
            ),
            (dev_path(3, "attributes", "foo", "version"), "Too long: may not be more than 64 bytes"),
            (dev_path(4, "attributes", "foo", "string"), "Too long: may not be more than 64 bytes"),
        ],
    ),
    (
        "list attributes of every type",
        with_(
            slice_(4),
            lambda m: (
                attrs(0, {"foo": {"bools": [True]}})(m),
                attrs(1, {"foo": {"ints": [1]}})(m),
                attrs(2, {"foo": {"strings": ["x"]}})(m),
                attrs(3, {"foo": {"versions": ["1.2.3", "2.0.0-rc.1+build.5"]}})(m),
            ),
        ),
        [],
    ),
    (
        "bad list attributes",
        with_(
            slice_(5),
            lambda m: (
                attrs(0, {"foo": {"ints": [1], "bools": [True]}})(m),
                attrs(1, {"foo": {"strings": ["x" * 65]}})(m),
                attrs(2, {"foo": {"versions": ["01.2.3"]}})(m),
                attrs(3, {"foo": {"bools": []}})(m),
                attrs(4, {"foo": {"ints": []}})(m),
            ),
        ),
        [
            (
                dev_path(0, "attributes", "foo"),
                'Invalid value: {"bools":[true],"ints":[1]}: exactly one value must be specified',
            ),
            (dev_path(1, "attributes", "foo", "strings", 0), "Too long: may not be more than 64 bytes"),
            (
                dev_path(2, "attributes", "foo", "versions", 0),
                'Invalid value: "01.2.3": must be a string compatible with semver.org spec 2.0.0',
            ),
            (
                dev_path(3, "attributes", "foo", "bools"),
                "Invalid value: []bool{}: must not be empty if specified",
            ),
            (
                dev_path(4, "attributes", "foo", "ints"),
                "Invalid value: []int64{}: must not be empty if specified",
            ),
        ],
    ),
    (
        "attribute names at the length limits",
        with_(slice_(), attrs(0, {"x" * 32: {"string": "y"}, "x" * 63 + "/" + "y" * 32: {"string": "z"}})),
        [],
    ),
    (
        "an attribute id longer than 32 bytes",
        with_(slice_(), attrs(0, {"." * 33: {"string": "y"}})),
        [
            (dev_path(0, "attributes"), "Too long: may not be more than 32 bytes"),
            (dev_path(0, "attributes"), f'Invalid value: "{"." * 33}": {C_IDENT}'),
        ],
    ),
    (
        "an attribute domain that is too long and no subdomain",
        with_(slice_(), attrs(0, {"_" * 64 + "/y": {"string": "z"}})),
        [
            (dev_path(0, "attributes"), "Too long: may not be more than 63 bytes"),
            (dev_path(0, "attributes"), f'Invalid value: "{"_" * 64}": {SUBDOMAIN}'),
        ],
    ),
    (
        "an attribute key whose parts are empty",
        with_(slice_(), attrs(0, {"/": {"string": "z"}})),
        [
            (dev_path(0, "attributes"), 'Invalid value: "": the domain must not be empty'),
            (dev_path(0, "attributes"), 'Invalid value: "": the name must not be empty'),
        ],
    ),
    (
        "an attribute key with two slashes",
        with_(slice_(), attrs(0, {"a/b/c": {"string": "z"}})),
        [(dev_path(0, "attributes"), 'Invalid value: "a/b/c": must not contain more than one slash')],
    ),
    (
        "33 attributes and capacities on one device",
        with_(
            slice_(),
            lambda m: set_dev(
                0,
                attributes={f"attr_{i}": {"string": "x"} for i in range(32)},
                capacity={"cap": {"value": "1Gi"}},
            )(m),
        ),
        [
            (
                dev_path(0),
                "Invalid value: 33: the total number of attributes and capacities must not exceed 32",
            )
        ],
    ),
    (
        "48 attribute values are allowed",
        with_(slice_(), lambda m: set_dev(0, capacity=None, attributes={"l": {"strings": ["x"] * 48}})(m)),
        [],
    ),
    (
        "49 attribute values on one device",
        with_(
            slice_(),
            lambda m: set_dev(
                0,
                capacity=None,
                attributes={"l": {"strings": ["x"] * 47}, "i": {"int": 1}, "b": {"bools": [True]}},
            )(m),
        ),
        [(dev_path(0), "Invalid value: 49: the total number of attribute values must not exceed 48")],
    ),
    # Capacity request policies
    (
        "a request policy needs allowMultipleAllocations",
        with_(
            slice_(),
            cap_policy(0, {"default": "1Mi", "validRange": {"min": "1Mi"}}, value="1Gi", multi=False),
        ),
        [(dev_path(0, "capacity", "a", "requestPolicy"), "Forbidden: allowMultipleAllocations must be true")],
    ),
    ("a valid validValues policy", with_(slice_(), cap_policy(0, VALID_VALUES)), []),
    (
        "a range step must be positive",
        with_(
            slice_(2),
            lambda m: (
                cap_policy(
                    0, {"default": "10Mi", "validRange": {"min": "1Mi", "max": "100Mi", "step": "0"}}, "1Gi"
                )(m),
                cap_policy(
                    1,
                    {"default": "10Mi", "validRange": {"min": "1Mi", "max": "100Mi", "step": "-1Mi"}},
                    "1Gi",
                )(m),
            ),
        ),
        [
            (policy_path(0, "validRange", "step"), 'Invalid value: "0": must be greater than zero'),
            (policy_path(1, "validRange", "step"), 'Invalid value: "-1Mi": must be greater than zero'),
        ],
    ),
    (
        "validValues larger than the capacity",
        with_(slice_(), cap_policy(0, VALID_VALUES, value="-1")),
        [
            (
                policy_path(0, "validValues", 0),
                'Invalid value: "5": option is larger than capacity value: -1',
            ),
            (
                policy_path(0, "validValues", 1),
                'Invalid value: "10": option is larger than capacity value: -1',
            ),
            (
                policy_path(0, "validValues", 2),
                'Invalid value: "100": option is larger than capacity value: -1',
            ),
        ],
    ),
    (
        "a default that is no valid value",
        with_(slice_(), cap_policy(0, {**VALID_VALUES, "default": "-1"})),
        [
            (
                policy_path(0, "validValues"),
                'Invalid value: "-1": default value is not valid according to the requestPolicy',
            )
        ],
    ),
    ("a policy with only a default", with_(slice_(), cap_policy(0, {"default": "10"})), []),
    (
        "validValues and validRange together",
        with_(slice_(), cap_policy(0, {**VALID_VALUES, "validRange": {"min": "10"}})),
        [
            (
                policy_path(0),
                'Forbidden: exactly one policy can be specified, cannot specify "validValues" and '
                '"validRange" '
                "at the same time",
            )
        ],
    ),
    (
        "a range with only a minimum",
        with_(slice_(), cap_policy(0, {"default": "10", "validRange": {"min": "1"}})),
        [],
    ),
    (
        "a default below the range",
        with_(slice_(), cap_policy(0, {"default": "1.05", "validRange": {"min": "1.1"}})),
        [
            (
                policy_path(0, "validRange", "default"),
                'Invalid value: "1050m": default is less than min: 1100m',
            )
        ],
    ),
    (
        "options rounded up to distinct integers are fine",
        with_(slice_(), cap_policy(0, {"default": "10.1", "validValues": ["5.1", "10.1", "100"]})),
        [],
    ),
    (
        "unsorted validValues",
        with_(slice_(), cap_policy(0, {"default": "10", "validValues": ["10", "5"]})),
        [(policy_path(0, "validValues", 1), 'Invalid value: "5": values must be sorted in ascending order')],
    ),
    (
        "more than 10 validValues",
        with_(slice_(), cap_policy(0, {"default": "1", "validValues": [str(i) for i in range(1, 12)]})),
        [
            (policy_path(0, "validValues"), "Too many: 11: must have at most 10 items"),
            (
                policy_path(0, "validValues"),
                'Invalid value: "1": default value is not valid according to the requestPolicy',
            ),
        ],
    ),
    (
        "a validValues policy needs a default",
        with_(slice_(), cap_policy(0, {"validValues": ["1"]})),
        [(policy_path(0, "default"), "Required value: required when validValues is defined")],
    ),
    (
        "a validRange policy needs a default",
        with_(slice_(), cap_policy(0, {"validRange": {"min": "1"}})),
        [(policy_path(0, "default"), "Required value: required when validRange is defined")],
    ),
    (
        "range bounds against each other and the capacity",
        with_(slice_(), cap_policy(0, {"default": "300", "validRange": {"min": "200", "max": "150"}})),
        [
            (
                policy_path(0, "validRange", "min"),
                'Invalid value: "200": min is larger than capacity value: 100',
            ),
            (policy_path(0, "validRange", "max"), 'Invalid value: "200": min is larger than max: 150'),
            (
                policy_path(0, "validRange", "max"),
                'Invalid value: "150": max is larger than capacity value: 100',
            ),
            (policy_path(0, "validRange", "default"), 'Invalid value: "300": default is more than max: 150'),
        ],
    ),
    (
        "default and max off the step grid",
        with_(
            slice_(), cap_policy(0, {"default": "15", "validRange": {"min": "10", "max": "95", "step": "10"}})
        ),
        [
            (
                policy_path(0, "validRange", "step"),
                'Invalid value: "15": value is not a multiple of a given step (10) from (10)',
            ),
            (
                policy_path(0, "validRange", "step"),
                'Invalid value: "95": value is not a multiple of a given step (10) from (10)',
            ),
        ],
    ),
    (
        "one step beyond the capacity",
        with_(slice_(), cap_policy(0, {"default": "60", "validRange": {"min": "60", "step": "50"}})),
        [
            (
                policy_path(0, "validRange", "step"),
                'Invalid value: "50": one step 110 is larger than capacity value: 100',
            )
        ],
    ),
    (
        "a negative minimum cannot be checked with integers",
        with_(slice_(), cap_policy(0, {"default": "0", "validRange": {"min": "-1", "step": "1"}})),
        [(policy_path(0, "validRange", "min"), 'Invalid value: "-1": must be greater than or equal to 0')],
    ),
    (
        "the largest int64 range is fine without fractions",
        with_(
            slice_(),
            cap_policy(
                0,
                {
                    "default": "9223372036854775807",
                    "validRange": {"min": "0", "step": "1", "max": "9223372036854775807"},
                },
                value="9223372036854775807",
            ),
        ),
        [],
    ),
    (
        "milli arithmetic cannot hold the largest int64",
        with_(
            slice_(),
            cap_policy(
                0,
                {
                    "default": "9223372036854775807",
                    "validRange": {"min": "0", "step": "1m", "max": "9223372036854775807"},
                },
                value="9223372036854775807",
            ),
        ),
        [
            (
                policy_path(0, "validRange", "default"),
                'Invalid value: "9223372036854775807": value cannot be represented as a milli value',
            ),
            (
                policy_path(0, "validRange", "max"),
                'Invalid value: "9223372036854775807": value cannot be represented as a milli value',
            ),
        ],
    ),
    (
        "fractional steps on the milli grid",
        with_(
            slice_(),
            cap_policy(0, {"default": "300m", "validRange": {"min": "200m", "max": "1", "step": "100m"}}),
        ),
        [],
    ),
]


@pytest.mark.parametrize(("name", "manifest", "expected"), DEVICE_CASES, ids=[c[0] for c in DEVICE_CASES])
def test_resource_slice_devices(
    name: str, manifest: dict[str, Any], expected: list[tuple[tuple[str | int, ...], str]]
) -> None:
    assert errors(manifest) == expected


def test_fractional_options_collide_once_rounded_up_without_the_fractional_gate() -> None:
    manifest = with_(slice_(), cap_policy(0, {"default": "10", "validValues": ["9.9", "10", "100"]}))
    assert errors(manifest, Ctx("DRAFractionalCapacityRange")) == [
        (policy_path(0, "validValues", 1), 'Duplicate value: "10"')
    ]
    assert errors(manifest, Ctx()) == []


def test_without_the_fractional_gate_a_fractional_range_is_checked_as_integers() -> None:
    # 300m, 200m and 100m all round up to 1, so the grid check passes on integers.
    manifest = with_(
        slice_(), cap_policy(0, {"default": "300m", "validRange": {"min": "200m", "step": "100m"}})
    )
    assert errors(manifest, Ctx("DRAFractionalCapacityRange")) == []
    big = with_(
        slice_(),
        cap_policy(
            0,
            {
                "default": "9223372036854775807",
                "validRange": {"min": "0", "step": "1m", "max": "9223372036854775807"},
            },
            value="9223372036854775807",
        ),
    )
    assert errors(big, Ctx("DRAFractionalCapacityRange")) == []


def test_the_same_value_spelled_twice_is_a_duplicate_with_fractions() -> None:
    manifest = with_(slice_(), cap_policy(0, {"default": "5", "validValues": ["5", "5.0", "100"]}))
    assert errors(manifest) == [(policy_path(0, "validValues", 1), 'Duplicate value: "5"')]


def nar(resources: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """A device publishing cpu/memory capacities and the given nodeAllocatableResources."""
    return set_dev(
        0,
        capacity={"dra.example.com/cpu": {"value": "100"}, "dra.example.com/memory": {"value": "100Gi"}},
        nodeAllocatableResources=resources,
    )


def nar_path(*rest: str | int) -> tuple[str | int, ...]:
    return dev_path(0, "nodeAllocatableResources", *rest)


CPU_MAPPING = {"mapping": {"capacityKey": "dra.example.com/cpu", "capacityMultiplier": "1"}}


def partition(name: str, *changes: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    def change(m: dict[str, Any]) -> None:
        m["spec"]["partitionTypeAttribute"] = name
        for c in changes:
            c(m)

    return with_(slice_(), change)


FEATURE_CASES: list[Case] = [
    # Taints
    (
        "device taints",
        with_(
            slice_(),
            set_dev(
                0,
                taints=[
                    {"key": "example.com/taint", "effect": "NoExecute"},
                    {
                        "key": "taint",
                        "value": "tainted",
                        "effect": "NoSchedule",
                        "timeAdded": "2025-01-01T00:00:00Z",
                    },
                    {"key": "", "effect": ""},
                    {"key": BAD, "value": BAD, "effect": "some-other-effect"},
                ],
            ),
        ),
        [
            (dev_path(0, "taints", 2, "key"), 'Invalid value: "": name part must be non-empty'),
            (dev_path(0, "taints", 2, "key"), f'Invalid value: "": {NAME_PART}'),
            (dev_path(0, "taints", 2, "effect"), "Required value"),
            (dev_path(0, "taints", 3, "key"), f'Invalid value: "{BAD}": {NAME_PART}'),
            (dev_path(0, "taints", 3, "value"), f'Invalid value: "{BAD}": {LABEL_VALUE}'),
            (
                dev_path(0, "taints", 3, "effect"),
                'Unsupported value: "some-other-effect": supported values: "NoExecute", "NoSchedule", "None"',
            ),
        ],
    ),
    ("16 taints on a device", with_(slice_(), taints(16)), []),
    (
        "17 taints on a device",
        with_(slice_(), taints(17)),
        [(dev_path(0, "taints"), "Too many: 17: must have at most 16 items")],
    ),
    # Shared counters
    ("eight counter sets", shared_counter_slice(counter_sets(8)), []),
    (
        "nine counter sets",
        shared_counter_slice(counter_sets(9)),
        [(("spec", "sharedCounters"), "Too many: 9: must have at most 8 items")],
    ),
    ("32 counters in a set", shared_counter_slice(counter_sets(1, counters=32)), []),
    (
        "33 counters in a set",
        shared_counter_slice(counter_sets(1, counters=33)),
        [(("spec", "sharedCounters", 0, "counters"), "Too many: 33: must have at most 32 items")],
    ),
    (
        "counter set names and counters",
        shared_counter_slice(
            [
                {"name": "", "counters": {"memory": {"value": "1Gi"}}},
                {"name": BAD, "counters": {}},
                {"name": "ok", "counters": {BAD: {"value": "1Gi"}}},
                {"name": "ok", "counters": {"memory": {"value": "1Gi"}}},
            ]
        ),
        [
            (("spec", "sharedCounters", 0, "name"), "Required value"),
            (("spec", "sharedCounters", 1, "name"), f'Invalid value: "{BAD}": {LABEL}'),
            (("spec", "sharedCounters", 1, "counters"), "Required value"),
            (("spec", "sharedCounters", 2, "counters"), f'Invalid value: "{BAD}": {LABEL}'),
            (("spec", "sharedCounters", 3), 'Duplicate value: "ok"'),
        ],
    ),
    # Counter consumption
    (
        "a device consuming from two counter sets",
        with_(slice_(), set_dev(0, consumesCounters=consumes(2))),
        [],
    ),
    (
        "a device consuming from three counter sets",
        with_(slice_(), set_dev(0, consumesCounters=consumes(3))),
        [(dev_path(0, "consumesCounters"), "Too many: 3: must have at most 2 items")],
    ),
    (
        "33 counters consumed from one set",
        with_(slice_(), set_dev(0, consumesCounters=consumes(1, counters=33))),
        [(dev_path(0, "consumesCounters", 0, "counters"), "Too many: 33: must have at most 32 items")],
    ),
    (
        "counter consumption names",
        with_(
            slice_(),
            set_dev(
                0,
                consumesCounters=[
                    {"counterSet": "", "counters": {"memory": {"value": "1"}}},
                    {"counterSet": BAD, "counters": {}},
                ],
            ),
        ),
        [
            (dev_path(0, "consumesCounters", 0, "counterSet"), "Required value"),
            (dev_path(0, "consumesCounters", 1, "counterSet"), f'Invalid value: "{BAD}": {LABEL}'),
            (dev_path(0, "consumesCounters", 1, "counters"), "Required value"),
        ],
    ),
    (
        "one entry per counter set",
        with_(slice_(), set_dev(0, consumesCounters=consumes(1) * 2)),
        [(dev_path(0, "consumesCounters", 1), 'Duplicate value: "counterset-0"')],
    ),
    (
        "compatibility groups",
        with_(
            slice_(),
            set_dev(
                0,
                consumesCounters=[
                    {
                        "counterSet": "a",
                        "counters": {"c": {"value": "1"}},
                        "compatibilityGroups": ["g1", "g2"],
                    },
                    {
                        "counterSet": "b",
                        "counters": {"c": {"value": "1"}},
                        "compatibilityGroups": ["g1", "g2", "g3"],
                    },
                ],
            ),
        ),
        [
            (
                dev_path(0, "consumesCounters", 1, "compatibilityGroups"),
                "Too many: 3: must have at most 2 items",
            )
        ],
    ),
    (
        "compatibility group names are unique DNS labels",
        with_(
            slice_(),
            set_dev(
                0,
                consumesCounters=[
                    {
                        "counterSet": "a",
                        "counters": {"c": {"value": "1"}},
                        "compatibilityGroups": ["Big", "Big"],
                    }
                ],
            ),
        ),
        [
            (dev_path(0, "consumesCounters", 0, "compatibilityGroups", 0), f'Invalid value: "Big": {LABEL}'),
            (dev_path(0, "consumesCounters", 0, "compatibilityGroups", 1), f'Invalid value: "Big": {LABEL}'),
            (dev_path(0, "consumesCounters", 0, "compatibilityGroups", 1), 'Duplicate value: "Big"'),
        ],
    ),
    # Binding conditions
    (
        "binding conditions with failure conditions",
        with_(
            slice_(),
            set_dev(
                0,
                bindingConditions=["example.com/condition1", "condition2"],
                bindingFailureConditions=["example.com/condition3", "condition4"],
            ),
        ),
        [],
    ),
    (
        "five binding conditions",
        with_(
            slice_(),
            set_dev(0, bindingConditions=[f"c{i}" for i in range(5)], bindingFailureConditions=["f"]),
        ),
        [(dev_path(0, "bindingConditions"), "Too many: 5: must have at most 4 items")],
    ),
    (
        "five binding failure conditions",
        with_(
            slice_(),
            set_dev(0, bindingConditions=["c"], bindingFailureConditions=[f"f{i}" for i in range(5)]),
        ),
        [(dev_path(0, "bindingFailureConditions"), "Too many: 5: must have at most 4 items")],
    ),
    (
        "binding conditions are condition types",
        with_(
            slice_(),
            set_dev(0, bindingConditions=["condition1", "condition2!"], bindingFailureConditions=["c3!"]),
        ),
        [
            (dev_path(0, "bindingConditions", 1), f'Invalid value: "condition2!": {NAME_PART}'),
            (dev_path(0, "bindingFailureConditions", 0), f'Invalid value: "c3!": {NAME_PART}'),
        ],
    ),
    (
        "failure conditions without binding conditions",
        with_(slice_(), set_dev(0, bindingFailureConditions=["condition1"])),
        [
            (
                dev_path(0, "bindingConditions"),
                "Invalid value: []string(nil): bindingConditions are required to use "
                "bindingFailureConditions",
            )
        ],
    ),
    (
        "binding conditions without failure conditions",
        with_(slice_(), set_dev(0, bindingConditions=["condition1"])),
        [
            (
                dev_path(0, "bindingFailureConditions"),
                "Invalid value: []string(nil): bindingFailureConditions are required to use "
                "bindingConditions",
            )
        ],
    ),
    (
        "duplicate and overlapping binding conditions",
        with_(
            slice_(),
            set_dev(0, bindingConditions=["c1", "c1"], bindingFailureConditions=["c1", "c3", "c3"]),
        ),
        [
            (dev_path(0, "bindingConditions", 1), 'Duplicate value: "c1"'),
            (
                dev_path(0, "bindingFailureConditions", 0),
                'Invalid value: "c1": bindingFailureConditions must not overlap with bindingConditions',
            ),
            (dev_path(0, "bindingFailureConditions", 2), 'Duplicate value: "c3"'),
        ],
    ),
    # Node allocatable resources
    (
        "cpu and memory mapped from capacities",
        with_(slice_(), nar({"cpu": CPU_MAPPING, "memory": CPU_MAPPING})),
        [],
    ),
    (
        "mapping and overhead for one resource",
        with_(slice_(), nar({"cpu": {**CPU_MAPPING, "overhead": {"perPod": "1Gi"}}})),
        [],
    ),
    (
        "hugepages with an overhead",
        with_(slice_(), nar({"hugepages-2Mi": {"overhead": {"perPod": "2Mi"}}})),
        [],
    ),
    (
        "an empty capacityKey",
        with_(slice_(), nar({"cpu": {"mapping": {"capacityKey": "", "capacityMultiplier": "1"}}})),
        [
            (
                nar_path("cpu", "mapping", "capacityKey"),
                'Invalid value: "": capacityKey must not be an empty string',
            )
        ],
    ),
    (
        "a capacityKey the device does not publish",
        with_(
            slice_(),
            nar(
                {
                    "memory": {
                        "mapping": {"capacityKey": "dra.example.com/hugepages", "capacityMultiplier": "1"}
                    }
                }
            ),
        ),
        [(nar_path("memory", "mapping", "capacityKey"), 'Not found: "dra.example.com/hugepages"')],
    ),
    (
        "multipliers must be positive",
        with_(
            slice_(),
            nar(
                {
                    "cpu": {"mapping": {"capacityKey": "dra.example.com/cpu", "capacityMultiplier": "-1"}},
                    "memory": {"mapping": {"deviceMultiplier": "0"}},
                }
            ),
        ),
        [
            (nar_path("cpu", "mapping", "capacityMultiplier"), 'Invalid value: "-1": must be positive'),
            (nar_path("memory", "mapping", "deviceMultiplier"), 'Invalid value: "0": must be positive'),
        ],
    ),
    (
        "only cpu, memory and hugepages are node allocatable",
        with_(
            slice_(),
            nar(
                {
                    "dra.example.com/gpu": {"overhead": {"perPod": "1"}},
                    "abc": {"overhead": {"perPod": "1"}},
                    "kubernetes.io/foo": {"overhead": {"perPod": "1"}},
                    "ephemeral-storage": {"overhead": {"perPod": "2Gi"}},
                }
            ),
        ),
        [
            (nar_path(name), f'Invalid value: "{name}": must be a node allocatable resource name')
            for name in ("dra.example.com/gpu", "abc", "kubernetes.io/foo", "ephemeral-storage")
        ],
    ),
    (
        "overheads",
        with_(
            slice_(),
            nar(
                {
                    "memory": {"overhead": {}},
                    "cpu": {"overhead": {"perPod": "-1Gi", "perContainer": "-500Mi"}},
                    "hugepages-1Gi": {},
                }
            ),
        ),
        [
            (
                nar_path("memory", "overhead"),
                'Invalid value: "": at least one of perPod or perContainer must be set',
            ),
            (nar_path("cpu", "overhead", "perPod"), 'Invalid value: "-1Gi": must be non-negative'),
            (nar_path("cpu", "overhead", "perContainer"), 'Invalid value: "-500Mi": must be non-negative'),
            (nar_path("hugepages-1Gi"), "Required value: at least one of mapping or overhead must be set"),
        ],
    ),
    (
        "capacityKey and capacityMultiplier need each other",
        with_(
            slice_(),
            nar(
                {
                    "cpu": {"mapping": {"capacityKey": "dra.example.com/cpu"}},
                    "memory": {"mapping": {"capacityMultiplier": "1"}},
                }
            ),
        ),
        [
            (
                nar_path("cpu", "mapping", "capacityMultiplier"),
                "Required value: capacityMultiplier is required when capacityKey is set",
            ),
            (
                nar_path("memory", "mapping", "capacityKey"),
                "Required value: capacityKey is required when capacityMultiplier is set",
            ),
        ],
    ),
    # skipNodeOperations
    (
        "skip everything and prepare",
        with_(slice_(), set_spec(skipNodeOperations=["*", "NodePrepareResources"])),
        [],
    ),
    (
        "skip prepare and unprepare",
        with_(slice_(), set_spec(skipNodeOperations=["NodePrepareResources", "NodeUnprepareResources"])),
        [],
    ),
    (
        "skip prepare only",
        with_(slice_(), set_spec(skipNodeOperations=["NodePrepareResources"])),
        [
            (
                ("spec", "skipNodeOperations"),
                'Invalid value: []resource.SkipNodeOperation{"NodePrepareResources"}: NodePrepareResources '
                "cannot be skipped unless NodeUnprepareResources is also skipped",
            )
        ],
    ),
    (
        "unknown and repeated operations",
        with_(
            slice_(),
            set_spec(skipNodeOperations=["NodeUnprepareResources", "NodeUnprepareResources", "Other"]),
        ),
        [
            (("spec", "skipNodeOperations", 1), 'Duplicate value: "NodeUnprepareResources"'),
            (
                ("spec", "skipNodeOperations", 2),
                'Unsupported value: "Other": supported values: "*", "NodePrepareResources", '
                '"NodeUnprepareResources"',
            ),
        ],
    ),
    # partitionTypeAttribute
    (
        "a partition type in the driver's domain may be published bare",
        partition("test.example.com/string", set_dev(0, consumesCounters=consumes(1))),
        [],
    ),
    (
        "devices that consume no counters need no partition type",
        with_(
            slice_(2),
            lambda m: (
                set_spec(partitionTypeAttribute="test.example.com/string")(m),
                set_dev(0, consumesCounters=consumes(1))(m),
                set_dev(1, attributes=None)(m),
            ),
        ),
        [],
    ),
    (
        "a partition type on a slice without partitionable devices",
        partition("test.example.com/string"),
        [
            (
                ("spec", "partitionTypeAttribute"),
                'Invalid value: "test.example.com/string": may only be set on a slice which declares '
                "devices that "
                "consume counters",
            )
        ],
    ),
    (
        "a partitionable device without the partition type",
        partition("gpu.example.com/profile", set_dev(0, consumesCounters=consumes(1))),
        [
            (
                dev_path(0, "attributes", "gpu.example.com/profile"),
                "Required value: device consumes counters and `partitionTypeAttribute` names this attribute, "
                "so it must be set",
            )
        ],
    ),
    (
        "a partition type that is no string",
        partition("test.example.com/int", set_dev(0, consumesCounters=consumes(1))),
        [
            (
                dev_path(0, "attributes", "test.example.com/int"),
                'Invalid value: {"int":42}: must be a string value because `partitionTypeAttribute` names '
                "this attribute",
            )
        ],
    ),
    (
        "a partition type needs a domain",
        partition("string", set_dev(0, consumesCounters=consumes(1))),
        [
            (
                ("spec", "partitionTypeAttribute"),
                'Invalid value: "string": a fully qualified name must be a domain and a name separated by '
                "a slash",
            )
        ],
    ),
]


@pytest.mark.parametrize(("name", "manifest", "expected"), FEATURE_CASES, ids=[c[0] for c in FEATURE_CASES])
def test_resource_slice_features(
    name: str, manifest: dict[str, Any], expected: list[tuple[tuple[str | int, ...], str]]
) -> None:
    assert errors(manifest) == expected


# Quantity syntax goes last: it relies on kubefit.translate.quantity when that is installed.

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
