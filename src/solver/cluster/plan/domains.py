"""PodGroup topology constraints in the plan (KEP-5732): a PodGroup with spec.schedulingConstraints.topology
lands in one domain of its key, as TopologyPlacement's placements keep it in kube-scheduler; a
CompositePodGroup's key holds every pod below it in one domain of that key; members already on nodes pin
the domain. Nodes without the label take none of the group's pods.

Per group one boolean per domain, at most one true; each (class, node) count of a member class is zero
unless its node's domain is chosen. Classes of such groups are planned node by node (never pooled across
nodes), so that every count knows its node.
"""

from __future__ import annotations

from collections.abc import Iterator

from ortools.sat.python import cp_model

from ....model.cluster.podgroup import TOPOLOGY_AWARE, GroupFact, Groups
from .classes import PodClass


def constraints_of(groups: Groups | None, cls: PodClass) -> list[GroupFact]:
    """The groups with a topology key that hold the class's pods: its PodGroup and the CompositePodGroups
    above it."""
    pod = cls.pod
    if groups is None or not pod.pod_group or not groups.on(TOPOLOGY_AWARE):
        return []
    fact = groups.pod_groups.get(f"{pod.namespace}/{pod.pod_group}")
    return [f for f in _chain(groups, fact) if f.topology_key]


def _chain(groups: Groups, fact: GroupFact | None) -> Iterator[GroupFact]:
    seen: set[str] = set()
    while fact is not None and fact.key not in seen:
        seen.add(fact.key)
        yield fact
        fact = groups.parent_of(fact)


def constrained(groups: Groups | None, cls: PodClass) -> bool:
    return bool(constraints_of(groups, cls))


def topology_domains(
    model: cp_model.CpModel,
    classes: list[PodClass],
    count: dict[tuple[int, str], cp_model.IntVar],
    labels: dict[str, dict[str, str]],
    groups: Groups | None,
    pinned: dict[str, set[str]],
) -> dict[tuple[str, str], cp_model.IntVar]:
    """`labels`: node -> its labels; `pinned`: group key -> the domains (of its key) its members on nodes
    are in. Returns the domain literals by (group, domain)."""
    chosen: dict[tuple[str, str], cp_model.IntVar] = {}
    members: dict[str, tuple[GroupFact, list[int]]] = {}
    for cls in classes:
        for fact in constraints_of(groups, cls):
            members.setdefault(fact.key, (fact, []))[1].append(cls.index)
    for key, (fact, indices) in sorted(members.items()):
        domains = sorted({ls[fact.topology_key] for ls in labels.values() if fact.topology_key in ls})
        held = pinned.get(key, set())
        literals = []
        for domain in domains:
            lit = model.new_bool_var(f"domain_{key}_{domain}")
            chosen[(key, domain)] = lit
            literals.append(lit)
            if held and domain not in held:
                model.add(lit == 0)
        model.add_at_most_one(literals)
        wanted = set(indices)
        for (c, node), var in count.items():
            if c not in wanted:
                continue
            at = labels.get(node, {}).get(fact.topology_key)
            if at is None:
                model.add(var == 0)
            else:
                model.add(var == 0).only_enforce_if(chosen[(key, at)].negated())
    return chosen


def pinned_domains(
    groups: Groups | None, bound: list[tuple[str, str, str]], labels: dict[str, dict[str, str]]
) -> dict[str, set[str]]:
    """Group key -> the domains its members already on nodes occupy (`bound`: (namespace, pod group,
    node) of each running member)."""
    out: dict[str, set[str]] = {}
    if groups is None:
        return out
    for namespace, name, node in bound:
        fact = groups.pod_groups.get(f"{namespace}/{name}")
        for f in _chain(groups, fact):
            domain = labels.get(node, {}).get(f.topology_key) if f.topology_key else None
            if domain is not None:
                out.setdefault(f.key, set()).add(domain)
    return out
