"""The `EvictionInProgress` condition the controller writes into each DeviceTaintRule's status.

Upstream: `maybeUpdateRuleStatus`, `countPendingPods` and `countTaintedDevices` in
kubernetes/kubernetes `pkg/controller/devicetainteviction/device_taint_eviction.go`.
Reasons and messages are upstream's, word for word. What kubefit cannot know is left out:
how many pods the controller already evicted since it started ("Completed" and the
"... evicted since starting the controller." sentence need its memory).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model.errors import InputError
from ...model.taints import NO_EXECUTE, NONE, EvictionFacts, TaintRule
from .evict import PodEviction, as_no_execute, pod_evictions

EVICTION_IN_PROGRESS = "EvictionInProgress"
_DRY_RUN_END = (
    "if the effect was NoExecute. This information will not be updated again. "
    "Recreate the DeviceTaintRule to trigger an update."
)


@dataclass(frozen=True)
class Condition:
    status: str  # "True" | "False"
    reason: str
    message: str
    type: str = EVICTION_IN_PROGRESS


@dataclass(frozen=True)
class RuleReport:
    rule: TaintRule
    condition: Condition | None  # None: the controller ignores rules (DRADeviceTaintRules off)
    # Pods the rule evicts (NoExecute), or would evict if its effect were NoExecute (None).
    pods: tuple[PodEviction, ...] = ()

    @property
    def dry_run(self) -> bool:
        return self.rule.taint.effect == NONE


@dataclass(frozen=True)
class Report:
    rules: tuple[RuleReport, ...]
    evictions: tuple[PodEviction, ...]  # pods the controller evicts, by rules and by slice taints
    taints_enabled: bool = True
    rules_enabled: bool = True


def _count(n: int, one: str, many: str) -> str:
    return one if n == 1 else many.format(n)


def condition(
    rule: TaintRule, pods: int, namespaces: int, published: int = 0, allocated: int = 0
) -> Condition:
    effect = rule.taint.effect
    if effect == NO_EXECUTE:
        if pods == 0:
            return Condition("False", "NotStarted", "")
        message = _count(pods, "1 pod needs to be evicted in ", "{} pods need to be evicted in ")
        message += _count(namespaces, "1 namespace.", "{} different namespaces.")
        return Condition("True", "PodsPendingEviction", message)
    if effect == NONE:
        message = _count(published, "1 published device selected. ", "{} published devices selected. ")
        message += _count(allocated, "1 allocated device selected. ", "{} allocated devices selected. ")
        message += _count(pods, "1 pod would be evicted in ", "{} pods would be evicted in ")
        message += _count(namespaces, "1 namespace ", "{} different namespaces ")
        return Condition("False", "NoEffect", message + _DRY_RUN_END)
    return Condition("False", "OtherEffect", "Eviction only happens for the NoExecute effect.")


def _by(rule: TaintRule, evictions: list[PodEviction]) -> tuple[PodEviction, ...]:
    return tuple(e for e in evictions if any(s.rule == rule.name for s in e.sources))


def _rule_report(rule: TaintRule, facts: EvictionFacts, evictions: list[PodEviction]) -> RuleReport:
    if rule.taint.effect == NONE:
        pods = _by(rule, pod_evictions(facts, [as_no_execute(rule)]))
        published = sum(rule.selects(d.driver, d.pool, d.name) for d in facts.published)
        allocated = sum(
            rule.selects(r.driver, r.pool, r.device) for c in facts.claims.values() for r in c.results
        )
    else:
        pods = _by(rule, evictions) if rule.taint.effect == NO_EXECUTE else ()
        published = allocated = 0
    namespaces = len({e.pod.namespace for e in pods})
    return RuleReport(rule, condition(rule, len(pods), namespaces, published, allocated), pods)


def report(facts: EvictionFacts, only: str | None = None) -> Report:
    """Every rule's status (or only the named rule's), and the pods the controller evicts."""
    rules = [r for r in facts.rules if only is None or r.name == only]
    if only is not None and not rules:
        raise InputError(f'--rule: devicetaintrules.resource.k8s.io "{only}" not found')
    if not facts.taints_enabled:
        return Report(tuple(RuleReport(r, None) for r in rules), (), False, facts.rules_enabled)
    active = [r for r in facts.rules if r.taint.effect == NO_EXECUTE] if facts.rules_enabled else []
    evictions = pod_evictions(facts, active)
    if only is not None:
        evictions = [e for e in evictions if any(s.rule == only for s in e.sources)]
    if not facts.rules_enabled:
        return Report(tuple(RuleReport(r, None) for r in rules), tuple(evictions), True, False)
    return Report(tuple(_rule_report(r, facts, evictions) for r in rules), tuple(evictions))
