"""Validation of the node-side kinds: KubeletConfiguration (as the kubelet checks it when it starts)
and NodeTopology."""

from __future__ import annotations

from collections import defaultdict

from ..cpuset import parse_cpuset
from ..kubelet_config import KubeletConfiguration
from ..node_topology import NodeTopology
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


def _check_quantities(values: dict[str, str], path: tuple[str | int, ...]) -> list[FieldError]:
    from ..quantity import Quantity

    errors = []
    for name, text in values.items():
        try:
            Quantity.parse(text)
        except ValueError as e:
            errors.append(FieldError((*path, name), f"Invalid value: {text!r}: {e}"))
    return errors


def validate_kubelet_configuration(cfg: KubeletConfiguration, ctx: ValidationContext) -> list[FieldError]:
    errors: list[FieldError] = []
    errors += _unsupported("cpuManagerPolicy", cfg.cpu_manager_policy, CPU_POLICIES)
    options = cfg.cpu_manager_policy_options
    for name, value in options.items():
        path = ("cpuManagerPolicyOptions", name)
        gate = CPU_OPTIONS.get(name)
        if gate is None:
            errors.append(FieldError(path, f'Unsupported value: "{name}": unknown CPU manager policy option'))
        elif not ctx.feature_enabled(gate):
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
        try:
            parse_cpuset(cfg.reserved_system_cpus)
        except ValueError as e:
            errors.append(FieldError(("reservedSystemCPUs",), f"Invalid value: {e}"))
    errors += _check_quantities(cfg.kube_reserved, ("kubeReserved",))
    errors += _check_quantities(cfg.system_reserved, ("systemReserved",))
    seen_numa: set[int] = set()
    for i, reserved in enumerate(cfg.reserved_memory):
        if reserved.numa_node in seen_numa:
            errors.append(
                FieldError(
                    ("reservedMemory", i, "numaNode"), f"Duplicate value: NUMA node {reserved.numa_node}"
                )
            )
        seen_numa.add(reserved.numa_node)
        errors += _check_quantities(reserved.limits, ("reservedMemory", i, "limits"))
    if cfg.memory_manager_policy == "Static" and not cfg.reserved_memory:
        errors.append(
            FieldError(
                ("reservedMemory",), "Required value: the Static memory manager policy needs reservedMemory"
            )
        )
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
        for name, value in (
            ("id", cpu.id),
            ("core", cpu.core),
            ("socket", cpu.socket),
            ("numa", cpu.numa),
            ("uncoreCache", cpu.uncore_cache),
        ):
            if value < 0:
                errors.append(FieldError((*path, name), f"Invalid value: {value}: must be non-negative"))
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
    for i, mem in enumerate(topo.spec.memory):
        if mem.numa not in numa_nodes:
            errors.append(
                FieldError(
                    ("spec", "memory", i, "numa"), f"Invalid value: {mem.numa}: no CPU is on this NUMA node"
                )
            )
        errors += _check_quantities(
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
