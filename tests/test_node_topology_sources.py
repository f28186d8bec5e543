"""`kubefit topology`: NodeTopology from Linux sysfs trees and from cAdvisor machine info, with core
ids made machine-unique as the kubelet makes them."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubefit.cli import main
from kubefit.model.features import ALL_ON
from kubefit.translate.loader import load_text
from kubefit.translate.node.sources import from_cadvisor, from_sysfs
from kubefit.translate.validation.run import validate_objects

DATA = Path(__file__).resolve().parent / "data" / "node"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")


def make_sysfs(
    root: Path,
    layout: list[tuple[int, int, int, int, int | None]],
    nodes: dict[int, tuple[int, dict[int, int], list[int]]],
    cache_ids: bool = True,
) -> Path:
    """A fake /sys tree: layout rows are (cpu, core_id, package, numa, l3 id or None)."""
    system = root / "sys" / "devices" / "system"
    _write(system / "cpu" / "online", f"0-{len(layout) - 1}")
    sharing: dict[int, list[int]] = {}
    for cpu, _, _, _, l3 in layout:
        if l3 is not None:
            sharing.setdefault(l3, []).append(cpu)
    for cpu, core, package, _, l3 in layout:
        base = system / "cpu" / f"cpu{cpu}"
        _write(base / "topology" / "core_id", str(core))
        _write(base / "topology" / "physical_package_id", str(package))
        _write(base / "cache" / "index0" / "level", "1")
        if l3 is not None:
            _write(base / "cache" / "index3" / "level", "3")
            _write(base / "cache" / "index3" / "shared_cpu_list", ",".join(map(str, sharing[l3])))
            if cache_ids:
                _write(base / "cache" / "index3" / "id", str(l3))
    for numa, (kib, pages, distances) in nodes.items():
        base = system / "node" / f"node{numa}"
        cpus = [str(c) for c, _, _, n, _ in layout if n == numa]
        _write(base / "cpulist", ",".join(cpus))
        _write(base / "meminfo", f"Node {numa} MemTotal:       {kib} kB\nNode {numa} MemFree:        1 kB")
        for size, count in pages.items():
            _write(base / "hugepages" / f"hugepages-{size}kB" / "nr_hugepages", str(count))
        _write(base / "distance", " ".join(map(str, distances)))
    return root


# Dual socket, 2 threads per core, core_id socket-local (both sockets have cores 0 and 1).
DUAL_SOCKET_HT = [
    (0, 0, 0, 0, 0),
    (1, 1, 0, 0, 0),
    (2, 0, 1, 1, 1),
    (3, 1, 1, 1, 1),
    (4, 0, 0, 0, 0),
    (5, 1, 0, 0, 0),
    (6, 0, 1, 1, 1),
    (7, 1, 1, 1, 1),
]
TWO_NODES = {0: (8388608, {2048: 512, 1048576: 2}, [10, 21]), 1: (8388608, {2048: 0}, [21, 10])}


def _cpus(doc: dict[str, Any]) -> list[tuple[int, int, int, int, int]]:
    return [(c["id"], c["core"], c["socket"], c["numa"], c["uncoreCache"]) for c in doc["spec"]["cpus"]]


def test_sysfs_core_ids_become_machine_unique_as_the_kubelet_makes_them(tmp_path: Path) -> None:
    doc = from_sysfs(str(make_sysfs(tmp_path, DUAL_SOCKET_HT, TWO_NODES)), "node-1")
    assert _cpus(doc) == [
        (0, 0, 0, 0, 0),
        (1, 1, 0, 0, 0),
        (2, 2, 1, 1, 1),
        (3, 3, 1, 1, 1),
        (4, 0, 0, 0, 0),
        (5, 1, 0, 0, 0),
        (6, 2, 1, 1, 1),
        (7, 3, 1, 1, 1),
    ]


def test_sysfs_memory_hugepages_and_distances_per_numa_node(tmp_path: Path) -> None:
    doc = from_sysfs(str(make_sysfs(tmp_path, DUAL_SOCKET_HT, TWO_NODES)), "node-1")
    assert doc["spec"]["memory"] == [
        {"numa": 0, "capacity": "8Gi", "hugepages-2Mi": "1Gi", "hugepages-1Gi": "2Gi"},
        {"numa": 1, "capacity": "8Gi"},
    ]
    assert doc["spec"]["distances"] == {0: [10, 21], 1: [21, 10]}


def test_sysfs_without_cache_ids_names_the_l3_after_its_first_cpu(tmp_path: Path) -> None:
    doc = from_sysfs(str(make_sysfs(tmp_path, DUAL_SOCKET_HT, TWO_NODES, cache_ids=False)), "n")
    assert [c[4] for c in _cpus(doc)] == [0, 0, 2, 2, 0, 0, 2, 2]


def test_sysfs_without_an_l3_cache_uses_the_socket_as_uncore_cache(tmp_path: Path) -> None:
    layout = [(cpu, core, package, numa, None) for cpu, core, package, numa, _ in DUAL_SOCKET_HT]
    doc = from_sysfs(str(make_sysfs(tmp_path, layout, TWO_NODES)), "n")
    assert [c[4] for c in _cpus(doc)] == [0, 0, 1, 1, 0, 0, 1, 1]


def test_sysfs_output_round_trips_through_the_loader_and_validation(tmp_path: Path) -> None:
    root = make_sysfs(tmp_path, DUAL_SOCKET_HT, TWO_NODES)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["topology", "--from-sysfs", str(root), "--name", "node-1"]) == 0
    objects = load_text(out.getvalue(), strict=True)
    (obj,) = objects.objects
    assert obj.kind == "NodeTopology" and obj.name == "node-1"
    assert validate_objects(objects, ALL_ON) == []


def test_a_missing_sysfs_tree_is_bad_input(tmp_path: Path) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["topology", "--from-sysfs", str(tmp_path)]) == 2
    assert "no " in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1


@pytest.mark.skipif(not Path("/sys/devices/system/cpu/online").is_file(), reason="no Linux sysfs here")
def test_this_machines_sysfs_gives_a_valid_node_topology() -> None:
    doc = from_sysfs("/", "this-machine")
    objects = load_text(yaml.safe_dump(doc), strict=True)
    assert validate_objects(objects, ALL_ON) == []
    cpus = doc["spec"]["cpus"]
    assert cpus and len({c["id"] for c in cpus}) == len(cpus)
    # Every core id is the smallest CPU id among its threads.
    for c in cpus:
        assert c["core"] == min(d["id"] for d in cpus if d["core"] == c["core"])


def test_cadvisor_machine_info_reads_cores_sockets_uncore_caches_and_memory() -> None:
    doc = from_cadvisor(str(DATA / "cadvisor-dual-socket.json"), "node-1")
    assert _cpus(doc) == [
        (0, 0, 0, 0, 7),
        (1, 1, 0, 0, 7),
        (2, 2, 1, 1, 1),
        (3, 3, 1, 1, 1),
        (4, 0, 0, 0, 7),
        (5, 1, 0, 0, 7),
        (6, 2, 1, 1, 1),
        (7, 3, 1, 1, 1),
    ]
    assert doc["spec"]["memory"][0] == {
        "numa": 0,
        "capacity": "8Gi",
        "hugepages-2Mi": "1Gi",
        "hugepages-1Gi": "2Gi",
    }


def test_cadvisor_input_that_is_not_machine_info_is_one_line_of_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "spec.json"
    bad.write_text('{"num_cores": 4}', encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["topology", "--from-cadvisor", str(bad)]) == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "topology" in lines[0]
