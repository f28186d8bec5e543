"""Plain devices (`slice_plain.plain_devices`): what the loader may keep as read because its full
path (quantity coercion, the v1 model, unknown-field warnings) would accept it unchanged.

Whenever `plain_devices` says yes, the full path must accept the slice without a problem or a
warning, leave the data as it is, and hold exactly the values the maps hold."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from kubernetes.client.models import V1ResourceSlice
from pydantic import ValidationError
from slice_device_strategies import (
    device_lists,
    fixture_slices,
    full_model,
    gpu,
    same,
    slice_of,
    wire_devices,
)

from kubefit.model.errors import Problem
from kubefit.translate.kube.quantity_fields import coerce_quantities
from kubefit.translate.loader import load_text
from kubefit.translate.reading.slice_plain import plain_devices
from kubefit.translate.reading.yaml_reference import reference_documents
from kubefit.translate.reading.yaml_source import read_documents

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def with_(device: dict[str, Any], **fields: Any) -> dict[str, Any]:
    out = copy.deepcopy(device)
    out.update(fields)
    return out


def attr(value: Any) -> dict[str, Any]:
    return {"name": "d", "attributes": {"a": value}}


def cap(value: Any) -> dict[str, Any]:
    return {"name": "d", "capacity": {"memory": value}}


def consumes(*entries: Any) -> dict[str, Any]:
    return {"name": "d", "consumesCounters": list(entries)}


COUNTERS = {"c": {"value": "1"}}

# (case, spec.devices, plain)
CASES: list[tuple[str, Any, bool]] = [
    ("no devices field at all", None, False),
    ("devices given as a map", {"name": "d"}, False),
    ("devices given as a string", "d", False),
    ("an empty list", [], True),
    ("a device that is not a map", ["d"], False),
    ("a device with only a name", [{"name": "d"}], True),
    ("a device without a name", [{"attributes": {}}], False),
    ("a name that is a number", [{"name": 1}], False),
    ("a name that is null", [{"name": None}], False),
    ("an invalid name is still plain: validation reports it", [{"name": "Not_A_Label."}], True),
    ("a GPU as the NVIDIA driver publishes it", [gpu()], True),
    ("two GPUs", [gpu("gpu-0"), gpu("gpu-1", "gpu-1-counter-set")], True),
    # attributes
    ("an int attribute", [attr({"int": 7})], True),
    ("a negative int attribute", [attr({"int": -7})], True),
    ("an int attribute beyond int64 (the model keeps it as it is)", [attr({"int": 2**70})], True),
    ("an int attribute that is a bool", [attr({"int": True})], False),
    ("an int attribute that is a float", [attr({"int": 1.0})], False),
    ("an int attribute written as text", [attr({"int": "1"})], False),
    ("a bool attribute", [attr({"bool": False})], True),
    ("a bool attribute that is a number", [attr({"bool": 1})], False),
    ("a string attribute", [attr({"string": "x"})], True),
    ("a string attribute too long and not ASCII", [attr({"string": "é" * 40})], True),
    ("an empty string attribute", [attr({"string": ""})], True),
    ("a string attribute that is a number", [attr({"string": 1})], False),
    ("a version attribute", [attr({"version": "1.2.3"})], True),
    ("a version attribute that is no semver", [attr({"version": "one"})], True),
    ("a version attribute that is a number", [attr({"version": 1.2})], False),
    ("an attribute that is null", [attr({"string": None})], False),
    ("an attribute with two values", [attr({"int": 1, "string": "x"})], False),
    ("an attribute with no value", [attr({})], False),
    ("an attribute with an unknown field", [attr({"float": 1.5})], False),
    ("a list attribute", [attr({"strings": ["x"]})], False),
    ("an attribute that is a list", [attr([{"int": 1}])], False),
    ("an attribute that is a string", [attr("x")], False),
    ("an attribute named by a number", [{"name": "d", "attributes": {1: {"int": 1}}}], False),
    ("attributes given as a list", [{"name": "d", "attributes": [{"int": 1}]}], False),
    ("attributes given as null", [{"name": "d", "attributes": None}], False),
    ("no attributes", [{"name": "d", "attributes": {}}], True),
    # capacity
    ("a capacity", [cap({"value": "80Gi"})], True),
    ("a capacity that is no quantity (validation reports it)", [cap({"value": "lots"})], True),
    ("a capacity written as a number (the loader rewrites it)", [cap({"value": 8})], False),
    ("a capacity written as a float", [cap({"value": 1.5})], False),
    ("a capacity with a request policy", [cap({"value": "8", "requestPolicy": {"default": "1"}})], False),
    ("a capacity without a value", [cap({})], False),
    ("a capacity that is a string", [cap("8")], False),
    ("capacity given as a list", [{"name": "d", "capacity": [{"value": "1"}]}], False),
    ("capacity named by a number", [{"name": "d", "capacity": {1: {"value": "1"}}}], False),
    # consumesCounters
    ("counter consumption", [consumes({"counterSet": "cs", "counters": COUNTERS})], True),
    ("an empty counter consumption list", [consumes()], True),
    ("counter consumption with no counters", [consumes({"counterSet": "cs", "counters": {}})], True),
    ("three counter consumptions", [consumes(*[{"counterSet": "cs", "counters": COUNTERS}] * 3)], True),
    ("counter consumption without counters", [consumes({"counterSet": "cs"})], False),
    ("counter consumption without a counter set", [consumes({"counters": COUNTERS})], False),
    (
        "counter consumption with compatibility groups",
        [consumes({"counterSet": "cs", "counters": COUNTERS, "compatibilityGroups": ["g"]})],
        False,
    ),
    ("a counter set named by a number", [consumes({"counterSet": 1, "counters": COUNTERS})], False),
    (
        "a counter written as a number",
        [consumes({"counterSet": "cs", "counters": {"c": {"value": 1}}})],
        False,
    ),
    ("a counter without a value", [consumes({"counterSet": "cs", "counters": {"c": {}}})], False),
    ("a counter named by a number", [consumes({"counterSet": "cs", "counters": {1: {"value": "1"}}})], False),
    ("counters given as a list", [consumes({"counterSet": "cs", "counters": [COUNTERS]})], False),
    ("counter consumption given as a map", [{"name": "d", "consumesCounters": {"counterSet": "cs"}}], False),
    ("a counter consumption that is a string", [consumes("cs")], False),
    # allowMultipleAllocations
    ("multiple allocations allowed", [{"name": "d", "allowMultipleAllocations": True}], True),
    ("multiple allocations not allowed", [{"name": "d", "allowMultipleAllocations": False}], True),
    ("multiple allocations as a number", [{"name": "d", "allowMultipleAllocations": 1}], False),
    ("multiple allocations as text", [{"name": "d", "allowMultipleAllocations": "true"}], False),
    ("multiple allocations as null", [{"name": "d", "allowMultipleAllocations": None}], False),
    # fields outside the plain subset
    ("taints", [{"name": "d", "taints": []}], False),
    ("a node name", [{"name": "d", "nodeName": "n"}], False),
    ("all nodes", [{"name": "d", "allNodes": True}], False),
    ("binding conditions", [{"name": "d", "bindingConditions": ["x"]}], False),
    ("node-allocatable resources", [{"name": "d", "nodeAllocatableResources": {}}], False),
    (
        "a snake_case spelling the model also reads",
        [{"name": "d", "allow_multiple_allocations": True}],
        False,
    ),
    ("the v1beta1 wrapper", [{"name": "d", "basic": {}}], False),
    ("an unknown field", [{"name": "d", "color": "red"}], False),
    ("one device outside the subset among plain ones", [gpu(), {"name": "x", "taints": []}], False),
]


def assert_full_path_agrees(devices: Any) -> None:
    """The full path accepts the slice as it is, and its model holds exactly the maps' values."""
    manifest = slice_of(devices)
    data = copy.deepcopy(manifest)
    coerce_quantities(V1ResourceSlice, data)
    assert same(data, manifest), "quantity coercion changed the devices"
    model = V1ResourceSlice.model_validate(data)
    assert same(wire_devices(model), devices)
    text = json.dumps(manifest, ensure_ascii=False)
    if any(isinstance(doc, Problem) for doc in read_documents(text, "in.json")):
        return  # characters the readers refuse in any text (their own tests cover that), not the devices
    loaded = load_text(text)
    assert loaded.warnings == []
    (obj,) = loaded.objects
    read = obj.raw["spec"]["devices"]
    assert plain_devices(read)
    assert same(wire_devices(obj.model), read)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "devices", "plain"), CASES, ids=[c[0] for c in CASES])
