"""Rules between pending pods: required pod affinity and anti-affinity, and DoNotSchedule topology spread
constraints, over the number of matching pods per topology domain (running pods included).

The rules hold in the plan's final state: each pod's domain has a matching pod besides itself (or, as the
scheduler lets the first pod of a group go anywhere, the pod's own group is all there is), no pod its
anti-affinity selects, and the skew of each spread constraint stays within maxSkew in every domain
where the class has pods. The replay (replay.py) checks every pod with the plugins' own code on top.
"""

from __future__ import annotations

from collections.abc import Callable

from ortools.sat.python import cp_model

from ....model.cluster.facts import AffinityTerm, Pod, SpreadConstraint
from ..plugins.podtopologyspread.common import count_matching, included
from .classes import PodClass
from .model import PlanModel
from .static import interacts


def interplay(pm: PlanModel) -> None:
    for cls in pm.classes:
        if not interacts(cls.pod):
            continue
        for term in cls.pod.required_anti_affinity:
            _anti_affinity(pm, cls, term)
        for term in cls.pod.required_affinity:
            _affinity(pm, cls, term)
        for constraint in cls.pod.spread_constraints:
            if constraint.when_unsatisfiable == "DoNotSchedule":
                _spread(pm, cls, constraint)


def _domains(pm: PlanModel, key: str, keep: Callable[[str], bool] = lambda _: True) -> dict[str, list[str]]:
    """Topology value -> node names, for nodes that have the key."""
    out: dict[str, list[str]] = {}
    for node in pm.run.snapshot.nodes:
        value = node.node.labels.get(key)
        if value is not None and keep(node.name):
            out.setdefault(value, []).append(node.name)
    return out


def _exclude_unlabelled(pm: PlanModel, cls: PodClass, key: str) -> None:
    for node in pm.run.snapshot.nodes:
        var = pm.count.get((cls.index, node.name))
        if var is not None and key not in node.node.labels:
            pm.model.add(var == 0)


def _term_count(pm: PlanModel, term: AffinityTerm, nodes: list[str]) -> tuple[int, cp_model.LinearExprT]:
    """(running pods, planned pods) the term selects on the nodes."""
    namespaces = pm.run.cluster.namespaces
    running = 0
    for name in nodes:
        running += sum(
            1 for p in pm.run.snapshot.by_name[name].pods if term.matches(p.namespace, p.labels, namespaces)
        )
    planned = [
        v
        for name in nodes
        for cls, v in pm.on_node(name)
        if term.matches(cls.pod.namespace, cls.pod.labels, namespaces)
    ]
    return running, sum(planned)


def _present(pm: PlanModel, cls: PodClass, nodes: list[str], label: str) -> cp_model.IntVar | None:
    """A literal true when the class has pods on some of the nodes (None: it cannot go there)."""
    vars_ = [
        (pm.bounds[(cls.index, n)], pm.count[(cls.index, n)]) for n in nodes if (cls.index, n) in pm.count
    ]
    if not vars_:
        return None
    has = pm.model.new_bool_var(f"has_k{cls.index}_{label}")
    for bound, v in vars_:
        pm.model.add(v <= bound * has)
    pm.model.add(sum(v for _, v in vars_) >= has)
    return has


def _self(pm: PlanModel, cls: PodClass, term: AffinityTerm) -> bool:
    return term.matches(cls.pod.namespace, cls.pod.labels, pm.run.cluster.namespaces)


def _anti_affinity(pm: PlanModel, cls: PodClass, term: AffinityTerm) -> None:
    own = _self(pm, cls, term)
    for value, nodes in _domains(pm, term.topology_key).items():
        has = _present(pm, cls, nodes, f"anti_{term.topology_key}_{value}")
        if has is None:
            continue
        running, planned = _term_count(pm, term, nodes)
        pm.model.add(planned + running <= int(own)).only_enforce_if(has)


def _affinity(pm: PlanModel, cls: PodClass, term: AffinityTerm) -> None:
    """Each pod of the class lands in a domain where another pod the term selects already is: a running
    one, or a pending one of another class (which the scheduler may place first). Only while no pod
    anywhere matches may the first pod of a self-matching group start a domain, and then just one."""
    _exclude_unlabelled(pm, cls, term.topology_key)
    own = _self(pm, cls, term)
    domains = _domains(pm, term.topology_key)
    anywhere = sum(_term_count(pm, term, nodes)[0] for nodes in domains.values())
    seeds = []
    for value, nodes in domains.items():
        has = _present(pm, cls, nodes, f"aff_{term.topology_key}_{value}")
        if has is None:
            continue
        running, _ = _term_count(pm, term, nodes)
        others = _others(pm, cls, term, nodes)
        if own and anywhere == 0:
            seed = pm.model.new_bool_var(f"seed_k{cls.index}_{value}")
            seeds.append(seed)
            pm.model.add(others >= 1).only_enforce_if([has, seed.negated()])
        else:
            pm.model.add(others + running >= 1).only_enforce_if(has)
    if seeds:
        pm.model.add_at_most_one(seeds)


def _others(pm: PlanModel, cls: PodClass, term: AffinityTerm, nodes: list[str]) -> cp_model.LinearExprT:
    """Planned pods of other classes the term selects on the nodes."""
    namespaces = pm.run.cluster.namespaces
    return sum(
        v
        for name in nodes
        for other, v in pm.on_node(name)
        if other.index != cls.index and term.matches(other.pod.namespace, other.pod.labels, namespaces)
    )


def _spread(pm: PlanModel, cls: PodClass, constraint: SpreadConstraint) -> None:
    key = constraint.topology_key
    _exclude_unlabelled(pm, cls, key)
    pod = cls.pod
    snapshot = pm.run.snapshot
    domains = _domains(pm, key, lambda name: included(constraint, pod, snapshot.by_name[name].node))
    if not domains:
        return
    counts: dict[str, cp_model.LinearExprT] = {}
    top = 0
    for value, nodes in domains.items():
        running = sum(
            count_matching(snapshot.by_name[n].pods, constraint.selector, pod.namespace) for n in nodes
        )
        planned = [v for n in nodes for other, v in pm.on_node(n) if _selected(constraint, other.pod, pod)]
        counts[value] = running + sum(planned)
        top += running + sum(
            pm.bounds[(other.index, n)]
            for n in nodes
            for other, _ in pm.on_node(n)
            if _selected(constraint, other.pod, pod)
        )
    lowest = pm.model.new_int_var(0, top, f"min_k{cls.index}_{key}")
    if len(domains) < constraint.min_domains:
        pm.model.add(lowest == 0)
    else:
        pm.model.add_min_equality(lowest, list(counts.values()))
    for value, nodes in domains.items():
        has = _present(pm, cls, nodes, f"spread_{key}_{value}")
        if has is not None:
            pm.model.add(counts[value] <= lowest + constraint.max_skew).only_enforce_if(has)


def _selected(constraint: SpreadConstraint, other: Pod, pod: Pod) -> bool:
    return (
        other.namespace == pod.namespace and count_matching([other], constraint.selector, pod.namespace) == 1
    )
