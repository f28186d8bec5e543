"""PrioritySort: the scheduling queue's order, higher priority first and then first come, first served
(pkg/scheduler/framework/plugins/queuesort)."""

from __future__ import annotations

from ....model.cluster import names
from ..framework import Plugin, QueuedPod


class PrioritySort(Plugin):
    name = names.PRIORITY_SORT
    points = names.POINTS_OF[names.PRIORITY_SORT]

    def less(self, a: QueuedPod, b: QueuedPod) -> bool:
        pa, pb = a.pod.priority, b.pod.priority
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)
