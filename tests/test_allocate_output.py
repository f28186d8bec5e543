"""`kubefit allocate` output as golden YAML, and answers that do not depend on the order of the input.

Regenerate the golden files after an intended change with `KUBEFIT_UPDATE_GOLDEN=1 python -m pytest
tests/test_allocate_output.py` and review the diff.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from gate_support import gate_args
from golden import check_golden

from kubefit.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
SHARED = ROOT.parent / "shared"

# (golden name, input paths relative to the repository, extra arguments)
CASES = [
    ("allocate-gpu-mig", ["examples/gpu-mig"], []),
    ("allocate-gpu-nic-pair", ["examples/gpu-nic-pair"], []),
    (
        "allocate-gpu-mig-one-node-no-prioritized-list",
        ["examples/gpu-mig"],
        # 1.36, the newest release that lets the gate be switched off (1.37 locks it: kubefit would warn).
        ["--node", "gpu-node-2", "--emulated-version", "1.36", "--feature-gates", "DRAPrioritizedList=false"],
    ),
    ("allocate-unsatisfiable-claims", ["tests/data/allocate/unsatisfiable.yaml"], []),
    ("allocate-preemption", ["examples/preemption"], []),
    ("allocate-preemption-dra", ["examples/preemption"], ["--feature-gates", "DRAPreemption=true"]),
]


def test_allocate_wide_ranks_the_nodes_with_every_plugins_score() -> None:
    code, text = run(["allocate", "-o", "wide", "-f", str(ROOT / "examples/preemption")])
    golden = GOLDEN / "allocate-preemption-wide.txt"
    check_golden(golden, f"# kubefit allocate -o wide -f examples/preemption\n# exit {code}\n{text}")
    gate = ["--feature-gates", "DRAPreemption=true"]
    code, text = run(["allocate", "-o", "wide", "-f", str(ROOT / "examples/preemption"), *gate])
    golden = GOLDEN / "allocate-preemption-dra-wide.txt"
    check_golden(
        golden, f"# kubefit allocate -o wide -f examples/preemption {' '.join(gate)}\n# exit {code}\n{text}"
    )


def run(args: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    assert code in (0, 1), err.getvalue()
    return code, out.getvalue()


@pytest.mark.parametrize(("name", "paths", "extra"), CASES, ids=[c[0] for c in CASES])
def test_allocate_yaml_is_golden(name: str, paths: list[str], extra: list[str]) -> None:
    args = ["allocate", "-o", "yaml", *extra]
    for p in paths:
        args += ["-f", str(ROOT / p)]
    code, text = run(args)
    golden = GOLDEN / f"{name}.yaml"
    got = f"# kubefit {' '.join(a for a in args if not a.startswith(str(ROOT)))}\n# exit {code}\n{text}"
    check_golden(golden, got)


# --- order independence ----------------------------------------------------------------------------------


def _docs(paths: list[Path]) -> list[dict[str, Any]]:
    out = []
    for path in paths:
        files = sorted(path.rglob("*.yaml")) if path.is_dir() else [path]
        for f in files:
            out += [d for d in yaml.safe_load_all(f.read_text(encoding="utf-8")) if d]
    return out


def _shuffled(docs: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Everything shuffled, except that pods keep their relative order: pods without a creation
    timestamp are created in input order, which is part of the question, not noise."""
    rng = random.Random(seed)
    order = list(range(len(docs)))
    rng.shuffle(order)
    pods = iter([d for d in docs if d.get("kind") == "Pod"])
    out = []
    for i in order:
        out.append(next(pods) if docs[i].get("kind") == "Pod" else docs[i])
    return out


def _normalized(text: str) -> list[Any]:
    items = json.loads(text)["items"]
    return sorted(items, key=lambda i: (i["kind"], i["metadata"].get("namespace", ""), i["metadata"]["name"]))


def _inputs() -> list[Any]:
    out = [
        pytest.param([ROOT / "examples" / "gpu-mig"], [], id="gpu-mig"),
        pytest.param([ROOT / "examples" / "gpu-nic-pair"], [], id="gpu-nic-pair"),
    ]
    scenarios = SHARED / "scenarios" / "dra"
    if scenarios.is_dir():
        for case in sorted(scenarios.iterdir())[::4]:
            spec = yaml.safe_load((case / "case.yaml").read_text(encoding="utf-8"))
            args = ["--node", spec["node"]]
            if spec.get("claims"):
                args += ["--claims", ",".join(spec["claims"])]
            args += gate_args(spec.get("featureGates"))
            out.append(pytest.param([case / "objects.yaml"], args, id=case.name))
    return out


@pytest.mark.parametrize(("paths", "extra"), _inputs())
def test_answers_do_not_depend_on_input_order(paths: list[Path], extra: list[str], tmp_path: Path) -> None:
    docs = _docs(paths)
    answers = []
    for seed in (None, 1, 2, 3):
        shuffled = docs if seed is None else _shuffled(docs, seed)
        path = tmp_path / f"input-{seed}.yaml"
        path.write_text(yaml.safe_dump_all(shuffled, sort_keys=False), encoding="utf-8")
        code, text = run(["allocate", "-f", str(path), "-o", "json", *extra])
        answers.append((code, _normalized(text)))
    assert all(a == answers[0] for a in answers[1:])
