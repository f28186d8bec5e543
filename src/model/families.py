"""The DRA allocator's constraint families, each named once for every engine and check.

A family is one rule of the structured allocator (how many devices a request gets, shared counters,
compatibility groups, ...). Each place that enforces or reports it keys it by `Family`:

- cpsat: `solver.cpsat.build.FAMILIES`, one constraint function per family;
- asp: the violation names in `rules/*.lp` (`Family.rules`; the first is the relaxable group an
  explanation names, and the prefix of explain's reason id: `need/claim/request`);
- the Solution validator: the violation kind, which is the family's value (a stable identifier that
  is printed, so the values never change);
- explain: the reason for a violation group (`Family.of_rule`).

Families the engines settle per (slot, device) pair before any search (selectors, admin access) have no
violation in the rules, only facts.
"""

from __future__ import annotations

from enum import StrEnum


class Family(StrEnum):
    PRIORITIZED = "subrequest"  # one subrequest of a firstAvailable request, its results named for it
    COUNT = "count"  # ExactCount picks exactly its count, All mode its whole frozen list
    RESULT_LIMIT = "result-limit"  # no more results in one claim than AllocationResultsMaxSize
    SELECTORS = "selectable"  # the class's and request's selectors accept the device
    ADMIN_ACCESS = "admin-access"  # adminAccess results: their flag, and reuse within a claim
    EXCLUSIVE = "exclusive"  # a device is given once, never one that is already in use
    TAINTS = "taint"  # no untolerated NoSchedule / NoExecute device taint
    NODE = "node"  # the device (and an allocated claim) is usable from the node
    COUNTERS = "counters"  # partitionable devices stay within their pool's shared counters
    COMPATIBILITY_GROUPS = "compatibility-groups"  # devices on one counter set share a group
    CAPACITY = "capacity"  # consumable capacity: share flags, amounts, request policy, totals
    ATTRIBUTES = "constraint"  # matchAttribute / distinctAttribute

    @property
    def rules(self) -> tuple[str, ...]:
        """Its violation names in `rules/*.lp` (`violated(need(C, R))` is COUNT's `need`)."""
        return _RULES.get(self, ())

    @property
    def rule(self) -> str:
        """The violation group an explanation relaxes and names (explain's reason id prefix)."""
        return self.rules[0]

    @classmethod
    def of_rule(cls, name: str) -> Family | None:
        """The family of a violation named in the rules, if any."""
        return _BY_RULE.get(name)


_RULES: dict[Family, tuple[str, ...]] = {
    Family.COUNT: ("need",),
    Family.RESULT_LIMIT: ("limit",),
    Family.EXCLUSIVE: ("held", "twice"),
    Family.TAINTS: ("taint",),
    Family.NODE: ("unreachable", "node_selector"),
    Family.COUNTERS: ("counter",),
    Family.COMPATIBILITY_GROUPS: ("groups",),
    Family.CAPACITY: ("capacity",),
    Family.ATTRIBUTES: ("constraint",),
}
_BY_RULE = {name: family for family, names in _RULES.items() for name in names}
