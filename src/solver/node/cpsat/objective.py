"""The criteria, in the kubelet's own order of importance, as objective terms.

Where the kubelet's answer is a greedy choice, these say what "better" means, most important first:

1. best-effort: merged hints that are preferred (restricted and single-numa-node demand it);
2. narrower merged hints (and, with prefer-closest-numa-nodes, closer ones);
3. distribute-cpus-across-numa: an even split (each NUMA node used gets its share);
4. fewer NUMA nodes per container (CPUs, and memory blocks), then for the pod as a whole;
5. distribute-cpus-across-numa: the free CPUs of all NUMA nodes left as balanced as possible;
6. fewer sockets per container, then for the pod; 7. fewer uncore caches per container;
8. fewer cores per container: the kubelet takes whole free cores before single CPUs, so a core
   split between the container and anything else (a reserved CPU, another container, a free
   sibling) is worse than a whole one (distribute-cpus-across-cores: fewer siblings shared instead;
   full-pcpus-only: right after 3, see whole_cores_first);
9. fewer partially used cores left behind;
10. best fit: the fullest NUMA nodes, uncore caches and memory masks that can take it, so that
   whole domains stay free for later pods — where the kubelet takes the lowest-numbered one;
11. fewer uncore caches for the pod as a whole (sharing a cache inside a pod matters less than
    keeping caches whole for later pods);
12. the lowest masks, as the kubelet's own tie-break; then (a separate, cosmetic stage) the lowest
    CPU ids.

Each function adds one family's auxiliary literals and returns its term with an upper bound.
"""

from __future__ import annotations

from ....model.node.problem import KubeletPolicy
from .. import bitmask
from ..bitmask import all_masks
from .model import BoolVar, Expr, PodModel

Term = tuple[str, Expr, int]

# Terms are folded into one weighted stage only while the combined weight stays this small: a
# stage whose weights multiply into the billions leaves CP-SAT a weak bound to prove (a 256-CPU
# machine never proved its 8e13-valued stage in minutes, while its ten terms one by one took 1.6 s).
MAX_WEIGHT = 2**10


def not_preferred(pm: PodModel) -> Term:
    """Best-effort admits a non-preferred merged hint, but ranks it below every preferred one."""
    lits = list(pm.preferred.values())
    return "not-preferred", len(lits) - sum(lits), len(lits)


def hint_width(pm: PodModel) -> list[Term]:
    """The topology manager takes the narrowest merged hint (by mean NUMA distance first with
    prefer-closest-numa-nodes, which single-numa-node ignores)."""
    width = sum(bitmask.count(m) * v for row in pm.merged.values() for m, v in row.items())
    terms: list[Term] = [("hint-width", width, len(pm.merged) * len(pm.nodes))]
    policy = pm.admitter.policy
    if policy.prefer_closest_numa and pm.policy != "single-numa-node" and pm.merged:
        numa = pm.admitter.numa
        ranks = {d: i for i, d in enumerate(sorted({numa.average_distance(m) for m in all_masks(pm.nodes)}))}
        expr = sum(ranks[numa.average_distance(m)] * v for row in pm.merged.values() for m, v in row.items())
        terms.append(("hint-distance", expr, len(pm.merged) * len(ranks)))
    return terms


def _group(pm: PodModel) -> int:
    cpu = pm.admitter.cpu
    return pm.topo.cpus_per_core if cpu is not None and cpu.full_pcpus else 1


def _distributed(pm: PodModel) -> list[int]:
    """Slots the NUMA-distributed algorithm would serve (their request a multiple of the group)."""
    if not pm.admitter.policy.option("distribute-cpus-across-numa"):
        return []
    g = _group(pm)
    return [s.index for s in pm.view.exclusive if s.fixed_cpus is None and s.cpus % g == 0]


def unbalanced(pm: PodModel) -> Term:
    """distribute-cpus-across-numa: over k NUMA nodes, each gets at least floor(N / k / g) * g CPUs
    (g = CPUs per core with full-pcpus-only, else 1), as the kubelet's qualifying combinations do."""
    g = _group(pm)
    topo = pm.topo
    misses: list[BoolVar] = []
    for slot in _distributed(pm):
        s = pm.view.slots[slot]
        touched = pm.touch(slot, "numa")
        counts = {n: sum(v for c, v in pm.x[slot].items() if topo.of(c, "numa") == n) for n in touched}
        options = []
        for k in range(1, len(touched) + 1):
            share = s.cpus // k // g * g
            if share < g:
                break
            pick = pm.bool(f"spread_{s.name}_{k}")
            pm.model.add(sum(touched.values()) == k).only_enforce_if(pick)
            for n, t in touched.items():
                pm.model.add(counts[n] >= share).only_enforce_if([pick, t])
            options.append(pick)
        miss = pm.bool(f"unbalanced_{s.name}")
        pm.model.add_exactly_one([*options, miss])
        misses.append(miss)
    return "unbalanced", sum(misses), len(misses)


