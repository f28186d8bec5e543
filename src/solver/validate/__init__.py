"""An engine-independent check that a Solution is consistent with its Problem.

Every engine must obey the same allocator rules, and a slip in one engine's
bookkeeping (counters, capacity, undo on backtracking) only shows up as a wrong
answer. So this package recomputes each rule from the Problem's facts over the
final allocation, never searching and sharing no state code with any engine:
only the common semantics (solver/capacity.py, solver/attributes.py, model/node_selector.py).

Units are checked in order, as the scheduler allocates them: what an earlier unit
allocated is in use for the later ones, on top of `problem.in_use`. Inside a unit
the claims are taken in the unit's order, because the allocator's in-use rules
depend on it (an admin-access pick blocks later non-admin claims of the same
batch, not earlier ones).

Only what any correct engine must respect is checked, not what first-fit would
have picked: which devices, which firstAvailable alternative and which node were
chosen are free, and so are CEL errors on devices a different search order would
have evaluated (only the errors of chosen devices, and of every candidate of an
All request, are certain). Unallocated units are not second-guessed.

Violation kinds (stable identifiers: `model.families.Family`'s values, and `structure`):
    structure             the Solution does not fit the Problem's shape (units, claims, slots, ids)
    node                  wrong node, a device the node cannot use, a shared claim placed elsewhere
    count                 wrong number of devices for a request (ExactCount / All)
    result-limit          more results than AllocationResultsMaxSize in one claim
    subrequest            firstAvailable choice or result naming is wrong
    selectable            a device the slot's selectors do not accept (or the slot is unusable)
    admin-access          the result's adminAccess flag, or an admin device reused within its claim
    exclusive             a device given twice, or one that is already in use
    taint                 an untolerated NoSchedule / NoExecute taint
    counters              a pool's shared counters overdrawn, or counters without the feature
    compatibility-groups  devices on one counter set without a common compatibility group
    capacity              consumable capacity: share flags, consumed amounts, policy, totals
    constraint            matchAttribute / distinctAttribute not satisfied

Each family is checked in its own module: claims.py (counts, subrequests, the result limit), devices.py
(selectors, node, taints, exclusive use, admin access), capacity.py, counters.py (counters and
compatibility groups), constraints.py; units.py walks the Solution unit by unit.
"""

from __future__ import annotations

from .base import Violation
from .units import validate

__all__ = ["Violation", "validate"]
