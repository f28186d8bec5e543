"""KubeletConfiguration (+ feature gates) -> KubeletPolicy, with the start-up checks the kubelet
makes that need the machine (reserved CPUs online, reservedMemory on existing NUMA nodes and adding up
to the node-allocatable reservation)."""

from __future__ import annotations

from ...model.cpuset import format_cpuset, parse_cpuset, parse_ranges, within
from ...model.errors import InputError
from ...model.features import FeatureGates
from ...model.node.problem import KubeletPolicy, Machine
from ...model.quantity import Quantity
from ..kube import KubeObject
from ..kubelet_config import KubeletConfiguration
from .eviction import parse_threshold, reserved_bytes

# The kubelet's default hard eviction threshold for memory, when evictionHard is not set at all.
DEFAULT_EVICTION_MEMORY = 100 * 2**20


def _milli(values: dict[str, str], name: str) -> int:
    text = values.get(name)
    return Quantity.parse(text).milli_value() if text else 0


def _bytes(values: dict[str, str], name: str) -> int:
    text = values.get(name)
    return Quantity.parse(text).value() if text else 0


def _enabled(gates: FeatureGates, cfg: KubeletConfiguration, gate: str) -> bool:
    """The kubelet's gate: its configuration's featureGates, else the cluster's (--feature-gates)."""
    return cfg.feature_gates.get(gate, gates.enabled(gate))


def policy_of(cfg: KubeletConfiguration, gates: FeatureGates) -> KubeletPolicy:
    options = frozenset(k for k, v in cfg.cpu_manager_policy_options.items() if v.strip().lower() == "true")
    reserved = parse_cpuset(cfg.reserved_system_cpus) if cfg.reserved_system_cpus else None
    count = -(-(_milli(cfg.kube_reserved, "cpu") + _milli(cfg.system_reserved, "cpu")) // 1000)
    tm = cfg.topology_manager_policy_options
    reserved_memory = tuple(
        sorted(
            (r.numa_node, name, Quantity.parse(value).value())
            for r in cfg.reserved_memory
            for name, value in r.limits.items()
        )
    )
    return KubeletPolicy(
        cpu_policy=cfg.cpu_manager_policy,
        cpu_options=options,
        reserved_cpus=reserved,
        reserved_cpu_count=len(reserved) if reserved is not None else count,
        topology_policy=cfg.topology_manager_policy,
        topology_scope=cfg.topology_manager_scope,
        prefer_closest_numa=tm.get("prefer-closest-numa-nodes", "false").strip().lower() == "true",
        max_allowable_numa_nodes=int(tm.get("max-allowable-numa-nodes", "8")),
        memory_policy=cfg.memory_manager_policy,
        reserved_memory=reserved_memory,
        pod_level_resources=_enabled(gates, cfg, "PodLevelResources"),
        pod_level_managers=_enabled(gates, cfg, "PodLevelResources")
        and _enabled(gates, cfg, "PodLevelResourceManagers"),
    )


def _refuse(obj: KubeObject | None, field: str, message: str) -> InputError:
    if obj is not None:
        return InputError(obj.problem((field,), f"Invalid value: {message}"))
    return InputError(f"KubeletConfiguration: {field}: {message}")


def check_reserved_cpus(obj: KubeObject | None, cfg: KubeletConfiguration, machine: Machine) -> None:
    """The kubelet starts only if every reservedSystemCPUs CPU is online (getReservedCPUs)."""
    text = cfg.reserved_system_cpus
    online = frozenset(c.id for c in machine.cpus)
    if text and not within(parse_ranges(text), online):
        message = f"reserved-cpus: {text} is not a subset of online-cpus: {format_cpuset(online)}"
        raise _refuse(obj, "reservedSystemCPUs", message)


def check_reserved_memory(obj: KubeObject | None, cfg: KubeletConfiguration, machine: Machine) -> None:
    """The Static memory policy starts only if reservedMemory names NUMA nodes the machine has and adds
    up, per resource, to what node allocatable reserves (kube-reserved + system-reserved + the hard
    eviction threshold)."""
    if cfg.memory_manager_policy != "Static":
        return
    for r in cfg.reserved_memory:
        if r.numa_node not in machine.numa_nodes:
            message = (
                f"the reserved memory configuration references a NUMA node {r.numa_node} that does not "
                "exist on this machine"
            )
            raise _refuse(obj, "reservedMemory", message)
    totals: dict[str, int] = {}
    for r in cfg.reserved_memory:
        for name, value in r.limits.items():
            totals[name] = totals.get(name, 0) + Quantity.parse(value).value()
    expected: dict[str, int] = {}
    for name in {*totals, "memory"}:
        expected[name] = _bytes(cfg.kube_reserved, name) + _bytes(cfg.system_reserved, name)
    expected["memory"] += _eviction_memory(cfg, machine)
    for name in sorted(expected):
        if totals.get(name, 0) != expected[name]:
            message = (
                f'the total amount "{_show(totals.get(name, 0))}" of type "{name}" is not equal to the value '
                f'"{_show(expected[name])}" determined by Node Allocatable feature'
            )
            raise _refuse(obj, "reservedMemory", message)


def _show(size: int) -> str:
    return str(Quantity.from_int(size))


def _eviction_memory(cfg: KubeletConfiguration, machine: Machine) -> int:
    if not cfg.eviction_hard:
        return DEFAULT_EVICTION_MEMORY
    text = cfg.eviction_hard.get("memory.available")
    if text is None:
        return 0
    total = sum(m.capacity for m in machine.memory)
    return reserved_bytes(parse_threshold("memory.available", text), total)