def numa_count(pm: PodModel) -> Term:
    """Fewer NUMA nodes per container: its CPUs, and the width of its memory blocks."""
    cpu = [v for s in pm.view.exclusive if s.fixed_cpus is None for v in pm.touch(s.index, "numa").values()]
    memory = [bitmask.count(m) * v for row in pm.block.values() for m, v in row.items()]
    bound = len(pm.view.exclusive) * len(pm.nodes) + len(pm.block) * len(pm.nodes)
    return "numa-nodes", sum(cpu) + sum(memory), bound


def pod_domains(pm: PodModel, level: str) -> Term:
    """With several containers: fewer NUMA nodes (sockets, uncore caches) for the pod as a whole, so
    that its containers stay close together."""
    slots = [s.index for s in pm.view.exclusive if s.fixed_cpus is None]
    if len(slots) < 2:
        return f"pod-{level}s", 0, 0
    union: dict[int, list[BoolVar]] = {}
    for s in slots:
        for d, v in pm.touch(s, level).items():
            union.setdefault(d, []).append(v)
    lits = []
    for d, vs in sorted(union.items()):
        u = pm.bool(f"pod_touch_{level}{d}")
        for v in vs:
            pm.model.add_implication(v, u)
        lits.append(u)
    return f"pod-{level}s", sum(lits), len(lits)


def balance(pm: PodModel) -> Term:
    """distribute-cpus-across-numa: the sum of squares of the free CPUs left per NUMA node, which
    (the total being fixed) orders allocations as their standard deviation does."""
    slots = _distributed(pm)
    if not slots:
        return "balance", 0, 0
    topo = pm.topo
    squares = []
    bound = 0
    held = _taken(pm)  # a CPU reused by a later container of the pod counts once
    for n in pm.nodes:
        free = len(pm.view.available & topo.cpus_in("numa", (n,)))
        taken = [v for c, v in held.items() if topo.of(c, "numa") == n and c in pm.view.available]
        left = pm.model.new_int_var(0, free, f"left_numa{n}")
        pm.model.add(left == free - sum(taken))
        square = pm.model.new_int_var(0, free * free, f"left2_numa{n}")
        pm.model.add_multiplication_equality(square, [left, left])
        squares.append(square)
        bound += free * free
    return "balance", sum(squares), bound


def domains(pm: PodModel, level: str) -> Term:
    """Fewer sockets (or uncore caches) per container."""
    lits = [v for s in pm.view.exclusive if s.fixed_cpus is None for v in pm.touch(s.index, level).values()]
    return f"{level}s", sum(lits), len(lits)


