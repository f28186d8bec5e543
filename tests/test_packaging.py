"""kubefit is one importable package built from src/ and rules/, with its console script."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import kubefit
import kubefit.rules
import kubefit.solver
import kubefit.translate

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_layout_maps_src_and_rules() -> None:
    assert Path(kubefit.__file__).parent.name in ("src", "kubefit")
    assert kubefit.translate.__name__ == "kubefit.translate"
    assert kubefit.solver.__name__ == "kubefit.solver"
    assert kubefit.rules.__name__ == "kubefit.rules"


def test_rules_are_found_as_package_data() -> None:
    names = [f.name for f in kubefit.rules.files()]
    assert names == sorted(names)
    assert all(name.endswith(".lp") for name in names)
    node = [f.name for f in kubefit.rules.files("node")]
    assert "admission.lp" in node and "input.lp" in node and node == sorted(node)
    assert "% input.lp" in kubefit.rules.read("node/input.lp")


def test_every_node_rules_file_is_included_or_loaded_and_documented() -> None:
    """The entry program includes every file but the optimization's, which the engine loads beside it;
    the README says what each file reads and defines."""
    from kubefit.solver.asp.control import NODE

    names = {f.name for f in kubefit.rules.files("node")}
    entry = kubefit.rules.read(NODE.entry)
    included = {line.split('"')[1] for line in entry.splitlines() if line.startswith("#include")}
    objective = {name.removeprefix("node/") for name in NODE.objective}
    assert included | objective | {"admission.lp"} == names
    readme = (ROOT / "rules" / "node" / "README.md").read_text(encoding="utf-8")
    for name in names:
        text = kubefit.rules.read(f"node/{name}")
        assert text.startswith(f"% {name} — "), name
        assert name == "admission.lp" or ("% Reads:" in text and "% Defines:" in text) or name == "input.lp"
        assert f"`{name}`" in readme, name


def test_the_console_script_is_declared() -> None:
    (script,) = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "kubefit"]
    assert script.value == "kubefit.cli:run"


def test_a_wheel_holds_every_module_and_the_rules_package(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {done.stderr.strip().splitlines()[-1:]}")
    (wheel,) = tmp_path.glob("kubefit-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in (
        "kubefit/__init__.py",
        "kubefit/__main__.py",
        "kubefit/cli/__init__.py",
        "kubefit/py.typed",
        "kubefit/translate/loader/loading.py",
        "kubefit/translate/cel/parser.py",
        "kubefit/translate/cel/library/quantity.py",
        "kubefit/translate/validation/run.py",
        "kubefit/solver/__init__.py",
        "kubefit/rules/__init__.py",
    ):
        assert module in names, module
    sources = {p.relative_to(ROOT / "src").as_posix() for p in (ROOT / "src").rglob("*.py")}
    assert {f"kubefit/{s}" for s in sources} <= names, "a module under src/ is missing from the wheel"
    rules = {p.relative_to(ROOT / "rules").as_posix() for p in (ROOT / "rules").rglob("*.lp")}
    assert {f"kubefit/rules/{r}" for r in rules} <= names
    assert any(r.startswith("node/") for r in rules)
    examples = {
        p.relative_to(ROOT / "examples").as_posix()
        for p in (ROOT / "examples").rglob("*")
        if p.suffix in (".yaml", ".yml", ".json", ".md")
    }
    assert {"README.md", "gpu-mig/cluster.yaml", "templates/a100-node.yaml"} <= examples
    assert {f"kubefit/examples/{e}" for e in examples} <= names, "an example is missing from the wheel"
    # The licence pyproject.toml declares, as its text and as the metadata's SPDX expression.
    (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read(license_file) == (ROOT / "LICENSE").read_bytes()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        assert "License-Expression: Apache-2.0" in archive.read(metadata).decode().splitlines()

    # Installed from the wheel (here into a folder of its own), the examples are read from any directory.
    target = tmp_path / "installed"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = "import sys; from kubefit.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": str(target)}
    listed = subprocess.run(
        [sys.executable, "-c", script, "examples", "-o", "json"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
    )
    assert listed.returncode == 0, listed.stderr
    for example in json.loads(listed.stdout)["examples"]:
        assert Path(example["path"]).is_relative_to(target), example["path"]
    read = subprocess.run(
        [sys.executable, "-c", script, "validate", "-f", "example:gpu-mig", "-o", "json"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
    )
    assert read.returncode == 0, read.stderr
    assert {Path(o["file"]).parent for o in json.loads(read.stdout)["objects"]} == {
        target / "kubefit" / "examples" / "gpu-mig"
    }


def test_the_license_is_the_apache_license_pyproject_declares() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and len(text.splitlines()) == 202
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
