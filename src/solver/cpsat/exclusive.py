"""Who may pick a device twice in one Allocate call."""

from __future__ import annotations

from .model import Literal, NodeModel


def exclusive_devices(nm: NodeModel) -> None:
    """A device that is not multi-allocatable serves one request per claim, and a normal request never
    takes a device an earlier claim of the call picked; admin access may reuse it across claims."""
    for d, uses in nm.uses_of.items():
        if d in nm.facts.multi or len(uses) < 2:
            continue
        by_claim: dict[int, list[tuple[bool, Literal]]] = {}
        for s, lit in uses:
            by_claim.setdefault(s.claim, []).append((s.admin, lit))
        for items in by_claim.values():
            if len(items) > 1:
                nm.model.add_at_most_one(lit for _, lit in items)
        claims = sorted(by_claim)
        for i, c in enumerate(claims):
            for admin, lit in by_claim[c]:
                if admin:
                    continue
                for earlier in claims[:i]:
                    for _, other in by_claim[earlier]:
                        nm.model.add_bool_or([lit.negated(), other.negated()])