def cores(pm: PodModel) -> Term:
    """Fewer cores per container, so that its CPUs are whole cores wherever whole cores are free
    (with distribute-cpus-across-cores the kubelet spreads instead; partial_cores measures that)."""
    if pm.admitter.policy.option("distribute-cpus-across-cores"):
        return "cores", 0, 0
    threads = max((len(pm.topo.cpus_in("core", (c,))) for c in pm.topo.ids("core")), default=1)
    lits: list[BoolVar] = []
    for s in pm.view.exclusive:
        if s.fixed_cpus is None:
            row = list(pm.touch(s.index, "core").values())
            # Implied, but it lets CP-SAT prove at once that whole cores are the best there is (without
            # it a 64-CPU full-pcpus-only node took two seconds where it now takes fifty milliseconds).
            pm.model.add(sum(row) >= -(-s.cpus // threads))
            lits += row
    return "cores", sum(lits), len(lits)


def _taken(pm: PodModel) -> dict[int, BoolVar]:
    """Per CPU: some container of the pod takes it."""
    if pm.taken is not None:
        return pm.taken
    holders: dict[int, list[BoolVar]] = {}
    for s in pm.view.exclusive:
        if s.fixed_cpus is None:
            for c, v in pm.x[s.index].items():
                holders.setdefault(c, []).append(v)
    out: dict[int, BoolVar] = {}
    for c, lits in holders.items():
        if len(lits) == 1:
            out[c] = lits[0]
        else:
            out[c] = pm.bool(f"taken_{c}")
            pm.model.add_max_equality(out[c], lits)
    pm.taken = out
    return out


def partial_cores(pm: PodModel) -> Term:
    """Fewer cores left partly used: a core some of whose threads stay free while others are held
    cannot serve a later full-core or sibling-free request (the kubelet fills such cores first)."""
    if pm.admitter.policy.option("distribute-cpus-across-cores"):
        return _shared_siblings(pm)
    taken = _taken(pm)
    topo = pm.topo
    terms: list[Expr] = []
    for core in sorted(topo.levels_of(taken, "core")):
        threads = topo.cpus_in("core", (core,))
        if len(threads) < 2:
            continue
        free = sorted(threads & pm.view.available)
        full = pm.bool(f"core_full_{core}")
        for c in free:
            if c in taken:
                pm.model.add_implication(full, taken[c])
            else:
                pm.model.add(full == 0)
        if len(free) < len(threads):
            terms.append(1 - full)  # held already: partial unless the rest is taken now
        else:
            partial = pm.bool(f"core_partial_{core}")
            for c in free:
                if c in taken:
                    pm.model.add(partial >= taken[c] - full)
            terms.append(partial)
    return "partial-cores", sum(terms), len(terms)


def _shared_siblings(pm: PodModel) -> Term:
    """distribute-cpus-across-cores: a container's CPUs on as many different cores as possible."""
    topo = pm.topo
    extra: list[Expr] = []
    bound = 0
    for s in pm.view.exclusive:
        if s.fixed_cpus is not None:
            continue
        by_core: dict[int, list[BoolVar]] = {}
        for c, v in pm.x[s.index].items():
            by_core.setdefault(topo.of(c, "core"), []).append(v)
        for core, lits in sorted(by_core.items()):
            if len(lits) < 2:
                continue
            used = pm.bool(f"core_used_{s.name}_{core}")
            pm.model.add(used <= sum(lits))
            extra.append(sum(lits) - used)
            bound += len(lits) - 1
    return "shared-siblings", sum(extra), bound


def best_fit(pm: PodModel) -> Term:
    """Prefer the NUMA nodes and uncore caches with the fewest free CPUs, and the memory masks with
    the least free memory, that still take the request."""
    topo = pm.topo
    expr: list[Expr] = []
    bound = 0
    for level in ("numa", "uncore"):
        free = {d: len(pm.view.available & topo.cpus_in(level, (d,))) for d in topo.ids(level)}
        for s in pm.view.exclusive:
            if s.fixed_cpus is None:
                for d, v in pm.touch(s.index, level).items():
                    expr.append(free[d] * v)
                    bound += free[d]
    from .memory import free as memory_free

    for row in pm.block.values():
        ranks = {f: i for i, f in enumerate(sorted({memory_free(pm, m, "memory") for m in row}))}
        for m, v in row.items():
            expr.append(ranks[memory_free(pm, m, "memory")] * v)
        bound += len(ranks)
    return "best-fit", sum(expr), bound


def lowest_masks(pm: PodModel) -> Term:
    """The kubelet's tie-break between equally good masks: the numerically lowest."""
    rows = [*pm.merged.values(), *pm.block.values()]
    expr = sum(m * v for row in rows for m, v in row.items())
    return "lowest-masks", expr, sum(max(row, default=0) for row in rows)


def lowest_cpus(pm: PodModel) -> Term:
    """Cosmetic: among equally good CPU sets, the lowest CPU ids."""
    expr = []
    bound = 0
    for s in pm.view.exclusive:
        if s.fixed_cpus is None:
            ranked = sorted(pm.x[s.index])
            expr += [i * pm.x[s.index][c] for i, c in enumerate(ranked)]
            bound += sum(range(len(ranked) - s.cpus, len(ranked)))
    return "lowest-cpus", sum(expr), bound


def whole_cores_first(policy: KubeletPolicy) -> bool:
    """full-pcpus-only ranks whole cores right after the hint: that is what the option asks for, and
    the kubelet's packing of a request of whole cores' worth ends on part of a core only where the NUMA
    alignment cuts one (or no whole cores are left)."""
    return policy.option("full-pcpus-only") and not policy.option("distribute-cpus-across-cores")


def criteria(pm: PodModel) -> list[Term]:
    first = whole_cores_first(pm.admitter.policy)
    terms: list[Term] = [not_preferred(pm), *hint_width(pm), unbalanced(pm)]
    terms += [cores(pm)] if first else []
    terms += [numa_count(pm), pod_domains(pm, "numa"), balance(pm)]
    terms += [domains(pm, "socket"), pod_domains(pm, "socket"), domains(pm, "uncore")]
    terms += [] if first else [cores(pm)]
    terms += [
        partial_cores(pm),
        best_fit(pm),
        pod_domains(pm, "uncore"),
        lowest_masks(pm),
    ]
    return [t for t in terms if t[2] > 0]


def stages(terms: list[Term]) -> list[tuple[list[str], Expr, int]]:
    """Lexicographic terms folded into as few weighted objectives as stay exact (mixed radix)."""
    out: list[tuple[list[str], Expr, int]] = []
    current: list[Term] = []

    def close() -> None:
        if not current:
            return
        weight = 1
        parts: list[Expr] = []
        for _name, e, bound in reversed(current):
            parts.append(weight * e)
            weight *= bound + 1
        expr: Expr = sum(parts)
        out.append(([n for n, _, _ in current], expr, weight - 1))
        current.clear()

    total = 1
    for term in terms:
        if current and total * (term[2] + 1) > MAX_WEIGHT:
            close()
            total = 1
        current.append(term)
        total *= term[2] + 1
    close()
    return out
