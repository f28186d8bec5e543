"""What the plan prefers once the most pods (by priority) are placed: `pack` (fewest GPUs / counter sets
and devices newly touched, then fewest nodes), `spread` (the fewest new pods on the busiest node), or
`scheduler` (the highest sum of kube-scheduler's own scores for each pod on its node, as the cluster
stands before the plan)."""

from __future__ import annotations

from ortools.sat.python import cp_model

from .model import PlanModel

OBJECTIVES = ("pack", "spread", "scheduler")


def placement_levels(pm: PlanModel) -> list[tuple[int, cp_model.LinearExprT]]:
    """(priority, pods of that priority placed), highest priority first."""
    levels: dict[int, list[cp_model.LinearExprT]] = {}
    for cls in pm.classes:
        levels.setdefault(cls.priority, []).append(pm.placed(cls))
    return [(p, sum(levels[p])) for p in sorted(levels, reverse=True)]


def secondary(pm: PlanModel, name: str) -> tuple[cp_model.LinearExprT, bool]:
    """(expression, maximize) of the named objective."""
    if name == "spread":
        return _spread(pm), False
    if name == "scheduler":
        return _scores(pm), True
    return _pack(pm), False


def _nodes_touched(pm: PlanModel) -> list[cp_model.IntVar]:
    m = pm.model
    out = []
    for node in pm.nodes():
        used = m.new_bool_var(f"touched_{node}")
        for cls, v in pm.on_node(node):
            m.add(v <= pm.bounds[(cls.index, node)] * used)
        out.append(used)
    return out


def _devices_touched(pm: PlanModel) -> list[cp_model.IntVar]:
    """Per node: a literal per counter set the plan draws on that nothing drew on before, and per device
    outside counter sets the plan takes."""
    m = pm.model
    out: list[cp_model.IntVar] = []
    in_use = pm.problem.in_use
    devices = pm.problem.devices
    for node, (nm, _) in pm.dra.items():
        busy: set[tuple[str, str]] = set()
        for pool in nm.facts.view.pools:
            for d in pool.counter_devices or pool.devices:
                if in_use.allocated(devices[d].ref):
                    busy.update((pool.ref, u.counter_set) for u in devices[d].consumes)
        sets: dict[tuple[str, str], list[int]] = {}
        for d in nm.uses_of:
            device = devices[d]
            if not device.consumes:
                out.append(nm.picked(d))
                continue
            for use in device.consumes:
                key = (nm.facts.pool_of[d].ref, use.counter_set)
                if key not in busy:
                    sets.setdefault(key, []).append(d)
        for (ref, name), members in sets.items():
            touched = m.new_bool_var(f"set_{node}_{ref}_{name}")
            for d in members:
                m.add_implication(nm.picked(d), touched)
            out.append(touched)
    return out


def _pack(pm: PlanModel) -> cp_model.LinearExprT:
    nodes = _nodes_touched(pm)
    devices: list[cp_model.LinearExprT] = [*_devices_touched(pm), *(pm.pool.touched() if pm.pool else ())]
    return (len(nodes) + 1) * cp_model.LinearExpr.sum(devices) + cp_model.LinearExpr.sum(nodes)


def _spread(pm: PlanModel) -> cp_model.LinearExprT:
    m = pm.model
    busiest = m.new_int_var(0, sum(c.count for c in pm.classes), "busiest")
    for node in pm.nodes():
        m.add(sum(v for _, v in pm.on_node(node)) <= busiest)
    return busiest


def _scores(pm: PlanModel) -> cp_model.LinearExprT:
    return sum(pm.reach[c].scores.get(n, 0) * v for (c, n), v in pm.count.items())
