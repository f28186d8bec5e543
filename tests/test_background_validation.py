"""API validation in a child process (background_validation): the command line's output is the same,
byte for byte and in the same order, as when validation runs first in the process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kubefit.model.errors import Problem
from kubefit.model.features import ALL_ON
from kubefit.runtime import background_validation, forking
from kubefit.translate.loader import load
from kubefit.translate.validation.run import validate_objects

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "gpu-mig"
FORKED = "in a child process"  # the debug lines of a run that forked

# A slice the API server refuses (a device name that is no DNS label): a warning for the verbs that answer
# as the scheduler would, bad input for the others.
BAD_SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: spare
spec:
  driver: gpu.example.com
  nodeName: node-spare
  pool: {name: node-spare, generation: 1, resourceSliceCount: 1}
  devices:
  - name: GPU_1
"""


@pytest.fixture
def bad_input(tmp_path: Path) -> Path:
    folder = tmp_path / "input"
    shutil.copytree(EXAMPLE, folder)
    (folder / "zz-bad.yaml").write_text(BAD_SLICE)
    return folder


def kubefit(fork: str, *argv: str) -> tuple[int, str, str]:
    env = {**os.environ, forking.ENV: fork}
    done = subprocess.run(
        [sys.executable, "-m", "kubefit", *argv], capture_output=True, text=True, env=env, timeout=300
    )
    return done.returncode, done.stdout, done.stderr


def both(*argv: str) -> tuple[int, str, str]:
    """The run with validation in a child and the run without, which must agree; the first's result."""
    forked = kubefit("1", "-vv", *argv)
    inline = kubefit("0", "-vv", *argv)
    assert "Traceback" not in forked[2]
    lines = [line for line in forked[2].splitlines(keepends=True) if FORKED not in line]
    assert (forked[0], forked[1], "".join(lines)) == inline
    return forked


def test_warnings_come_first_and_the_verbs_own_logs_after_them(bad_input: Path, tmp_path: Path) -> None:
    dump = tmp_path / "model"
    code, out, err = both("allocate", "--engine", "cpsat", "--dump-model", str(dump), "-f", str(bad_input))
    assert code == 0 and "kind: List" in out
    lines = err.splitlines()
    assert FORKED in err
    warning = next(i for i, line in enumerate(lines) if 'warning: Invalid value: "GPU_1"' in line)
    refused = next(i for i, line in enumerate(lines) if "the API server would refuse" in line)
    wrote = [i for i, line in enumerate(lines) if "wrote the model of unit" in line]
    # the model files are written while the child validates; their log lines wait for its problems
    assert wrote and warning < refused < min(wrote)


def test_a_problem_that_stops_the_run_is_all_it_says(bad_input: Path) -> None:
    code, out, err = both("devices", "--node", "nowhere", "-f", str(bad_input))
    assert code == 2 and out == ""
    # the verb's warning about the node, logged while the child validated, is dropped with the run
    assert [line for line in err.splitlines() if FORKED not in line and "DEBUG" not in line] == [
        line for line in err.splitlines() if "GPU_1" in line
    ]
    code, out, err = both("allocate", "--strict", "-f", str(bad_input))
    assert code == 2 and out == "" and "GPU_1" in err


def test_an_error_of_the_verb_comes_after_the_warnings(bad_input: Path) -> None:
    code, out, err = both("explain", "--pod", "nosuch", "-f", str(bad_input))
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if "DEBUG" not in line]
    assert "GPU_1" in lines[0] and lines[-1].startswith('--pod nosuch: pods "nosuch" not found')


def test_valid_input_answers_alike(tmp_path: Path) -> None:
    for verb in ("allocate", "explain"):
        code, out, err = both(verb, "-f", str(EXAMPLE), "-o", "json")
        assert code in (0, 1) and out.startswith("{") and FORKED in err


