"""`admit --write-state DIR` writes the two checkpoint files as the kubelet's checkpoint manager writes
one: a temporary file in DIR, synced, renamed over the name; both or neither. Symlinks are refused,
and every failure is one line of bad input (exit 2) before anything is printed or replaced."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from test_node_admit import kubelet, machine, pod, run, write

from kubefit.app import checkpoint_store

OLD_CPU = '{"policyName":"none","defaultCpuSet":"","checksum":1}'
OLD_MEMORY = '{"policyName":"None","checksum":2}'


@pytest.fixture
def objects(tmp_path: Path) -> str:
    return write(
        tmp_path,
        machine("topoDualSocketHT"),
        kubelet("cpuManagerPolicy: static\ntopologyManagerPolicy: none\nreservedSystemCPUs: '0'\n"),
        pod("first", 4),
    )


def admit(objects: str, state: Path | str) -> tuple[int, str, str]:
    return run(
        "admit",
        "-f",
        objects,
        "--node",
        "node-1",
        "--pod",
        "first",
        "-o",
        "json",
        "--write-state",
        str(state),
    )


def old_state(directory: Path) -> None:
    directory.mkdir(exist_ok=True)
    (directory / "cpu_manager_state").write_text(OLD_CPU, encoding="utf-8")
    (directory / "memory_manager_state").write_text(OLD_MEMORY, encoding="utf-8")


def assert_old_state_untouched(directory: Path) -> None:
    assert (directory / "cpu_manager_state").read_text(encoding="utf-8") == OLD_CPU
    assert (directory / "memory_manager_state").read_text(encoding="utf-8") == OLD_MEMORY
    assert sorted(p.name for p in directory.iterdir()) == ["cpu_manager_state", "memory_manager_state"]


def assert_refused(result: tuple[int, str, str], *words: str) -> None:
    code, out, err = result
    assert code == 2
    assert out == ""  # nothing printed before the failure
    assert len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err


def test_both_files_are_written_private_and_no_temporary_file_stays(objects: str, tmp_path: Path) -> None:
    state = tmp_path / "new" / "state"
    code, out, _ = admit(objects, state)
    assert code == 0 and json.loads(out)["admitted"]
    assert sorted(p.name for p in state.iterdir()) == ["cpu_manager_state", "memory_manager_state"]
    assert json.loads((state / "cpu_manager_state").read_text(encoding="utf-8"))["entries"]
    for name in ("cpu_manager_state", "memory_manager_state"):
        assert stat.S_IMODE((state / name).stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700  # as the kubelet's FileStore creates it


def test_existing_files_are_replaced(objects: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    old_state(state)
    code, _, _ = admit(objects, state)
    assert code == 0
    assert json.loads((state / "cpu_manager_state").read_text(encoding="utf-8"))["policyName"] == "static"
    assert sorted(p.name for p in state.iterdir()) == ["cpu_manager_state", "memory_manager_state"]


def test_a_directory_that_is_a_file_is_bad_input(objects: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.write_text("x", encoding="utf-8")
    assert_refused(admit(objects, state), "is not a directory")


def test_a_directory_that_is_a_symlink_is_refused(objects: str, tmp_path: Path) -> None:
    real = tmp_path / "real"
    old_state(real)
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    assert_refused(admit(objects, tmp_path / "link"), "symbolic link")
    assert_refused(admit(objects, f"{tmp_path / 'link'}/"), "symbolic link")
    assert_old_state_untouched(real)


@pytest.mark.parametrize("name", ["cpu_manager_state", "memory_manager_state"])
def test_a_state_file_that_is_a_symlink_is_refused_and_its_target_untouched(
    objects: str, tmp_path: Path, name: str
) -> None:
    state = tmp_path / "state"
    old_state(state)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("precious", encoding="utf-8")
    (state / name).unlink()
    (state / name).symlink_to(elsewhere)
    assert_refused(admit(objects, state), name, "symbolic link")
    assert elsewhere.read_text(encoding="utf-8") == "precious"
    assert (state / name).is_symlink()


def test_a_state_name_that_is_a_directory_is_refused(objects: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    (state / "memory_manager_state").mkdir(parents=True)
    assert_refused(admit(objects, state), "memory_manager_state", "not a regular file")
    assert not (state / "cpu_manager_state").exists()


def _failing(real: Any, fail_on: int, error: int, counted: Any = None) -> Any:
    """`real`, failing with `error` on its `fail_on`th call (of those `counted` accepts)."""
    calls = [0]

    def call(*args: Any, **kwargs: Any) -> Any:
        if counted is None or counted(*args, **kwargs):
            calls[0] += 1
        if calls[0] == fail_on and (counted is None or counted(*args, **kwargs)):
            raise OSError(error, os.strerror(error))
        return real(*args, **kwargs)

    return call


@pytest.mark.parametrize(
    ("function", "fail_on", "error", "words"),
    [
        ("write", 1, errno.ENOSPC, ("cannot write cpu_manager_state", "No space left on device")),
        ("write", 2, errno.ENOSPC, ("cannot write memory_manager_state", "No space left on device")),
        ("fsync", 2, errno.EIO, ("cannot write memory_manager_state", "Input/output error")),
        ("open", 2, errno.EACCES, ("cannot write memory_manager_state", "Permission denied")),
        ("rename", 2, errno.EBUSY, ("cannot replace memory_manager_state", "busy")),
    ],
)
def test_a_failure_at_any_step_leaves_the_old_state_as_it_was(
    objects: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    function: str,
    fail_on: int,
    error: int,
    words: Any,
) -> None:
    state = tmp_path / "state"
    old_state(state)
    real = getattr(os, function)
    if function == "open":
        # the files opened inside the state directory (the objects' and the directory's own opens aside)
        inside = _failing(real, fail_on, error, lambda *_, **kwargs: "dir_fd" in kwargs)
        monkeypatch.setattr(checkpoint_store.os, "open", inside)
    else:
        monkeypatch.setattr(checkpoint_store.os, function, _failing(real, fail_on, error))
    assert_refused(admit(objects, state), *words)
    monkeypatch.undo()
    assert_old_state_untouched(state)


def test_a_failed_second_rename_removes_a_first_file_that_was_new(
    objects: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setattr(checkpoint_store.os, "rename", _failing(os.rename, 2, errno.EIO))
    assert_refused(admit(objects, state), "cannot replace memory_manager_state")
    monkeypatch.undo()
    assert list(state.iterdir()) == []


def test_an_unwritable_directory_is_bad_input(objects: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(0o500)
    try:
        if os.access(state, os.W_OK):
            pytest.skip("running as a user whom permissions do not stop (root)")
        assert_refused(admit(objects, state), "cannot write cpu_manager_state", "Permission denied")
    finally:
        state.chmod(0o700)
