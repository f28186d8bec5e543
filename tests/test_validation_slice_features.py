"""ResourceSlice validation of the optional device features: taints, counters, binding conditions,
node allocatable resources, skipped node operations and partition types.

Cases follow kubernetes/kubernetes `validation_resourceslice_test.go`, rewritten
as camelCase manifests.
"""

from __future__ import annotations

from typing import Any

from slice_manifests import (
    consumes,
    counter_sets,
    dev_path,
    errors,
    nar,
    nar_path,
    partition,
    set_dev,
    set_spec,
    shared_counter_slice,
    slice_,
    taints,
)
from validation_helpers import BAD, LABEL, LABEL_VALUE, NAME_PART, Case, Found, cases, with_

CPU_MAPPING = {"mapping": {"capacityKey": "dra.example.com/cpu", "capacityMultiplier": "1"}}


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


@cases(FEATURE_CASES)
def test_resource_slice_features(name: str, manifest: dict[str, Any], expected: Found) -> None:
    assert errors(manifest) == expected
