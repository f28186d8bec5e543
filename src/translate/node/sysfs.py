"""Reading the CPU and memory layout from Linux sysfs (`/sys/devices/system/{cpu,node}`), as
cAdvisor does for the kubelet: online CPUs with their core and package ids, the L3 cache each
shares (its `id`, or failing that the first CPU sharing it), NUMA nodes with their CPUs, MemTotal,
huge pages and distances."""

from __future__ import annotations

import logging
import re
import stat
from pathlib import Path

from ...model.cpuset import MAX_CPUS, CPUListError, parse_cpuset
from ...model.errors import InputError
from ..node_topology import MAX_NUMA_NODES
from ..reading import NotText, TooLarge, read_text
from .raw_topology import RawCPU, RawNode

log = logging.getLogger("kubefit")

# The kernel shows a sysfs attribute in one page: anything longer is not one.
MAX_ATTRIBUTE_BYTES = 64 << 10


def _text(path: Path) -> str | None:
    """An attribute's text; None when it is missing, unreadable or no attribute (a FIFO or a device in
    a copied tree is skipped, with a warning, rather than waited on)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            log.warning("%s: skipped: not a regular file", path)
            return None
        return read_text(str(path), limit=MAX_ATTRIBUTE_BYTES)[0].strip()
    except (OSError, UnicodeDecodeError, TooLarge, NotText):
        return None


def _int(path: Path) -> int | None:
    text = _text(path)
    if text is None or len(text) > 20:  # no id or count in sysfs has more digits
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _cpu_list(path: Path, text: str) -> frozenset[int]:
    try:
        return parse_cpuset(text)
    except CPUListError as e:
        raise InputError(f"{path}: not a CPU list: {e}") from e


def _numbered(directory: Path, prefix: str, most: int) -> list[tuple[int, Path]]:
    """`prefix<N>` entries of the directory, N below `most` (no machine has more: larger ones are not
    CPUs, caches or NUMA nodes it can have)."""
    if not directory.is_dir():
        return []
    pattern = re.compile(rf"{prefix}(\d{{1,6}})$")
    found = []
    for p in directory.iterdir():
        m = pattern.match(p.name)
        if m and int(m.group(1)) < most:
            found.append((int(m.group(1)), p))
    return sorted(found)


def _l3_id(cpu_dir: Path) -> int | None:
    for _, index in _numbered(cpu_dir / "cache", "index", 64):
        if _int(index / "level") != 3:
            continue
        ident = _int(index / "id")
        if ident is not None:
            return ident
        shared = _text(index / "shared_cpu_list")
        if shared:
            # Older kernels have no cache id: name the cache after the first CPU sharing it.
            return min(_cpu_list(index / "shared_cpu_list", shared), default=None)
    return None


def read_sysfs(root: str) -> tuple[list[RawCPU], list[RawNode]]:
    system = Path(root) / "sys" / "devices" / "system"
    cpu_root = system / "cpu"
    if not cpu_root.is_dir():
        raise InputError(f"--from-sysfs {root}: no {cpu_root} directory")
    online_text = _text(cpu_root / "online")
    cpu_dirs = dict(_numbered(cpu_root, "cpu", MAX_CPUS))
    online = _cpu_list(cpu_root / "online", online_text) if online_text else frozenset(cpu_dirs)
    numa_of: dict[int, int] = {}
    nodes: list[RawNode] = []
    for numa, node_dir in _numbered(system / "node", "node", MAX_NUMA_NODES):
        for cpu in _cpu_list(node_dir / "cpulist", _text(node_dir / "cpulist") or ""):
            numa_of[cpu] = numa
        node = RawNode(numa)
        for line in (_text(node_dir / "meminfo") or "").splitlines():
            m = re.match(rf"Node {numa} MemTotal:\s+(\d{{1,20}}) kB", line)
            if m:
                node.memory = int(m.group(1)) * 1024
        for size_dir in sorted((node_dir / "hugepages").glob("hugepages-*kB")):
            size = re.match(r"hugepages-(\d{1,12})kB$", size_dir.name)
            pages = _int(size_dir / "nr_hugepages")
            if size and pages is not None:
                node.hugepages[int(size.group(1))] = pages
        distances = (_text(node_dir / "distance") or "").split()
        if len(distances) > MAX_NUMA_NODES or not all(
            d.isascii() and d.isdigit() and len(d) < 10 for d in distances
        ):
            raise InputError(f"{node_dir / 'distance'}: not a list of distances")
        node.distances = [int(d) for d in distances]
        nodes.append(node)
    cpus = []
    for cpu in sorted(online):
        cpu_dir = cpu_dirs.get(cpu, cpu_root / f"cpu{cpu}")
        topology = cpu_dir / "topology"
        core = _int(topology / "core_id")
        package = _int(topology / "physical_package_id")
        if core is None or package is None:
            raise InputError(f"--from-sysfs {root}: {topology}: no core_id or physical_package_id")
        die = _int(topology / "die_id")
        cpus.append(RawCPU(cpu, (die, core), max(package, 0), numa_of.get(cpu, 0), _l3_id(cpu_dir)))
    if not cpus:
        raise InputError(f"--from-sysfs {root}: no online CPU found under {cpu_root}")
    return cpus, nodes
