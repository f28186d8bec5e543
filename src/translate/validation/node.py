"""Validation of the node-side kinds: KubeletConfiguration (as the kubelet checks it when it starts)
and NodeTopology."""

from __future__ import annotations

from collections import defaultdict

from ...model.cpuset import MAX_CPUS, CPUListError, bounded, parse_ranges
from ...model.quantity import Quantity
from ..kubelet_config import KubeletConfiguration
from ..node.eviction import ThresholdError, parse_threshold
from ..node_topology import MAX_NUMA_NODES, NodeTopology
from . import FieldError, ValidationContext

CPU_POLICIES = ("none", "static")
TOPOLOGY_POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
TOPOLOGY_SCOPES = ("container", "pod")
MEMORY_POLICIES = ("None", "Static")

# CPU manager options and the gate that makes each available (policy_options.go).
CPU_OPTIONS = {
    "full-pcpus-only": "CPUManagerPolicyOptions",
    "distribute-cpus-across-numa": "CPUManagerPolicyBetaOptions",
    "strict-cpu-reservation": "CPUManagerPolicyBetaOptions",
    "prefer-align-cpus-by-uncorecache": "CPUManagerPolicyBetaOptions",
    "align-by-socket": "CPUManagerPolicyAlphaOptions",
    "distribute-cpus-across-cores": "CPUManagerPolicyAlphaOptions",
}
INCOMPATIBLE_CPU_OPTIONS = (
    ("full-pcpus-only", "distribute-cpus-across-cores"),
    ("distribute-cpus-across-numa", "distribute-cpus-across-cores"),
    ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-cores"),
    ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-numa"),
)
TOPOLOGY_OPTIONS = {
    "prefer-closest-numa-nodes": "TopologyManagerPolicyOptions",
    "max-allowable-numa-nodes": "TopologyManagerPolicyOptions",
}


def _bool_option(options: dict[str, str], name: str) -> bool:
    return options.get(name, "false").strip().lower() == "true"


def _unsupported(field: str, value: str, supported: tuple[str, ...]) -> list[FieldError]:
    if value in supported:
        return []
    listed = ", ".join(f'"{p}"' for p in supported)
    return [FieldError((field,), f"Unsupported value: {value!r}: supported values: {listed}")]


# What kubeReserved / systemReserved may reserve (the kubelet's parseResourceList).
RESERVABLE = ("cpu", "memory", "ephemeral-storage", "pid")
INT32_MAX = 2**31 - 1
NUMA_MEMORY_LIMIT = Quantity.parse("1Pi")


def _check_quantities(
    values: dict[str, str], path: tuple[str | int, ...], non_negative: bool = False
) -> list[FieldError]:
    errors = []
    for name, text in values.items():
        try:
            q = Quantity.parse(text)
        except ValueError as e:
            errors.append(FieldError((*path, name), f"Invalid value: {text!r}: {e}"))
            continue
        if non_negative and q.sign() < 0:
            errors.append(
                FieldError(
                    (*path, name), f"Invalid value: resource quantity for {name!r} cannot be negative: {q}"
                )
            )
    return errors


def _check_reserved(values: dict[str, str], field: str) -> list[FieldError]:
    errors = [
        FieldError((field, name), f'Unsupported value: cannot reserve "{name}" resource')
        for name in values
        if name not in RESERVABLE
    ]
    return errors + _check_quantities(values, (field,), non_negative=True)


def _check_cpu_list(text: str) -> list[FieldError]:
    """cpuset.Parse as the kubelet's configuration validation runs it, then the ids a machine can have
    (a list naming CPUs beyond them is refused at start-up as not a subset of the online CPUs)."""
    path = ("reservedSystemCPUs",)
    try:
        ranges = parse_ranges(text)
    except CPUListError as e:
        message = f"unable to parse reservedSystemCPUs (--reserved-cpus) {text}, error: {e}"
        return [FieldError(path, f"Invalid value: invalid configuration: {message}")]
    try:
        bounded(ranges, text)
    except CPUListError as e:
        return [FieldError(path, f"Invalid value: {e}")]
    return []


