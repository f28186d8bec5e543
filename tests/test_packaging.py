"""kubefit is one importable package built from src/ and rules/, with its console script."""

from __future__ import annotations

import importlib.metadata
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
