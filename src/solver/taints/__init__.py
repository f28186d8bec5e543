"""`kubefit taints`: DeviceTaintRule status and pod eviction, as kube-controller-manager's device taint
eviction controller decides them.

- `facts`: what the controller reads (published devices, rules, allocated claims, pods);
- `evict`: which pods are evicted, when, and by which taints;
- `status`: the `EvictionInProgress` condition of each rule, the `effect: None` dry run included;
- `render`: the rules and the pods' Events as a `List`, and tables.
"""

from __future__ import annotations

from ...model.taints import EvictionFacts
from .evict import Deadline, PodEviction, TaintSource
from .status import Condition, Report, RuleReport, report

__all__ = [
    "Condition",
    "Deadline",
    "EvictionFacts",
    "PodEviction",
    "Report",
    "RuleReport",
    "TaintSource",
    "report",
]
