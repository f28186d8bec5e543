"""Finding preemption candidates (DryRunPreemption) and picking one (pickOneNodeForPreemption).

The dry run visits the potential nodes from an offset, wrapping around, and stops once it holds at
least one candidate without budget violations and, in all, as many candidates as the arguments ask
for; each kind is kept up to that number (upstream's bounded lists drop the rest). Upstream checks
nodes in parallel, so how far past that point it looks varies; kubefit checks them one by one, as
upstream does with parallelism 1.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ....model.cluster.args import DefaultPreemptionArgs
from ....model.cluster.facts import DisruptionBudget, Pod
from ..framework import Code, CycleState, NodeInfo, Status, error
from ..runtime import Framework
from .ordering import earliest_start_of_highest
from .victims import NOTHING_TO_EVICT, may_preempt_on, select_victims

# Priorities are shifted by this before they are summed, so that every term is positive.
PRIORITY_SHIFT = 1 << 31


@dataclass(frozen=True)
class Candidate:
    """A node where the preemptor fits once `victims` (most important first) are gone."""

    node: str
    victims: tuple[Pod, ...]
    pdb_violations: int = 0


@dataclass
class DryRun:
    """Candidates without budget violations first; the statuses of the nodes that cannot help; the
    messages of the nodes that failed with an error."""

    candidates: list[Candidate] = field(default_factory=list)
    statuses: dict[str, Status] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def candidate_count(args: DefaultPreemptionArgs, num_nodes: int) -> int:
    """calculateNumCandidates: the percentage of the nodes, at least the absolute minimum, at most all."""
    wanted = max(num_nodes * args.min_candidate_nodes_percentage // 100, args.min_candidate_nodes_absolute)
    return min(wanted, num_nodes)


def offset_of(num_nodes: int, rng: random.Random | None) -> int:
    """Where the dry run starts: random as upstream's rand.Int31n, 0 without a random source."""
    return rng.randrange(num_nodes) if rng is not None else 0


def dry_run(
    framework: Framework,
    state: CycleState,
    pod: Pod,
    potential: Sequence[NodeInfo],
    budgets: Sequence[DisruptionBudget],
    offset: int,
    wanted: int,
    nominated: Callable[[str], list[Pod]],
) -> DryRun:
    out = DryRun()
    clean: list[Candidate] = []
    violating: list[Candidate] = []
    n = len(potential)
    for i in range(n):
        node = potential[(offset + i) % n]
        if not may_preempt_on(node, pod):
            # select_victims' answer, without copying the node and the cycle state first: most nodes
            # hold no pod of a lower priority than a pod of the lowest.
            out.statuses[node.name] = NOTHING_TO_EVICT
            continue
        chosen = select_victims(framework, state.clone(), pod, node.clone(), budgets, nominated(node.name))
        status = chosen.status
        if status is None and chosen.victims:
            kept = clean if chosen.pdb_violations == 0 else violating
            if len(kept) < wanted:
                kept.append(Candidate(node.name, chosen.victims, chosen.pdb_violations))
            if clean and len(clean) + len(violating) >= wanted:
                break
            continue
        if status is None:
            status = error(f'expected at least one victim pod on node "{node.name}"')
        if status.code == Code.ERROR:
            out.errors.append(status.message)
        out.statuses[node.name] = status
    out.candidates = clean + violating
    return out


def aggregate(messages: Sequence[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated in brackets."""
    unique = list(dict.fromkeys(messages))
    if len(messages) == 1 or len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


def _fewest_violations(c: Candidate) -> int:
    return -c.pdb_violations


def _lowest_highest_priority(c: Candidate) -> int:
    return -c.victims[0].priority


def _smallest_priority_sum(c: Candidate) -> int:
    return -sum(v.priority + PRIORITY_SHIFT for v in c.victims)


def _fewest_victims(c: Candidate) -> int:
    return -len(c.victims)


def _latest_start(c: Candidate) -> int:
    return earliest_start_of_highest(c.victims)


_CRITERIA = (
    _fewest_violations,
    _lowest_highest_priority,
    _smallest_priority_sum,
    _fewest_victims,
    _latest_start,
)


def pick_one(candidates: Sequence[Candidate], rng: random.Random | None) -> Candidate:
    """SelectCandidate / pickOneNodeForPreemption: each criterion keeps the candidates with the best
    score and the first that leaves one decides. Upstream lists the candidates from a map, so the
    final tie goes to a random one; without a random source, to the first found."""
    if len(candidates) == 1:
        return candidates[0]
    remaining = list(candidates)
    for criterion in _CRITERIA:
        best = max(criterion(c) for c in remaining)
        remaining = [c for c in remaining if criterion(c) == best]
        if len(remaining) == 1:
            return remaining[0]
    return rng.choice(remaining) if rng is not None else remaining[0]
