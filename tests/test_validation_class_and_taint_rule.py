"""DeviceClass and DeviceTaintRule validation (upstream validation_deviceclass_test.go and
validation_devicetaintrule_test.go, rewritten as manifests)."""

from __future__ import annotations

from typing import Any

from kubernetes.client.models import V1DeviceClass, V1DeviceTaintRule
from validation_helpers import BAD, LABEL, LABEL_VALUE, NAME_PART, SUBDOMAIN, Case, Ctx, Found, cases, pairs

from kubefit.translate.validation.device_class import validate_device_class
from kubefit.translate.validation.device_taint_rule import validate_device_taint_rule


def device_class(name: str = "class", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": spec,
    }


def class_errors(manifest: dict[str, Any]) -> Found:
    return pairs(validate_device_class(V1DeviceClass.model_validate(manifest), Ctx()))


OPAQUE = {"opaque": {"driver": "dra.example.com", "parameters": {"kind": "Config"}}}

CLASS_CASES: list[Case] = [
    ("an empty class", device_class(), []),
    (
        "a class with selectors, config and an extended resource name",
        device_class(
            selectors=[{"cel": {"expression": "device.driver == 'dra.example.com'"}}],
            config=[OPAQUE],
            extendedResourceName="example.com/gpu",
        ),
        [],
    ),
    (
        "the class name",
        device_class(BAD),
        [(("metadata", "name"), f'Invalid value: "{BAD}": {SUBDOMAIN}')],
    ),
    (
        "selectors",
        device_class(selectors=[{}, {"cel": {"expression": "!!bad"}}, {"cel": {"expression": "x" * 10241}}]),
        [
            (("spec", "selectors", 0, "cel"), "Required value"),
            (
                ("spec", "selectors", 1, "cel", "expression"),
                'Invalid value: "!!bad": ERROR: <input>:1:1: Syntax error',
            ),
            (("spec", "selectors", 2, "cel", "expression"), "Too long: may not be more than 10240 bytes"),
        ],
    ),
    ("an expression of exactly 10Ki", device_class(selectors=[{"cel": {"expression": "x" * 10240}}]), []),
    (
        "33 selectors",
        device_class(selectors=[{"cel": {"expression": "true"}}] * 33),
        [(("spec", "selectors"), "Too many: 33: must have at most 32 items")],
    ),
    (
        "configuration",
        device_class(
            config=[
                {},
                {"opaque": {"driver": "", "parameters": {}}},
                {"opaque": {"driver": "d" * 64, "parameters": {}}},
            ]
        ),
        [
            (("spec", "config", 0, "opaque"), "Required value"),
            (("spec", "config", 1, "opaque", "driver"), "Required value"),
            (("spec", "config", 2, "opaque", "driver"), "Too long: may not be more than 63 bytes"),
        ],
    ),
    (
        "33 configurations",
        device_class(config=[OPAQUE] * 33),
        [(("spec", "config"), "Too many: 33: must have at most 32 items")],
    ),
    (
        "native and quota-prefixed names are no extended resource names",
        device_class(extendedResourceName="cpu"),
        [(("spec", "extendedResourceName"), 'Invalid value: "cpu": must be a valid extended resource name')],
    ),
    (
        "kubernetes.io names are native",
        device_class(extendedResourceName="kubernetes.io/gpu"),
        [
            (
                ("spec", "extendedResourceName"),
                'Invalid value: "kubernetes.io/gpu": must be a valid extended resource name',
            )
        ],
    ),
    (
        "names under any kubernetes.io domain count as native",
        device_class(extendedResourceName="deviceclass.resource.kubernetes.io/x"),
        [
            (
                ("spec", "extendedResourceName"),
                'Invalid value: "deviceclass.resource.kubernetes.io/x": must be a valid extended resource '
                "name",
            )
        ],
    ),
]


@cases(CLASS_CASES)
def test_device_class(name: str, manifest: dict[str, Any], expected: Found) -> None:
    assert class_errors(manifest) == expected


def rule(taint: dict[str, Any], selector: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"taint": taint}
    if selector is not None:
        spec["deviceSelector"] = selector
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "rule"},
        "spec": spec,
        **extra,
    }


def rule_errors(manifest: dict[str, Any]) -> Found:
    return pairs(validate_device_taint_rule(V1DeviceTaintRule.model_validate(manifest), Ctx()))


RULE_CASES: list[Case] = [
    ("a rule without selector", rule({"key": "example.com/broken", "effect": "NoSchedule"}), []),
    (
        "a rule with a full selector and the None effect",
        rule(
            {"key": "k", "value": "v", "effect": "None"},
            {"driver": "dra.example.com", "pool": "node-1/slot-a", "device": "gpu-0"},
        ),
        [],
    ),
    (
        "selector names",
        rule({"key": "k", "effect": "NoExecute"}, {"driver": BAD, "pool": "", "device": "Gpu.0"}),
        [
            (("spec", "deviceSelector", "driver"), f'Invalid value: "{BAD}": {SUBDOMAIN}'),
            (("spec", "deviceSelector", "pool"), "Required value"),
            (("spec", "deviceSelector", "device"), f'Invalid value: "Gpu.0": {LABEL}'),
        ],
    ),
    (
        "taint key, value and effect",
        rule({"key": BAD, "value": BAD, "effect": "PreferNoSchedule"}),
        [
            (("spec", "taint", "key"), f'Invalid value: "{BAD}": {NAME_PART}'),
            (("spec", "taint", "value"), f'Invalid value: "{BAD}": {LABEL_VALUE}'),
            (
                ("spec", "taint", "effect"),
                'Unsupported value: "PreferNoSchedule": supported values: "NoExecute", "NoSchedule", "None"',
            ),
        ],
    ),
    (
        "a taint needs an effect",
        rule({"key": "k", "effect": ""}),
        [(("spec", "taint", "effect"), "Required value")],
    ),
    (
        "the rule name and scope",
        {**rule({"key": "k", "effect": "None"}), "metadata": {"name": BAD, "namespace": "ns"}},
        [
            (("metadata", "name"), f'Invalid value: "{BAD}": {SUBDOMAIN}'),
            (("metadata", "namespace"), "Forbidden: not allowed on this type"),
        ],
    ),
    (
        "at most eight status conditions",
        rule(
            {"key": "k", "effect": "None"},
            status={
                "conditions": [
                    {
                        "type": f"T{i}",
                        "status": "True",
                        "reason": "R",
                        "message": "",
                        "lastTransitionTime": "2025-01-01T00:00:00Z",
                    }
                    for i in range(9)
                ]
            },
        ),
        [(("status", "conditions"), "Too many: 9: must have at most 8 items")],
    ),
]


@cases(RULE_CASES)
def test_device_taint_rule(name: str, manifest: dict[str, Any], expected: Found) -> None:
    assert rule_errors(manifest) == expected
