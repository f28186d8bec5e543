"""ResourceSlices for the tests of plain devices (`slice_plain`) and of their validation from the
maps as read (`validation.slice_raw`): manifests, the full model path to compare with, hypothesis
strategies for devices valid and invalid in many ways, and every ResourceSlice of the fixtures."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from fuzz.seeds import all_seeds
from hypothesis import strategies as st
from kubernetes.client.models import V1ResourceSlice

from kubefit.translate.kube import kinds
from kubefit.translate.kube.quantity_fields import coerce_quantities

DRIVER = "dra.example.com"


def slice_of(devices: Any, **spec: Any) -> dict[str, Any]:
    """A v1 ResourceSlice holding `devices` (anything: the tests give odd values too)."""
    body: dict[str, Any] = {
        "driver": DRIVER,
        "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
        "nodeName": "node-1",
        "devices": devices,
    }
    for key, value in spec.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": body,
    }


def gpu(name: str = "gpu-0", counter_set: str = "gpu-0-counter-set") -> dict[str, Any]:
    """A device as NVIDIA's driver publishes one for dynamic MIG."""
    return {
        "name": name,
        "attributes": {
            "type": {"string": "gpu"},
            "index": {"int": 0},
            "uuid": {"string": "GPU-cd613e30-d8f1-4adf-91b7-584a2265b1f5"},
            "cudaComputeCapability": {"version": "8.0.0"},
            "resource.kubernetes.io/pcieRoot": {"string": "pci0000:15"},
            "migCapable": {"bool": True},
        },
        "capacity": {"memory": {"value": "80Gi"}, "multiprocessors": {"value": "98"}},
        "consumesCounters": [
            {
                "counterSet": counter_set,
                "counters": {"multiprocessors": {"value": "98"}, "memory-slice-0": {"value": "1"}},
            }
        ],
    }


def shell_of(manifest: dict[str, Any]) -> V1ResourceSlice:
    """The slice's model with no devices, as the loader builds it for a slice of plain devices."""
    spec = {**manifest["spec"], "devices": []}
    return V1ResourceSlice.model_validate({**manifest, "spec": spec})


def full_model(manifest: dict[str, Any]) -> V1ResourceSlice:
    """The model the loader's full path builds: quantities coerced, unknown fields refused."""
    data = copy.deepcopy(manifest)
    coerce_quantities(V1ResourceSlice, data)
    return V1ResourceSlice.model_validate(data)


