"""How preemption ranks pods: victim importance (MoreImportantVictim for single pods) and start times.

Upstream's GetPodStartTime counts a pod without status.startTime as started "now", that is later
than every recorded start; kubefit uses one fixed "now" for the whole run so that results do not
depend on the clock, and equal start times fall through to upstream's last tie-breaker, the UID.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache

from ....model.cluster.facts import Pod

NOT_STARTED = (1 << 63) - 1  # in nanoseconds since the epoch: after every real start time

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@lru_cache(maxsize=8192)
def start_ns(start_time: str) -> int:
    """status.startTime (RFC 3339) in nanoseconds since the epoch; NOT_STARTED for ""."""
    if not start_time:
        return NOT_STARTED
    moment = datetime.fromisoformat(start_time)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def importance(pod: Pod) -> tuple[int, int, str]:
    """Sort key, most important first: higher priority, then earlier start, then smaller UID.

    The UID makes the order total, so any correct sort gives upstream's order."""
    return (-pod.priority, start_ns(pod.start_time), pod.uid)


def by_importance(pods: Sequence[Pod]) -> list[Pod]:
    return sorted(pods, key=importance)


def earliest_start_of_highest(victims: Sequence[Pod]) -> int:
    """GetEarliestPodStartTime: the earliest start among the victims of the highest priority."""
    highest = victims[0].priority
    earliest = start_ns(victims[0].start_time)
    for pod in victims:
        started = start_ns(pod.start_time)
        if pod.priority == highest:
            earliest = min(earliest, started)
        elif pod.priority > highest:
            highest = pod.priority
            earliest = started
    return earliest
