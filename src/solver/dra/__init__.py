"""The DRA allocator's shared layer: what every engine reads of one Allocate(node, claims) call.

`AllocatorView` holds the checks the allocator makes before searching and what it works out beside
the search (frozen device lists, selectability, capacity fits, counters and compatibility groups left);
`AllocationError` and `BudgetExceeded` are how it stops short of an answer. Greedy's first-fit search
extends the view; cpsat and asp build their models and facts from it; explain and pools word their
answers with it. No engine reads another engine's internals.
"""

from __future__ import annotations

from .errors import AllocationError, BudgetExceeded
from .shared import GroupState
from .view import AllocatorView, SlotData, admits

__all__ = ["AllocationError", "AllocatorView", "BudgetExceeded", "GroupState", "SlotData", "admits"]
