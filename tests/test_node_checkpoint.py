"""The kubelet's checkpoint files: read with or without a checksum, written with the kubelet's own
checksum, and bad files reported as bad input naming the file and the field."""

from __future__ import annotations

import json

import pytest

from kubefit.model.errors import InputError
from kubefit.model.node.problem import Block, CPUState, MemoryState, MemoryTable, NUMANodeState
from kubefit.translate.node.checkpoint import (
    read_cpu_state,
    read_memory_state,
    write_cpu_state,
    write_memory_state,
)


def test_the_cpu_checksum_is_the_one_a_kubelet_wrote() -> None:
    # A cpu_manager_state file as written by a kubelet (static policy, one exclusive container).
    text = (
        '{"policyName":"static","defaultCpuSet":"0,2-12,14-23","entries":{"235148fe-393f-47a8-a17d-bd55bc1a836b":'
        '{"cgroup1-0":"1,13"}},"checksum":1552716370}'
    )
    state = read_cpu_state(text)
    assert state.default == frozenset({0, *range(2, 13), *range(14, 24)})
    assert state.entries == (("235148fe-393f-47a8-a17d-bd55bc1a836b", "cgroup1-0", frozenset({1, 13})),)
    assert write_cpu_state(state) == text


def test_the_memory_checksum_is_the_one_the_kubelet_tests_expect() -> None:
    text = json.dumps(
        {
            "policyName": "static",
            "machineState": {
                "0": {
                    "numberOfAssignments": 0,
                    "memoryMap": {
                        "memory": {
                            "total": 2048,
                            "systemReserved": 512,
                            "allocatable": 1536,
                            "reserved": 512,
                            "free": 1024,
                        }
                    },
                    "cells": [],
                }
            },
            "entries": {"pod": {"container1": [{"numaAffinity": [0], "type": "memory", "size": 512}]}},
            "checksum": 4215593881,
        }
    )
    state = read_memory_state(text)
    assert state.entries == (("pod", "container1", (Block("memory", 512, (0,)),)),)


def test_a_checkpoint_without_checksum_is_accepted_and_one_is_written() -> None:
    state = read_cpu_state('{"policyName":"static","defaultCpuSet":"0-3"}')
    written = json.loads(write_cpu_state(state))
    assert written == {"policyName": "static", "defaultCpuSet": "0-3", "checksum": written["checksum"]}
    assert written["checksum"] > 0
    assert read_cpu_state(json.dumps(written)) == state


def test_a_wrong_checksum_is_a_corrupt_checkpoint() -> None:
    with pytest.raises(InputError) as e:
        read_cpu_state(
            '{"policyName":"static","defaultCpuSet":"0-3","checksum":12345}',
            "/var/lib/kubelet/cpu_manager_state",
        )
    assert str(e.value).startswith("/var/lib/kubelet/cpu_manager_state: checksum: checkpoint is corrupted")


def test_a_bad_cpu_list_names_the_entry() -> None:
    with pytest.raises(InputError) as e:
        read_cpu_state(
            '{"policyName":"static","defaultCpuSet":"0-3","entries":{"uid-1":{"app":"7-5"}}}', "state"
        )
    assert str(e.value).startswith("state: entries.uid-1.app: Invalid value:")


def test_invalid_json_is_bad_input_with_a_line() -> None:
    with pytest.raises(InputError) as e:
        read_memory_state('{"policyName":\n', "memory_manager_state")
    assert str(e.value).startswith("memory_manager_state:")


def test_memory_state_round_trips_with_pod_entries() -> None:
    table = MemoryTable(2 << 30, 512 << 20, (2 << 30) - (512 << 20), 1 << 30, (1 << 30) - (512 << 20))
    state = MemoryState(
        "Static",
        ((0, NUMANodeState(2, (("memory", table),), (0,))),),
        (("uid-1", "app", (Block("memory", 1 << 30, (0,)),)),),
        (("uid-1", (Block("memory", 1 << 30, (0,)),)),),
    )
    assert read_memory_state(write_memory_state(state)) == state


def test_cpu_state_round_trips_with_pod_entries() -> None:
    state = CPUState("static", frozenset({0, 1}), (("u", "c", frozenset({2})),), (("u", frozenset({2, 3})),))
    text = write_cpu_state(state)
    assert json.loads(text)["podEntries"] == {"u": {"cpuSet": "2-3"}}
    assert read_cpu_state(text) == state
