"""Every read is bounded: files, stdin, state files, templates, cAdvisor and sysfs input are read up to
--max-input-bytes (1 GiB unless raised); special files are read only when named (and then stop at what
cannot be text); FIFOs and devices met in a directory are skipped with a warning; an unreadable
directory is a problem; malformed node-side JSON (deep, huge numbers) is one line of bad input."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_node_admit import kubelet, machine, pod
from test_node_topology_sources import make_sysfs

from kubefit.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CLUSTER = EXAMPLES / "gpu-mig" / "cluster.yaml"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def refused(result: tuple[int, str, str], *words: str) -> None:
    code, out, err = result
    assert code == 2, err
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err


# --- files, stdin, special files -----------------------------------------------------------------------


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_named_with_f_is_read_until_it_cannot_be_text(device: str) -> None:
    refused(run("devices", "-f", device), device, "not a text file")


def test_a_file_larger_than_the_cap_is_refused_unread(tmp_path: Path) -> None:
    refused(
        run("devices", "-f", str(CLUSTER), "--max-input-bytes", "10Ki"),
        "larger than --max-input-bytes (10 KiB)",
    )
    code, _, _ = run("devices", "-f", str(CLUSTER), "--max-input-bytes", "1Mi", "-o", "json")
    assert code == 0


def test_files_together_larger_than_the_cap_are_refused(tmp_path: Path) -> None:
    size = CLUSTER.stat().st_size
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "cluster.yaml").write_bytes(CLUSTER.read_bytes())
    limit = str(size + size // 2)
    refused(
        run("devices", "-f", str(tmp_path / "a"), "-f", str(tmp_path / "b"), "--max-input-bytes", limit),
        "hold more than --max-input-bytes",
    )


def test_stdin_is_read_up_to_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    endless = io.TextIOWrapper(io.BytesIO(b"# filler line\n" * 100_000), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", endless)
    refused(run("devices", "-f", "-", "--max-input-bytes", "64Ki"), "<stdin>", "--max-input-bytes")


def test_fifos_and_devices_in_a_directory_are_skipped_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_bytes(CLUSTER.read_bytes())
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    code, _, err = run("devices", "-f", str(tmp_path), "-o", "json")
    assert code == 0
    assert "pipe.yaml: warning: skipped: a FIFO met in a directory" in err
    assert "zero.yaml: warning: skipped: a device met in a directory" in err


def _writer(path: Path, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(path, "wb") as f:
            f.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_a_fifo_named_with_f_is_read_until_its_writer_closes_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    writer = _writer(fifo, CLUSTER.read_bytes())
    code, _, _ = run("devices", "-f", str(fifo), "-o", "json")
    writer.join(5)
    assert code == 0


def test_an_unreadable_subdirectory_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "cluster.yaml").write_bytes(CLUSTER.read_bytes())
    (tmp_path / "locked").mkdir()
    real = os.scandir

    def scandir(path: str) -> object:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = run("devices", "-f", str(tmp_path), "-o", "json")
    assert code == 2
    assert f"{tmp_path / 'locked'}: cannot read this directory: Permission denied" in err


def test_the_reading_child_honours_the_cap(tmp_path: Path) -> None:
    """The command line's child that reads large JSON files reads none larger than the cap."""
    env = {**os.environ, "KUBEFIT_FORK": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "kubefit", "devices", "-f", str(CLUSTER), "--max-input-bytes", "10Ki"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    assert "larger than --max-input-bytes" in done.stderr


@pytest.mark.parametrize("text", ["0", "-1", "1x", "1.5Gi", "9" * 40])
def test_the_cap_is_a_positive_number_of_bytes(text: str) -> None:
    refused(run("devices", "-f", str(CLUSTER), "--max-input-bytes", text), "--max-input-bytes")


# --- node-side files ---------------------------------------------------------------------------------------


@pytest.fixture
def node_objects(tmp_path: Path) -> Path:
    path = tmp_path / "node.yaml"
    path.write_text(
        machine("topoDualSocketHT")
        + kubelet("cpuManagerPolicy: static\ntopologyManagerPolicy: none\nreservedSystemCPUs: '0'\n")
        + pod("first", 4),
        encoding="utf-8",
    )
    return path


MALFORMED_STATE = {
    "nested 100,000 deep": '{"policyName": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "a 5,000-digit integer": '{"policyName": "none", "defaultCpuSet": "", "checksum": ' + "9" * 5000 + "}",
    "a 5,000-digit NUMA node": '{"policyName": "Static", "machineState": {"' + "1" * 5000 + '": {}}}',
}


@pytest.mark.parametrize(
    ("flag", "what"),
    [
        *(
            (flag, what)
            for flag in ("--cpu-manager-state", "--memory-manager-state")
            for what in list(MALFORMED_STATE)[:2]
        ),
        ("--memory-manager-state", "a 5,000-digit NUMA node"),
    ],
)
def test_malformed_checkpoints_are_one_line_of_bad_input(
    node_objects: Path, tmp_path: Path, flag: str, what: str
) -> None:
    state = tmp_path / "state"
    state.write_text(MALFORMED_STATE[what], encoding="utf-8")
    refused(run("admit", "-f", str(node_objects), "--node", "node-1", flag, str(state)), str(state))


def test_a_checkpoint_that_is_a_device_or_too_large_is_refused(node_objects: Path, tmp_path: Path) -> None:
    args = ("admit", "-f", str(node_objects), "--node", "node-1", "--cpu-manager-state")
    refused(run(*args, "/dev/zero"), "not a kubelet checkpoint", "NUL byte")
    big = tmp_path / "big"
    big.write_text('{"policyName": "none"' + " " * 5000 + "}", encoding="utf-8")
    refused(run(*args, str(big), "--max-input-bytes", "4Ki"), "larger than --max-input-bytes")


def test_a_checkpoint_fifo_is_read_as_named(node_objects: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "cpu_manager_state"
    os.mkfifo(fifo)
    writer = _writer(fifo, b'{"policyName": "static", "defaultCpuSet": "0-11"}')
    code, _, err = run("admit", "-f", str(node_objects), "--node", "node-1", "--cpu-manager-state", str(fifo))
    writer.join(5)
    assert code in (0, 1), err


CADVISOR = {
    "nested 100,000 deep": ('{"topology": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    "a 5,000-digit integer": (
        '{"topology": [{"node_id": 0, "memory": ' + "9" * 5000 + ', "cores": []}]}',
        "a number of 5000 digits",
    ),
    "a million threads": (
        '{"topology": [{"node_id": 0, "cores": ['
        + ",".join(f'{{"core_id": {i}, "thread_ids": [{2 * i}, {2 * i + 1}]}}' for i in range(500_000))
        + "]}]}",
        "more than 8192 CPUs",
    ),
}


@pytest.mark.parametrize("what", CADVISOR)
def test_malformed_cadvisor_machine_info_is_one_line_of_bad_input(tmp_path: Path, what: str) -> None:
    text, words = CADVISOR[what]
    path = tmp_path / "machine.json"
    path.write_text(text, encoding="utf-8")
    refused(run("topology", "--from-cadvisor", str(path)), str(path), words)


def test_sysfs_attributes_are_bounded_and_special_files_in_it_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = make_sysfs(tmp_path / "m", [(0, 0, 0, 0, 0), (1, 1, 0, 0, 0)], {0: (1024, {}, [10])})
    system = root / "sys" / "devices" / "system"
    (system / "cpu" / ("cpu" + "7" * 200)).mkdir()  # no CPU has such an id: not a CPU directory
    os.unlink(system / "cpu" / "cpu1" / "cache" / "index3" / "id")
    os.mkfifo(system / "cpu" / "cpu1" / "cache" / "index3" / "id")  # skipped, not waited on
    (system / "node" / "node0" / "meminfo").write_text("Node 0 MemTotal: " + "9" * 5000 + " kB\n")
    code, _, err = run("topology", "--from-sysfs", str(root), "--name", "m")
    assert code == 0, err
    assert "skipped: not a regular file" in caplog.text
    (system / "node" / "node0" / "distance").write_text("1" * 5000 + "\n")
    refused(run("topology", "--from-sysfs", str(root), "--name", "m"), "not a list of distances")
    (system / "node" / "node0" / "distance").write_text("10\n")
    (system / "cpu" / "cpu1" / "topology" / "core_id").write_text("9" * 5000 + "\n")
    refused(run("topology", "--from-sysfs", str(root), "--name", "m"), "no core_id")
    (system / "cpu" / "online").write_text("0-" + "9" * 5000 + "\n")
    refused(run("topology", "--from-sysfs", str(root), "--name", "m"), "not a CPU list")


# --- planner flags ----------------------------------------------------------------------------------------


def test_plan_workers_are_bounded() -> None:
    refused(
        run("plan", "-f", str(EXAMPLES / "mig-batch"), "--workers", "100000"),
        "--workers 100000: from 1 to 256",
    )


@pytest.mark.parametrize("verb", ["plan", "compare"])
def test_a_planners_time_limit_is_positive_as_its_help_says(verb: str) -> None:
    refused(
        run(verb, "-f", str(EXAMPLES / "mig-batch"), "--time-limit", "0"), "0: a positive number of seconds"
    )
    parser_help = io.StringIO()
    with contextlib.redirect_stdout(parser_help), pytest.raises(SystemExit):
        main([verb, "--help"])
    assert "more than 0 seconds" in " ".join(parser_help.getvalue().split())
