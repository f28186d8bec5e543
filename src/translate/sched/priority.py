"""Pod priority as the Priority admission plugin resolves it: spec.priority when the pod was stored,
else the value of its PriorityClass (or the global default class, or 0), and its preemption policy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..kube import ObjectSet

# The built-in classes every cluster has (scheduling.SystemPriorityClasses).
SYSTEM_CLASSES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
PREEMPT_LOWER = "PreemptLowerPriority"


@dataclass(frozen=True)
class Priority:
    value: int
    preemption_policy: str = PREEMPT_LOWER
    error: str = ""  # the class is unknown: the API server would refuse the pod


class Priorities:
    def __init__(self, objects: ObjectSet) -> None:
        self.classes: dict[str, Any] = {o.name: o.model for o in objects.of_kind("PriorityClass")}
        default = [m for m in self.classes.values() if getattr(m, "global_default", False)]
        # Several global defaults: the API refuses the second; the lowest value wins as admission picks it.
        self.default = min(default, key=lambda m: m.value) if default else None

    def of(self, pod: Any) -> Priority:
        spec = pod.spec
        name = spec.priority_class_name or ""
        cls = self.classes.get(name) if name else self.default
        policy = spec.preemption_policy or (
            getattr(cls, "preemption_policy", None) if cls is not None else None
        )
        policy = policy or PREEMPT_LOWER
        if spec.priority is not None:
            return Priority(spec.priority, policy)
        if name and cls is None:
            if name in SYSTEM_CLASSES:
                return Priority(SYSTEM_CLASSES[name], policy)
            return Priority(0, policy, f"no PriorityClass with name {name} was found")
        return Priority(int(cls.value) if cls is not None else 0, policy)
