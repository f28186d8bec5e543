"""The code stays ruff-clean and mypy-clean (strict on src/), so CI keeps it that way."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> list[str]:
    if (
        shutil.which(name) is None
        and subprocess.run([sys.executable, "-m", name, "--version"], capture_output=True).returncode != 0
    ):
        pytest.skip(f"{name} is not installed (pip install '.[test]')")
    return [sys.executable, "-m", name]


def test_ruff_finds_nothing() -> None:
    done = subprocess.run(
        [*_tool("ruff"), "check", "src", "tests", "benchmarks"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_finds_nothing_in_src() -> None:
    done = subprocess.run([*_tool("mypy"), "src"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
