"""matchAttribute and distinctAttribute over the picks a constraint covers.

With DRAListTypeAttributes every value is a set: match needs one element common to all picks,
distinct needs pairwise-disjoint sets. Without it values are scalars, and a list (or a value of no
kind) only passes as the first pick in search order, and for match only when it stays alone.
"""

from __future__ import annotations

from ...model.problem import AttrValue
from ..attributes import as_set
from .facts import ConstraintFacts
from .model import Literal, NodeModel

Element = tuple[str, int | bool | str]  # (kind, value): values of different kinds never meet


def attribute_constraints(nm: NodeModel) -> None:
    """Each claim constraint over the candidates of the slots it covers."""
    lists = nm.facts.problem.on("ListTypeAttributes")
    for cf in nm.facts.constraints:
        picks = _picks(nm, cf)
        if len(picks) < 2:
            continue
        if cf.kind == "match":
            match_attribute(nm, cf, picks, lists)
        else:
            distinct_attribute(nm, cf, picks, lists)


def _picks(nm: NodeModel, cf: ConstraintFacts) -> list[tuple[Literal, AttrValue, str]]:
    """(literal, value, name) of every candidate pick the constraint covers, in search order."""
    out = []
    for position in cf.slots:
        s = nm.facts.slots[position]
        for d in s.candidates:
            if (position, d) in cf.values:
                out.append((nm.use[(position, d)], cf.values[(position, d)], f"{nm.slot_name(s)}_d{d}"))
    return out


def _elements(value: AttrValue, lists: bool) -> frozenset[Element] | None:
    """A value's elements; None for what only passes as a lone (or first) pick in scalar mode."""
    if lists:
        kind_values = as_set(value)
        assert kind_values is not None  # facts keep only usable values
        kind, values = kind_values
        return frozenset((kind, v) for v in values)
    if value.is_list or value.kind is None:
        return None
    return frozenset((value.kind, v) for v in value.values)


def match_attribute(
    nm: NodeModel, cf: ConstraintFacts, picks: list[tuple[Literal, AttrValue, str]], lists: bool
) -> None:
    """Some element is common to every pick; a scalar-mode oddity allows only a pick that stays alone."""
    m = nm.model
    elements = [_elements(value, lists) for _, value, _ in picks]
    usable = [e for e in elements if e is not None]
    common = frozenset.intersection(*usable) if usable else frozenset()
    odd = [lit for (lit, _, _), e in zip(picks, elements, strict=True) if e is None]
    if not odd and common:
        return  # every pick shares an element: nothing to decide
    name = f"c{nm.facts.claims[cf.claim].id}_k{cf.index}"
    keep: list[Literal] = []
    if odd:
        alone = m.new_bool_var(f"match_{name}_alone")
        m.add(sum(lit for lit, _, _ in picks) <= 1).only_enforce_if(alone)
        for lit in odd:
            m.add_implication(lit, alone)
        keep.append(alone)
    universe = sorted(frozenset().union(*usable), key=repr) if usable else []
    for element in universe:
        holds = m.new_bool_var(f"match_{name}_{element[0]}_{element[1]}")
        for (lit, _, _), e in zip(picks, elements, strict=True):
            if e is None or element not in e:
                m.add_implication(holds, lit.negated())
        keep.append(holds)
    m.add_bool_or(keep)


def distinct_attribute(
    nm: NodeModel, cf: ConstraintFacts, picks: list[tuple[Literal, AttrValue, str]], lists: bool
) -> None:
    """No element is shared by two picks; in scalar mode an odd value may only come first."""
    m = nm.model
    elements = [_elements(value, lists) for _, value, _ in picks]
    holders: dict[Element, list[Literal]] = {}
    for (lit, _, _), e in zip(picks, elements, strict=True):
        for element in e or ():
            holders.setdefault(element, []).append(lit)
    for lits in holders.values():
        if len(lits) > 1:
            m.add(sum(lits) <= 1)
    if not any(e is None for e in elements):
        return
    name = f"c{nm.facts.claims[cf.claim].id}_k{cf.index}"
    earlier: Literal | None = None  # some pick earlier in search order
    for i, ((lit, _, _), e) in enumerate(zip(picks, elements, strict=True)):
        if e is None and earlier is not None:
            m.add_implication(lit, earlier.negated())
        if i + 1 < len(picks):
            after = m.new_bool_var(f"distinct_{name}_before_{i + 1}")
            m.add_implication(lit, after)
            if earlier is not None:
                m.add_implication(earlier, after)
            earlier = after
