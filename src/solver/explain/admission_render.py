"""Admission reasons in the kubelet's terms, and explanations of admission as output.

One method per group family of the node model (`policy`, `cpu`, `memory`, `hint`, `whole-cores`,
`physical-cpus`, `kubelet`), each reading the state the kubelet met and returning one reason with the
objects and numbers involved: free CPUs and memory per NUMA node, what is requested, which NUMA nodes a
device sits on. Items follow the `Explanation` document of DRA explain (report.py): unit, fits, status,
summary, node, and per node its reasons and whether they are minimal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...model.cpuset import format_cpuset
from ...model.node.problem import CPUSet, PodFacts
from ...model.node.solution import PodAdmission
from ...model.terminal import lines_text
from ..node import bitmask
from ..node.admission_doc import admission_doc
from ..node.greedy import podlevel
from ..node.greedy.admit import Admitter
from ..node.view import BUBBLE, PodView, Slot
from .admission_model import AdmissionReason, Devices, PodExplanation
from .model import Verdict
from .reasons import amount, names

ARROW = "→"


def _cpus(n: int, word: str = "CPU") -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _size(n: int) -> str:
    return amount(Fraction(n))


def _nodes_text(nodes: Sequence[int]) -> str:
    listed = ", ".join(map(str, nodes))
    return f"NUMA node {listed}" if len(nodes) == 1 else f"NUMA nodes {listed}"


def _per_node(values: Mapping[int, Any], show: Any = str) -> str:
    return ", ".join(f"{n}{ARROW}{show(v)}" for n, v in sorted(values.items()))


def shared_pool(pod: PodFacts, message: str) -> AdmissionReason:
    return AdmissionReason(
        f"pod-shared-pool/{pod.ref}",
        "PodSharedPool",
        f"pod-level resources: {message.removeprefix(f'pod {pod.ref}: ')}",
        {"pod": pod.ref},
    )


def fallback(a: PodAdmission, why: str) -> AdmissionReason:
    return AdmissionReason(
        "kubelet", "AdmissionError", f"{a.reason}: {a.message} ({why})", {"pod": a.pod.ref}
    )


class Renderer:
    def __init__(
        self,
        admitter: Admitter,
        pv: PodView,
        devices: Devices,
        allocated: Mapping[str, tuple[CPUSet | None, int | None]],
    ) -> None:
        self.admitter = admitter
        self.pv = pv
        self.devices = devices
        self.allocated = allocated
        self.topo = admitter.topo

    def reason(self, group: tuple[str | int, ...]) -> AdmissionReason:
        family, *ids = group
        if family == "policy":
            return self.policy(int(ids[0]))
        if family == "cpu":
            return self.cpu(self.pv.slots[int(ids[0])])
        if family == "memory":
            return self.memory(int(ids[0]))
        if family == "hint":
            return self.hint(int(ids[0]), str(ids[1]))
        if family == "whole-cores":
            return self.whole_cores(self.pv.slots[int(ids[0])])
        if family == "physical-cpus":
            return self.physical_cpus(self.pv.slots[int(ids[0])])
        if family == "kubelet":
            return self.kubelet_order(self.pv.slots[int(ids[0])])
        raise ValueError(f"no reason for group {group}")

    # --- helpers ---------------------------------------------------------------------------------

    def _pod_unit(self) -> bool:
        return self.pv.pod_level or self.admitter.policy.topology_scope == "pod"

    def _who(self, slot: Slot) -> tuple[str, str]:
        """(how a message names the slot, its name in ids)."""
        if slot.name == BUBBLE:
            return "the pod", "pod"
        return f"container {slot.name}", slot.name

    def _unit_who(self, unit: int) -> tuple[str, str]:
        if self._pod_unit():
            return "the pod", "pod"
        return self._who(self.pv.slots[self.pv.units[unit].slots[0]])

    def _free_cpus(self, cpus: CPUSet) -> dict[int, int]:
        out = {n: 0 for n in self.admitter.numa.nodes}
        for c in cpus:
            out[self.topo.of(c, "numa")] += 1
        return out

    def _reserved(self) -> str:
        cpu = self.admitter.cpu
        reserved = cpu.reserved if cpu is not None else frozenset()
        return f" (reserved {format_cpuset(reserved)})" if reserved else ""

    def _least_numa(self, request: int) -> int:
        """The fewest NUMA nodes whose CPUs could hold the request: what the CPU manager prefers."""
        for k in range(1, len(self.admitter.numa.nodes) + 1):
            if any(
                len(self.topo.cpus_in("numa", bitmask.bits(m))) >= request
                for m in _masks(self.admitter.numa.nodes, k)
            ):
                return k
        return len(self.admitter.numa.nodes)

    def _cpu_need(self, who: str, request: int, free: CPUSet) -> tuple[str, dict[str, Any]]:
        per_node = self._free_cpus(free)
        text = f"cpu: {who} needs {_cpus(request, 'exclusive CPU')}"
        numbers: dict[str, Any] = {"requested": request, "free": {str(n): v for n, v in per_node.items()}}
        least = self._least_numa(request)
        if least > 1 and self.admitter.policy.topology_policy in ("restricted", "single-numa-node"):
            sizes = sorted({len(self.topo.cpus_in("numa", (n,))) for n in self.admitter.numa.nodes})
            each = "/".join(map(str, sizes))
            text += f", more than one NUMA node holds ({each} CPUs each): the CPU manager prefers {least}"
            numbers["preferredNUMANodes"] = least
        text += f"; free per NUMA node: {_per_node(per_node)}{self._reserved()}"
        return text, numbers

    # --- families --------------------------------------------------------------------------------

    def policy(self, unit: int) -> AdmissionReason:
        policy = self.admitter.policy
        who, name = self._unit_who(unit)
        if policy.topology_policy == "single-numa-node":
            need = "one NUMA node" + (" for all its containers" if name == "pod" else "")
        else:
            need = "NUMA nodes every resource prefers" + (" for all its containers" if name == "pod" else "")
        return AdmissionReason(
            f"topology/{name}",
            "TopologyPolicy",
            f"topology manager policy {policy.topology_policy}: {who} needs {need}",
            {"policy": policy.topology_policy, "scope": policy.topology_scope, "unit": name},
            {"numaNodes": len(self.admitter.numa.nodes)},
        )

    def cpu(self, slot: Slot) -> AdmissionReason:
        who, name = self._who(slot)
        text, numbers = self._cpu_need(who, slot.cpus, slot.candidates)
        return AdmissionReason(f"cpu/{name}", "CPU", text, {"container": name}, numbers)

    def hint(self, unit: int, resource: str) -> AdmissionReason:
        who, name = self._unit_who(unit)
        pod = self.pv.pod
        if resource.startswith("claim/"):
            return self.device(pod, resource)
        if resource == "cpu" and self.admitter.cpu is not None:
            if self.pv.pod_level:
                request = podlevel.budget(pod)
                text, numbers = self._cpu_need("the pod", request, self.pv.available)
                text = text.replace("CPUs", "CPUs (its pod-level resources)", 1)
            elif name == "pod":
                request = self.admitter.cpu.pod_guaranteed_cpus(pod)
                reusable = frozenset(self.admitter.cpu.reusable.get(pod.uid, set()))
                text, numbers = self._cpu_need("the pod", request, self.pv.available | reusable)
                text = text.replace("CPUs", "CPUs (its containers together)", 1)
            else:
                slot = self.pv.slots[self.pv.units[unit].slots[0]]
                held = slot.fixed_cpus or frozenset()
                nodes = sorted(self._free_cpus(held).items())
                on = [n for n, k in nodes if k]
                text = (
                    f"cpu: {who} holds CPUs {format_cpuset(held)} (cpu_manager_state), on {_nodes_text(on)}"
                )
                numbers = {"cpus": format_cpuset(held), "numaNodes": on}
            return AdmissionReason(f"cpu/{name}", "CPU", text, {"container": name}, numbers)
        hints = self.pv.units[unit].static.get(resource, ())
        listed = ", ".join(str(h) for h in hints) or "none"
        return AdmissionReason(
            f"hint/{name}/{resource}",
            "TopologyHint",
            f"{resource}: {who} has the hints {listed}",
            {"resource": resource, "unit": name},
        )

    def device(self, pod: PodFacts, resource: str) -> AdmissionReason:
        claim, devices = self.devices.of(pod, resource)
        numa: set[int] = set()
        for c in pod.containers:
            for g in c.devices:
                if g.name == resource:
                    for d in g.devices:
                        numa |= d
        nodes = sorted(numa)
        shown = f" ({names(list(devices))})" if devices else ""
        verb = "is" if len(devices) <= 1 else "are"
        return AdmissionReason(
            f"device/{claim}",
            "DeviceNUMA",
            f"device claim {claim}{shown} {verb} on {_nodes_text(nodes)}",
            {"claim": claim, "devices": list(devices)},
            {"numaNodes": nodes},
        )

    def memory(self, g: int) -> AdmissionReason:
        group = self.pv.groups[g]
        slots = [self.pv.slots[s] for s in group.slots]
        if len(slots) == 1 and not self._pod_unit():
            who, name = self._who(slots[0])
        else:
            who, name = "the pod", "pod"
        if group.fixed_mask is not None:
            on = _nodes_text(bitmask.bits(group.fixed_mask))
            return AdmissionReason(
                f"memory/{name}",
                "Memory",
                f"memory: {who} holds its memory on {on} (memory_manager_state)",
                {"container": name},
                {"numaNodes": bitmask.bits(group.fixed_mask)},
            )
        machine = self.admitter.mem.machine
        # Regular memory first, then huge pages by size name.
        request = dict(sorted(group.request, key=lambda rv: (rv[0] != "memory", rv[0])))
        free = {
            r: {n: (s.memory[r].free if r in s.memory else 0) for n, s in sorted(machine.items())}
            for r in request
        }
        only_memory = list(request) == ["memory"]
        if only_memory:
            needs = _size(request["memory"])
            frees = _per_node(free["memory"], _size)
        else:
            needs = ", ".join(f"{r} {_size(v)}" for r, v in request.items())
            frees = "; ".join(f"{r} {_per_node(free[r], _size)}" for r in request)
        text = f"memory: {who} needs {needs}; free per NUMA node: {frees}"
        alone = [n for n, s in sorted(machine.items()) if s.assignments > 0 and len(s.cells) <= 1]
        if alone and len(machine) > 1:
            # The memory manager never puts a node that holds memory of its own into a multi-node group.
            text += f"; {_nodes_text(alone)} already serve memory alone and join no group"
        grouped = sorted({tuple(s.cells) for s in machine.values() if len(s.cells) > 1})
        if grouped:
            text += "; " + ", ".join(
                f"NUMA nodes {','.join(map(str, c))} serve memory together" for c in grouped
            )
        return AdmissionReason(
            f"memory/{name}",
            "Memory",
            text,
            {"container": name},
            {
                "requested": {r: _size(v) for r, v in request.items()},
                "free": {r: {str(n): _size(v) for n, v in per.items()} for r, per in free.items()},
            },
        )

    def whole_cores(self, slot: Slot) -> AdmissionReason:
        who, name = self._who(slot)
        per_core = self.topo.cpus_per_core
        numbers: dict[str, Any] = {"requested": slot.cpus, "cpusPerCore": per_core}
        if slot.cpus % per_core:
            text = f"full-pcpus-only: {_cpus(slot.cpus)} is not a multiple of {per_core} threads per core"
        else:
            whole = {n: 0 for n in self.admitter.numa.nodes}
            for core in sorted(self.topo.levels_of(slot.candidates, "core")):
                threads = self.topo.cpus_in("core", (core,))
                if threads <= slot.candidates:
                    whole[self.topo.of(min(threads), "numa")] += 1
            numbers["wholeCores"] = {str(n): v for n, v in whole.items()}
            text = (
                f"full-pcpus-only: {who} needs {slot.cpus // per_core} whole physical cores ({slot.cpus} "
                f"CPUs); whole free cores per NUMA node: {_per_node(whole)}{self._reserved()}"
            )
        return AdmissionReason(f"full-pcpus/{name}", "FullPCPUs", text, {"container": name}, numbers)

    def physical_cpus(self, slot: Slot) -> AdmissionReason:
        who, name = self._who(slot)
        cpu = self.admitter.cpu
        assert cpu is not None
        physical = len(frozenset(self.admitter.cpus.default) - cpu.reserved_physical)
        per_core = self.topo.cpus_per_core
        text = (
            f"full-pcpus-only: {who} needs {_cpus(slot.cpus)}; {physical} free CPUs lie on physical cores "
            f"without a reserved CPU (reserved {format_cpuset(cpu.reserved)}, on cores of CPUs "
            f"{format_cpuset(cpu.reserved_physical)})"
        )
        earlier = [s.name for s in self.pv.exclusive if s.index < slot.index and s.fixed_cpus is None]
        if earlier:
            text += f", before containers {', '.join(earlier)} take theirs"
        return AdmissionReason(
            f"physical-cpus/{name}",
            "FullPCPUs",
            text,
            {"container": name},
            {"requested": slot.cpus, "freePhysicalCPUs": physical, "cpusPerCore": per_core},
        )

    def kubelet_order(self, slot: Slot) -> AdmissionReason:
        who, name = self._who(slot)
        cpus, mask = self.allocated.get(slot.name, (None, None))
        parts = []
        on: list[int] = []
        if cpus is not None:
            on = [n for n, k in sorted(self._free_cpus(cpus).items()) if k]
            parts.append(f"CPUs {format_cpuset(cpus)} on {_nodes_text(on)}")
        if mask is not None:
            on = sorted(set(on) | set(bitmask.bits(mask)))
            parts.append(f"memory on {_nodes_text(bitmask.bits(mask))}")
        got = " and ".join(parts) or "its resources"
        return AdmissionReason(
            f"kubelet/{name}",
            "KubeletOrder",
            f"the kubelet allocates container by container, first fit: {who} got {got} first",
            {"container": name},
            {"cpus": format_cpuset(cpus) if cpus is not None else "", "numaNodes": on},
        )


def _masks(nodes: Sequence[int], k: int) -> list[int]:
    from itertools import combinations

    return [bitmask.mask_of(c) for c in combinations(sorted(nodes), k)]


# --- output --------------------------------------------------------------------------------------------


def items(explanations: Sequence[PodExplanation]) -> list[dict[str, Any]]:
    """Explanation items, one per pod, in the shape DRA explain gives them."""
    out = []
    for e in explanations:
        a = e.admission
        item: dict[str, Any] = {
            "unit": f"pod {e.pod}",
            "fits": e.admitted,
            "status": str(Verdict.FITS if e.admitted else Verdict.DOES_NOT_FIT),
            "summary": e.summary,
            "node": e.node,
        }
        if e.admitted:
            doc = admission_doc(e.node, a)
            item["admission"] = {k: doc[k] for k in ("numaAffinity", "podCpus", "containers")}
        else:
            item["reason"] = a.reason
            item["message"] = a.message
            item["nodes"] = [
                {
                    "node": e.node,
                    "fits": False,
                    "status": str(Verdict.DOES_NOT_FIT),
                    "minimal": e.minimal,
                    "reasons": [r.as_dict() for r in e.reasons],
                }
            ]
        out.append(item)
    return out


def text(explanations: Sequence[PodExplanation]) -> str:
    lines: list[str] = []
    for e in explanations:
        if lines:
            lines.append("")
        a = e.admission
        if e.admitted:
            lines.append(f"{e.summary}:")
            for c in a.containers:
                kind = "exclusive" if c.exclusive else "shared pool"
                where = f", {_nodes_text(c.numa_affinity)}" if c.numa_affinity else ""
                memory = "; ".join(f"{b.resource} {_size(b.size)} on {_nodes_text(b.numa)}" for b in c.memory)
                lines.append(
                    f"  container {c.name}: CPUs {format_cpuset(c.cpus)} ({kind}){where}"
                    + (f"; {memory}" if memory else "")
                )
            continue
        lines.append(f"pod {e.pod} is rejected on node {e.node}: {a.reason}: {e.summary}")
        lines += [f"  - {r.message}" for r in e.reasons]
        if not e.minimal:
            lines.append("  (not shown to be minimal: the search for fewer reasons did not finish)")
    return lines_text(lines)
