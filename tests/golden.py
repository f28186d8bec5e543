"""Golden files: compare output with the file, or rewrite it when KUBEFIT_UPDATE_GOLDEN is set (then
review the diff)."""

from __future__ import annotations

import os
from pathlib import Path


def check_golden(golden: Path, got: str) -> None:
    if os.environ.get("KUBEFIT_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert golden.is_file(), f"no golden file {golden}; run with KUBEFIT_UPDATE_GOLDEN=1"
    assert got == golden.read_text(encoding="utf-8")
