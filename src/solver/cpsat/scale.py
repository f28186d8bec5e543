"""Exact amounts (Fractions) as the small integers CP-SAT needs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

# CP-SAT's coefficients are 64-bit, and it refuses a linear constraint whose terms could overflow.
LIMIT = 1 << 62


class AmountsTooLarge(ValueError):
    """Exact amounts that no 64-bit model can hold (capacities like 1e30 beside requests like 1n)."""


def integral(values: Sequence[Fraction]) -> list[int]:
    """The values times one common factor that makes them integers, divided by their common divisor,
    so that comparisons and sums between them keep their meaning and the numbers stay small."""
    scale = math.lcm(*(v.denominator for v in values)) if values else 1
    ints = [int(v * scale) for v in values]
    divisor = math.gcd(*ints) if ints else 1
    out = [i // divisor for i in ints] if divisor > 1 else ints
    if sum(abs(i) for i in out) > LIMIT:
        raise AmountsTooLarge(f"amounts from {min(values)} to {max(values)} in one constraint")
    return out
