"""PodDisruptionBudget validation: the values preemption computes disruptions from, as the API server
checks them (pkg/apis/policy/validation ValidatePodDisruptionBudgetSpec)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from kubefit.cli import main

PERCENT = (
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
    "regex used for validation is '[0-9]+%')"
)


def _budget(spec: str) -> str:
    return (
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: default}\n"
        f"spec:\n{spec}  selector: {{matchLabels: {{app: x}}}}\n"
    )


def _run(tmp_path: Path, verb: str, text: str) -> tuple[int, str]:
    path = tmp_path / "in.yaml"
    path.write_text(text, encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main([verb, "-f", str(path), "-o", "json"])
    return code, err.getvalue()


@pytest.mark.parametrize(
    ("spec", "line"),
    [
        ("  minAvailable: gpu\n", f'spec.minAvailable: Invalid value: "gpu": {PERCENT}'),
        ("  maxUnavailable: 5\n  minAvailable: 1\n", "spec: Invalid value: "),
        ("  minAvailable: -1\n", "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"),
        (
            "  maxUnavailable: 150%\n",
            'spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
        ),
    ],
)
@pytest.mark.parametrize("verb", ["validate", "allocate", "explain"])
def test_a_budget_no_api_server_stores_is_refused(tmp_path: Path, spec: str, line: str, verb: str) -> None:
    code, err = _run(tmp_path, verb, _budget(spec))
    assert code == 2, err
    assert f"PodDisruptionBudget/default/b: {line}" in err


def test_valid_budgets_pass(tmp_path: Path) -> None:
    for spec in ("  minAvailable: 1\n", "  maxUnavailable: 25%\n", "  minAvailable: 100%\n"):
        code, err = _run(tmp_path, "validate", _budget(spec))
        assert code == 0, err
