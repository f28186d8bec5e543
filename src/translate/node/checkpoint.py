"""The kubelet's checkpoint files `cpu_manager_state` and `memory_manager_state`, read and written
in the kubelet's own JSON format.

A checksum is optional on input (the kubelet accepts 0 / none) and checked when present; output
always carries one, computed as the kubelet does. Pod-level entries (`podEntries`) are read and
written; their checksum follows the development branches that added them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...model.cpuset import format_cpuset, parse_cpuset
from ...model.errors import FieldPath, InputError, Problem
from ...model.node.problem import Block, CPUState, MemoryState, MemoryTable, NUMANodeState
from ..node_topology import MAX_NUMA_NODES
from ..reading import JSONRefused, load_json, refused
from .checksum import BlockRow, NodeRow, checksum, cpu_checkpoint_text, memory_checkpoint_text

CPU_FILE, MEMORY_FILE = "cpu_manager_state", "memory_manager_state"
UINT64_MAX = 2**64 - 1


def _problem(file: str, path: FieldPath, message: str) -> InputError:
    return InputError(Problem(message, file=file, path=path))


def _load(text: str, file: str) -> dict[str, Any]:
    try:
        data = load_json(text)
    except json.JSONDecodeError as e:
        raise InputError(
            Problem(f"not a kubelet checkpoint (invalid JSON: {e})", file=file, line=e.lineno)
        ) from e
    except JSONRefused as e:
        raise refused(file, "a kubelet checkpoint", e) from e
    if not isinstance(data, dict):
        raise InputError(Problem("not a kubelet checkpoint (expected a JSON object)", file=file))
    if isinstance(data.get("data"), str) and data["data"]:
        # The dual format of development branches: `data` holds the authoritative payload.
        inner = _load(data["data"], file)
        inner.setdefault("checksum", 0)
        return inner
    return data


def _str(data: Mapping[str, Any], key: str, file: str, path: FieldPath = ()) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise _problem(file, (*path, key), "Invalid value: must be a string")
    return value


def _map(data: Mapping[str, Any], key: str, file: str, path: FieldPath = ()) -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _problem(file, (*path, key), "Invalid value: must be an object")
    return value


def _cpus(text: Any, file: str, path: FieldPath) -> frozenset[int]:
    if not isinstance(text, str):
        raise _problem(file, path, "Invalid value: must be a CPU list string")
    try:
        return parse_cpuset(text)
    except ValueError as e:
        raise _problem(file, path, f"Invalid value: {e}") from e


def _checksum_of(data: Mapping[str, Any], file: str) -> int:
    return _uint(data.get("checksum", 0), file, ("checksum",))


def _verify(file: str, given: int, candidates: list[int]) -> None:
    if given and given not in candidates:
        raise _problem(
            file,
            ("checksum",),
            f"checkpoint is corrupted: checksum {given} does not match the content (expected "
            f"{candidates[0]}); the kubelet would refuse to start with it",
        )


# --- cpu_manager_state -----------------------------------------------------------------------------


def read_cpu_state(text: str, file: str = CPU_FILE) -> CPUState:
    data = _load(text, file)
    policy = _str(data, "policyName", file)
    default_text = _str(data, "defaultCpuSet", file)
    default = _cpus(default_text, file, ("defaultCpuSet",))
    raw_entries = _map(data, "entries", file)
    entries: list[tuple[str, str, frozenset[int]]] = []
    texts: dict[str, dict[str, str]] = {}
    for uid, containers in raw_entries.items():
        if not isinstance(containers, dict):
            raise _problem(file, ("entries", uid), "Invalid value: must be an object (container -> CPU list)")
        for name, cpus in containers.items():
            entries.append((uid, name, _cpus(cpus, file, ("entries", uid, name))))
            texts.setdefault(uid, {})[name] = cpus
    raw_pods = _map(data, "podEntries", file)
    pod_entries: list[tuple[str, frozenset[int]]] = []
    pod_texts: dict[str, str] = {}
    for uid, entry in raw_pods.items():
        if not isinstance(entry, dict):
            raise _problem(file, ("podEntries", uid), "Invalid value: must be an object with cpuSet")
        cpus_text = entry.get("cpuSet", "")
        pod_entries.append((uid, _cpus(cpus_text, file, ("podEntries", uid, "cpuSet"))))
        pod_texts[uid] = cpus_text
    candidates = [checksum(cpu_checkpoint_text(policy, default_text, texts, None))]
    candidates.append(checksum(cpu_checkpoint_text(policy, default_text, texts, pod_texts)))
    _verify(file, _checksum_of(data, file), candidates)
    return CPUState(policy, default, tuple(sorted(entries)), tuple(sorted(pod_entries)))


def write_cpu_state(state: CPUState) -> str:
    default = format_cpuset(state.default)
    entries: dict[str, dict[str, str]] = {}
    for uid, name, cpus in state.entries:
        entries.setdefault(uid, {})[name] = format_cpuset(cpus)
    pods = {uid: format_cpuset(cpus) for uid, cpus in state.pod_entries}
    doc: dict[str, Any] = {"policyName": state.policy, "defaultCpuSet": default}
    if entries:
        doc["entries"] = entries
    if pods:
        doc["podEntries"] = {uid: {"cpuSet": cpus} for uid, cpus in pods.items()}
    doc["checksum"] = checksum(cpu_checkpoint_text(state.policy, default, entries, pods or None))
    return _dump(doc)


# --- memory_manager_state --------------------------------------------------------------------------


def _uint(value: Any, file: str, path: FieldPath) -> int:
    """A uint64, as the kubelet's checkpoint structs hold sizes and the checksum."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= UINT64_MAX:
        raise _problem(file, path, "Invalid value: must be an integer from 0 to 2^64-1")
    return value