def same(a: Any, b: Any, field: Any = None) -> bool:
    """Equal, with every type equal too (True is not 1, "1" is not 1), and the keys of the maps a
    device holds (attributes, capacity, counters: walked and reported in that order) in the same
    order. A model dumps its own fields in its own order, so those are compared as sets."""
    if type(a) is not type(b):
        return isinstance(a, dict) and isinstance(b, dict) and same(dict(a), dict(b), field)
    if isinstance(a, dict):
        keys_match = list(a) == list(b) if field in _MAPS else a.keys() == b.keys()
        return keys_match and all(same(a[k], b[k], None if field in _MAPS else k) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


_MAPS = {"attributes", "capacity", "counters"}


def wire_devices(model: V1ResourceSlice) -> list[dict[str, Any]]:
    """The model's devices as wire-form maps of what is set."""
    return [d.model_dump(by_alias=True, exclude_none=True) for d in model.spec.devices or []]


# Strategies -------------------------------------------------------------------------------------

LABELS = st.one_of(
    st.sampled_from(["gpu-0", "a", "0", "x" * 63, "x" * 64, "A", "a.b", "-a", "a-", "", "ü", "dev_1", "a b"]),
    st.from_regex(r"[a-z0-9][a-z0-9-]{0,6}[a-z0-9]", fullmatch=True),
)
QUALIFIED_NAMES = st.one_of(
    st.sampled_from(
        [
            "model",
            "index",
            f"{DRIVER}/model",
            "resource.kubernetes.io/pcieRoot",
            "a/b/c",
            "/x",
            "x/",
            "9bad",
            "has-dash",
            "x" * 33,
            "d" * 64 + "/id",
            "Upper.COM/id",
            "dom.com/" + "i" * 33,
            "k" * 120,
            "",
        ]
    ),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
)
VERSIONS = st.one_of(
    st.sampled_from(
        ["1.2.3", "8.0.0", "570.124.6", "1.0.0-rc.1+build.5", "1.2", "01.2.3", "v1.2.3", "x" * 65]
    ),
    st.from_regex(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}(-[a-z0-9.]{1,5})?", fullmatch=True),
)
STRINGS = st.one_of(
    st.text(max_size=70), st.sampled_from(["x" * 64, "x" * 65, "é" * 32, "é" * 33, "GPU-cd613e30", ""])
)
INTS = st.one_of(st.integers(-(2**70), 2**70), st.sampled_from([0, -1, 2**63 - 1, -(2**63), 2**63]))
QUANTITIES = st.one_of(
    st.sampled_from(
        ["1", "98", "80Gi", "1.5", "100m", "1e3", "0.0001m", "abc", "", "-1", "1Ki", "9" * 30, " 1"]
    ),
    st.from_regex(r"[0-9]{1,4}(\.[0-9]{1,2})?(m|k|Mi|Gi|Ki)?", fullmatch=True),
)

PLAIN_ATTRIBUTES = st.one_of(
    st.builds(lambda v: {"int": v}, INTS),
    st.builds(lambda v: {"bool": v}, st.booleans()),
    st.builds(lambda v: {"string": v}, STRINGS),
    st.builds(lambda v: {"version": v}, VERSIONS),
)
# Values the model converts, refuses, or holds in a shape the plain subset leaves out.
ODD_ATTRIBUTES = st.sampled_from(
    [
        {"int": True},
        {"int": 1.5},
        {"int": "1"},
        {"bool": 1},
        {"string": 1},
        {"version": None},
        {"int": 1, "string": "x"},
        {},
        {"strings": ["a"]},
        {"ints": []},
        {"name": "x"},
        None,
        [],
    ]
)
ATTRIBUTES = st.one_of(PLAIN_ATTRIBUTES, PLAIN_ATTRIBUTES, PLAIN_ATTRIBUTES, ODD_ATTRIBUTES)
PLAIN_QUANTITY = st.builds(lambda q: {"value": q}, QUANTITIES)
ODD_QUANTITIES = st.sampled_from(
    [{"value": 1}, {"value": 1.5}, {}, {"value": "1", "requestPolicy": {"default": "1"}}]
)


def quantity_maps(names: st.SearchStrategy[Any], plain_only: bool) -> st.SearchStrategy[dict[Any, Any]]:
    values = PLAIN_QUANTITY if plain_only else st.one_of(PLAIN_QUANTITY, PLAIN_QUANTITY, ODD_QUANTITIES)
    return st.dictionaries(names, values, max_size=4)


def consumptions(plain_only: bool) -> st.SearchStrategy[list[Any]]:
    entry = st.builds(
        lambda s, c: {"counterSet": s, "counters": c}, LABELS, quantity_maps(LABELS, plain_only)
    )
    if not plain_only:
        odd = st.sampled_from(
            [
                {"counterSet": "cs"},
                {"counters": {"a": {"value": "1"}}},
                {"counterSet": "cs", "counters": {"a": {"value": "1"}}, "compatibilityGroups": ["g"]},
            ]
        )
        entry = st.one_of(entry, entry, odd)
    return st.lists(entry, max_size=3)


# Fields that take a device out of the plain subset (or out of what the model accepts).
OTHER_FIELDS = st.sampled_from(
    [
        ("taints", [{"key": "example.com/t", "effect": "NoSchedule"}]),
        ("nodeName", "node-1"),
        ("allNodes", True),
        ("bindingConditions", ["ready"]),
        ("allow_multiple_allocations", True),
        ("consumes_counters", []),
        ("basic", {}),
        ("unknown", 1),
    ]
)


@st.composite
def devices(draw: st.DrawFn, plain_only: bool = False) -> dict[str, Any]:
    device: dict[str, Any] = {}
    if plain_only or draw(st.integers(0, 19)):
        device["name"] = draw(LABELS)
    elif draw(st.booleans()):
        device["name"] = draw(st.sampled_from([1, None, True]))
    if draw(st.booleans()):
        values = PLAIN_ATTRIBUTES if plain_only else ATTRIBUTES
        device["attributes"] = draw(st.dictionaries(QUALIFIED_NAMES, values, max_size=6))
    if draw(st.booleans()):
        device["capacity"] = draw(quantity_maps(QUALIFIED_NAMES, plain_only))
    if draw(st.booleans()):
        device["consumesCounters"] = draw(consumptions(plain_only))
    if draw(st.integers(0, 3)) == 0:
        odd = [] if plain_only else [1, "true", None]
        device["allowMultipleAllocations"] = draw(st.sampled_from([True, False, *odd]))
    if not plain_only and draw(st.integers(0, 9)) == 0:
        key, value = draw(OTHER_FIELDS)
        device[key] = value
    return device


@st.composite
def device_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A few devices, sometimes padded with copies (distinct names, or not) up to and past the limits
    of 64 and 128 devices per slice, and sometimes with many attributes on one device. Most lists
    are plain, their values valid or not; the others have shapes the plain subset leaves out."""
    out = draw(st.lists(devices(plain_only=draw(st.integers(0, 3)) > 0), max_size=5))
    if out and draw(st.integers(0, 4)) == 0:
        first = out[0]
        attrs = {f"a{i}": {"int": i} for i in range(draw(st.sampled_from([31, 32, 33, 49])))}
        out[0] = {**first, "attributes": attrs}
    if out and draw(st.integers(0, 3)) == 0:
        total = draw(st.sampled_from([63, 64, 65, 127, 128, 129, 150]))
        template = out[-1]
        unique = draw(st.booleans())
        out += [{**template, "name": f"pad-{i}" if unique else "pad"} for i in range(total - len(out))]
    return out


@st.composite
def slices(draw: st.DrawFn) -> dict[str, Any]:
    """A slice of generated devices, with the slice fields that change how they are checked."""
    spec: dict[str, Any] = {}
    if draw(st.integers(0, 4)) == 0:
        spec.update(nodeName=None, perDeviceNodeSelection=True)
    if draw(st.integers(0, 3)) == 0:
        spec["partitionTypeAttribute"] = draw(
            st.sampled_from([f"{DRIVER}/model", f"{DRIVER}/index", "model", "other.com/model", "bad name"])
        )
    if draw(st.integers(0, 9)) == 0:
        spec["sharedCounters"] = [{"name": "cs", "counters": {"c": {"value": "1"}}}]
    return slice_of(draw(device_lists()), **spec)


# Fixtures ---------------------------------------------------------------------------------------


def fixture_slices() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every ResourceSlice of the fixtures (examples, tests/data, the scenario and realworld suites),
    rewritten into v1 when written in an earlier version, named by its seed and position."""
    for seed in all_seeds():
        for i, doc in enumerate(seed.docs()):
            if doc.get("kind") != "ResourceSlice" or not isinstance(doc.get("apiVersion"), str):
                continue
            info = kinds.lookup(doc["apiVersion"], "ResourceSlice")
            if info is None or not isinstance(doc.get("spec"), dict):
                continue
            yield f"{seed.name}#{i}", kinds.converted(info, copy.deepcopy(doc))
