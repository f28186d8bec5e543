"""ResourceSlice validation of devices: names, attributes, capacities and their request policies.

Cases follow kubernetes/kubernetes `validation_resourceslice_test.go`, rewritten
as camelCase manifests.
"""

from __future__ import annotations

from typing import Any

from slice_manifests import attrs, cap_policy, dev_path, errors, policy_path, set_dev, slice_
from validation_helpers import BAD, C_IDENT, SUBDOMAIN, Case, Ctx, Found, cases, with_

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


@cases(DEVICE_CASES)
def test_resource_slice_devices(name: str, manifest: dict[str, Any], expected: Found) -> None:
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
