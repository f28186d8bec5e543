"""The kubelet's checkpoint checksum (pkg/kubelet/checkpointmanager/checksum).

The kubelet hashes the checkpoint struct, checksum field zeroed, by printing it with go-spew
(`%#v`, sorted map keys, methods disabled) and taking FNV-1a (32 bit) of the text. This module
prints the same text for the two checkpoints kubefit reads and writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

_FNV_OFFSET, _FNV_PRIME = 0x811C9DC5, 0x01000193


def fnv32a(data: bytes) -> int:
    h = _FNV_OFFSET
    for byte in data:
        h = ((h ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return h


def _string_map(value: Mapping[str, str]) -> str:
    return "map[" + " ".join(f"{k}:{value[k]}" for k in sorted(value, key=_go_order)) + "]"


def _go_order(key: str) -> bytes:
    # Go compares strings byte by byte.
    return key.encode("utf-8")


def cpu_checkpoint_text(
    policy: str, default: str, entries: Mapping[str, Mapping[str, str]], pod_entries: Mapping[str, str] | None
) -> str:
    nested = (
        "map["
        + " ".join(f"{uid}:{_string_map(entries[uid])}" for uid in sorted(entries, key=_go_order))
        + "]"
    )
    fields = [
        f"PolicyName:(string){policy}",
        f"DefaultCPUSet:(string){default}",
        f"Entries:(map[string]map[string]string){nested}",
    ]
    if pod_entries is not None:
        pods = " ".join(
            f"{uid}:{{CPUSet:(string){pod_entries[uid]}}}" for uid in sorted(pod_entries, key=_go_order)
        )
        fields.append(f"PodEntries:(state.PodCPUAssignments)map[{pods}]")
    fields.append("Checksum:(checksum.Checksum)0")
    return "(*state.CPUManagerCheckpoint){" + " ".join(fields) + "}"


MemoryTableRow = tuple[int, int, int, int, int]  # total, systemReserved, allocatable, reserved, free
NodeRow = tuple[int, Mapping[str, MemoryTableRow], Sequence[int] | None]  # assignments, memoryMap, cells
BlockRow = tuple[Sequence[int], str, int]  # numaAffinity, type, size


def _table(row: MemoryTableRow) -> str:
    total, system, allocatable, reserved, free = row
    return (
        f"<*>{{TotalMemSize:(uint64){total} SystemReserved:(uint64){system} "
        f"Allocatable:(uint64){allocatable} Reserved:(uint64){reserved} Free:(uint64){free}}}"
    )


def _ints(values: Sequence[int] | None) -> str:
    if values is None:
        return "<nil>"  # a nil slice, as a JSON null reads
    return "[" + " ".join(str(v) for v in values) + "]"


def _blocks(blocks: Sequence[BlockRow]) -> str:
    return (
        "["
        + " ".join(
            f"{{NUMAAffinity:([]int){_ints(n)} Type:(v1.ResourceName){t} Size:(uint64){s}}}"
            for n, t, s in blocks
        )
        + "]"
    )


def _assignments(entries: Mapping[str, Mapping[str, Sequence[BlockRow]]]) -> str:
    pods = []
    for uid in sorted(entries, key=_go_order):
        containers = entries[uid]
        inner = " ".join(f"{name}:{_blocks(containers[name])}" for name in sorted(containers, key=_go_order))
        pods.append(f"{uid}:map[{inner}]")
    return "map[" + " ".join(pods) + "]"


def memory_checkpoint_text(
    policy: str,
    machine: Mapping[int, NodeRow],
    entries: Mapping[str, Mapping[str, Sequence[BlockRow]]],
    pod_entries: Mapping[str, Sequence[BlockRow]] | None,
) -> str:
    nodes = []
    for numa in sorted(machine):
        assignments, tables, cells = machine[numa]
        memory_map = " ".join(f"{r}:{_table(tables[r])}" for r in sorted(tables, key=_go_order))
        nodes.append(
            f"{numa}:<*>{{NumberOfAssignments:(int){assignments} "
            f"MemoryMap:(map[v1.ResourceName]*state.MemoryTable)map[{memory_map}] "
            f"Cells:([]int){_ints(cells)}}}"
        )
    fields = [
        f"PolicyName:(string){policy}",
        f"MachineState:(state.NUMANodeMap)map[{' '.join(nodes)}]",
        f"Entries:(state.ContainerMemoryAssignments){_assignments(entries)}",
    ]
    if pod_entries is not None:
        pods = " ".join(f"{uid}:{_blocks(pod_entries[uid])}" for uid in sorted(pod_entries, key=_go_order))
        fields.append(f"PodEntries:(state.PodMemoryAssignments)map[{pods}]")
    fields.append("Checksum:(checksum.Checksum)0")
    return "(*state.MemoryManagerCheckpoint){" + " ".join(fields) + "}"


def checksum(text: str) -> int:
    return fnv32a(text.encode("utf-8"))