def validate_kubelet_configuration(cfg: KubeletConfiguration, ctx: ValidationContext) -> list[FieldError]:
    errors: list[FieldError] = []
    errors += _unsupported("cpuManagerPolicy", cfg.cpu_manager_policy, CPU_POLICIES)
    options = cfg.cpu_manager_policy_options
    for name, value in options.items():
        path = ("cpuManagerPolicyOptions", name)
        gate = CPU_OPTIONS.get(name)
        if gate is None:
            errors.append(FieldError(path, f'Unsupported value: "{name}": unknown CPU manager policy option'))
        elif not cfg.feature_gates.get(gate, ctx.feature_enabled(gate)):  # the kubelet's own gates win
            errors.append(FieldError(path, f'Forbidden: option "{name}" requires feature gate {gate}'))
        if value.strip().lower() not in ("true", "false"):
            errors.append(FieldError(path, f'Invalid value: "{value}": must be "true" or "false"'))
    if options and cfg.cpu_manager_policy != "static":
        errors.append(
            FieldError(
                ("cpuManagerPolicyOptions",),
                "Forbidden: policy options are only supported with the static policy",
            )
        )
    for a, b in INCOMPATIBLE_CPU_OPTIONS:
        if _bool_option(options, a) and _bool_option(options, b):
            errors.append(
                FieldError(
                    ("cpuManagerPolicyOptions",), f'Invalid value: "{a}" and "{b}" cannot be used together'
                )
            )
    if _bool_option(options, "align-by-socket") and cfg.topology_manager_policy == "single-numa-node":
        errors.append(
            FieldError(
                ("cpuManagerPolicyOptions", "align-by-socket"),
                'Invalid value: "align-by-socket" cannot be used with the single-numa-node '
                "topology manager policy",
            )
        )
    errors += _unsupported("topologyManagerPolicy", cfg.topology_manager_policy, TOPOLOGY_POLICIES)
    errors += _unsupported("topologyManagerScope", cfg.topology_manager_scope, TOPOLOGY_SCOPES)
    for name, value in cfg.topology_manager_policy_options.items():
        path = ("topologyManagerPolicyOptions", name)
        if name not in TOPOLOGY_OPTIONS:
            errors.append(
                FieldError(path, f'Unsupported value: "{name}": unknown topology manager policy option')
            )
        elif name == "max-allowable-numa-nodes":
            if not value.strip().isdigit() or int(value) < 8:
                errors.append(
                    FieldError(path, f'Invalid value: "{value}": must be a whole number of at least 8')
                )
        elif value.strip().lower() not in ("true", "false"):
            errors.append(FieldError(path, f'Invalid value: "{value}": must be "true" or "false"'))
    errors += _unsupported("memoryManagerPolicy", cfg.memory_manager_policy, MEMORY_POLICIES)
    if cfg.reserved_system_cpus:
        errors += _check_cpu_list(cfg.reserved_system_cpus)
    errors += _check_reserved(cfg.kube_reserved, "kubeReserved")
    errors += _check_reserved(cfg.system_reserved, "systemReserved")
    errors += _check_reserved_memory(cfg)
    for signal, text in cfg.eviction_hard.items():
        try:
            parse_threshold(signal, text)
        except ThresholdError as e:
            errors.append(FieldError(("evictionHard", signal), f"Invalid value: {e}"))
    if cfg.memory_manager_policy == "Static" and not cfg.reserved_memory:
        errors.append(
            FieldError(
                ("reservedMemory",), "Required value: the Static memory manager policy needs reservedMemory"
            )
        )
    return errors


def _check_reserved_memory(cfg: KubeletConfiguration) -> list[FieldError]:
    """validateReservedMemoryConfiguration: supported limit types, no zero, no NUMA node and type twice."""
    errors: list[FieldError] = []
    seen: set[tuple[int, str]] = set()
    for i, reserved in enumerate(cfg.reserved_memory):
        numa = reserved.numa_node
        if not -INT32_MAX - 1 <= numa <= INT32_MAX:
            errors.append(
                FieldError(("reservedMemory", i, "numaNode"), f"Invalid value: {numa}: not an int32")
            )
            continue
        path = ("reservedMemory", i, "limits")
        errors += _check_quantities(reserved.limits, path)
        for name, text in reserved.limits.items():
            if name != "memory" and not name.startswith("hugepages-"):
                errors.append(
                    FieldError(
                        (*path, name),
                        f'Unsupported value: the limit type "{name}" for NUMA node {numa} is not supported, '
                        "only [memory hugepages-<HugePageSize>] is accepted",
                    )
                )
            try:
                zero = Quantity.parse(text).is_zero()
            except ValueError:
                zero = False
            if zero:
                errors.append(
                    FieldError(
                        (*path, name),
                        "Invalid value: reserved memory may not be zero for NUMA node "
                        f'{numa} and resource "{name}"',
                    )
                )
            if (numa, name) in seen:
                errors.append(
                    FieldError(
                        (*path, name),
                        "Duplicate value: the reserved memory has a duplicate value for NUMA node "
                        f'{numa} and resource "{name}"',
                    )
                )
            seen.add((numa, name))
    return errors


