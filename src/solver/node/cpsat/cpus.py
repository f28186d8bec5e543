"""Constraint families of the CPU manager's static policy (cpumanager/policy_static.go)."""

from __future__ import annotations

from .model import PodModel


def cpu_counts(pm: PodModel) -> None:
    """A Guaranteed container with an integral CPU request gets exactly that many exclusive CPUs."""
    for s in pm.view.exclusive:
        if s.fixed_cpus is None:
            pm.model.add(sum(pm.x[s.index].values()) == s.cpus)


def cpu_lifetimes(pm: PodModel) -> None:
    """No CPU is held twice at once: init containers run one at a time beside the sidecars started
    before them, then sidecars and app containers run together. A completed init container's CPUs
    are reusable (the kubelet's reusable set), a sidecar's never."""
    for phase in pm.view.phases():
        members = [s for s in phase if s in pm.x]
        if len(members) < 2:
            continue
        for cpu in sorted({c for s in members for c in pm.x[s]}):
            lits = [pm.x[s][cpu] for s in members if cpu in pm.x[s]]
            if len(lits) > 1:
                pm.model.add_at_most_one(lits)


def free_physical_cpus(pm: PodModel) -> None:
    """full-pcpus-only: the kubelet refuses a container whose request exceeds the free CPUs outside
    the reserved CPUs' cores at the time it is allocated (SMTAlignmentError); earlier containers of
    the pod have left the free pool by then.

    That count is all the option guarantees. The allocation itself is the usual one, which takes
    whole free cores first but can end on part of a core (a NUMA-aligned share of odd size, a free
    sibling of a reserved CPU, cores other containers hold in part): whole cores are the `cores`
    criterion of the objective, not a constraint."""
    admitter = pm.admitter
    cpu = admitter.cpu
    if cpu is None or not cpu.full_pcpus or pm.view.pod_level:
        return
    default = frozenset(admitter.cpus.default) - cpu.reserved_physical
    taken: dict[int, list[object]] = {}
    for s in pm.view.exclusive:
        if s.fixed_cpus is None:
            if taken:
                gone = []
                for c, lits in sorted(taken.items()):
                    if c not in default:
                        continue
                    if len(lits) == 1:
                        gone.append(lits[0])
                    else:
                        u = pm.bool(f"gone_{s.name}_{c}")
                        pm.model.add_max_equality(u, lits)  # type: ignore[arg-type]
                        gone.append(u)
                pm.model.add(sum(gone) <= len(default) - s.cpus)  # type: ignore[arg-type]
            elif s.cpus > len(default):
                # No assignment at all: the kubelet refuses it.
                pm.model.add_bool_or([])
        for c, lit in pm.x[s.index].items():
            taken.setdefault(c, []).append(lit)
