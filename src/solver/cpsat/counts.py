"""How many devices each request gets: one alternative per firstAvailable request, ExactCount picks,
All mode's frozen list, and the per-claim result limit."""

from __future__ import annotations

from .model import NodeModel


def one_alternative(nm: NodeModel) -> None:
    """Prioritized lists: exactly one subrequest of a firstAvailable request is allocated."""
    for slots in nm.facts.requests():
        if slots[0].first_available:
            nm.model.add_exactly_one(nm.chosen[s.position] for s in slots)


def device_counts(nm: NodeModel) -> None:
    """ExactCount picks `count` different candidates (combinations, never one device twice in a slot);
    All mode takes its whole frozen list, so one device it cannot take rules the slot out."""
    for s in nm.facts.slots:
        chosen = nm.chosen[s.position]
        if s.impossible or s.count > len(s.candidates):
            nm.model.add(chosen == 0)  # also keeps absurd counts (up to MaxInt64) out of the arithmetic
        elif not s.all_mode:
            picks = [nm.use[(s.position, d)] for d in s.candidates]
            nm.model.add(sum(picks) == s.count * chosen)


def result_limit(nm: NodeModel) -> None:
    """AllocationResultsMaxSize: a claim's alternatives together stay within the limit (the smallest
    always do: the allocator checked that before searching)."""
    limit = nm.facts.problem.max_results
    for claim in range(len(nm.facts.claims)):
        slots = [s for s in nm.facts.slots if s.claim == claim]
        largest: dict[int, int] = {}
        for s in slots:
            largest[s.request] = max(largest.get(s.request, 0), min(s.count, limit + 1))
        if sum(largest.values()) > limit:
            nm.model.add(sum(min(s.count, limit + 1) * nm.chosen[s.position] for s in slots) <= limit)