def test_plain_devices(name: str, devices: Any, plain: bool) -> None:
    assert plain_devices(devices) is plain
    if plain:
        assert_full_path_agrees(devices)


def test_devices_read_from_yaml_by_the_reference_reader_are_plain() -> None:
    # The reference reader gives line-aware maps and lists, which are still maps and lists.
    text = json.dumps(slice_of([gpu()]))
    (doc,) = list(reference_documents(text, "in.yaml"))
    devices = doc.data["spec"]["devices"]  # type: ignore[union-attr]
    assert type(devices[0]) is not dict
    assert plain_devices(devices)


@SETTINGS
@given(device_lists())
def test_plain_devices_are_what_the_full_path_accepts_unchanged(devices: list[dict[str, Any]]) -> None:
    if plain_devices(devices):
        assert_full_path_agrees(devices)
    else:
        # Not a claim about these (the full path reads them); only that the answer is stable.
        assert not plain_devices(copy.deepcopy(devices))


def test_fixture_slices_that_are_plain_are_what_the_model_holds() -> None:
    plain = 0
    for name, manifest in fixture_slices():
        devices = manifest["spec"].get("devices")
        if not plain_devices(devices):
            continue
        plain += 1
        try:
            model = full_model(manifest)
        except ValidationError as err:  # pragma: no cover - the failure message
            pytest.fail(f"{name}: {err}")
        assert same(wire_devices(model), devices), name
    # Most fixtures publish plain devices; a reader that refused them all would pass vacuously.
    assert plain >= 100