def test_the_child_finds_what_validation_in_the_process_finds(bad_input: Path) -> None:
    objects = load([str(bad_input)])
    expected = validate_objects(objects, ALL_ON)
    assert expected
    found: list[list[Problem]] = []
    assert background_validation.start(objects, ALL_ON, found.append)
    background_validation.settle()
    assert found == [expected]


def test_a_child_that_fails_leaves_validation_to_the_parent(
    bad_input: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    objects = load([str(bad_input)])
    expected = validate_objects(objects, ALL_ON)

    def broken(*_: object) -> None:
        raise RuntimeError("the child cannot answer")

    monkeypatch.setattr(forking.pickle, "dump", broken)  # the forked child has it too
    found: list[list[Problem]] = []
    assert background_validation.start(objects, ALL_ON, found.append)
    background_validation.settle()
    assert found == [expected]


def test_when_to_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(forking.ENV, "0")
    assert not background_validation.wanted(10**6)
    monkeypatch.delenv(forking.ENV)
    assert not background_validation.wanted(background_validation.MIN_OBJECTS - 1)
    monkeypatch.setattr(forking.threading, "active_count", lambda: 1)
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    expected = sys.platform.startswith("linux") and hasattr(os, "fork")
    assert background_validation.wanted(background_validation.MIN_OBJECTS) == expected
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda _: {0})  # one core: no fork
    assert not background_validation.wanted(background_validation.MIN_OBJECTS)
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda _: {0, 1})
    monkeypatch.setattr(forking.threading, "active_count", lambda: 2)
    assert not background_validation.wanted(background_validation.MIN_OBJECTS)


# Verbs whose answers hold no timings (plan and compare report their seconds).
_TIMELESS = ["validate", "devices", "allocate", "explain", "admit", "pools", "taints"]


@pytest.mark.parametrize("number", range(14))
def test_generated_inputs_answer_alike_with_and_without_children(number: int, tmp_path: Path) -> None:
    from fuzz.campaign import _input

    fuzz_input = _input(2026, number, _TIMELESS)
    fuzz_input.write(tmp_path)
    argv = fuzz_input.argv(tmp_path)
    forked, inline = (kubefit(fork, *argv) for fork in ("1", "0"))
    assert forked == inline, fuzz_input.verb


class _Behind:
    """A child that validated the first `done` objects when the process came to settle, and stops
    at `stop` (past where the process took over, short of it, or right there)."""

    def __init__(self, objects: Any, done: int, stop: int) -> None:
        from kubefit.translate.validation.run import Context, object_problems

        ctx = Context(ALL_ON)
        self.record = ([p for obj in list(objects)[:stop] for p in object_problems(obj, ctx)], stop)
        self.done = done

    def ready(self) -> bool:
        return False

    def receive(self) -> Any:
        return self.record

    def wait(self) -> bool:
        return True

    def stop(self) -> None:
        pass


@pytest.mark.parametrize("where", ["met", "past", "short", "none", "problem last"])
def test_the_process_validates_what_the_child_has_not_reached(where: str, tmp_path: Path) -> None:
    folder = tmp_path / "input"
    shutil.copytree(EXAMPLE, folder)
    (folder / ("zz-bad.yaml" if where == "problem last" else "aa-bad.yaml")).write_text(BAD_SLICE)
    objects = load([str(folder)])
    expected = validate_objects(objects, ALL_ON)
    assert expected and len(objects) > 4
    progress = background_validation.Progress()
    done = 0 if where == "none" else 2
    progress.advance(done)
    # The process validates back to the child's progress (it meets it at `done`) or to the object with a
    # problem, which it leaves to the child (the first object, or the last). The child stops there, or went
    # past it, or stopped short of it (the process validates those between).
    stop = {"met": done, "past": len(objects) - 1, "short": done - 1}.get(where, 0)
    child = _Behind(objects, done, stop)
    found: list[Any] = []
    background_validation.adopt(child, objects, ALL_ON, found.append, progress)
    background_validation.settle()
    assert found == [expected]
    claimed = {"none": 1, "problem last": background_validation.Progress._NONE}.get(where, done)
    assert progress.claimed() == claimed
