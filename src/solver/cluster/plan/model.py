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

from ...cpsat.model import NodeModel
from ...cpsat.scale import AmountsTooLarge
from ...problem import Problem
from ...units import placement_conflict
from ..facts import HostPort
from ..framework import NodeInfo
from ..scheduler import Run
from .classes import PodClass, shared_claims
from .dra_node import Block, build_node, prepare
from .patterns import GroupView, Pool
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
    run: Run, classes: list[PodClass], reach: list[Reach], optional: Sequence[str] = (), pooling: bool = True
) -> PlanModel:
    problem = run.problem
    pm = PlanModel(cp_model.CpModel(), problem, run, classes, reach, pool=Pool() if pooling else None)
    for name in optional:
        pm.optional[name] = pm.model.new_bool_var(f"open_{name}")
    opened = list(pm.optional.values())
    for a, b in itertools.pairwise(opened):
        pm.model.add_implication(b, a)  # copies of one template are interchangeable: open them in order
    for node in run.snapshot.nodes:
        _node(pm, node)
    if pm.pool is not None and pm.pool.families:
        pm.pooled = pm.pool.build(pm.model, {c.index: c.count for c in classes})
    for cls in classes:
        pm.model.add(pm.placed(cls) <= cls.count)
    gangs(pm)
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
            prep = (
                prepare(problem, view, problem.in_use, cls, most)
                if view is not None
                else "cannot allocate all claims"
            )
            if isinstance(prep, str):
                pm.why_not.setdefault(cls.index, {})[node.name] = prep
                continue
            block = prep
            most = min(most, prep.bound)
        entries.append((cls, most, block))
    if _pooled(pm, node, entries):
        return
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
    if blocks:
        counts = {b.cls.index: pm.count[(b.cls.index, node.name)] for b in blocks}
        try:
            pm.dra[node.name] = (build_node(pm.model, node.name, blocks, counts), blocks)
        except AmountsTooLarge as e:
            # No exact 64-bit model of this node's devices: its pods with claims go elsewhere (the
            # constraints added so far hold with none of them here).
            for index, var in counts.items():
                pm.model.add(var == 0)
                pm.why_not.setdefault(index, {})[node.name] = f"{e} do not fit CP-SAT's 64-bit integers"


def _pooled(pm: PlanModel, node: NodeInfo, entries: list[tuple[PodClass, int, Block | None]]) -> bool:
    """Plan the node's GPUs by patterns (patterns.py) when nothing but its devices can bind there."""
    pool = pm.pool
    if pool is None or not entries or node.name in pm.optional:
        return False
    blocks = [b for _, _, b in entries if b is not None]
    if len(blocks) != len(entries) or any(interacts(c.pod) or c.pod.ports for c, _, _ in entries):
        return False
    groups = pool.signature_groups(pm.problem, blocks)
    if groups is None:
        return False
    found = [pool.patterns(view) for view in groups]
    if any(p is None for p in found) or not _slack(pm, node, groups, found):
        return False
    for view, patterns in zip(groups, found, strict=True):
        assert patterns is not None
        pool.add(view.signature, view.group, view.keys, patterns)
    return True


def _slack(pm: PlanModel, node: NodeInfo, groups: list[GroupView], found: list[Any]) -> bool:
    """Whether the node's resources hold whatever patterns its GPUs take (then they never bind)."""
    allocatable = node.node.allocatable
    if not allocatable:
        return True
    worst: dict[str, int] = {}
    for view, patterns in zip(groups, found, strict=True):
        most: dict[str, int] = {}
        for pattern in patterns:
            use: dict[str, int] = {"pods": sum(pattern.counts)}
            for key, n in zip(view.keys, pattern.counts, strict=True):
                reach = pm.reach[key[0]]
                if reach.checks is None:
                    use.pop("pods", None)
                    continue
                for resource, amount in reach.checks:
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
