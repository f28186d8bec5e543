"""Who may pick a device twice in one Allocate call."""

from __future__ import annotations

from .model import Literal, NodeModel


def exclusive_devices(nm: NodeModel) -> None:
    """A device that is not multi-allocatable serves one request per claim, and a normal request never
    takes a device an earlier claim of the call picked; admin access may reuse it across claims.

    Linear in the device's uses (a pod may have a thousand claims): when every use is normal, the device
    serves one of them; otherwise a literal per claim says that some earlier claim picked it (only ever
    forced true, which is all a normal pick needs to see)."""
    m = nm.model
    for d, uses in nm.uses_of.items():
        if d in nm.facts.multi or len(uses) < 2:
            continue
        if not any(s.admin for s, _ in uses):
            m.add_at_most_one(lit for _, lit in uses)
            continue
        by_claim: dict[int, list[tuple[bool, Literal]]] = {}
        for s, lit in uses:
            by_claim.setdefault(s.claim, []).append((s.admin, lit))
        for items in by_claim.values():
            if len(items) > 1:
                m.add_at_most_one(lit for _, lit in items)
        claims = sorted(by_claim)
        earlier: Literal | None = None
        for i, c in enumerate(claims):
            if earlier is not None:
                for admin, lit in by_claim[c]:
                    if not admin:
                        m.add_bool_or([lit.negated(), earlier.negated()])
            if i + 1 == len(claims):
                break
            taken = m.new_bool_var(f"taken_d{d}_before_c{claims[i + 1]}")
            if earlier is not None:
                m.add_implication(earlier, taken)
            for _, lit in by_claim[c]:
                m.add_implication(lit, taken)
            earlier = taken
