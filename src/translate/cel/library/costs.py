"""Cost models the libraries share, with cel-go's float arithmetic.

Each overload's cost is what cel-go (or the Kubernetes estimator) charges for the
call itself: for these functions that replaces the unit charge of a plain call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..registry import Costs

STRING_TRAVERSAL_COST = 0.1
REGEX_LENGTH_COST = 0.25


def traversal(n: int, factor: float = STRING_TRAVERSAL_COST) -> int:
    """cel-go's `ceil(size * factor)`, with the same float arithmetic."""
    return math.ceil(float(n) * factor)


def regex_cost(text_len: int, regex_len: int) -> int:
    """The cost of running a regex of a given length over a text of a given length."""
    return traversal(1 + text_len) * traversal(regex_len, REGEX_LENGTH_COST)


def arg_len(args: Sequence[Any], i: int) -> int:
    """The size of argument i: the length of a string, bytes, list or map; 1 for a scalar."""
    value = args[i] if i < len(args) else ""
    return len(value) if isinstance(value, (str, bytes, list, dict)) else 1


def size_at(sizes: Sequence[int], i: int) -> int:
    """The estimated size of argument i."""
    return sizes[i] if i < len(sizes) else 0


# A constant charge of one unit, which the estimate cannot exceed either.
UNIT = Costs(lambda args: 1, lambda sizes: 1)

# cel-go's equality and string ordering: a walk over the shorter operand.
SHORTER_OPERAND = Costs(
    lambda args: traversal(min(arg_len(args, 0), arg_len(args, 1))),
    lambda sizes: traversal(min(size_at(sizes, 0), size_at(sizes, 1))),
)

# cel-go's string and bytes concatenation: copying both operands.
BOTH_OPERANDS = Costs(
    lambda args: traversal(arg_len(args, 0) + arg_len(args, 1)),
    lambda sizes: traversal(size_at(sizes, 0) + size_at(sizes, 1)),
)

# One pass over the first argument (a string).
TRAVERSAL = Costs(lambda args: traversal(arg_len(args, 0)), lambda sizes: traversal(size_at(sizes, 0)))

# Two passes over the first argument: reading it and building (or re-reading) a result as long.
DOUBLE_TRAVERSAL = Costs(
    lambda args: traversal(arg_len(args, 0), 2 * STRING_TRAVERSAL_COST),
    lambda sizes: traversal(size_at(sizes, 0), 2 * STRING_TRAVERSAL_COST),
)

# A regex (the second argument) run over a text (the first).
REGEX = Costs(
    lambda args: regex_cost(arg_len(args, 0), arg_len(args, 1)),
    lambda sizes: regex_cost(size_at(sizes, 0), size_at(sizes, 1)),
)
