"""Reading cAdvisor's machine info (the kubelet's `/spec` endpoint, JSON): NUMA nodes with their
cores (threads, socket, uncore caches), memory and huge pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...errors import InputError, Problem
from .sources import RawCPU, RawNode


def _fail(path: str, where: str, message: str) -> InputError:
    return InputError(Problem(f"{where}: {message}" if where else message, file=path))


def read_cadvisor(path: str) -> tuple[list[RawCPU], list[RawNode]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(Problem(f"cannot read: {e.strerror or e}", file=path)) from e
    except json.JSONDecodeError as e:
        raise InputError(
            Problem(f"not cAdvisor machine info (invalid JSON: {e})", file=path, line=e.lineno)
        ) from e
    topology = data.get("topology") if isinstance(data, dict) else None
    if not isinstance(topology, list) or not topology:
        raise _fail(path, "topology", "Required value: cAdvisor machine info lists NUMA nodes under topology")
    cpus: list[RawCPU] = []
    nodes: list[RawNode] = []
    for i, node in enumerate(topology):
        where = f"topology[{i}]"
        if not isinstance(node, dict) or not isinstance(node.get("node_id"), int):
            raise _fail(path, where, "Invalid value: a NUMA node needs node_id")
        numa = node["node_id"]
        raw = RawNode(numa, int(node.get("memory") or 0))
        for page in node.get("hugepages") or ():
            raw.hugepages[int(page.get("page_size", 0))] = int(page.get("num_pages", 0))
        raw.distances = [int(d) for d in node.get("distances") or ()]
        nodes.append(raw)
        for j, core in enumerate(node.get("cores") or ()):
            threads = core.get("thread_ids") if isinstance(core, dict) else None
            if not isinstance(threads, list) or not threads:
                raise _fail(path, f"{where}.cores[{j}]", "Invalid value: a core needs thread_ids")
            uncores = core.get("uncore_caches") or []
            uncore = _cache_id(uncores[0]) if uncores else None
            socket = int(core.get("socket_id", 0))
            for t in threads:
                cpus.append(RawCPU(int(t), (numa, j), socket, numa, uncore))
    return cpus, nodes


def _cache_id(cache: Any) -> int | None:
    ident = cache.get("id") if isinstance(cache, dict) else None
    return ident if isinstance(ident, int) else None
