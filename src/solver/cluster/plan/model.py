"""The plan as one CP-SAT model: how many pods of each class go to each node.

Hard constraints, each family in its own function: node resources and the pod slot (what NodeResourcesFit
checks), host ports (NodePorts), DRA on each node (dra_node.py), gangs all-or-nothing, and the rules
between pending pods (interplay.py). Where a class may go at all was decided by the scheduler's filters
(static.py). The objectives are in objective.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from ....model.cluster.facts import HostPort
from ....model.problem import Problem
from ...cpsat.model import NodeModel
from ...cpsat.scale import AmountsTooLarge
from ...deadline import Deadline
from ...units import placement_conflict
from ..framework import NodeInfo
from ..scheduler import Run
from .classes import PodClass, shared_claims
from .domains import constrained, pinned_domains, topology_domains
from .dra_node import Block, FactsCache, build_node, own, prepare
from .patterns import GroupView, node_groups, poolable, single_device
from .pool import SHARED, Pool
from .static import Reach, interacts

BIG = 1 << 30


@dataclass
class PlanModel:
    model: cp_model.CpModel
    problem: Problem
    run: Run
    classes: list[PodClass]
    reach: list[Reach]
    count: dict[tuple[int, str], cp_model.IntVar] = field(default_factory=dict)  # (class, node) -> pods
    bounds: dict[tuple[int, str], int] = field(default_factory=dict)
    why_not: dict[int, dict[str, str]] = field(default_factory=dict)  # class -> node -> reason
    dra: dict[str, tuple[NodeModel, list[Block]]] = field(default_factory=dict)
    gangs: dict[str, cp_model.IntVar] = field(default_factory=dict)
    # Nodes that exist only if their literal is true (capacity planning's copies of a template).
    optional: dict[str, cp_model.IntVar] = field(default_factory=dict)
    pool: Pool | None = None  # nodes planned by placement patterns
    shared: bool = True  # patterns may pool GPUs across nodes
    facts_cache: FactsCache = field(default_factory=dict)
    slack_memo: dict[int, dict[str, int]] = field(default_factory=dict)  # GPU signature -> most it uses
    pooled: dict[int, list[cp_model.IntVar]] = field(default_factory=dict)  # class -> pods placed by patterns

    def placed(self, cls: PodClass) -> cp_model.LinearExprT:
        return sum(v for (c, _), v in self.count.items() if c == cls.index) + sum(
            self.pooled.get(cls.index, ())
        )

    def on_node(self, node: str) -> list[tuple[PodClass, cp_model.IntVar]]:
        return [(self.classes[c], v) for (c, n), v in self.count.items() if n == node]

    def nodes(self) -> list[str]:
        seen: dict[str, None] = {}
        for _, n in self.count:
            seen[n] = None
        return list(seen)


def build(
    run: Run,
    classes: list[PodClass],
    reach: list[Reach],
    optional: Sequence[str] = (),
    pooling: bool = True,
    shared: bool = True,
    deadline: Deadline | None = None,
) -> PlanModel | None:
    """`pooling`: plan GPUs by patterns where the claims allow it; `shared`: pool them across nodes where
    nothing binds per node (the objective does not look at nodes). None when the deadline passes first."""
    problem = run.problem
    pool = Pool() if pooling else None
    pm = PlanModel(cp_model.CpModel(), problem, run, classes, reach, pool=pool, shared=shared)
    for name in optional:
        pm.optional[name] = pm.model.new_bool_var(f"open_{name}")
    opened = list(pm.optional.values())
    for a, b in itertools.pairwise(opened):
        pm.model.add_implication(b, a)  # copies of one template are interchangeable: open them in order
    for node in run.snapshot.nodes:
        if deadline is not None and deadline.expired():
            return None
        _node(pm, node)
    if pm.pool is not None and pm.pool.families:
        pm.pooled = pm.pool.build(pm.model, {c.index: c.count for c in classes}, pm.count, pm.optional)
    for cls in classes:
        pm.model.add(pm.placed(cls) <= cls.count)
    gangs(pm)
    domains(pm)
    shared_claims_follow(pm)
    return pm


def _node(pm: PlanModel, node: NodeInfo) -> None:
    problem = pm.problem
    entries: list[tuple[PodClass, int, Block | None]] = []
    for cls, r in zip(pm.classes, pm.reach, strict=True):
        if node.name not in r.nodes:
            continue
        most = min(cls.count, _resource_bound(node, r))
        if most <= 0:
            continue
        conflict = next(
            (placement_conflict(problem, u, node.name, pm.run.dra.state) for u in cls.units[:1]), ""
        )
        if conflict:
            pm.why_not.setdefault(cls.index, {})[node.name] = conflict
            continue
        block: Block | None = None
        if cls.claims[0]:
            view = problem.views.get(node.name)
            shape = pm.run.dra.signature(cls.unit, cls.claims[0])
            prep = (
                prepare(problem, view, problem.in_use, cls, most, pm.facts_cache, shape)
                if view is not None
                else "cannot allocate all claims"
            )
            if isinstance(prep, str):
                pm.why_not.setdefault(cls.index, {})[node.name] = prep
                continue
            block = prep
            most = min(most, prep.bound)
        entries.append((cls, most, block))
    zone = _pooled(pm, node, entries)
    if zone == SHARED:
        return
    if zone is None:
        entries = _own(pm, node, entries)
    blocks: list[Block] = []
    for cls, most, block in entries:
        var = pm.model.new_int_var(0, most, f"n_k{cls.index}_{node.name}")
        pm.count[(cls.index, node.name)] = var
        pm.bounds[(cls.index, node.name)] = most
        opened = pm.optional.get(node.name)
        if opened is not None:
            pm.model.add(var == 0).only_enforce_if(opened.negated())
        if block is not None:
            blocks.append(block)
    node_resources(pm, node)
    host_ports(pm, node)
    if blocks and zone is None:
        counts = {b.cls.index: pm.count[(b.cls.index, node.name)] for b in blocks}
        try:
            pm.dra[node.name] = (build_node(pm.model, node.name, blocks, counts), blocks)
        except AmountsTooLarge as e:
            # No exact 64-bit model of this node's devices: its pods with claims go elsewhere (the
            # constraints added so far hold with none of them here).
            for index, var in counts.items():
                pm.model.add(var == 0)
                pm.why_not.setdefault(index, {})[node.name] = f"{e} do not fit CP-SAT's 64-bit integers"


def _own(
    pm: PlanModel, node: NodeInfo, entries: list[tuple[PodClass, int, Block | None]]
) -> list[tuple[PodClass, int, Block | None]]:
    """The entries as the per-node model takes their blocks (dra_node.own); a class whose copies of the
    claims cannot all get devices here goes elsewhere."""
    out: list[tuple[PodClass, int, Block | None]] = []
    for cls, most, block in entries:
        if block is not None:
            found = own(pm.problem, pm.problem.in_use, block)
            if isinstance(found, str):
                pm.why_not.setdefault(cls.index, {})[node.name] = found
                continue
            block = found
        out.append((cls, most, block))
    return out


def _pooled(pm: PlanModel, node: NodeInfo, entries: list[tuple[PodClass, int, Block | None]]) -> str | None:
    """Plan the node's GPUs by patterns (pool.py) when its classes' claims fit the pattern view: in the
    shared zone when nothing binds on the node (the zone's name, ""), else in the node's own zone (the
    node's name); None when the node is modelled device by device (dra_node.py)."""
    pool = pm.pool
    blocks = [b for _, _, b in entries if b is not None]
    if pool is None or not blocks or not all(poolable(b) for b in blocks):
        return None
    if any(constrained(pm.run.cluster.groups, cls) for cls, _, _ in entries):
        return None  # a PodGroup's topology domain is chosen per node
    views = node_groups(pm.problem, blocks, pool.views)
    if views is None:
        return None
    found = [pool.patterns(view) for view in views]
    if any(p is None for p in found):
        return None
    shared = (
        pm.shared
        and node.name not in pm.optional
        and len(blocks) == len(entries)
        and all(single_device(b) and not interacts(b.cls.pod) and not b.cls.pod.ports for b in blocks)
        and _slack(pm, node, views, found)
    )
    zone = SHARED if shared else node.name
    pool.add(zone, views, blocks)
    return zone


def _slack(pm: PlanModel, node: NodeInfo, views: list[GroupView], found: list[Any]) -> bool:
    """Whether the node's resources hold whatever patterns its GPUs take (then they never bind)."""
    allocatable = node.node.allocatable
    if not allocatable:
        return True
    worst: dict[str, int] = {}
    for view, patterns in zip(views, found, strict=True):
        most = pm.slack_memo.get(view.signature)
        if most is not None:
            for resource, amount in most.items():
                worst[resource] = worst.get(resource, 0) + amount
            continue
        most = pm.slack_memo[view.signature] = {}
        for pattern in patterns:
            use: dict[str, int] = {"pods": sum(pattern.counts)}
            for kind, n in zip(view.kinds, pattern.counts, strict=True):
                # The kind's hungriest taker: whichever class the pattern's devices go to.
                needs: dict[str, int] = {}
                for cls_index, _ in kind:
                    checks = pm.reach[cls_index].checks
                    if checks is None:
                        continue
                    for resource, amount in checks:
                        needs[resource] = max(needs.get(resource, 0), amount)
                for resource, amount in needs.items():
                    use[resource] = use.get(resource, 0) + n * amount
            for resource, amount in use.items():
                most[resource] = max(most.get(resource, 0), amount)
        for resource, amount in most.items():
            worst[resource] = worst.get(resource, 0) + amount
    pods_left = allocatable.get("pods", 0) - len(node.pods)
    for resource, amount in worst.items():
        left = (
            pods_left
            if resource == "pods"
            else allocatable.get(resource, 0) - node.requested.get(resource, 0)
        )
        if amount > left:
            return False
    return True


def _resource_bound(node: NodeInfo, r: Reach) -> int:
    """Pods of the class the node's free resources alone could take."""
    allocatable = node.node.allocatable
    if r.checks is None or not allocatable:
        return BIG
    most = allocatable.get("pods", 0) - len(node.pods)
    for resource, amount in r.checks:
        if amount > 0:
            most = min(most, (allocatable.get(resource, 0) - node.requested.get(resource, 0)) // amount)
    return most


def node_resources(pm: PlanModel, node: NodeInfo) -> None:
    """NodeResourcesFit: the pods placed, with those already there, within the node's allocatable."""
    allocatable = node.node.allocatable
    if not allocatable:
        return
    checked = [(cls, v) for cls, v in pm.on_node(node.name) if pm.reach[cls.index].checks is not None]
    if not checked:
        return
    pods_left = allocatable.get("pods", 0) - len(node.pods)
    if sum(pm.bounds[(cls.index, node.name)] for cls, _ in checked) > pods_left:
        pm.model.add(sum(v for _, v in checked) <= pods_left)
    demand: dict[str, list[tuple[int, int, cp_model.IntVar]]] = {}
    for cls, v in checked:
        for resource, amount in pm.reach[cls.index].checks or ():
            if amount:
                demand.setdefault(resource, []).append((amount, pm.bounds[(cls.index, node.name)], v))
    for resource, terms in sorted(demand.items()):
        left = allocatable.get(resource, 0) - node.requested.get(resource, 0)
        if sum(a * most for a, most, _ in terms) > left:
            pm.model.add(sum(a * v for a, _, v in terms) <= left)


def host_ports(pm: PlanModel, node: NodeInfo) -> None:
    """NodePorts: two pods never take the same host port, protocol and address (0.0.0.0 meets every
    address)."""
    users: dict[tuple[str, int], list[tuple[HostPort, cp_model.IntVar]]] = {}
    for cls, v in pm.on_node(node.name):
        for port in cls.pod.ports:
            users.setdefault((port.protocol, port.port), []).append((port, v))
    for entries in users.values():
        wildcard = [v for p, v in entries if p.ip in ("", "0.0.0.0")]
        addresses = sorted({p.ip for p, _ in entries if p.ip not in ("", "0.0.0.0")})
        if not addresses:
            pm.model.add(sum(wildcard) <= 1)
        for ip in addresses:
            pm.model.add(sum(wildcard) + sum(v for p, v in entries if p.ip == ip) <= 1)


def gangs(pm: PlanModel) -> None:
    """A gang's pods are placed only if at least its minimum (counting members already running) is."""
    members: dict[str, list[PodClass]] = {}
    for cls in pm.classes:
        if cls.gang:
            members.setdefault(cls.gang, []).append(cls)
    for name, classes in members.items():
        gang = classes[0].unit.gang
        assert gang is not None
        on = pm.model.new_bool_var(f"gang_{name}")
        pm.gangs[name] = on
        total = sum(pm.placed(c) for c in classes)
        size = sum(c.count for c in classes)
        need = max(0, gang.min_count - gang.bound)
        pm.model.add(total >= need * on)
        pm.model.add(total <= size * on)


def domains(pm: PlanModel) -> None:
    """PodGroup topology constraints: each group's pods in one domain of its key (domains.py)."""
    cluster = pm.run.cluster
    labels = {n.name: dict(n.node.labels) for n in pm.run.snapshot.nodes}
    bound = [(p.namespace, p.pod_group, p.node_name) for p in cluster.bound if p.pod_group]
    pinned = pinned_domains(cluster.groups, bound, labels)
    topology_domains(pm.model, pm.classes, pm.count, labels, cluster.groups, pinned)


def shared_claims_follow(pm: PlanModel) -> None:
    """A pending claim several pending pods share is allocated with its first pod: the others go to the
    same node (a conservative reading for devices reachable from several nodes)."""
    class_of = {u.id: cls.index for cls in pm.classes for u in cls.units}
    for units in shared_claims(pm.problem, [u for cls in pm.classes for u in cls.units]).values():
        owner = class_of[units[0]]
        for other in units[1:]:
            user = class_of[other]
            for (c, node), var in pm.count.items():
                if c != user:
                    continue
                leader = pm.count.get((owner, node))
                pm.model.add(var <= leader if leader is not None else var == 0)
