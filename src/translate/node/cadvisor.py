"""Reading cAdvisor's machine info (the kubelet's `/spec` endpoint, JSON): NUMA nodes with their
cores (threads, socket, uncore caches), memory and huge pages."""

from __future__ import annotations

import json
from typing import Any

from ...model.cpuset import MAX_CPUS
from ...model.errors import InputError, Problem
from ..node_topology import MAX_NUMA_NODES
from ..reading import JSONRefused, NotText, TooLarge, load_json, read_text, refused
from .raw_topology import RawCPU, RawNode


def _fail(path: str, where: str, message: str) -> InputError:
    return InputError(Problem(f"{where}: {message}" if where else message, file=path))


def _whole(path: str, where: str, value: Any) -> int:
    """A JSON integer where machine info has one (Go decodes it into an int or uint64)."""
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _fail(path, where, f"Invalid value: {json.dumps(value)}: must be a non-negative integer")
    return value


def read_cadvisor(path: str) -> tuple[list[RawCPU], list[RawNode]]:
    try:
        data = load_json(read_text(path)[0])
    except OSError as e:
        raise InputError(Problem(f"cannot read: {e.strerror or e}", file=path)) from e
    except UnicodeDecodeError as e:
        raise InputError(Problem(f"not cAdvisor machine info (not UTF-8 text: {e.reason})", file=path)) from e
    except json.JSONDecodeError as e:
        raise InputError(
            Problem(f"not cAdvisor machine info (invalid JSON: {e})", file=path, line=e.lineno)
        ) from e
    except (TooLarge, NotText, JSONRefused) as e:
        raise refused(path, "cAdvisor machine info", e) from e
    topology = data.get("topology") if isinstance(data, dict) else None
    if not isinstance(topology, list) or not topology:
        raise _fail(path, "topology", "Required value: cAdvisor machine info lists NUMA nodes under topology")
    if len(topology) > MAX_NUMA_NODES:
        raise _fail(
            path, "topology", f"Too many: {len(topology)}: must have at most {MAX_NUMA_NODES} NUMA nodes"
        )
    cpus: list[RawCPU] = []
    nodes: list[RawNode] = []
    for i, node in enumerate(topology):
        where = f"topology[{i}]"
        if not isinstance(node, dict) or not isinstance(node.get("node_id"), int):
            raise _fail(path, where, "Invalid value: a NUMA node needs node_id")
        numa = _whole(path, f"{where}.node_id", node["node_id"])
        raw = RawNode(numa, _whole(path, f"{where}.memory", node.get("memory")))
        for k, page in enumerate(_list(path, f"{where}.hugepages", node.get("hugepages"))):
            at = f"{where}.hugepages[{k}]"
            if not isinstance(page, dict):
                raise _fail(path, at, "Invalid value: must be an object")
            size = _whole(path, f"{at}.page_size", page.get("page_size"))
            raw.hugepages[size] = _whole(path, f"{at}.num_pages", page.get("num_pages"))
        distances = _list(path, f"{where}.distances", node.get("distances"))
        raw.distances = [_whole(path, f"{where}.distances[{k}]", d) for k, d in enumerate(distances)]
        nodes.append(raw)
        for j, core in enumerate(_list(path, f"{where}.cores", node.get("cores"))):
            at = f"{where}.cores[{j}]"
            threads = core.get("thread_ids") if isinstance(core, dict) else None
            if not isinstance(threads, list) or not threads:
                raise _fail(path, at, "Invalid value: a core needs thread_ids")
            uncores = _list(path, f"{at}.uncore_caches", core.get("uncore_caches"))
            uncore = _cache_id(uncores[0]) if uncores else None
            socket = _whole(path, f"{at}.socket_id", core.get("socket_id"))
            if len(cpus) + len(threads) > MAX_CPUS:
                # Linux has no more: the machine info is not a machine's (and each CPU costs kubefit).
                raise _fail(path, at, f"Too many: more than {MAX_CPUS} CPUs (threads) in all")
            for k, t in enumerate(threads):
                cpus.append(RawCPU(_whole(path, f"{at}.thread_ids[{k}]", t), (numa, j), socket, numa, uncore))
    return cpus, nodes


def _list(path: str, where: str, value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _fail(path, where, "Invalid value: must be a list")
    return value


def _cache_id(cache: Any) -> int | None:
    ident = cache.get("id") if isinstance(cache, dict) else None
    return ident if isinstance(ident, int) else None
