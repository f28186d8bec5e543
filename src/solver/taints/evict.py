"""Which pods the device taint eviction controller evicts, when, and because of which taints.

Upstream: `claimEvictionTime`, `allEvictingDeviceTaints`, `podEvictionTime` and
`ruleMatchesDevice` in kubernetes/kubernetes `pkg/controller/devicetainteviction/`.
A claim is affected by every NoExecute taint of a device it was allocated (the taints the
ResourceSlice publishes for the device, and the DeviceTaintRules whose selector matches the
allocation result, whether or not the device is still published) that the result's own
tolerations do not tolerate forever. Its pods are evicted at the earliest `timeAdded` plus
the shortest `tolerationSeconds` of those taints. Only tolerations with effect NoExecute
count there, as upstream compares them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from ...model.taints import NO_EXECUTE, AllocatedClaim, AllocatedDevice, EvictionFacts, PodUse, TaintRule
from ...model.terms import Taint, Toleration
from .go_time import SECOND, add, duration_text, parse_time, rfc3339, seconds_duration

log = logging.getLogger("kubefit")

_FOREVER = -1
_MAX_SECONDS = ((1 << 63) - 1) // SECOND  # the most seconds a time.Duration holds


@dataclass(frozen=True)
class Deadline:
    """A taint's timeAdded plus tolerationSeconds (timeAdded None: the input does not say), added as
    the controller adds them: `time.Duration(seconds) * time.Second` wraps past 292 years."""

    added: int | None  # nanoseconds since the epoch (go_time)
    seconds: int = 0

    @property
    def delay(self) -> int:
        """The tolerated time in nanoseconds, as Go's time.Duration holds it."""
        return seconds_duration(self.seconds)

    @property
    def at(self) -> int | None:
        return add(self.added, self.delay) if self.added is not None else None

    def key(self) -> tuple[bool, int, int]:
        # Known times first: an unknown timeAdded cannot be placed among them.
        at = self.at
        return (at is None, at or 0, self.delay)

    def __str__(self) -> str:
        at = self.at
        if at is not None:
            return rfc3339(at)
        delay = self.delay
        if delay > 0:
            return f"{duration_text(delay)} after the taint is added"
        return f"{duration_text(-delay)} before the taint is added" if delay else "when the taint is added"


@dataclass(frozen=True)
class TaintSource:
    """Where an evicting taint comes from: a DeviceTaintRule, or a device's entry in a ResourceSlice."""

    taint: Taint
    rule: str = ""
    slice: str = ""
    device: tuple[str, str, str] = ("", "", "")  # driver, pool, device of a slice taint
    index: int = 0  # the taint's index in the device's list

    def key(self) -> tuple[int, str, str, str, str, int]:
        """Rules first, by name; then slice taints by driver, pool, device and index (as upstream sorts)."""
        if self.rule:
            return (0, self.rule, "", "", "", 0)
        return (1, "", *self.device, self.index)

    def __str__(self) -> str:
        if self.rule:
            return f"DeviceTaintRule {self.rule}"
        return f"ResourceSlice {self.slice} {'/'.join(self.device)} taint #{self.index}"


@dataclass(frozen=True)
class PodEviction:
    pod: PodUse
    deadline: Deadline
    sources: tuple[TaintSource, ...]  # every taint that evicts it, sorted
    claims: tuple[str, ...]  # the claims that carry them (names in the pod's namespace)


def tolerated_for(tolerations: Sequence[Toleration], taint: Taint) -> int:
    """Seconds the result tolerates a NoExecute taint: the shortest matching tolerationSeconds (negative
    counts as 0), 0 without a matching toleration, _FOREVER when one matches without a limit."""
    seconds: int | None = None
    for toleration in tolerations:
        if toleration.effect != NO_EXECUTE or not toleration.tolerates(taint):
            continue
        if toleration.toleration_seconds is None:
            return _FOREVER
        limit = max(0, toleration.toleration_seconds)
        seconds = limit if seconds is None else min(seconds, limit)
    return seconds or 0


def evicting_taints(
    result: AllocatedDevice, facts: EvictionFacts, rules: Sequence[TaintRule]
) -> Iterator[TaintSource]:
    """The NoExecute taints on one allocated device: the slice's first, then the rules'."""
    device = facts.device(result.driver, result.pool, result.device)
    if device is not None:
        for index, taint in enumerate(device.taints):
            if taint.effect == NO_EXECUTE:
                where = (device.driver, device.pool, device.name)
                yield TaintSource(taint, slice=device.slice, device=where, index=index)
    for rule in rules:
        if rule.taint.effect == NO_EXECUTE and rule.selects(result.driver, result.pool, result.device):
            yield TaintSource(rule.taint, rule=rule.name)


def claim_eviction(
    claim: AllocatedClaim, facts: EvictionFacts, rules: Sequence[TaintRule]
) -> tuple[Deadline, tuple[TaintSource, ...]] | None:
    """When pods using the claim must go and why; None when every taint is tolerated forever."""
    best: Deadline | None = None
    sources: dict[tuple[int, str, str, str, str, int], TaintSource] = {}
    for result in claim.results:
        for source in evicting_taints(result, facts, rules):
            seconds = tolerated_for(result.tolerations, source.taint)
            if seconds == _FOREVER:
                continue
            sources.setdefault(source.key(), source)
            deadline = Deadline(parse_time(source.taint.time_added), seconds)
            if deadline.delay != seconds * SECOND:
                log.warning(
                    "ResourceClaim %s: tolerationSeconds %d overflows Go's time.Duration (at most %d "
                    "seconds): the controller counts it as %s",
                    claim.ref,
                    seconds,
                    _MAX_SECONDS,
                    duration_text(deadline.delay),
                )
            if best is None or deadline.key() < best.key():
                best = deadline
    if best is None:
        return None
    return best, tuple(sources[k] for k in sorted(sources))


def pod_evictions(facts: EvictionFacts, rules: Sequence[TaintRule]) -> list[PodEviction]:
    """Every pod the controller evicts given these rules (and the taints slices publish): scheduled, not
    being deleted, using an allocated claim reserved for it whose devices carry an untolerated taint."""
    by_claim: dict[str, tuple[Deadline, tuple[TaintSource, ...]] | None] = {}
    out = []
    for pod in facts.pods:
        if not pod.node or pod.deleting:
            continue
        deadline: Deadline | None = None
        sources: dict[tuple[int, str, str, str, str, int], TaintSource] = {}
        claims = []
        for name in pod.claims:
            claim = facts.claims.get(f"{pod.namespace}/{name}")
            if claim is None or not claim.reserved_for_pod(pod.name, pod.uid):
                continue
            if claim.ref not in by_claim:
                by_claim[claim.ref] = claim_eviction(claim, facts, rules)
            found = by_claim[claim.ref]
            if found is None:
                continue
            when, why = found
            claims.append(name)
            sources.update((s.key(), s) for s in why)
            if deadline is None or when.key() < deadline.key():
                deadline = when
        if deadline is not None:
            out.append(PodEviction(pod, deadline, tuple(sources[k] for k in sorted(sources)), tuple(claims)))
    return out


def as_no_execute(rule: TaintRule) -> TaintRule:
    """The rule as the controller simulates an `effect: None` rule."""
    return replace(rule, taint=replace(rule.taint, effect=NO_EXECUTE))
