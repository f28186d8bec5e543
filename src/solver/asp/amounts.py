"""Amounts (counters, capacity) as clingo can compare them.

Clingo's integers are 32-bit. The amounts of one counter or capacity are scaled together to small
integers (sums and comparisons keep their meaning); where even that does not fit, the rules get the
minimal sets of picks that overdraw the amount instead, computed here exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

# Beyond this, sums no longer fit clingo's integers; overdraw sets are enumerated for up to
# MAX_SUBSET_ITEMS picks (beyond, the engine gives up: TooLarge).
MAX_AMOUNT = 2**31 - 1
MAX_SUBSET_ITEMS = 16


class TooLarge(Exception):
    """Amounts that do not fit clingo's integers even after scaling."""


def scaled(amounts: Sequence[Fraction]) -> list[int] | None:
    """The amounts times one factor that makes them integers, divided by their common divisor: sums and
    comparisons between them keep their meaning and the numbers stay small. None when they do not fit
    clingo's integers."""
    factor = math.lcm(*(a.denominator for a in amounts))
    ints = [int(a * factor) for a in amounts]
    divisor = math.gcd(*ints) or 1
    out = [i // divisor for i in ints]
    return None if sum(abs(v) for v in out) > MAX_AMOUNT else out


def overdraws(left: Fraction, amounts: Sequence[Fraction]) -> list[list[int]]:
    """The minimal sets of items (by index) whose amounts together exceed `left` (amounts are never
    negative, so a set is minimal when dropping its smallest item brings it within)."""
    if left < 0:
        return [[]]
    if len(amounts) > MAX_SUBSET_ITEMS:
        raise TooLarge(f"{len(amounts)} picks share amounts beyond clingo's integers")
    out = []
    for mask in range(1, 1 << len(amounts)):
        members = [i for i in range(len(amounts)) if mask >> i & 1]
        total = sum((amounts[i] for i in members), Fraction(0))
        if total > left and total - min(amounts[i] for i in members) <= left:
            out.append(members)
    return out
