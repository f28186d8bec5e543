"""kube-scheduler's FitError message: `0/N nodes are available: <histogram>. <postfilter>`

Every node's reasons are counted (a node with two reasons counts in both), nodes the cycle
never evaluated count with the status they were given as a group (PreFilter narrowing,
"Preemption is not helpful for scheduling"), and the entries `<count> <reason>` are sorted
as strings, as upstream sorts them. When PreFilter rejected the pod its message stands in
for the histogram.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from itertools import chain
from operator import attrgetter

from .framework import Status

NO_NODE_AVAILABLE = "0/{} nodes are available"
_REASONS = attrgetter("reasons")


def histogram(num_all_nodes: int, statuses: Mapping[str, Status], absent: Status | None = None) -> list[str]:
    """`<count> <reason>` entries, sorted as strings."""
    counts = Counter(chain.from_iterable(map(_REASONS, statuses.values())))
    missing = num_all_nodes - len(statuses)
    if missing > 0 and absent is not None:
        for reason in absent.reasons:
            counts[reason] = counts.get(reason, 0) + missing
    return sorted(f"{count} {reason}" for reason, count in counts.items())


def fit_error_message(
    num_all_nodes: int,
    statuses: Mapping[str, Status],
    absent: Status | None = None,
    pre_filter_msg: str = "",
    post_filter_msg: str = "",
) -> str:
    message = NO_NODE_AVAILABLE.format(num_all_nodes) + ":"
    if pre_filter_msg:
        message += f" {pre_filter_msg}."
    else:
        entries = histogram(num_all_nodes, statuses, absent)
        if entries:
            message += f" {', '.join(entries)}."
    if post_filter_msg:
        # Appended as it is: PostFilter messages bring their own closing period, if any.
        message += f" {post_filter_msg}"
    return message
