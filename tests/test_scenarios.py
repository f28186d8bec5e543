"""Scenario suites (cases transcribed from upstream test tables) against every engine that passes them.

The shared suite lives in ../shared/scenarios (beside the checkout, as in CI); our own ports of
further upstream cases live in tests/scenarios. Each case is judged by the shared runner's own
checks (loaded from ../shared/bin/run-scenarios), with the `kubefit` command it would start run
in-process instead, so that a case costs its work and not an interpreter start.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import io
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from kubefit.cli import main as kubefit_main

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared"
RUNNER = SHARED / "bin" / "run-scenarios"

# (suite directory, engine): every pair listed here passes completely and must keep passing.
AREAS = [
    (SHARED / "scenarios" / "dra", "greedy"),
    (HERE / "scenarios" / "dra", "greedy"),
    (SHARED / "scenarios" / "dra", "cpsat"),
    (HERE / "scenarios" / "dra", "cpsat"),
    (SHARED / "scenarios" / "dra", "asp"),
    (HERE / "scenarios" / "dra", "asp"),
    (SHARED / "scenarios" / "node", "greedy"),
    (HERE / "scenarios" / "node", "greedy"),
    (SHARED / "scenarios" / "node", "cpsat"),
    (HERE / "scenarios" / "node", "cpsat"),
    (SHARED / "scenarios" / "node", "asp"),
    (HERE / "scenarios" / "node", "asp"),
    (SHARED / "scenarios" / "sched", "greedy"),
    (HERE / "scenarios" / "sched", "greedy"),
    (SHARED / "scenarios" / "sched", "cpsat"),
    (HERE / "scenarios" / "sched", "cpsat"),
    (SHARED / "scenarios" / "sched", "asp"),
    (HERE / "scenarios" / "sched", "asp"),
]


def _runner() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("run_scenarios", str(RUNNER))
    spec = importlib.util.spec_from_loader("run_scenarios", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)

    def run(cmd: list[str]) -> tuple[int, str, str]:
        assert cmd[0] == "kubefit"
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = kubefit_main(cmd[1:])
        return code, out.getvalue(), err.getvalue()

    module.run = run
    # As the runner's main does: every gate on where kubefit defaults gates as a release does.
    _, listed, _ = run(["kubefit", "feature-gates"])
    if "AllAlpha" in listed:
        module.ALL_ON.extend(["AllAlpha=true", "AllBeta=true"])
    return module


def _cases() -> list[Any]:
    out = []
    for suite, engine in AREAS:
        if not suite.is_dir():
            continue
        for case in sorted(p for p in suite.iterdir() if (p / "case.yaml").is_file()):
            out.append(
                pytest.param(case, engine, id=f"{suite.parent.name}/{suite.name}/{case.name}-{engine}")
            )
    return out


@pytest.fixture(scope="module")
def runner() -> ModuleType:
    return _runner()


@pytest.mark.skipif(not RUNNER.is_file(), reason="../shared is not beside the checkout")
@pytest.mark.parametrize(("case_dir", "engine"), _cases())
def test_scenario(case_dir: Path, engine: str, runner: ModuleType) -> None:
    case = yaml.safe_load((case_dir / "case.yaml").read_text(encoding="utf-8"))
    checks = {"admit": runner.check_admit, "schedule": runner.check_schedule}
    check = checks.get(case["command"], runner.check_allocate)
    problems = check(case, str(case_dir), ["kubefit"], engine)
    if case["command"] == "schedule":
        problems += check_decision(case, case_dir, engine, runner)
    assert not problems, "\n".join(problems)


def check_decision(case: dict[str, Any], case_dir: Path, engine: str, runner: ModuleType) -> list[str]:
    """What our own schedule cases add to the shared format: the node chosen (`expect.node`), the
    FailedScheduling message (`expect.message`, exact), the nominated node and the preemption victims."""
    expect = case.get("expect") or {}
    keys = {"node", "message", "nominated", "victims", "pods", "events", "preEnqueue"}
    if not keys & set(expect):
        return []
    args = ["kubefit", "allocate", "-f", str(case_dir / "objects.yaml"), "--engine", engine, "-o", "json"]
    args += case.get("args", []) + runner.gate_args(case)
    _, out, err = runner.run(args)
    doc = runner.first_json(out)
    items = doc.get("items", [])
    pod = next(
        (
            i
            for i in items
            if i.get("kind") == "Pod"
            and i["metadata"]["name"] == case["pod"]
            and "kubefit.io/filter-result" in (i["metadata"].get("annotations") or {})
        ),
        None,
    )
    problems = check_group(expect, items)
    if pod is None and {"node", "message", "nominated", "victims"} & set(expect):
        return [*problems, f"pod {case['pod']} is not in the output: {err.strip()[-300:]}"]
    if pod is None:
        return problems
    annotations = pod["metadata"].get("annotations") or {}
    if "node" in expect:
        got = pod.get("spec", {}).get("nodeName") or ""
        if got != (expect["node"] or ""):
            problems.append(f"node: got {got!r}, want {expect['node']!r}")
    if "message" in expect:
        messages = [
            i["message"]
            for i in items
            if i.get("kind") == "Event"
            and i.get("reason") == "FailedScheduling"
            and i["involvedObject"]["name"] == case["pod"]
        ]
        if messages != [expect["message"]]:
            problems.append(f"message: got {messages!r}, want {expect['message']!r}")
    if "nominated" in expect:
        got = (
            annotations.get("kubefit.io/nominated-node")
            or (pod.get("status") or {}).get("nominatedNodeName")
            or ""
        )
        if got != (expect["nominated"] or ""):
            problems.append(f"nominated: got {got!r}, want {expect['nominated']!r}")
    if "victims" in expect:
        got_victims = sorted(json.loads(annotations.get("kubefit.io/preemption-victims") or "[]"))
        if got_victims != sorted(expect["victims"]):
            problems.append(f"victims: got {got_victims}, want {sorted(expect['victims'])}")
    return problems


def check_group(expect: dict[str, Any], items: list[dict[str, Any]]) -> list[str]:
    """What PodGroup cases check beyond one pod: where each pod went (`pods`: a node, the nodes it may be
    on, or "" for pending), each pod's FailedScheduling message (`events`, exact; null: no event) and what
    PreEnqueue said (`preEnqueue`: the kubefit.io/preenqueue-result annotation)."""
    pods = {i["metadata"]["name"]: i for i in items if i.get("kind") == "Pod"}
    events: dict[str, list[str]] = {}
    for i in items:
        if i.get("kind") == "Event" and i.get("reason") == "FailedScheduling":
            events.setdefault(i["involvedObject"]["name"], []).append(i["message"])
    problems = []
    for name, want in (expect.get("pods") or {}).items():
        got = ((pods.get(name) or {}).get("spec") or {}).get("nodeName") or ""
        allowed = want if isinstance(want, list) else [want or ""]
        if got not in allowed:
            problems.append(f"pod {name}: on {got!r}, want one of {allowed}")
    for name, want in (expect.get("events") or {}).items():
        got_events = events.get(name, [])
        if got_events != ([] if want is None else [want]):
            problems.append(f"events of {name}: got {got_events!r}, want {want!r}")
    for name, want in (expect.get("preEnqueue") or {}).items():
        annotations = (pods.get(name) or {}).get("metadata", {}).get("annotations") or {}
        got = annotations.get("kubefit.io/preenqueue-result")
        if got != want:
            problems.append(f"preEnqueue of {name}: got {got!r}, want {want!r}")
    return problems


def test_every_area_is_present() -> None:
    """CI has ../shared beside the clone; locally a missing suite only skips."""
    if not RUNNER.is_file():
        pytest.skip("../shared is not beside the checkout")
    for suite, _ in AREAS:
        assert any((p / "case.yaml").is_file() for p in suite.iterdir()), suite
