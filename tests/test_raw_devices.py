"""Device facts read straight from plain device dicts equal the facts built from the slices' models.

The loader keeps a ResourceSlice whose devices are all plain (`slice_plain`) without a model per device
(`LazySlice`), and `build_devices` reads those devices from the dicts (`raw_devices`). Both paths run
on every fixture there is: once as loaded, once with every slice's model built first (the model path).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from fuzz.seeds import Seed, all_seeds

from kubefit.cli import main
from kubefit.model.errors import InputError
from kubefit.translate.cel.selector import Features, device_problem
from kubefit.translate.dra.devices import build_devices
from kubefit.translate.kube.objects import LazySlice, ObjectSet
from kubefit.translate.loader import load_text
from kubefit.translate.reading import slice_plain

SEEDS = [s for s in all_seeds() if "ResourceSlice" in s.kinds()]


def _load(seed: Seed) -> ObjectSet | None:
    text = yaml.safe_dump_all(seed.docs(), sort_keys=False)
    try:
        return load_text(text, f"{seed.name}.yaml")
    except InputError:
        return None


def _facts(objects: ObjectSet, materialize: bool) -> tuple[list[object], list[object]]:
    if materialize:
        for obj in objects.of_kind("ResourceSlice"):
            assert obj.model is not None
    table = build_devices(objects, True, True)
    return table.devices, table.inputs


def test_the_fixtures_hold_plain_slices() -> None:
    lazy = 0
    for seed in SEEDS:
        objects = _load(seed)
        if objects is not None:
            lazy += sum(isinstance(o, LazySlice) for o in objects.of_kind("ResourceSlice"))
    assert lazy >= 50


@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
def test_raw_devices_equal_the_models_devices(seed: Seed) -> None:
    raw, model = _load(seed), _load(seed)
    if raw is None or model is None:
        pytest.skip("the input is refused either way")
    devices, inputs = _facts(raw, False)
    expected_devices, expected_inputs = _facts(model, True)
    assert devices == expected_devices
    assert inputs == expected_inputs
    for features in (Features(), Features(list_type_attributes=False)):
        assert [str(device_problem(i, features)) for i in inputs] == [
            str(device_problem(i, features)) for i in expected_inputs
        ]


def test_a_lazy_slice_builds_its_model_on_demand() -> None:
    doc = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "gpu.example.com",
            "nodeName": "n",
            "pool": {"name": "n", "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": "gpu-0",
                    "attributes": {"model": {"string": "a"}},
                    "capacity": {"m": {"value": "1Gi"}},
                }
            ],
        },
    }
    (obj,) = load_text(json.dumps(doc), "s.json")
    assert isinstance(obj, LazySlice) and not obj.built
    assert obj.name == "s" and obj.shell.spec.devices == []
    assert obj.model.spec.devices[0].name == "gpu-0"  # type: ignore[attr-defined]
    assert obj.built


def _run(verb: list[str], path: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([*verb, "-f", path, "-o", "json"])
    out, err = capsys.readouterr()
    return code, out, err


VERBS = {
    "devices": ["devices"],
    "allocate": ["allocate"],
    "explain": ["explain"],
    "pools": ["pools"],
    "validate": ["validate"],
}


@pytest.mark.parametrize("verb", list(VERBS))
@pytest.mark.parametrize("seed", SEEDS[::3], ids=[s.name for s in SEEDS[::3]])
def test_the_verbs_answer_the_same_without_device_models(
    seed: Seed,
    verb: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(seed.docs(), sort_keys=False))
    args = [*VERBS[verb], *(["--node", seed.node] if seed.node and verb != "validate" else [])]
    lazy = _run(args, str(path), capsys)
    monkeypatch.setattr(slice_plain, "plain_devices", lambda devices: False)
    assert _run(args, str(path), capsys) == lazy


def test_allocate_builds_no_device_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kubefit.translate.dra.build import build
    from kubefit.translate.validation.run import validate_objects

    seed = next(s for s in SEEDS if s.name == "examples/gpu-mig")
    objects = _load(seed)
    assert objects is not None
    assert validate_objects(objects) == []
    build(objects)
    lazy = [o for o in objects.of_kind("ResourceSlice") if isinstance(o, LazySlice)]
    assert lazy and not any(o.built for o in lazy)
