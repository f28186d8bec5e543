"""The dra-example-driver demo corpus: every example, applied file by file as its README does, must
end as the README (or, where it only counts devices, the allocator's first fit) says."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from realworld import CORPUS, answers, examples

from kubefit.model.quantity import Quantity

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/realworld is not beside the checkout")

EXAMPLES = examples() if CORPUS.is_dir() else []
# cpsat's default objective is first-fit: the very allocation Kubernetes (and greedy) picks.
ENGINES = ["greedy", "cpsat"]


def _value(text: Any) -> Fraction:
    return Quantity.parse(str(text)).as_fraction()


def _result_matches(want: dict[str, Any], got: dict[str, Any]) -> bool:
    for key, value in want.items():
        if key == "shareID":
            if bool(got.get("shareID")) != value:
                return False
        elif key == "consumedCapacity":
            have = got.get("consumedCapacity") or {}
            if {k: _value(v) for k, v in value.items()} != {k: _value(v) for k, v in have.items()}:
                return False
        elif got.get(key) != value:
            return False
    return True


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_example_ends_as_its_readme_says(example: Path, engine: str) -> None:
    expect = yaml.safe_load((example / "expect.yaml").read_text(encoding="utf-8"))
    got = answers(example, engine)
    for pod, want in expect["pods"].items():
        answer = got.get(pod)
        assert answer is not None, f"{pod}: kubefit did not see this pod"
        assert answer["allocated"] == want["allocated"], f"{pod}: {got['_events']}"
        if not want["allocated"]:
            continue
        assert answer["node"] == want["node"]
        # both engines give the allocator's first fit, so even first-fit names must match exactly
        assert {k: sorted(v) for k, v in answer["devices"].items() if k in want["count"]} == {
            k: sorted(v) for k, v in want["devices"].items()
        }, pod
        if "replicas" in want:
            assert answer["replicas"] == answer["allocatedReplicas"] == want["replicas"]
        for claim, results in (want.get("results") or {}).items():
            have = answer["results"][claim]
            assert len(have) == len(results), f"{pod}/{claim}: {have}"
            for w, g in zip(results, have, strict=True):
                assert _result_matches(w, g), f"{pod}/{claim}: want {w}, got {g}"
        for claim, resources in (want.get("nodeAllocatable") or {}).items():
            have = answer.get("nodeAllocatable", {}).get(claim, {})
            assert {k: _value(v) for k, v in resources.items()} == {k: _value(v) for k, v in have.items()}
        if "allocationConfigRequests" in want:
            assert answer["allocationConfigRequests"] == want["allocationConfigRequests"], pod


@pytest.mark.parametrize("engine", ENGINES)
def test_corpus_checker_accepts_the_answers(tmp_path: Path, engine: str) -> None:
    """The corpus's own checker, fed what `python tests/realworld.py --engine E` prints."""
    out = tmp_path / "answers.yaml"
    script = Path(__file__).with_name("realworld.py")
    with out.open("w", encoding="utf-8") as f:
        subprocess.run([sys.executable, str(script), "--engine", engine], stdout=f, check=True)
    check = subprocess.run(
        [sys.executable, str(CORPUS / "check.py"), "--actual", str(out)], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert f"{len(EXAMPLES)} passed, 0 failed" in check.stdout
