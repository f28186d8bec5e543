"""The topology manager's policies (topologymanager/policy*.go): how the hints of every resource
are merged into one NUMA affinity, and whether the pod may be admitted with it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product

from . import bitmask
from .bitmask import Hint

# One provider's answer: None = no preference at all; otherwise per resource a list of hints,
# where None means "no preference for this resource" and [] means "cannot be satisfied".
ProviderHints = Mapping[str, Sequence[Hint] | None] | None


@dataclass(frozen=True)
class NUMAInfo:
    nodes: tuple[int, ...]
    distances: Mapping[int, Sequence[int]]

    @property
    def default_mask(self) -> int:
        return bitmask.mask_of(self.nodes)

    def average_distance(self, mask: int) -> float:
        """Mean SLIT distance over every ordered pair of the mask's nodes (a node with itself too)."""
        nodes = bitmask.bits(mask)
        if not nodes:
            return 0.0
        total = 0
        for a in nodes:
            row = self.distances.get(a, ())
            for b in nodes:
                total += row[b] if b < len(row) else 0
        return total / (len(nodes) * len(nodes))


def collect(providers: Sequence[ProviderHints]) -> list[list[Hint]]:
    """Every resource's hint list, a provider without preference as one {any, preferred}."""
    out: list[list[Hint]] = []
    for hints in providers:
        if not hints:
            out.append([Hint(None, True)])
            continue
        for resource in sorted(hints):
            resource_hints = hints[resource]
            if resource_hints is None:
                out.append([Hint(None, True)])
            elif not resource_hints:
                out.append([Hint(None, False)])
            else:
                out.append(list(resource_hints))
    return out


def _merge_permutation(default: int, permutation: Sequence[Hint]) -> Hint:
    preferred = True
    masks = [h.mask for h in permutation if h.mask is not None]
    merged = default
    for h in permutation:
        if h.mask is not None:
            merged &= h.mask
            if h.mask != masks[0]:
                preferred = False
        if not h.preferred:
            preferred = False
    return Hint(merged, preferred)


class Merger:
    def __init__(self, numa: NUMAInfo, hints: list[list[Hint]], closest: bool) -> None:
        self.numa = numa
        self.hints = hints
        self.closest = closest
        # The widest of every resource's narrowest hint: what a non-preferred answer aims at.
        self.best_non_preferred = 0
        for resource_hints in hints:
            narrowest: int | None = None
            for h in resource_hints:
                if h.mask is not None and (narrowest is None or bitmask.narrower(h.mask, narrowest)):
                    narrowest = h.mask
            if narrowest is not None:
                self.best_non_preferred = max(self.best_non_preferred, bitmask.count(narrowest))

    def _better_mask(self, current: int, candidate: int) -> bool:
        if self.closest:
            a, b = self.numa.average_distance(current), self.numa.average_distance(candidate)
            if b != a:
                return b < a
        return bitmask.narrower(candidate, current)

    def _compare(self, current: Hint | None, candidate: Hint) -> Hint | None:
        assert candidate.mask is not None
        if bitmask.count(candidate.mask) == 0:
            return current
        if current is None:
            return candidate
        assert current.mask is not None
        if current.preferred != candidate.preferred:
            return candidate if candidate.preferred else current
        if current.preferred:
            return candidate if self._better_mask(current.mask, candidate.mask) else current
        target = self.best_non_preferred
        cur, cand = bitmask.count(current.mask), bitmask.count(candidate.mask)
        if cur > target:
            return candidate if self._better_mask(current.mask, candidate.mask) else current
        if cur == target:
            if cand != target:
                return current
            return candidate if self._better_mask(current.mask, candidate.mask) else current
        if cand > target:
            return current
        if cand == target:
            return candidate
        if cand != cur:
            return candidate if cand > cur else current
        return candidate if self._better_mask(current.mask, candidate.mask) else current

    def merge(self) -> Hint:
        default = self.numa.default_mask
        best: Hint | None = None
        for permutation in product(*self.hints):
            best = self._compare(best, _merge_permutation(default, permutation))
        return best or Hint(default, False)


def merge(
    policy: str, numa: NUMAInfo, providers: Sequence[ProviderHints], closest: bool
) -> tuple[Hint, bool]:
    """The merged hint and whether the policy admits it. `none` has no opinion and always admits."""
    if policy == "none":
        return Hint(None, True), True
    hints = collect(providers)
    if policy == "single-numa-node":
        hints = [
            [h for h in resource if h.preferred and (h.mask is None or bitmask.count(h.mask) == 1)]
            for resource in hints
        ]
        best = Merger(numa, hints, False).merge()
        if best.mask == numa.default_mask:
            best = Hint(None, best.preferred)
        return best, best.preferred
    best = Merger(numa, hints, closest).merge()
    if policy == "restricted":
        return best, best.preferred
    return best, True