def _numa_ids(value: Any, file: str, path: FieldPath) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(_is_numa(n) for n in value):
        raise _problem(
            file, path, f"Invalid value: must be a list of NUMA node ids (0 to {MAX_NUMA_NODES - 1})"
        )
    return value


def _is_numa(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_NUMA_NODES


def _blocks(raw: Any, file: str, path: FieldPath) -> tuple[list[Block], list[BlockRow]]:
    if not isinstance(raw, list):
        raise _problem(file, path, "Invalid value: must be a list of memory blocks")
    blocks: list[Block] = []
    rows: list[BlockRow] = []
    for i, b in enumerate(raw):
        if not isinstance(b, dict):
            raise _problem(file, (*path, i), "Invalid value: must be an object")
        numa = _numa_ids(b.get("numaAffinity"), file, (*path, i, "numaAffinity"))
        resource = _str(b, "type", file, (*path, i))
        size = _uint(b.get("size", 0), file, (*path, i, "size"))
        blocks.append(Block(resource, size, tuple(numa)))
        rows.append((numa, resource, size))
    return blocks, rows


def read_memory_state(text: str, file: str = MEMORY_FILE) -> MemoryState:
    data = _load(text, file)
    policy = _str(data, "policyName", file)
    machine: list[tuple[int, NUMANodeState]] = []
    rows: dict[int, NodeRow] = {}
    for key, node in _map(data, "machineState", file).items():
        path: FieldPath = ("machineState", key)
        if not (key.isascii() and key.isdigit() and len(key) < 4 and _is_numa(int(key))) or not isinstance(
            node, dict
        ):
            raise _problem(file, path, "Invalid value: expected NUMA node id (0 to 63) -> node state")
        tables, table_rows = [], {}
        for resource, t in _map(node, "memoryMap", file, path).items():
            tpath = (*path, "memoryMap", resource)
            if not isinstance(t, dict):
                raise _problem(file, tpath, "Invalid value: must be an object")
            values = [
                _uint(t.get(f, 0), file, (*tpath, f))
                for f in ("total", "systemReserved", "allocatable", "reserved", "free")
            ]
            tables.append((resource, MemoryTable(*values)))
            table_rows[resource] = (values[0], values[1], values[2], values[3], values[4])
        # A missing list is a nil slice to the kubelet, and prints differently in the checksum.
        cells = None if node.get("cells") is None else _numa_ids(node["cells"], file, (*path, "cells"))
        assignments = _uint(node.get("numberOfAssignments", 0), file, (*path, "numberOfAssignments"))
        machine.append((int(key), NUMANodeState(assignments, tuple(sorted(tables)), tuple(cells or ()))))
        rows[int(key)] = (assignments, table_rows, cells)
    entries: list[tuple[str, str, tuple[Block, ...]]] = []
    entry_rows: dict[str, dict[str, list[BlockRow]]] = {}
    for uid, containers in _map(data, "entries", file).items():
        if not isinstance(containers, dict):
            raise _problem(file, ("entries", uid), "Invalid value: must be an object (container -> blocks)")
        for name, raw in containers.items():
            blocks, brows = _blocks(raw, file, ("entries", uid, name))
            entries.append((uid, name, tuple(blocks)))
            entry_rows.setdefault(uid, {})[name] = brows
    pod_entries: list[tuple[str, tuple[Block, ...]]] = []
    pod_rows: dict[str, list[BlockRow]] = {}
    for uid, raw in _map(data, "podEntries", file).items():
        blocks, brows = _blocks(raw, file, ("podEntries", uid))
        pod_entries.append((uid, tuple(blocks)))
        pod_rows[uid] = brows
    candidates = [
        checksum(memory_checkpoint_text(policy, rows, entry_rows, None)),
        checksum(memory_checkpoint_text(policy, rows, entry_rows, pod_rows)),
    ]
    _verify(file, _checksum_of(data, file), candidates)
    return MemoryState(policy, tuple(sorted(machine)), tuple(sorted(entries)), tuple(sorted(pod_entries)))


def write_memory_state(state: MemoryState) -> str:
    machine: dict[str, Any] = {}
    rows: dict[int, NodeRow] = {}
    for numa, node in state.machine:
        tables = {
            r: {
                "total": t.total,
                "systemReserved": t.system_reserved,
                "allocatable": t.allocatable,
                "reserved": t.reserved,
                "free": t.free,
            }
            for r, t in node.memory
        }
        machine[str(numa)] = {
            "numberOfAssignments": node.assignments,
            "memoryMap": tables,
            "cells": list(node.cells),
        }
        rows[numa] = (
            node.assignments,
            {r: (t.total, t.system_reserved, t.allocatable, t.reserved, t.free) for r, t in node.memory},
            list(node.cells),
        )
    entries: dict[str, dict[str, list[dict[str, Any]]]] = {}
    entry_rows: dict[str, dict[str, list[BlockRow]]] = {}
    for uid, name, blocks in state.entries:
        entries.setdefault(uid, {})[name] = [_block_doc(b) for b in blocks]
        entry_rows.setdefault(uid, {})[name] = [(list(b.numa), b.resource, b.size) for b in blocks]
    pods = {uid: [_block_doc(b) for b in blocks] for uid, blocks in state.pod_entries}
    pod_rows = {
        uid: [(list(b.numa), b.resource, b.size) for b in blocks] for uid, blocks in state.pod_entries
    }
    doc: dict[str, Any] = {"policyName": state.policy, "machineState": machine}
    if entries:
        doc["entries"] = entries
    if pods:
        doc["podEntries"] = pods
    doc["checksum"] = checksum(memory_checkpoint_text(state.policy, rows, entry_rows, pod_rows or None))
    return _dump(doc)


def _block_doc(b: Block) -> dict[str, Any]:
    return {"numaAffinity": list(b.numa), "type": b.resource, "size": b.size}


def _dump(doc: dict[str, Any]) -> str:
    # Compact, keys of maps sorted, as Go's encoding/json writes the file.
    return json.dumps(_sorted_maps(doc), separators=(",", ":"))


def _sorted_maps(value: Any, top: bool = True) -> Any:
    if isinstance(value, dict):
        items = value.items() if top or _is_struct(value) else sorted(value.items())
        return {k: _sorted_maps(v, False) for k, v in items}
    if isinstance(value, list):
        return [_sorted_maps(v, False) for v in value]
    return value


_STRUCT_KEYS = (
    {"numberOfAssignments", "memoryMap", "cells"},
    {"total", "systemReserved", "allocatable", "reserved", "free"},
    {"numaAffinity", "type", "size"},
    {"cpuSet"},
)


def _is_struct(value: dict[str, Any]) -> bool:
    return set(value) in _STRUCT_KEYS
