"""Exact amounts (Fractions) as the small integers CP-SAT needs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction


def integral(values: Sequence[Fraction]) -> list[int]:
    """The values times one common factor that makes them integers, divided by their common divisor,
    so that comparisons and sums between them keep their meaning and the numbers stay small."""
    scale = math.lcm(*(v.denominator for v in values)) if values else 1
    ints = [int(v * scale) for v in values]
    divisor = math.gcd(*ints) if ints else 1
    return [i // divisor for i in ints] if divisor > 1 else ints