def validate_node_topology(topo: NodeTopology, ctx: ValidationContext) -> list[FieldError]:
    errors: list[FieldError] = []
    cpus = topo.spec.cpus
    if not cpus:
        errors.append(FieldError(("spec", "cpus"), "Required value: at least one CPU"))
    seen: dict[int, int] = {}
    core_home: dict[int, tuple[int, int]] = {}
    numa_sockets: dict[int, set[int]] = defaultdict(set)
    for i, cpu in enumerate(cpus):
        path = ("spec", "cpus", i)
        for name, value, limit in (
            ("id", cpu.id, MAX_CPUS),
            ("core", cpu.core, MAX_CPUS),
            ("socket", cpu.socket, MAX_CPUS),
            ("numa", cpu.numa, MAX_NUMA_NODES),
            ("uncoreCache", cpu.uncore_cache, MAX_CPUS),
        ):
            if not 0 <= value < limit:
                errors.append(
                    FieldError((*path, name), f"Invalid value: {value}: must be between 0 and {limit - 1}")
                )
        if cpu.id in seen:
            errors.append(
                FieldError(
                    (*path, "id"), f"Duplicate value: CPU {cpu.id} (also at spec.cpus[{seen[cpu.id]}])"
                )
            )
        seen.setdefault(cpu.id, i)
        home = core_home.setdefault(cpu.core, (cpu.socket, cpu.numa))
        if home != (cpu.socket, cpu.numa):
            errors.append(
                FieldError(
                    (*path, "core"),
                    f"Invalid value: {cpu.core}: core {cpu.core} has CPUs on different sockets or NUMA nodes",
                )
            )
        numa_sockets[cpu.numa].add(cpu.socket)
    numa_nodes = {cpu.numa for cpu in cpus}
    memory_seen: dict[int, int] = {}
    for i, mem in enumerate(topo.spec.memory):
        if mem.numa not in numa_nodes:
            errors.append(
                FieldError(
                    ("spec", "memory", i, "numa"), f"Invalid value: {mem.numa}: no CPU is on this NUMA node"
                )
            )
        elif mem.numa in memory_seen:
            errors.append(
                FieldError(
                    ("spec", "memory", i, "numa"),
                    f"Duplicate value: NUMA node {mem.numa} (also at spec.memory[{memory_seen[mem.numa]}])",
                )
            )
        memory_seen.setdefault(mem.numa, i)
        errors += _check_sizes(
            {
                "capacity": mem.capacity,
                "hugepages-2Mi": mem.hugepages_2mi,
                "hugepages-1Gi": mem.hugepages_1gi,
            },
            ("spec", "memory", i),
        )
    for node, row in topo.spec.distances.items():
        if node not in numa_nodes:
            errors.append(
                FieldError(("spec", "distances", str(node)), f"Invalid value: {node}: unknown NUMA node")
            )
        if len(row) != len(numa_nodes):
            errors.append(
                FieldError(
                    ("spec", "distances", str(node)),
                    f"Invalid value: {len(row)} distances for {len(numa_nodes)} NUMA nodes",
                )
            )
    return errors


def _check_sizes(values: dict[str, str], path: tuple[str | int, ...]) -> list[FieldError]:
    """Memory of one NUMA node: a quantity from zero to a bound no machine comes near (so that sums
    over all nodes stay well inside the 64-bit integers the kubelet and the solver compute with)."""
    errors = _check_quantities(values, path)
    for name, text in values.items():
        try:
            q = Quantity.parse(text)
        except ValueError:
            continue
        if q.sign() < 0 or q.cmp(NUMA_MEMORY_LIMIT) > 0:
            message = f"Invalid value: {text!r}: must be between 0 and {NUMA_MEMORY_LIMIT} per NUMA node"
            errors.append(FieldError((*path, name), message))
    return errors
